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

Binding. On a loopback address the server answers only to the loopback Host
names (DNS-rebinding protection). On any other address it refuses to start
unless ``allowed_hosts`` names the Host names clients use, or is None to accept
any Host (an explicit opt-out): a server reachable from the network that answers
to every name is what DNS rebinding needs (2025-11-25 basic/transports.mdx
"Security Warning").

Also served, at ``config.sse_path`` (``/sse``) and ``config.sse_messages_path``
(``/messages``): the deprecated HTTP+SSE transport of 2024-11-05, for clients
that speak only that (``HttpServerConfig(sse_path=None)`` turns it off).
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import logging
import math
import resource
from collections.abc import Awaitable, Callable, Iterable, Sequence
from functools import partial
from typing import Any, Final

import anyio
import h11
from anyio.abc import SocketAttribute, SocketListener, SocketStream, TaskGroup, TaskStatus

from mcp_core import REVISIONS, Limits, Server
from mcp_core.http import EventStore
from mcp_core.http.decisions import Headers, HttpRequest, Reply
from mcp_core.http.headers import LOOPBACK_HOSTS, is_loopback
from mcp_core.http.server import HttpServerConfig
from mcp_core.wire import DEFAULT_LIMITS

from ..driver import DEFAULT_MAX_CONCURRENCY
from .head_lines import lines_of, with_lines
from .service import DEFAULT_TIMEOUTS, Authenticate, HttpService, HttpTimeouts, PeerGone

__all__ = [
    "HttpTimeouts",
    "HttpServer",
    "UnsafeBindError",
    "default_config",
    "serve_http",
    "run_http",
]

log = logging.getLogger("mcp_core.http")

_READ_BYTES: Final = 65536
_REQUEST_LINE_BYTES: Final = 8 * 1024
"""Room for the request line besides the header fields (whose size and number the
endpoint checks, `max_header_bytes` and `max_headers`); h11 stops buffering a head
larger than both together, with 431."""
_LINGER_SECONDS: Final = 1.0
"""How long a refused upload is drained before its connection is closed."""

_OUT_OF_DESCRIPTORS: Final = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM})
"""accept() errors that say the process (or the system) has no room for another
socket now: the listener waits and tries again instead of ending the server."""
_STARVED_LOG_INTERVAL: Final = 60.0
"""Seconds between two warnings that accept() is out of descriptors."""
_ACCEPT_RETRY: Final = (0.01, 1.0)
"""First and longest pause between accept() attempts while out of descriptors."""
_DESCRIPTORS_KEPT: Final = 64
"""Descriptors left below the process's limit by the default connection cap: room for
the listener, logs, an event store, a client connection of a handler's own."""


