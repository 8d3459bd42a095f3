"""Legacy sessions shared between worker processes, through a `SessionRegistry`.

A session opened on one worker is registered once its ``initialize`` is answered;
a request naming a session this worker does not hold is looked up in the
registry first and, when found under the request's principal, the session is
taken up here: a new protocol side resumed in the registered revision, with the
registered client (`ServerSession.resume`), bound to the endpoint
(`HttpEndpoint.adopt`). The endpoint then decides as for any session (the core
decides, this module does the I/O). A handler in flight stays where it runs.

The registry keeps a session for the endpoint's idle timeout after the last
renewal; a worker renews a session it serves at most every quarter of that.
"""

from __future__ import annotations

import contextlib
import logging
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import anyio
import msgspec
from anyio.abc import TaskGroup, TaskStatus
from msgspec import UNSET

from mcp_core import Server
from mcp_core.http.decisions import HttpRequest, Reply, refuse
from mcp_core.http.server import HttpEndpoint
from mcp_core.http.shared import SessionRecord, SessionRegistry, client_of, record_of
from mcp_core.wire.errors import SERVICE_UNAVAILABLE, LocalProtocolError, SharedStateUnavailable

from ..server_connection import ServerConnection

__all__ = ["Relay", "SharedSessions", "unavailable"]

log = logging.getLogger("mcp_core")


def unavailable(exc: SharedStateUnavailable) -> Reply:
    """503: the shared state store is out of reach; nothing was done."""
    return refuse(503, str(exc), SERVICE_UNAVAILABLE, headers=(("retry-after", "1"),))


class SharedSessions:
    """The registry side of one HTTP service's legacy sessions."""

    def __init__(self, registry: SessionRegistry, endpoint: HttpEndpoint) -> None:
        self.registry = registry
        self.endpoint = endpoint
        self.ttl = endpoint.config.session_idle_timeout
        # Session id -> (its record, when it was last put), for renewals.
        self._records: dict[str, tuple[SessionRecord, float]] = {}

    async def before(
        self,
        head: HttpRequest,
        principal: str | None,
        now: float,
        take_up: Callable[[str], ServerConnection],
        let_go: Callable[[str], None],
    ) -> Reply | None:
        """Before the endpoint decides on ``head``: take up the session it names
        if another worker holds it (``take_up(session_id)`` makes, binds and
        returns its protocol side), or, for one held here, check that it still
        is registered (one round trip: ended by DELETE or expired on another
        worker, it is ended here too with ``let_go``) and renew it now and then.

        Returns:
            A 503 when the registry cannot be reached, else None.
        """
        session_id = head.headers.get("mcp-session-id")
        if session_id is None:
            return None
        held = self.endpoint.sessions.get(session_id)
        try:
            # Looked up under the principal that opened it, when held here: a
            # request from someone else must not end it (the endpoint 404s it).
            record = await self.registry.get(
                principal if held is None else held.principal, session_id
            )
            if held is not None:
                if record is None:
                    self._records.pop(session_id, None)
                    let_go(session_id)
                else:
                    await self._renew(session_id, record)
                return None
        except SharedStateUnavailable as exc:
            return unavailable(exc)
        if record is None or not self.endpoint.needs_session(session_id):
            return None  # the endpoint answers 404
        self.endpoint.adopt(session_id, principal, now)
        connection = take_up(session_id)
        try:
            # Request ids of ours in a range of this worker's own (see resume).
            first = secrets.randbelow(1 << 40) + (1 << 20)
            connection.session.resume(record.revision, client_of(record), first_request_id=first)
        except LocalProtocolError:
            # A revision this worker does not serve: as if unknown here.
            log.warning("session %s is in %s, not served here", session_id, record.revision)
        self._records[session_id] = (record, time.monotonic())
        return None

    async def opened(
        self, session_id: str, principal: str | None, protocol: object
    ) -> Reply | None:
        """A session's ``initialize`` was answered here: register it.

        Returns:
            A 503 when the registry cannot be reached (the caller ends the
            session), else None.
        """
        record = record_of(session_id, principal, protocol, time.time())
        if record is None:
            return None
        try:
            await self.registry.put(record, self.ttl)
        except SharedStateUnavailable as exc:
            return unavailable(exc)
        self._records[session_id] = (record, time.monotonic())
        return None

    async def _renew(self, session_id: str, record: SessionRecord) -> None:
        found = self._records.get(session_id)
        if found is not None and time.monotonic() - found[1] < self.ttl / 4:
            return
        await self.registry.put(record, self.ttl)
        self._records[session_id] = (record, time.monotonic())

    async def ended(self, session_id: str, principal: str | None) -> None:
        """The client ended the session (DELETE): forget it everywhere."""
        self._records.pop(session_id, None)
        try:
            await self.registry.drop(principal, session_id)
        except SharedStateUnavailable:
            log.warning("could not drop session %s from the registry; it expires", session_id)

    def forget(self, session_id: str) -> None:
        """This worker let go of a session (idle here); the registry keeps it."""
        self._records.pop(session_id, None)


