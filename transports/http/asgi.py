"""MCP over streamable HTTP as an ASGI 3 application (Starlette, FastAPI, uvicorn...).

    app = asgi_app(server)                 # serves POST/GET/DELETE at /mcp
    uvicorn.run(app, host="127.0.0.1")     # as the whole application, or
    Starlette(routes=[Mount("/", app)], lifespan=lambda _: app.running())

The decisions are `mcp_core.HttpEndpoint`'s and carrying them out is
`_http_service.HttpService`'s, exactly as in the h11 server (`http_server`); this
module reads requests from ASGI ``receive`` and writes answers with ``send``: a
whole body for JSON and refusals, ``more_body`` chunks for SSE streams. The
deprecated HTTP+SSE transport (2024-11-05) is served beside, at ``/sse`` and
``/messages`` below the mount point (the ``endpoint`` event names the mount
point's path, from ASGI ``root_path``).

Lifetime. Legacy-era sessions outlive the requests that open them, so they live
in a task group that the app opens at ASGI ``lifespan`` startup and closes at
shutdown: long-lived streams end cleanly first (a 2026-07-28 subscriptions/listen
stream with its completion result, a GET stream with its last chunk), then every
session ends and every request still being answered is cancelled.

ASGI tells an app of its server's shutdown only at lifespan shutdown, which
uvicorn sends after its connections have closed (or been cancelled past
``timeout_graceful_shutdown``): an open stream would hold uvicorn's shutdown, then
break. Call `AsgiApp.shutdown` when the server begins to shut down, e.g. from a
``uvicorn.Server`` subclass::

    class Server(uvicorn.Server):
        async def shutdown(self, sockets=None):
            app.shutdown()
            await super().shutdown(sockets)
A server that runs the lifespan protocol does this by itself; a framework that
does not pass lifespan events to mounted apps (Starlette's ``Mount``) needs
``app.running()`` in its own lifespan. Until then requests get 503.

Disconnection. While an answer is written the app watches ``receive`` for
``http.disconnect``: a 2026-07-28 request is then cancelled (streamable-http.mdx
"Cancellation"), a legacy stream goes on in the event store for a later
Last-Event-ID (2025-11-25 basic/transports.mdx "Resumability and Redelivery").
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from contextlib import asynccontextmanager
from typing import Any, Final

import anyio

from mcp_core import REVISIONS, Limits, Server
from mcp_core.http import EventStore
from mcp_core.http.decisions import Headers, HttpRequest, Reply
from mcp_core.http.server import HttpServerConfig
from mcp_core.wire import DEFAULT_LIMITS

from ..access import refused
from ..driver import DEFAULT_MAX_CONCURRENCY
from .service import DEFAULT_TIMEOUTS, Authenticate, HttpService, HttpTimeouts, PeerGone

__all__ = ["AsgiApp", "asgi_app"]

log = logging.getLogger("mcp_core.http")

_LAST_WORDS: Final = 1.0
"""Seconds the lifespan shutdown gives the streams it ends to be written."""

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

_NOT_RUNNING = Reply(
    503,
    (("content-type", "text/plain; charset=utf-8"),),
    b"Service Unavailable: the MCP app is not running (no ASGI lifespan startup; "
    b"when mounted, run app.running() in the outer app's lifespan)",
)


def asgi_app(
    server: Server,
    *,
    path: str = "/mcp",
    config: HttpServerConfig | None = None,
    revisions: tuple[str, ...] = REVISIONS,
    limits: Limits = DEFAULT_LIMITS,
    timeouts: HttpTimeouts = DEFAULT_TIMEOUTS,
    max_concurrency: int = DEFAULT_MAX_CONCURRENCY,
    authenticate: Authenticate | None = None,
    event_store: Callable[[], EventStore] | None = None,
) -> AsgiApp:
    """An ASGI 3 application serving ``server`` on streamable HTTP at ``path``.

    Args:
        server: the application.
        path: the endpoint's path, below the mount point (ASGI ``root_path``).
        config: the endpoint's rules; by default ``HttpServerConfig(path=path)``,
            which answers only to loopback Host names (DNS rebinding protection,
            2025-11-25 basic/transports.mdx "Security Warning"): a server that
            other machines reach by name must list it in ``allowed_hosts``.
            When given, its ``path`` is used and ``path`` is ignored.
        revisions: protocol revisions served (default: all, both eras).
        limits: message limits of each session.
        timeouts: how long clients may take (``body``, ``write``, ``sse_ping``,
            ``session_sweep``; the ASGI server owns the connection otherwise).
        max_concurrency: requests served at once per session.
        authenticate: the authentication hook: given the request head, who it
            comes from, or an `AuthRefusal` (401/403); may be async. None admits
            everyone.
        event_store: makes each session's SSE event store (see
            `mcp_core.EventStore`); by default a bounded `MemoryEventStore`.
    """
    service = HttpService(
        server,
        config or HttpServerConfig(path=path),
        revisions=revisions,
        limits=limits,
        timeouts=timeouts,
        max_concurrency=max_concurrency,
        authenticate=authenticate,
        event_store=event_store,
    )
    return AsgiApp(service)


class AsgiApp:
    """The ASGI application `asgi_app` returns.

    Attributes:
        service: what it serves (sessions, the endpoint and its config).
    """

    def __init__(self, service: HttpService) -> None:
        self.service = service
        self._requests: set[anyio.CancelScope] = set()
        self._emptied: anyio.Event | None = None

    def shutdown(self) -> None:
        """The server is shutting down: end the long-lived streams cleanly now (each
        2026-07-28 subscriptions/listen stream with its completion result, 2026-07-28
        basic/patterns/subscriptions.mdx "Graceful Closure"; each session's GET
        stream with its last chunk, which a 2025-11-25 client resumes elsewhere),
        so that the server's wait for its connections ends. Requests in flight go
        on. Lifespan shutdown does the same, too late for most servers (see the
        module's notes). Readiness fails from now on."""
        self.service.health.draining = True
        self.service.end_streams(in_flight=False)

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Serve requests while inside: the lifespan of the app.

        ASGI servers run it through the lifespan protocol; use it directly as
        (part of) the lifespan of an app this one is mounted in.

        Raises:
            RuntimeError: the app is running already.
        """
        self.service.health.draining = False
        async with self.service.running():
            try:
                yield
            finally:
                self.service.health.draining = True  # readiness fails from now on
                # Requests still being answered (streams, mostly) end with it:
                # cleanly if they can, within a moment; what is left is cancelled.
                if self._requests:
                    self.service.end_streams(in_flight=True)
                    with anyio.move_on_after(_LAST_WORDS, shield=True):
                        while self._requests:
                            self._emptied = anyio.Event()
                            await self._emptied.wait()
                for scope in list(self._requests):
                    scope.cancel()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "http":
            await self._http(scope, receive, send)
        elif kind == "lifespan":
            await self._lifespan(receive, send)
        elif kind == "websocket":
            await send({"type": "websocket.close", "code": 1008})  # not served here

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        started = False
        try:
            while (await receive())["type"] != "lifespan.startup":
                pass
            async with self.running():
                started = True
                await send({"type": "lifespan.startup.complete"})
                while (await receive())["type"] != "lifespan.shutdown":
                    pass
        except Exception as exc:
            log.exception("MCP app lifespan failed")
            failed = "lifespan.shutdown.failed" if started else "lifespan.startup.failed"
            await send({"type": failed, "message": str(exc)})
            return
        await send({"type": "lifespan.shutdown.complete"})

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        service = self.service
        out = _Responder(receive, send, service.timeouts, scope)
        with anyio.CancelScope() as cancel:
            self._requests.add(cancel)
            try:
                if not service.is_running:
                    head = _head(scope)
                    probed = await service.health.answer(head, started=False)
                    if probed is None:
                        refused(head, _NOT_RUNNING.status)
                    await out.reply(probed or _NOT_RUNNING)
                    return
                await self._answer(out, scope, receive)
            except PeerGone:
                pass
            finally:
                self._requests.discard(cancel)
                if not self._requests and self._emptied is not None:
                    self._emptied.set()

    async def _answer(self, out: _Responder, scope: Scope, receive: Receive) -> None:
        service = self.service
        endpoint = service.endpoint
        head = _head(scope)
        admitted = await service.admit(head)
        if isinstance(admitted, Reply) and admitted.close:
            await out.reply(admitted)
            return
        try:
            with anyio.fail_after(service.timeouts.body):
                body = await _read_body(receive, endpoint.config.max_body_bytes)
        except TimeoutError:
            refused(head, 408)
            await out.reply(Reply(408, close=True))
            return
        if body is None:
            too_large = endpoint.too_large()
            refused(head, too_large.status)
            await out.reply(too_large)
        elif isinstance(admitted, Reply):
            await out.reply(admitted)
        else:
            await service.handle(
                out, head, body, admitted.principal, checked=True, scopes=admitted.scopes
            )


def _head(scope: Scope) -> HttpRequest:
    client = scope.get("client")
    return HttpRequest.from_pairs(
        scope["method"],
        _target(scope),
        scope["headers"],
        prefix=scope.get("root_path", ""),
        client=str(client[0]) if client else None,
    )


def _target(scope: Scope) -> str:
    # The path below the mount point: ASGI servers and Starlette's Mount keep the
    # mount point in both root_path and path.
    path: str = scope["path"]
    root: str = scope.get("root_path", "")
    if root and path.startswith(root):
        path = path[len(root) :] or "/"
    query: bytes = scope.get("query_string", b"")
    return f"{path}?{query.decode('latin-1')}" if query else path


async def _read_body(receive: Receive, limit: int) -> bytes | None:
    """The whole body, or None if it grows past ``limit``."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise PeerGone
        chunk: bytes = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


def _encode(headers: Headers) -> list[tuple[bytes, bytes]]:
    return [(name.encode("latin-1"), value.encode("latin-1")) for name, value in headers]


class _Responder:
    """The service's `Responder` for one ASGI request."""

    def __init__(self, receive: Receive, send: Send, timeouts: HttpTimeouts, scope: Scope) -> None:
        self._scope = scope
        self._receive = receive
        self._send = send
        self._write_timeout = timeouts.write
        #: The last part of the response is being sent: a disconnect is no hang-up.
        self.complete = False
        self._watching: anyio.CancelScope | None = None
        self._gone = False

    @property
    def peer(self) -> tuple[str, int] | None:
        client = self._scope.get("client")  # ASGI: [host, port], or None
        return (str(client[0]), int(client[1])) if client else None

    async def _out(self, message: Message) -> None:
        try:
            with anyio.fail_after(self._write_timeout):
                await self._send(message)
        except (TimeoutError, OSError):
            # ASGI 2.4: a send on a closed connection raises an OSError.
            raise PeerGone from None

    async def reply(self, reply: Reply) -> None:
        headers = (*reply.headers, ("content-length", str(len(reply.body))))
        if reply.close:
            headers = (*headers, ("connection", "close"))
        await self.start(reply.status, headers, reply.body, end=True)

    async def start(
        self, status: int, headers: Headers, data: bytes = b"", end: bool = False
    ) -> None:
        await self._out(
            {"type": "http.response.start", "status": status, "headers": _encode(headers)}
        )
        if end:
            await self.end(data)
        elif data:
            await self.send(data)

    async def send(self, data: bytes) -> None:
        await self._out({"type": "http.response.body", "body": data, "more_body": True})

    async def end(self, data: bytes = b"") -> None:
        self.complete = True
        await self._out({"type": "http.response.body", "body": data})

    async def ending(self, write: Callable[[], Awaitable[None]]) -> None:
        # No scope of the connection's here: the one of `watched`.
        await self.watched(write)

    def closing(self) -> anyio.CancelScope | None:
        return None  # the ASGI server's connection is not ours to end

    def watch(self) -> bool:
        return True  # watched() always watches

    def gone(self) -> None:
        if self._watching is not None:
            self._gone = True
            self._watching.cancel()

    async def watched(self, write: Callable[[], Awaitable[None]]) -> None:
        gone = False
        self._gone = False
        async with anyio.create_task_group() as tg:
            self._watching = tg.cancel_scope

            async def watch() -> None:
                nonlocal gone
                # The body has been read: what comes now is the disconnect (some
                # servers report one once the response is complete, too).
                while (await self._receive())["type"] != "http.disconnect":
                    pass
                if not self.complete:
                    gone = True
                    tg.cancel_scope.cancel()

            tg.start_soon(watch)
            try:
                await write()
            except PeerGone:
                gone = True
            finally:
                self._watching = None
            tg.cancel_scope.cancel()
        if gone or self._gone:
            raise PeerGone