def default_max_connections() -> int:
    """The default cap on open connections: the soft limit on open files less
    `_DESCRIPTORS_KEPT` (at least 16), so that idle connections are closed before
    accept() runs out of descriptors (`Too many open files`)."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return 65536
    return max(16, soft - _DESCRIPTORS_KEPT)


class HttpServer:
    """Serves one `Server` on streamable HTTP; `serve_http` makes and runs one.

    Args:
        server: the application.
        config: the endpoint's rules and limits.
        revisions: protocol revisions served.
        limits: message limits of each session.
        timeouts: how long clients may take.
        max_concurrency: requests served at once per session.
        authenticate: the authentication hook (see `Authenticate`), or None.
        event_store: makes each session's SSE event store; by default a
            bounded `MemoryEventStore`.
        max_connections: connections open at once; when a new one would pass
            it, the connection idle the longest is closed, and if none is idle
            the new one is answered 503 and closed. By default
            `default_max_connections()`, below the limit on open files.
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
        authenticate: Authenticate | None = None,
        event_store: Callable[[], EventStore] | None = None,
        max_connections: int | None = None,
    ) -> None:
        self.service = HttpService(
            server,
            config,
            revisions=revisions,
            limits=limits,
            timeouts=timeouts,
            max_concurrency=max_concurrency,
            authenticate=authenticate,
            event_store=event_store,
        )
        self.endpoint = self.service.endpoint
        #: Live legacy sessions by id (the service's).
        self.sessions = self.service.sessions
        self.timeouts = timeouts
        self.max_connections = max_connections or default_max_connections()
        #: Open connections, and those waiting for a request, each oldest first.
        self.connections: dict[_HttpConnection, None] = {}
        self.idle: dict[_HttpConnection, None] = {}
        self._tg: TaskGroup | None = None

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
            self._tg = tg
            # One listener per address family; each is a SocketListener, whose
            # accept() we call ourselves.
            *others, last = [one for one in listener.listeners if isinstance(one, SocketListener)]
            for other in others:
                tg.start_soon(self._accept, other, tg)
            try:
                await self._accept(last, tg)
            finally:
                self._tg = None

    async def _accept(self, listener: SocketListener, tg: TaskGroup) -> None:
        # Our own accept loop: anyio's serve() ends the server on the first
        # failed accept(), and running out of descriptors is a passing state.
        pause = _ACCEPT_RETRY[0]
        said = -math.inf
        while True:
            try:
                sock = await listener.accept()
            except (OSError, anyio.BrokenResourceError) as failure:
                # anyio's trio backend wraps the OSError.
                exc = failure if isinstance(failure, OSError) else failure.__cause__
                if not isinstance(exc, OSError) or exc.errno not in _OUT_OF_DESCRIPTORS:
                    raise
                if anyio.current_time() - said > _STARVED_LOG_INTERVAL:
                    said = anyio.current_time()
                    log.warning(
                        "accept() failed (%s) with %d connections open: closing idle "
                        "connections and waiting for descriptors to free up",
                        exc.strerror,
                        len(self.connections),
                    )
                if not self._close_idle():
                    await anyio.sleep(pause)
                    pause = min(pause * 2, _ACCEPT_RETRY[1])
                else:
                    await anyio.sleep(0)
                continue
            pause = _ACCEPT_RETRY[0]
            if len(self.connections) >= self.max_connections and not self._close_idle():
                tg.start_soon(self._refuse_socket, sock)
            else:
                tg.start_soon(self._serve_socket, sock)

    def _close_idle(self) -> bool:
        # Closes the connection that has waited longest for a request; False if
        # every connection is busy.
        for connection in self.idle:
            connection.close_idle()
            return True
        return False

    async def _refuse_socket(self, sock: SocketStream) -> None:
        assert self._tg is not None
        async with sock:
            connection = _HttpConnection(self, sock, self._tg)
            with contextlib.suppress(PeerGone, anyio.BrokenResourceError, OSError):
                await connection.reply(Reply(503, (("retry-after", "1"),), close=True))

    async def _serve_socket(self, sock: SocketStream) -> None:
        assert self._tg is not None
        async with sock:
            connection = _HttpConnection(self, sock, self._tg)
            self.connections[connection] = None
            try:
                await connection.run()
            except (PeerGone, anyio.BrokenResourceError, anyio.ClosedResourceError):
                pass
            except Exception:  # pragma: no cover - a bug of ours; keep serving others
                log.exception("HTTP connection failed")
            finally:
                del self.connections[connection]
                self.idle.pop(connection, None)


class _Signal:
    """Wakes one waiting task; a wake-up that comes first costs no event."""

    __slots__ = ("_event", "_pending")

    def __init__(self) -> None:
        self._event: anyio.Event | None = None
        self._pending = False

    def clear(self) -> None:
        """Forget a wake-up nobody waited for."""
        self._pending = False

    def set(self) -> None:
        if self._event is not None:
            self._event.set()
        else:
            self._pending = True

    async def wait(self) -> None:
        if self._pending:
            self._pending = False
            return
        self._event = event = anyio.Event()
        try:
            await event.wait()
        finally:
            self._event = None


