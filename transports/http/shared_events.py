"""SSE events of legacy sessions, shared between worker processes via an `EventLog`.

Each event is stored here as always (the endpoint numbers and stores it as it
writes it, synchronously) and also queued for the shared log, which a task of the
service appends in order (write-behind: the hot path never waits on Redis). Ids
carry this worker's tag, so those of two workers never collide in one session.

A client that reconnects with ``Last-Event-ID`` to a worker that did not send
that event: before the endpoint decides, `prefetch` reads the session's events
from the log (waiting a moment for a write still on its way from the other
worker), and `replay_after` answers from what it read. The endpoint's rules are
unchanged (the adapter does the I/O first).

A request's stream lives on the worker serving the request, whose tag begins
the stream's id; that worker names the stream's request in the log and beats
while it runs. A client resuming it on another worker (its connection was cut,
or its worker killed) is answered there from the log (`Follower`): what was
sent, then what comes, until the response; if the serving worker stops beating
first, the stream ends with an error response (`lost_answer`), never silently.
"""

from __future__ import annotations

import logging
import math
import secrets
from collections.abc import Awaitable, Callable
from typing import NamedTuple

import anyio
import msgspec
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from mcp_core.http.decisions import HttpRequest
from mcp_core.http.server import HttpEndpoint
from mcp_core.http.sessions import STANDALONE_STREAM, HttpSession, MemoryEventStore
from mcp_core.http.shared import EventLog, answers, lost_answer
from mcp_core.wire import RequestId, encode_event
from mcp_core.wire.errors import SharedStateUnavailable

__all__ = ["EventShipper", "Follower", "SharedEventStore", "worker_of"]

log = logging.getLogger("mcp_core")

FLUSH_WAIT = 1.0
"""Seconds a resume waits for an event another worker has yet to append."""


FOLLOW_POLL = 0.2
"""Seconds between reads of the log while following another worker's stream."""

BEAT = 1.0
"""Seconds between a worker's beats; it counts as gone 3 beats after its last."""


class Append(NamedTuple):
    principal: str | None
    session_id: str
    stream_id: str
    event_id: str
    message: bytes | None


class Named(NamedTuple):
    principal: str | None
    session_id: str
    stream_id: str
    request_id: bytes


def worker_of(stream_id: str) -> str:
    """The tag of the worker serving a request stream ("" for none: the
    standalone stream, or a stream of a single process)."""
    return stream_id[: stream_id.rfind(".") + 1]


class SharedEventStore:
    """The `EventStore` of one legacy session: kept here, copied to the log."""

    def __init__(self, local: MemoryEventStore, ship: EventShipper) -> None:
        self.local = local
        self.ship = ship
        self.session_id: str | None = None
        self.principal: str | None = None
        self._standalone_here: Callable[[], bool] = lambda: False
        self._loaded: dict[str, tuple[str, list[tuple[str, bytes]]]] = {}

    def bind(
        self, session_id: str, principal: str | None, standalone_here: Callable[[], bool]
    ) -> None:
        """Name the session (its events are shipped from then on);
        ``standalone_here()`` tells whether its standalone stream is attached
        to this worker."""
        self.session_id = session_id
        self.principal = principal
        self._standalone_here = standalone_here

    def store(self, stream_id: str, message: bytes | None) -> str:
        event_id = self.local.store(stream_id, message)
        # Every worker holding the session hears a change notification, but
        # only the one whose standalone stream is attached sends it: only its
        # events of that stream are the client's to resume. A priming event is
        # made by the worker opening the stream; a request's stream lives on
        # the one worker serving it.
        if self.session_id is not None and (
            stream_id != STANDALONE_STREAM or message is None or self._standalone_here()
        ):
            self.ship.queue(Append(self.principal, self.session_id, stream_id, event_id, message))
        return event_id

    def name(self, stream_id: str, request_id: RequestId) -> None:
        """Stream ``stream_id`` answers request ``request_id``: say so in the log."""
        if self.session_id is not None:
            request = msgspec.json.encode(request_id)
            self.ship.queue(Named(self.principal, self.session_id, stream_id, request))

    def replay_after(self, event_id: str) -> tuple[str, list[tuple[str, bytes]]] | None:
        found = self.local.replay_after(event_id)
        return found if found is not None else self._loaded.pop(event_id, None)

    async def prefetch(self, event_log: EventLog, event_id: str) -> None:
        """Read what followed ``event_id`` from the log, when it is not here."""
        if self.session_id is None or self.local.replay_after(event_id) is not None:
            return
        with anyio.move_on_after(FLUSH_WAIT):
            while True:
                found = await event_log.after(self.principal, self.session_id, event_id)
                if found is not None:
                    self._loaded[event_id] = found
                    return
                await anyio.sleep(0.05)


