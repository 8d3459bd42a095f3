"""MCP over streamable HTTP: an h11 server on anyio (asyncio and trio).

    serve_http(server, host, port, path)   serve until cancelled
    run_http(server, ...)                  the same, as the whole program

The HTTP rules (which status, which session, JSON or SSE, event ids, replay) are
`mcp_core.HttpEndpoint`'s, and carrying them out (sessions, streams, the writing
of answers) is `_http_service.HttpService`'s, shared with the ASGI adapter; this
module reads requests with h11 and writes the service's answers on the socket.

Timeouts (`HttpTimeouts`): a connection idle between requests, a request head
or body that trickles in (slowloris), and a write the client does not read are
all cut off.
"""

from __future__ import annotations

import contextlib
import logging
import math
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any, Final

import anyio
import h11
from anyio.abc import SocketAttribute, SocketStream, TaskStatus

from mcp_core import DEFAULT_LIMITS, REVISIONS, Limits, Server
from mcp_core._http_decisions import Headers, HttpRequest, Reply
from mcp_core._http_headers import LOOPBACK_HOSTS, is_loopback
from mcp_core._http_server import HttpServerConfig

from ._driver import DEFAULT_MAX_CONCURRENCY
from ._http_service import DEFAULT_TIMEOUTS, HttpService, HttpTimeouts, PeerGone

__all__ = ["HttpTimeouts", "HttpServer", "default_config", "serve_http", "run_http"]

log = logging.getLogger("mcp_core.http")

_READ_BYTES: Final = 65536
_MAX_HEAD_BYTES: Final = 16 * 1024
"""Largest request head: h11's default, ample for MCP's few headers."""
_LINGER_SECONDS: Final = 1.0
"""How long a refused upload is drained before its connection is closed."""


class HttpServer:
    """Serves one `Server` on streamable HTTP; `serve_http` makes and runs one.

    Args:
        server: the application.
        config: the endpoint's rules and limits.
        revisions: protocol revisions served.
        limits: message limits of each session.
        timeouts: how long clients may take.
        max_concurrency: requests served at once per session.
    """

    def __init__(
        self,
        server: Server,
        config: HttpServerConfig,
        *,
        revisions: tuple[str, ...] = REVISIONS,
        limits: Limits = DEFAULT_LIMITS,
        timeouts: HttpTimeouts = DEFAULT_TIMEOUTS,
        max_concurrency: int = DEFAULT_MAX_CONCURRENCY,
    ) -> None:
        self.service = HttpService(
            server,
            config,
            revisions=revisions,
            limits=limits,
            timeouts=timeouts,
            max_concurrency=max_concurrency,
        )
        self.endpoint = self.service.endpoint
        #: Live legacy sessions by id (the service's).
        self.sessions = self.service.sessions
        self.timeouts = timeouts

    async def serve(
        self,
        host: str,
        port: int,
        *,
        task_status: TaskStatus[int] = anyio.TASK_STATUS_IGNORED,
    ) -> None:
        """Listen on ``host``:``port`` and serve until cancelled.

        ``task_status.started`` gets the port bound (useful with port 0).
        """
        listener = await anyio.create_tcp_listener(local_host=host, local_port=port)
        async with listener, self.service.running() as tg:
            task_status.started(int(listener.extra(SocketAttribute.local_port)))
            await listener.serve(self._serve_socket, task_group=tg)

    async def _serve_socket(self, sock: SocketStream) -> None:
        async with sock:
            try:
                await _HttpConnection(self, sock).run()
            except (PeerGone, anyio.BrokenResourceError, anyio.ClosedResourceError):
                pass
            except Exception:  # pragma: no cover - a bug of ours; keep serving others
                log.exception("HTTP connection failed")


