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
"""

from __future__ import annotations

import logging
import math
import secrets
from collections.abc import Callable
from typing import NamedTuple

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from mcp_core.http.decisions import HttpRequest
from mcp_core.http.server import HttpEndpoint
from mcp_core.http.sessions import STANDALONE_STREAM, MemoryEventStore
from mcp_core.http.shared import EventLog
from mcp_core.wire.errors import SharedStateUnavailable

__all__ = ["EventShipper", "SharedEventStore"]

log = logging.getLogger("mcp_core")

FLUSH_WAIT = 1.0
"""Seconds a resume waits for an event another worker has yet to append."""


class Append(NamedTuple):
    principal: str | None
    session_id: str
    stream_id: str
    event_id: str
    message: bytes | None


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
        send, receive = anyio.create_memory_object_stream[Append](math.inf)
        self._send: MemoryObjectSendStream[Append] = send
        self._receive: MemoryObjectReceiveStream[Append] = receive

    def store(self) -> SharedEventStore:
        """A new session's event store (the endpoint's ``event_store`` factory)."""
        return SharedEventStore(
            MemoryEventStore(self.max_events, self.max_bytes, id_prefix=self.tag), self
        )

    def queue(self, item: Append) -> None:
        self._send.send_nowait(item)

    async def run(self) -> None:
        """Append queued events, in order, until cancelled: what is queued when
        the log is free goes in one round trip."""
        async for first in self._receive:
            batch = [first]
            while len(batch) < 256:
                try:
                    batch.append(self._receive.receive_nowait())
                except anyio.WouldBlock:
                    break
            try:
                await self.event_log.append_many(batch)
            except SharedStateUnavailable as exc:
                log.warning("%d SSE events are not shared: %s", len(batch), exc)

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
