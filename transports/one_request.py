# Serving one 2026-07-28 request on a session of its own, in the caller's task.
#
# A 2026-07-28 request carries everything a handshake used to settle, so a
# transport that gives each request a session of its own (HTTP: one POST, one
# request) keeps one request's state from every other's: its session, its request
# ids, its peer. Such a request needs less than a `ServerConnection`: it is fed one
# message and served by its `Serving` (`transports.serving`, as every request is)
# in the task that answers it, so there is no handler task and no timer (a
# 2026-07-28 server sends no requests whose deadlines would need one).
# `OneRequest` is that much: the session, the handler's Context with its
# `RequestPeer`, and the sink its output goes to.
#
# What ends the request is `close`, when its answer is written (or its client has
# gone). A handler's task that sends after that (one it detached, a worker thread
# abandoned on cancel) meets a closed request, and what it sends is dropped, as
# with a closed `Driver`. Cancellation is the caller's: its scope around
# `Serving.serve` (HTTP: a hang-up); nothing else can cancel a request that came
# alone.

from __future__ import annotations

import logging
import time
from typing import Any

from anyio.abc import TaskGroup

from mcp_core import (
    REVISIONS,
    Context,
    Limits,
    LocalProtocolError,
    RemoteProtocolError,
    Server,
    SessionState,
)
from mcp_core.session import ProtocolViolation, RequestReceived
from mcp_core.wire import DEFAULT_LIMITS, Message, RequestId

from .access import server_session
from .audience import Audience, join
from .driver import ConnectionClosed, Sink
from .server_connection import RequestPeer
from .serving import Serving
from .telemetry import hooks

__all__ = ["OneRequest"]

log = logging.getLogger("mcp_core.server")

_ERROR = SessionState.ERROR
_now = time.monotonic  # the session's clock, as the driver's


class OneRequest:
    """One request served by ``server`` on a session of its own.

    Args:
        server: the application.
        sink: where everything the session sends goes (see `transports.driver.Sink`).
        background: where tasks (mcp_core/tasks) run, beyond the request.
        revisions: protocol revisions to serve.
        principal: who the transport authenticated the client as, if anyone.
        limits: message size and nesting limits.
    """

    __slots__ = (
        "_audience",
        "_sink",
        "background",
        "closed",
        "principal",
        "server",
        "serving",
        "session",
    )

    #: What telemetry records (see `ServerConnection.session_id`): a request
    #: served on its own has no session; it came over HTTP.
    session_id: str | None = None
    network_transport: str | None = "tcp"

    def __init__(
        self,
        server: Server,
        sink: Sink,
        background: TaskGroup,
        *,
        revisions: tuple[str, ...] = REVISIONS,
        principal: str | None = None,
        limits: Limits = DEFAULT_LIMITS,
    ) -> None:
        self.server = server
        self.principal = principal
        self.background = background
        self.session = server_session(
            server.config(revisions=revisions), limits, principal=principal
        )
        observer = hooks.server
        if observer is not None:  # its notifications: progress, logs, subscriptions
            observer.observe(self.session, self)
        self._sink = sink
        self._audience: Audience | None = None
        #: True once the request ended: nothing more is sent.
        self.closed = False
        #: Serves the request in the caller's task (every job is kept).
        self.serving = Serving(self, None, self._handle, 1)

    def feed(self, item: bytes | Message) -> list[RequestReceived]:
        """Take the request; returns what is left for ``serving.serve`` to serve
        (nothing when the session answered it, or refused it, on its own)."""
        session = self.session
        try:
            if type(item) is bytes:
                events = session.receive_bytes(item, _now())
            else:
                events = session.receive_message(item, _now())  # type: ignore[arg-type]
        except RemoteProtocolError:  # the session was already broken: nothing was read
            self.close()
            return []
        jobs: list[RequestReceived] = []
        serving = self.serving
        serving.keep = jobs
        for event in events:
            if type(event) is RequestReceived:
                serving.take(event)
            elif type(event) is ProtocolViolation:
                log.debug("client broke the protocol: %s (%s)", event.message, event.code)
        serving.keep = None
        self.flush()
        if session.state is _ERROR:
            self.close()
        return jobs

    def flush(self, related: RequestId | None = None) -> None:
        """Hand whatever the session queued to the sink, unless the request ended."""
        out = self.session.messages_to_send()
        if out and not self.closed:
            self._sink(out, related)

    async def _handle(self, event: RequestReceived) -> Any:
        ctx = Context(
            event,
            RequestPeer(self, self.session, event.id, self.background),
            now=time.time(),
            principal=self.principal,
        )
        server = self.server
        observer = hooks.server
        if observer is None:
            return server.wire_form(await server.dispatch(event, ctx))
        call = server.dispatch(event, ctx)
        return server.wire_form(await observer.serve(event, call, self))

    async def request(self, method: str, params: Any, *, related: RequestId | None = None) -> Any:
        """A server-to-client request: there is none in 2026-07-28 (the session
        refuses it; a handler's Context asks with an InputRequiredResult)."""
        if self.closed:
            raise ConnectionClosed("the request has been answered")
        self.session.send_request(method, params, now=_now())  # raises LocalProtocolError
        raise LocalProtocolError("a request served on its own cannot ask its client")

    def watch(self) -> None:
        """Publish registry changes and task notifications to the request's
        subscription (`ServerSession.publish` decides who wants each): call it
        right after `feed`, when the request opened one."""
        if self._audience is None and not self.closed:
            self._audience = join(self.server, self)

    def end_subscriptions(self) -> None:
        """End the request's subscriptions on the server's initiative (shutting
        down): each gets its completion result, which ends the request's stream
        cleanly (2026-07-28 basic/patterns/subscriptions.mdx "Graceful Closure")."""
        if self.closed or not self.session.subscriptions:
            return
        try:
            self.session.end_subscriptions()
        except LocalProtocolError:
            return  # the session is broken: nothing more is sent
        self.flush()

    def deliver(self, method: str, params: Any) -> bool:
        """Hand a change or task notification to the session; False once closed."""
        if self.closed:
            return False
        if self.session.publish(method, params):
            self.flush()
        return True

    def close(self) -> None:
        """End the request: nothing more is sent, nothing more is heard."""
        if self.closed:
            return
        self.closed = True
        if self._audience is not None:
            self._audience.discard(self)