class _HttpConnection:
    """One client socket: requests read with h11, one at a time; it is the
    service's `Responder` for the request being answered.

    Reading. The connection's task reads requests itself until an answer first
    waits (`watch`); from then on a reader task of the connection does every read,
    always one in progress: while an answer is written it watches for the client
    hanging up (which cancels the answer: `watched`), and what it reads between
    answers is the next request, which the connection's task waits for
    (`_receive`). So a connection starts at most one task, however many requests
    it carries, and an answer costs one cancel scope. What a client sends ahead
    (pipelined requests) waits in h11's buffer, a read's worth at most before the
    reader waits for the connection's task to take it.
    """

    def __init__(self, owner: HttpServer, sock: SocketStream, task_group: TaskGroup) -> None:
        self.owner = owner
        self.sock = sock
        head_limit = owner.endpoint.config.max_header_bytes + _REQUEST_LINE_BYTES
        self.h11 = h11.Connection(h11.SERVER, max_incomplete_event_size=head_limit)
        self.timeouts = owner.timeouts
        self._tg = task_group
        #: The client hung up while an answer was being written.
        self.hung_up = False
        #: The client's side has ended (h11 has been told).
        self.eof = False
        self._reader = False
        self._closing = False
        self._draining = False
        self._want = _Signal()  # the reader may read once more
        self._got = _Signal()  # the reader gave h11 something (data, or the end)
        self._watch: anyio.CancelScope | None = None
        self._deadline: anyio.CancelScope | None = None

    # --- reading ---------------------------------------------------------------------------

    async def _receive(self) -> None:
        if self._reader:
            if not self.eof:
                # h11 has everything the reader got so far: a wake-up left from
                # then is stale.
                self._got.clear()
                self._want.set()
                await self._got.wait()
            return
        try:
            data = await self.sock.receive(_READ_BYTES)
        except (anyio.EndOfStream, anyio.BrokenResourceError):
            data = b""
        if not data:
            self.eof = True
        self.h11.receive_data(data)

    async def _read(self) -> None:
        # The reader task: from the first answer that waits to the end of the connection.
        # It reads again at once unless h11 holds a read's worth that nobody has
        # taken yet (pipelined requests); then it waits until asked.
        while True:
            if len(self.h11.trailing_data[0]) >= _READ_BYTES:
                await self._want.wait()
            if self._closing:
                return
            self._want.clear()
            try:
                data = await self.sock.receive(_READ_BYTES)
            except (anyio.EndOfStream, anyio.BrokenResourceError, anyio.ClosedResourceError):
                data = b""
            if self._closing:
                return
            if not self._draining:
                self.h11.receive_data(data)
            if not data:
                self.eof = True
                watch = self._watch
                if watch is not None:
                    self.hung_up = True
                    watch.cancel()
                self._got.set()
                return
            self._got.set()

    async def _receive_within(self, deadline: float) -> None:
        # A read bounded by the connection's deadline, which ends the connection
        # when it passes: one scope for the connection's life, whose deadline is
        # set only while it waits for a request.
        scope = self._deadline
        assert scope is not None
        scope.deadline = deadline
        try:
            await self._receive()
        finally:
            scope.deadline = math.inf

    async def _read_head(self) -> h11.Request | None:
        # Timeouts apply only to waits: a request whose head (and body) came in
        # one read sets no deadline.
        event = self.h11.next_event()
        if event is h11.NEED_DATA:
            # Idle between requests: wait keep_alive for the first byte, then
            # head for the rest of the head (a slowloris client is cut off).
            # Meanwhile the server may close this connection for a new one.
            idle = self.owner.idle
            idle[self] = None
            try:
                await self._receive_within(anyio.current_time() + self.timeouts.keep_alive)
            finally:
                idle.pop(self, None)
            event = self.h11.next_event()
            if event is h11.NEED_DATA:
                deadline = anyio.current_time() + self.timeouts.head
                while event is h11.NEED_DATA:
                    await self._receive_within(deadline)
                    event = self.h11.next_event()
        return event if isinstance(event, h11.Request) else None  # else ConnectionClosed

    async def _read_body(self, limit: int) -> bytes | None:
        """The whole body, or None if it grows past ``limit`` (the connection
        ends if it takes longer than the ``body`` timeout)."""
        chunks: list[bytes] = []
        size = 0
        deadline: float | None = None
        while True:
            event = self.h11.next_event()
            if event is h11.NEED_DATA:
                if deadline is None:
                    deadline = anyio.current_time() + self.timeouts.body
                await self._receive_within(deadline)
            elif isinstance(event, h11.Data):
                size += len(event.data)
                if size > limit:
                    return None
                chunks.append(bytes(event.data))
            elif isinstance(event, h11.EndOfMessage):
                return b"".join(chunks)
            else:
                raise PeerGone

    def close_idle(self) -> None:
        """End this connection, which waits for a request (the server needs room)."""
        self.owner.idle.pop(self, None)
        if self._deadline is not None:
            self._deadline.cancel()

    async def run(self) -> None:
        try:
            with anyio.CancelScope() as self._deadline:
                await self._serve()
        finally:
            # The reader, if any, ends: now if it waits for a turn, or when the
            # socket closes under its read.
            self._closing = True
            self._want.set()

    async def _serve(self) -> None:
        endpoint = self.owner.endpoint
        service = self.owner.service
        while True:
            try:
                request = await self._read_head()
            except h11.RemoteProtocolError as exc:
                await self._fail(exc.error_status_hint)
                return
            if request is None:
                return
            if _framed_twice(request):
                # RFC 9112 section 6.3: a request with both Transfer-Encoding and
                # Content-Length is a smuggling attempt as often as a mistake; the
                # server MUST close the connection after responding.
                await self._fail(400)
                await self._linger()
                return
            head = HttpRequest.from_pairs(request.method, request.target, request.headers)
            admitted = await service.admit(head)
            if isinstance(admitted, Reply) and admitted.close:
                await self.reply(admitted)
                await self._linger()
                return
            try:
                body = await self._read_body(endpoint.config.max_body_bytes)
            except h11.RemoteProtocolError as exc:
                await self._fail(exc.error_status_hint)
                return
            if body is None:
                await self.reply(endpoint.too_large())
                await self._linger()
                return
            if isinstance(admitted, Reply):
                await self.reply(admitted)
            else:
                await service.handle(self, head, body, admitted.principal, checked=True)
            if self.h11.our_state is not h11.DONE or self.h11.their_state is not h11.DONE:
                return
            self.h11.start_next_cycle()

    async def _linger(self) -> None:
        # Refused before its body was read: stop sending, and read (and drop) what
        # the client is still sending for a moment, so that closing with unread
        # data does not reset the connection before the client reads our answer.
        with contextlib.suppress(Exception), anyio.move_on_after(_LINGER_SECONDS):
            await self.sock.send_eof()
            if self._reader:
                self._draining = True
                while not self.eof:
                    self._want.set()
                    await self._got.wait()
            else:
                while await self.sock.receive(_READ_BYTES):
                    pass

    # --- writing (the Responder) -------------------------------------------------------------

    async def _send(self, data: bytes) -> None:
        try:
            with anyio.fail_after(self.timeouts.write):
                await self.sock.send(data)
        except (TimeoutError, anyio.BrokenResourceError, anyio.ClosedResourceError):
            raise PeerGone from None

    def _head(self, status: int, headers: Iterable[tuple[str, str]]) -> bytes:
        own, lines = lines_of(headers)
        response = h11.Response(status_code=status, headers=own)
        return with_lines(self.h11.send(response) or b"", lines)

    async def reply(self, reply: Reply) -> None:
        own = [("content-length", str(len(reply.body)))]
        if reply.close:
            own.append(("connection", "close"))
        data = self._head(reply.status, (*reply.headers, *own))
        if reply.body:
            data += self.h11.send(h11.Data(data=reply.body)) or b""
        await self._send(data + (self.h11.send(_END) or b""))

    async def start(
        self, status: int, headers: Headers, data: bytes = b"", end: bool = False
    ) -> None:
        out = self._head(status, headers)
        if data:
            out += self.h11.send(h11.Data(data=data)) or b""
        if end:
            out += self.h11.send(_END) or b""
        await self._send(out)

    async def send(self, data: bytes) -> None:
        await self._send(self.h11.send(h11.Data(data=data)) or b"")

    async def end(self, data: bytes = b"") -> None:
        out = (self.h11.send(h11.Data(data=data)) or b"") if data else b""
        await self._send(out + (self.h11.send(_END) or b""))

    async def _fail(self, status: int) -> None:
        if self.h11.our_state in (h11.IDLE, h11.SEND_RESPONSE):
            with contextlib.suppress(PeerGone, h11.LocalProtocolError):
                await self.reply(Reply(status, close=True))

    def watch(self) -> bool:
        # From now on the reader watches the socket (it starts once, and reads
        # for the connection from then on).
        if not self._reader:
            self._reader = True
            self._tg.start_soon(self._read)
        return True

    def gone(self) -> None:
        watch = self._watch
        if watch is not None:
            self.hung_up = True
            watch.cancel()

    async def watched(self, write: Callable[[], Awaitable[None]]) -> None:
        # Run ``write``; raise PeerGone if the client hung up (once watched, the
        # reader cancels ``write``) or stopped taking what we wrote. The request
        # has been read whole: what the reader gets now is either the next
        # pipelined request (kept for later) or the end.
        if self.eof:
            self.hung_up = True
            raise PeerGone
        self.hung_up = False
        with anyio.CancelScope() as scope:
            self._watch = scope
            try:
                await write()
            except PeerGone:
                self.hung_up = True
            finally:
                self._watch = None
        if self.hung_up:
            raise PeerGone