class EventShipper:
    """The queue of events for the shared log, and the task that appends them."""

    def __init__(self, event_log: EventLog, max_events: int, max_bytes: int) -> None:
        self.event_log = event_log
        self.max_events = max_events
        self.max_bytes = max_bytes
        self.tag = secrets.token_hex(3) + "."
        send, receive = anyio.create_memory_object_stream[Append | Named](math.inf)
        self._send: MemoryObjectSendStream[Append | Named] = send
        self._receive: MemoryObjectReceiveStream[Append | Named] = receive

    def store(self) -> SharedEventStore:
        """A new session's event store (the endpoint's ``event_store`` factory)."""
        return SharedEventStore(
            MemoryEventStore(self.max_events, self.max_bytes, id_prefix=self.tag), self
        )

    def queue(self, item: Append | Named) -> None:
        self._send.send_nowait(item)

    async def run(self) -> None:
        """Append queued events, in order, and name streams, until cancelled:
        what is queued when the log is free goes in one round trip."""
        async for first in self._receive:
            batch = [first]
            while len(batch) < 256:
                try:
                    batch.append(self._receive.receive_nowait())
                except anyio.WouldBlock:
                    break
            events = [item for item in batch if isinstance(item, Append)]
            names = [item for item in batch if isinstance(item, Named)]
            try:
                await self.event_log.append_many(events, names)
            except SharedStateUnavailable as exc:
                log.warning("%d SSE events are not shared: %s", len(batch), exc)

    async def beat(self) -> None:
        """Say this worker is alive, every `BEAT` seconds, until cancelled."""
        while True:
            try:
                await self.event_log.beat(self.tag, 3 * BEAT)
            except SharedStateUnavailable as exc:
                log.warning("cannot say this worker is alive: %s", exc)
            await anyio.sleep(BEAT)

    def follower(self, session: HttpSession, stream_id: str, last: str | None) -> Follower | None:
        """How to answer a resume of ``stream_id`` that is not live here: from
        the log when another worker serves it (None: the replay is all)."""
        writer = worker_of(stream_id)
        if last is None or not writer or writer == self.tag:
            return None
        return Follower(self.event_log, session, stream_id, last, writer)

    async def prefetch(self, endpoint: HttpEndpoint, head: HttpRequest) -> None:
        """Before the endpoint decides on a GET with ``Last-Event-ID``."""
        last = head.headers.get("last-event-id")
        session_id = head.headers.get("mcp-session-id")
        if head.method != "GET" or last is None or session_id is None:
            return
        session = endpoint.sessions.get(session_id)
        if session is not None and isinstance(session.events, SharedEventStore):
            try:
                await session.events.prefetch(self.event_log, last)
            except SharedStateUnavailable as exc:
                log.warning("cannot read the events of session %s: %s", session_id, exc)


class Follower:
    """A resumed stream that another worker serves (or served), answered from
    the log: `follow` sends what followed ``last`` on it, then what the log
    gets, until the response; an error response if its worker stops beating
    first. Reads the log every `FOLLOW_POLL` seconds (a resume after a cut is
    rare; the log is read only while one is open)."""

    def __init__(
        self, event_log: EventLog, session: HttpSession, stream_id: str, last: str, writer: str
    ) -> None:
        self.event_log = event_log
        self.session = session
        self.stream_id = stream_id
        self.last = last
        self.writer = writer

    async def _after(self) -> list[tuple[str, bytes]] | None:
        # The events after the last one sent; None when the log forgot it.
        found = await self.event_log.after(self.session.principal, self.session.id, self.last)
        return None if found is None else found[1]

    async def follow(
        self, endpoint: HttpEndpoint, send: Callable[[bytes], Awaitable[None]], ping: float
    ) -> None:
        """Send the stream's events with ``send`` until its response (an SSE
        comment after ``ping`` quiet seconds); return early when the log is out
        of reach or has forgotten the last event sent (the client resumes
        again), or after the replay for a stream whose request is not named
        (a batch's)."""
        session, log_ = self.session, self.event_log
        try:
            request = await log_.request_of(session.principal, session.id, self.stream_id)
            quiet = 0.0
            while True:
                events = await self._after()
                gone = False
                if events == [] and request is not None and not await log_.alive(self.writer):
                    gone = True
                    events = await self._after()  # what it shipped just before it went
                if events is None:
                    return
                if events:
                    await send(b"".join(encode_event(data, id=eid) for eid, data in events))
                    self.last, quiet = events[-1][0], 0.0
                if request is None or answers([data for _, data in events], request):
                    return
                if gone and not events:
                    await send(endpoint.event(session.id, self.stream_id, lost_answer(request)))
                    return
                if events:
                    continue
                await anyio.sleep(FOLLOW_POLL)
                quiet += FOLLOW_POLL
                if quiet >= ping:
                    await send(b":\n\n")
                    quiet = 0.0
        except SharedStateUnavailable as exc:
            log.warning(
                "cannot follow stream %s of session %s: %s", self.stream_id, session.id, exc
            )