class _HttpConnection:
    """One client socket: requests read with h11, one at a time; it is the
    service's `Responder` for the request being answered."""

    def __init__(self, owner: HttpServer, sock: SocketStream) -> None:
        self.owner = owner
        self.sock = sock
        self.h11 = h11.Connection(h11.SERVER, max_incomplete_event_size=_MAX_HEAD_BYTES)
        self.timeouts = owner.timeouts
        #: The client hung up while an answer was being written.
        self.hung_up = False

    # --- reading ---------------------------------------------------------------------------

    async def _receive(self) -> None:
        try:
            data = await self.sock.receive(_READ_BYTES)
        except (anyio.EndOfStream, anyio.BrokenResourceError):
            data = b""
        self.h11.receive_data(data)

    async def _next_event(self) -> Any:
        while True:
            event = self.h11.next_event()
            if event is not h11.NEED_DATA:
                return event
            await self._receive()

    async def _read_head(self) -> h11.Request | None:
        event = self.h11.next_event()
        if event is h11.NEED_DATA:
            # Idle between requests: wait keep_alive for the first byte, then
            # head for the rest of the head (a slowloris client is cut off).
            with anyio.move_on_after(self.timeouts.keep_alive) as idle:
                await self._receive()
            if idle.cancelled_caught:
                return None
            with anyio.move_on_after(self.timeouts.head) as slow:
                event = await self._next_event()
            if slow.cancelled_caught:
                return None
        return event if isinstance(event, h11.Request) else None  # else ConnectionClosed

    async def _read_body(self, limit: int) -> bytes | None:
        """The whole body, or None if it grows past ``limit``."""
        chunks: list[bytes] = []
        size = 0
        with anyio.fail_after(self.timeouts.body):
            while True:
                event = await self._next_event()
                if isinstance(event, h11.Data):
                    size += len(event.data)
                    if size > limit:
                        return None
                    chunks.append(bytes(event.data))
                elif isinstance(event, h11.EndOfMessage):
                    return b"".join(chunks)
                else:
                    raise PeerGone

    async def run(self) -> None:
        endpoint = self.owner.endpoint
        while True:
            try:
                request = await self._read_head()
            except h11.RemoteProtocolError as exc:
                await self._fail(exc.error_status_hint)
                return
            if request is None:
                return
            head = HttpRequest.from_pairs(request.method, request.target, request.headers)
            refusal = endpoint.check_head(head)
            if refusal is not None and refusal.close:
                await self.reply(refusal)
                await self._linger()
                return
            try:
                body = await self._read_body(endpoint.config.max_body_bytes)
            except TimeoutError:
                return
            except h11.RemoteProtocolError as exc:
                await self._fail(exc.error_status_hint)
                return
            if body is None:
                await self.reply(endpoint.too_large())
                await self._linger()
                return
            if refusal is not None:
                await self.reply(refusal)
            else:
                await self.owner.service.handle(self, head, body)
            if self.h11.our_state is not h11.DONE or self.h11.their_state is not h11.DONE:
                return
            self.h11.start_next_cycle()

    async def _linger(self) -> None:
        # Refused before its body was read: stop sending, and read (and drop) what
        # the client is still sending for a moment, so that closing with unread
        # data does not reset the connection before the client reads our answer.
        with contextlib.suppress(Exception), anyio.move_on_after(_LINGER_SECONDS):
            await self.sock.send_eof()
            while await self.sock.receive(_READ_BYTES):
                pass

    # --- writing (the Responder) -------------------------------------------------------------

    async def _send(self, *events: Any) -> None:
        data = b"".join(self.h11.send(event) or b"" for event in events)
        if data:
            try:
                with anyio.fail_after(self.timeouts.write):
                    await self.sock.send(data)
            except (TimeoutError, anyio.BrokenResourceError, anyio.ClosedResourceError):
                raise PeerGone from None

    async def reply(self, reply: Reply) -> None:
        headers = [*reply.headers, ("content-length", str(len(reply.body)))]
        if reply.close:
            headers.append(("connection", "close"))
        events: list[Any] = [h11.Response(status_code=reply.status, headers=headers)]
        if reply.body:
            events.append(h11.Data(data=reply.body))
        events.append(h11.EndOfMessage())
        await self._send(*events)

    async def start(self, status: int, headers: Headers) -> None:
        await self._send(h11.Response(status_code=status, headers=list(headers)))

    async def send(self, data: bytes) -> None:
        await self._send(h11.Data(data=data))

    async def end(self) -> None:
        await self._send(h11.EndOfMessage())

    async def _fail(self, status: int) -> None:
        if self.h11.our_state in (h11.IDLE, h11.SEND_RESPONSE):
            with contextlib.suppress(PeerGone, h11.LocalProtocolError):
                await self.reply(Reply(status, close=True))

    async def watched(self, write: Callable[[], Awaitable[None]]) -> None:
        # Run ``write`` while watching the socket; raise PeerGone if the client
        # hung up or stopped taking what we wrote.
        self.hung_up = False
        async with anyio.create_task_group() as tg:
            tg.start_soon(self._watch_hangup, tg.cancel_scope)
            try:
                await write()
            except PeerGone:
                self.hung_up = True
            tg.cancel_scope.cancel()
        if self.hung_up:
            raise PeerGone

    async def _watch_hangup(self, scope: anyio.CancelScope) -> None:
        # The request has been read whole; what comes now is either the next
        # pipelined request (kept for later) or the end of the connection.
        try:
            data = await self.sock.receive(_READ_BYTES)
        except (anyio.EndOfStream, anyio.BrokenResourceError, anyio.ClosedResourceError):
            self.hung_up = True
            scope.cancel()
            return
        self.h11.receive_data(data)
        await anyio.sleep(math.inf)