_END: Final = h11.EndOfMessage()


def _framed_twice(request: h11.Request) -> bool:
    names = {name for name, _ in request.headers}
    return b"content-length" in names and b"transfer-encoding" in names


class UnsafeBindError(ValueError):
    """Serving on a non-loopback address was asked for without saying which Host
    names to answer to (``allowed_hosts``), or that any will do (None)."""


def _unsafe_bind(host: str) -> UnsafeBindError:
    return UnsafeBindError(
        f"refusing to serve on {host}, which is not a loopback address, without "
        "allowed_hosts: name the Host names clients will use (allowed_hosts="
        "['mcp.example.com'], or mcp-core serve --allowed-host mcp.example.com), or "
        "accept any Host with allowed_hosts=None (--any-host), which turns off the "
        "DNS-rebinding protection (2025-11-25 basic/transports.mdx, Security Warning)"
    )


def default_config(host: str, path: str = "/mcp", **options: Any) -> HttpServerConfig:
    """The endpoint config for a server bound to ``host``.

    On a loopback address Host names are checked against the loopback names
    unless ``allowed_hosts`` says otherwise. On any other address
    ``allowed_hosts`` must be given: the names to answer to, or None for any.

    Raises:
        UnsafeBindError: ``host`` is not a loopback address and ``options`` has
            no ``allowed_hosts``.
    """
    if "allowed_hosts" not in options:
        if not is_loopback(host):
            raise _unsafe_bind(host)
        options["allowed_hosts"] = LOOPBACK_HOSTS
    elif options["allowed_hosts"] is not None:
        options["allowed_hosts"] = tuple(options["allowed_hosts"])
    return HttpServerConfig(path=path, **options)