class Relay:
    """Change notifications, ended sessions and cancelled tasks, between this
    worker and the others, over the server's `Bus`.

    A change made here (the registry's watchers) goes to the bus; one made
    elsewhere comes from it and is handed to this worker's sessions
    (`Server.relay`), which send it where their clients asked for it. A session
    ended by DELETE on another worker is ended here too, and so is the work of
    a task cancelled on another worker (`TaskEngine.stop_elsewhere`).

    While the bus is out of reach (Redis down), messages for it wait in a queue
    of 1000 (beyond, they are dropped at once) and are published in order, each
    within the connection's timeout or dropped, with a warning. The messages
    other workers published meanwhile are lost to this one; so, once it listens
    again, every stream open here is told that each list may have changed
    (`Server.relay_missed`), whatever was dropped on either side.
    """

    CHANGES = "changes"
    ENDED = "ended"
    REPLIES = "replies"
    STOPS = "stops"

    def __init__(
        self,
        server: Server,
        end: Callable[[str], None],
        deliver: Callable[[str, bytes], None],
    ) -> None:
        assert server.bus is not None
        self.server = server
        self.bus = server.bus
        self.end = end
        self.deliver = deliver
        self.origin = secrets.token_hex(8).encode()
        self._out_send, self._out = anyio.create_memory_object_stream[tuple[str, bytes]](1000)
        self._relaying = False

    def _changed(self, method: str, params: Any) -> None:
        if self._relaying:
            return
        body = msgspec.json.encode({"m": method, "p": None if params is UNSET else params})
        try:
            self._out_send.send_nowait((self.CHANGES, self.origin + b" " + body))
        except anyio.WouldBlock:
            log.warning("the bus is behind; a %s was not relayed to other workers", method)

    def ended(self, session_id: str) -> None:
        """Tell the other workers a session ended."""
        with contextlib.suppress(anyio.WouldBlock):
            self._out_send.send_nowait((self.ENDED, self.origin + b" " + session_id.encode()))

    def _stop_elsewhere(self, principal: str, task_id: str) -> None:
        body = msgspec.json.encode((principal, task_id))
        try:
            self._out_send.send_nowait((self.STOPS, body))
        except anyio.WouldBlock:
            log.warning("the bus is behind; task %s may run on until it next looks", task_id)

    async def route_reply(self, session_id: str, body: bytes) -> None:
        """A client's answer to a request that another worker's handler awaits
        (sampling, elicitation, roots), or its cancellation of a request another
        worker serves: to every worker, for the one that holds the request.

        Raises:
            SharedStateUnavailable: the bus cannot be reached.
        """
        await self.bus.publish(self.REPLIES, session_id.encode() + b" " + body)

    async def run(self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        """Relay until cancelled. Started once listening, or once the first try
        failed (a worker serves without the bus rather than not at all); a lost
        connection is listened on again, a second later."""
        unwatch = self.server.watch(self._changed)
        engine = self.server.tasks.engine
        engine.stop_elsewhere = self._stop_elsewhere
        started = lost = False
        try:
            async with anyio.create_task_group() as tg:
                tg.start_soon(self._send)
                while True:
                    try:
                        async with (
                            self.bus.listen(self.CHANGES) as changes,
                            self.bus.listen(self.ENDED) as ended,
                            self.bus.listen(self.REPLIES) as replies,
                            self.bus.listen(self.STOPS) as stops,
                            anyio.create_task_group() as inner,
                        ):
                            if not started:
                                started = True
                                task_status.started()
                            if lost:
                                # Listening again: what was published while
                                # this worker was not is lost; say so.
                                lost = False
                                self._missed()
                            inner.start_soon(self._until_done, inner, self._take_changes(changes))
                            inner.start_soon(self._until_done, inner, self._take_ended(ended))
                            inner.start_soon(self._until_done, inner, self._take_replies(replies))
                            inner.start_soon(self._until_done, inner, self._take_stops(stops))
                    except Exception as exc:
                        log.warning("the bus to other workers failed (%r); again in 1 s", exc)
                    lost = True
                    if not started:
                        started = True
                        task_status.started()
                    await anyio.sleep(1.0)
        finally:
            unwatch()
            engine.stop_elsewhere = None

    def _missed(self) -> None:
        self._relaying = True
        try:
            self.server.relay_missed()
        finally:
            self._relaying = False

    @staticmethod
    async def _until_done(group: TaskGroup, work: Awaitable[None]) -> None:
        # One listener ended (its connection went): listen anew, both.
        await work
        group.cancel_scope.cancel()

    async def _send(self) -> None:
        async for topic, message in self._out:
            try:
                await self.bus.publish(topic, message)
            except SharedStateUnavailable as exc:
                log.warning("could not relay to other workers: %s", exc)

    async def _take_changes(self, messages: AsyncIterator[bytes]) -> None:
        async for message in messages:
            origin, _, body = message.partition(b" ")
            if origin == self.origin:
                continue
            try:
                change = msgspec.json.decode(body, type=_Change)
            except msgspec.DecodeError:
                continue
            self._relaying = True
            try:
                self.server.relay(change.m, UNSET if change.p is None else change.p)
            finally:
                self._relaying = False

    async def _take_ended(self, messages: AsyncIterator[bytes]) -> None:
        async for message in messages:
            origin, _, session_id = message.partition(b" ")
            if origin != self.origin:
                self.end(session_id.decode(errors="replace"))

    async def _take_replies(self, messages: AsyncIterator[bytes]) -> None:
        async for message in messages:
            session_id, _, body = message.partition(b" ")
            self.deliver(session_id.decode(errors="replace"), body)

    async def _take_stops(self, messages: AsyncIterator[bytes]) -> None:
        # A task cancelled on another worker: its work stops here if it runs here.
        engine = self.server.tasks.engine
        async for message in messages:
            try:
                principal, task_id = msgspec.json.decode(message, type=tuple[str, str])
            except msgspec.DecodeError:
                continue
            engine.stop(principal, task_id)


class _Change(msgspec.Struct):
    m: str
    p: Any = None