def default_config(host: str, path: str = "/mcp", **options: Any) -> HttpServerConfig:
    """The endpoint config for a server bound to ``host``: Host names are checked
    against the loopback names when ``host`` is a loopback address (DNS
    rebinding), and not otherwise unless ``allowed_hosts`` is given."""
    options.setdefault("allowed_hosts", LOOPBACK_HOSTS if is_loopback(host) else None)
    return HttpServerConfig(path=path, **options)


async def serve_http(
    server: Server,
    host: str = "127.0.0.1",
    port: int = 8000,
    path: str = "/mcp",
    *,
    config: HttpServerConfig | None = None,
    revisions: tuple[str, ...] = REVISIONS,
    limits: Limits = DEFAULT_LIMITS,
    timeouts: HttpTimeouts = DEFAULT_TIMEOUTS,
    max_concurrency: int = DEFAULT_MAX_CONCURRENCY,
    task_status: TaskStatus[int] = anyio.TASK_STATUS_IGNORED,
) -> None:
    """Serve ``server`` at ``http://host:port/path`` until cancelled.

    Args:
        server: the application.
        host: the address to bind; keep the default loopback address unless the
            server is meant for other machines (2025-11-25 basic/transports.mdx
            "Security Warning": SHOULD bind only to localhost when local).
        port: the port; 0 picks a free one (reported through ``task_status``).
        path: the MCP endpoint's path.
        config: the endpoint's rules; by default `default_config(host, path)`.
        revisions: protocol revisions served (default: all, both eras).
        limits: message limits of each session.
        timeouts: how long clients may take.
        max_concurrency: requests served at once per session.
    """
    http = HttpServer(
        server,
        config or default_config(host, path),
        revisions=revisions,
        limits=limits,
        timeouts=timeouts,
        max_concurrency=max_concurrency,
    )
    await http.serve(host, port, task_status=task_status)


def run_http(
    server: Server,
    *,
    backend: str = "asyncio",
    on_listening: Callable[[str], None] | None = None,
    **options: Any,
) -> None:
    """Run ``server`` on HTTP as the whole program, until interrupted.

    Args:
        server: the application.
        backend: "asyncio" or "trio".
        on_listening: called with the endpoint's URL once the port is bound
            (with port 0, the URL names the port picked).
        options: anything `serve_http` takes (host, port, path...).
    """

    status: TaskStatus[int] = anyio.TASK_STATUS_IGNORED
    if on_listening is not None:
        status = _Announce(lambda port: on_listening(_url(options, port)))
    # No task group here: a failure to bind leaves as itself (an OSError).
    anyio.run(partial(serve_http, server, task_status=status, **options), backend=backend)


class _Announce:
    """A task status that calls back with the port once `serve_http` listens."""

    def __init__(self, callback: Callable[[int], None]) -> None:
        self.callback = callback

    def started(self, value: int | None = None) -> None:
        assert value is not None
        self.callback(value)


def _url(options: dict[str, Any], port: int) -> str:
    host = str(options.get("host", "127.0.0.1"))
    config = options.get("config")
    path = config.path if isinstance(config, HttpServerConfig) else options.get("path", "/mcp")
    return f"http://{f'[{host}]' if ':' in host else host}:{port}{path}"
