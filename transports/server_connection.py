# Serving a Server (mcp_core's application layer) on one connection.
#
# A ServerConnection is a ServerSession plus a Driver plus the application: every
# RequestReceived becomes `Server.dispatch(event, Context(...))`, served where
# `transports.serving` puts it, and the Context's Peer is implemented here on top
# of the driver:
#
#   progress  -> ServerSession.send_progress (dropped when no token was given)
#   log       -> ServerSession.send_log, related to the request
#   request   -> a server-to-client request (legacy era only; the Context turns
#                asks into multi round-trip results in 2026-07-28 by itself)
#
# Registry changes (tools added at run time, resource_updated) reach the client
# through `Server.watch` (once for all connections: audience.py) and
# `ServerSession.publish`, which decides who wants them.

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any, Protocol, TypeVar

import anyio
from anyio.abc import ObjectStream, TaskGroup

from mcp_core import REVISIONS, Context, Limits, LocalProtocolError, Server, ServerSession
from mcp_core.session import (
    Event,
    NotificationReceived,
    ProtocolViolation,
    RequestCancelled,
    RequestReceived,
)
from mcp_core.wire import DEFAULT_LIMITS, RequestId

from .access import server_session
from .audience import Audience, join
from .driver import DEFAULT_MAX_CONCURRENCY, Driver
from .pump import DEFAULT_MAX_OUTBOX_BYTES, pump
from .serving import Serving
from .telemetry import Served, ServerObserver, hooks

__all__ = ["ServerConnection", "serve_stream"]

log = logging.getLogger("mcp_core.server")

_T = TypeVar("_T")


class _Signal:
    """A wake-up for the task engine (mcp_core.tasks.host.Signal) on anyio."""

    __slots__ = ("_event",)

    def __init__(self) -> None:
        self._event = anyio.Event()

    def set(self) -> None:
        self._event.set()

    async def wait(self) -> None:
        await self._event.wait()
        self._event = anyio.Event()


async def _run_job(scope: anyio.CancelScope, job: Callable[[], Awaitable[None]]) -> None:
    with scope:
        try:
            await job()
        except Exception:
            # The engine records what the handler did; this is a fault of ours
            # (a store that failed): log it, keep the server serving.
            log.exception("a background task failed")


class _Link(Protocol):
    """What a `RequestPeer` sends through: a `Driver`, or a request served on
    its own (`transports.one_request.OneRequest`)."""

    closed: bool
    serving: Serving

    def flush(self, related: RequestId | None = None) -> None: ...

    async def request(
        self, method: str, params: Any, *, related: RequestId | None = None
    ) -> Any: ...


class RequestPeer:
    """The Context's link to the client, for one request; also the task host
    (mcp_core.tasks.host.TaskHost): a task runs in ``background``, the task group
    of the serving process, beyond this request and its connection."""

    __slots__ = ("background", "driver", "request_id", "session")

    def __init__(
        self,
        driver: _Link,
        session: ServerSession,
        request_id: RequestId,
        background: TaskGroup,
    ) -> None:
        self.driver = driver
        self.session = session
        self.request_id = request_id
        self.background = background

    def start_task(self, job: Callable[[], Awaitable[None]]) -> Callable[[], None]:
        scope = anyio.CancelScope()
        self.background.start_soon(_run_job, scope, job)
        return scope.cancel

    def signal(self) -> _Signal:
        return _Signal()

    def clock(self) -> float:
        return time.time()

    def notify(self, method: str, params: Any) -> None:
        driver = self.driver
        if not driver.closed:
            with contextlib.suppress(LocalProtocolError):  # the session ended
                self.session.send_notification(method, params)
            driver.flush()

    async def send_progress(
        self, progress: float, total: float | None, message: str | None
    ) -> None:
        driver = self.driver
        if not driver.closed and self.session.send_progress(
            self.request_id, progress, total, message
        ):
            driver.flush(self.request_id)

    async def send_log(self, level: str, data: Any, logger: str | None) -> None:
        driver = self.driver
        if not driver.closed:
            self.session.send_log(level, data, logger)
            driver.flush(self.request_id)

    async def request(self, method: str, params: Any) -> Any:
        return await self.driver.request(method, params, related=self.request_id)

    async def send_notification(self, method: str, params: Any) -> None:
        driver = self.driver
        if not driver.closed:
            self.session.send_notification(method, params)
            driver.flush(self.request_id)

    def run_sync(self, fn: Callable[[], _T]) -> Awaitable[_T]:
        # Where a `def` handler's body runs: decided with the rest of where a
        # request is served (`Serving.run_sync`).
        return self.driver.serving.run_sync(fn)


class ObservedPeer(RequestPeer):
    """A `RequestPeer` whose requests to the client are observed: made instead
    of one while a server observer is installed (off, nothing is wrapped)."""

    __slots__ = ("observer", "where")

    def __init__(
        self,
        driver: Driver,
        session: ServerSession,
        request_id: RequestId,
        background: TaskGroup,
        observer: ServerObserver,
        where: Served,
    ) -> None:
        super().__init__(driver, session, request_id, background)
        self.observer = observer
        self.where = where

    async def request(self, method: str, params: Any) -> Any:
        send = partial(self.driver.request, method, related=self.request_id)
        return await self.observer.ask(method, params, send, self.session, self.where)