class _Unset:
    """The type of `_UNSET`: no ``allowed_hosts`` argument given."""


_UNSET: Final = _Unset()


def _config_for(
    host: str,
    path: str,
    config: HttpServerConfig | None,
    allowed_hosts: Sequence[str] | _Unset | None,
) -> HttpServerConfig:
    # serve_http's config from its arguments, refusing an unsafe bind.
    if config is None:
        options = {} if isinstance(allowed_hosts, _Unset) else {"allowed_hosts": allowed_hosts}
        return default_config(host, path, **options)
    if not isinstance(allowed_hosts, _Unset):
        hosts = None if allowed_hosts is None else tuple(allowed_hosts)
        return dataclasses.replace(config, allowed_hosts=hosts)
    if not is_loopback(host) and config.allowed_hosts == LOOPBACK_HOSTS:
        raise _unsafe_bind(host)
    return config


async def serve_http(
    server: Server,
    host: str = "127.0.0.1",
    port: int = 8000,
    path: str = "/mcp",
    *,
    config: HttpServerConfig | None = None,
    allowed_hosts: Sequence[str] | _Unset | None = _UNSET,
    authenticate: Authenticate | None = None,
    event_store: Callable[[], EventStore] | None = None,
    revisions: tuple[str, ...] = REVISIONS,
    limits: Limits = DEFAULT_LIMITS,
    timeouts: HttpTimeouts = DEFAULT_TIMEOUTS,
    max_concurrency: int = DEFAULT_MAX_CONCURRENCY,
    max_connections: int | None = None,
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
            Its ``allowed_hosts`` counts as given unless it is the loopback
            default.
        allowed_hosts: the Host names to answer to (any port), or None for any;
            required on a non-loopback ``host`` (here or in ``config``).
        authenticate: the authentication hook (see `Authenticate`): who each
            request comes from, or a 401/403 refusal. None admits everyone.
        event_store: makes each session's SSE event store (see
            `mcp_core.EventStore`); by default a bounded `MemoryEventStore`.
        revisions: protocol revisions served (default: all, both eras).
        limits: message limits of each session.
        timeouts: how long clients may take.
        max_concurrency: requests served at once per session.
        max_connections: connections open at once (see `HttpServer`).

    Raises:
        UnsafeBindError: a non-loopback ``host`` without ``allowed_hosts``.
    """
    http = HttpServer(
        server,
        _config_for(host, path, config, allowed_hosts),
        revisions=revisions,
        limits=limits,
        timeouts=timeouts,
        max_concurrency=max_concurrency,
        authenticate=authenticate,
        event_store=event_store,
        max_connections=max_connections,
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

    Raises:
        UnsafeBindError: as `serve_http`, before anything starts.
    """

    # Refuse an unsafe bind before starting a loop, so that it leaves as itself.
    options["config"] = _config_for(
        str(options.get("host", "127.0.0.1")),
        str(options.get("path", "/mcp")),
        options.get("config"),
        options.pop("allowed_hosts", _UNSET),
    )
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