class ServerConnection:
    """One client connection served by ``server``.

    Args:
        server: the application.
        task_group: where the connection's tasks run.
        revisions: protocol revisions to serve (default all, both eras).
        principal: who the transport authenticated the client as, if anyone;
            binds 2026-07-28 ``requestState`` to them.
        session_id: the transport's session id, if it has one (for the access
            log: transports/access.py).
        limits: message size and nesting limits.
        max_concurrency: requests served at once.
        background: where tasks (mcp_core/tasks) run; by default ``task_group``.
            A transport serving many connections passes its own, so that a task
            outlives the connection that created it.
        objects: the transport hands the client the result objects themselves
            (the in-memory object pipe) rather than their JSON; results then skip
            `Server.wire_form`.
        watching: hear the registry's (and the tasks') changes to publish from
            the start; False leaves that to a later `watch`.
    """

    #: What telemetry records of this connection (`transports.telemetry`): the
    #: transport's session id (HTTP's ``Mcp-Session-Id``), and ``network.transport``
    #: of the conventions ("pipe" for stdio, "tcp" for HTTP), set by the transport.
    session_id: str | None = None
    network_transport: str | None = None

    def __init__(
        self,
        server: Server,
        task_group: TaskGroup,
        *,
        background: TaskGroup | None = None,
        revisions: tuple[str, ...] = REVISIONS,
        principal: str | None = None,
        session_id: str | None = None,
        limits: Limits = DEFAULT_LIMITS,
        max_concurrency: int = DEFAULT_MAX_CONCURRENCY,
        objects: bool = False,
        watching: bool = True,
    ) -> None:
        self.server = server
        self.principal = principal
        self.session_id = session_id
        self._objects = objects
        self.background = task_group if background is None else background
        self.session = server_session(
            server.config(revisions=revisions), limits, session_id=session_id, principal=principal
        )
        self.driver = Driver(
            self.session,
            task_group,
            handle_request=self._handle,
            handle_event=self._on_event,
            max_concurrency=max_concurrency,
        )
        #: Told the id of each request the client cancelled (its transport
        #: may end what waited for the answer).
        self.cancelled: Callable[[RequestId], None] | None = None
        # Registry changes and task notifications: one watcher for all the
        # connections of this application (see audience.py), joined by `watch`.
        self._audience: Audience | None = None
        observer = hooks.server
        self._ended = None
        if observer is not None:
            observer.observe(self.session, self)
            self._ended = observer.session_started(self)
        if watching:
            self.watch()

    def watch(self) -> None:
        """Publish registry changes and task status notifications to the client
        from now on (`ServerSession.publish` decides who wants each).

        A 2026-07-28 session publishes only to its subscriptions: a transport
        that serves each such request on a connection of its own watches only
        once its request opened one (`ServerSession.subscriptions`), right after
        feeding it, before anything can change.
        """
        if self._audience is None and not self.driver.closed:
            self._audience = join(self.server, self)

    async def _handle(self, event: RequestReceived) -> Any:
        observer = hooks.server
        ctx = Context(
            event,
            RequestPeer(self.driver, self.session, event.id, self.background)
            if observer is None
            else ObservedPeer(self.driver, self.session, event.id, self.background, observer, self),
            now=time.time(),
            principal=self.principal,
        )
        if observer is None:
            result = await self.server.dispatch(event, ctx)
        else:
            result = await observer.serve(event, self.server.dispatch(event, ctx), self)
        return result if self._objects else self.server.wire_form(result)

    def _on_event(self, event: Event) -> None:
        if type(event) is ProtocolViolation:
            log.debug("client broke the protocol: %s (%s)", event.message, event.code)
        elif type(event) is RequestCancelled and self.cancelled is not None:
            self.cancelled(event.id)
        elif type(event) is NotificationReceived:
            # An extension's notification (mcp_core/extensions.py routes it).
            self.server.notified(event.method, event.params)

    def deliver(self, method: str, params: Any) -> bool:
        """Hand a change or task notification to the session (which decides
        whether the client asked for it); False once the connection is closed."""
        if self.driver.closed:
            return False
        if self.session.publish(method, params):
            self.driver.flush()
        return True

    def close(self) -> None:
        """Stop serving: cancel handlers, stop watching the registry."""
        if self._audience is not None:
            self._audience.discard(self)
        ended, self._ended = self._ended, None
        if ended is not None:
            ended(None)
        self.driver.close("the server closed the connection")


async def serve_stream(
    server: Server,
    stream: ObjectStream[Any],
    *,
    objects: bool = False,
    revisions: tuple[str, ...] = REVISIONS,
    limits: Limits = DEFAULT_LIMITS,
    max_concurrency: int = DEFAULT_MAX_CONCURRENCY,
    max_outbox_bytes: int = DEFAULT_MAX_OUTBOX_BYTES,
    network_transport: str | None = None,
) -> None:
    """Serve ``server`` on one message stream until the client goes away.

    Args:
        server: the application.
        stream: whole messages as JSON bytes (stdio, a socket with framing), or
            Message objects with ``objects=True``.
        objects: the stream carries Message objects.
        revisions: protocol revisions to serve.
        limits: message size and nesting limits.
        max_concurrency: requests served at once.
        max_outbox_bytes: bytes of answers held unwritten past which the client
            is not read until it takes some (see `transports.pump.pump`).
        network_transport: what telemetry calls the stream ("pipe" for stdio).
    """
    async with server.running(), anyio.create_task_group() as tg:
        connection = ServerConnection(
            server, tg, revisions=revisions, limits=limits, max_concurrency=max_concurrency
        )
        connection.network_transport = network_transport
        try:
            await pump(
                connection.driver, stream, objects=objects, max_outbox_bytes=max_outbox_bytes
            )
        finally:
            connection.close()
            tg.cancel_scope.cancel()
