# HTTP/1.1 client connections on anyio, with h11, and a small keep-alive pool.
#
# `HttpConnection` sends one request at a time and reads its response as it comes
# (a head, then body chunks: an SSE stream is read while it lasts). `ConnectionPool`
# keeps a few idle connections per origin for reuse, and opens TCP (TLS for https,
# certificates verified by default) when none is idle. A pooled connection may have
# been closed by the server while it idled: one whose socket is readable (an end
# of stream, a reset, bytes nobody asked for) is closed rather than used, as
# urllib3 and httpcore do. A server may still close one just as a request goes
# out; `HttpConnection.fresh` tells a caller that nothing at all came back on it.
# Only a request that was not written whole, or that may go twice (GET, DELETE),
# goes again on a new connection: RFC 9112 section 9.3.1, a client MUST NOT retry
# a non-idempotent request on its own (a POST that was written may have been
# read, and a tool may be running).
#
# Through an outbound proxy (`mcp_core.http.proxy`: by default the one the
# environment names, HTTPS_PROXY, HTTP_PROXY and NO_PROXY), an https origin is
# reached through a CONNECT tunnel with TLS inside it, and a plain http request
# goes to the proxy with an absolute-form target; a connection is still kept per
# origin.
#
# Failures are anyio's, h11's and the operating system's; `FAILURES` lists every
# exception type that means "this exchange failed", and `describe` words them.

from __future__ import annotations

import os
import select
import ssl
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

import anyio
import h11
from anyio import TypedAttributeLookupError
from anyio.abc import ByteStream, SocketAttribute
from anyio.streams.tls import TLSStream

from mcp_core.http.client_actions import HttpOrigin
from mcp_core.http.proxy import Proxy, ProxySettings

from .head_lines import lines_of, with_lines

__all__ = [
    "DEFAULT_TIMEOUTS",
    "FAILURES",
    "ConnectionPool",
    "HttpClientTimeouts",
    "HttpConnection",
    "ProxyError",
    "describe",
    "environment_proxies",
]

_END: Final = h11.EndOfMessage()
_READ_BYTES: Final = 65536
_MAX_HEAD_BYTES: Final = 64 * 1024
"""Largest response head read (h11's default is 16 KiB; some proxies send long
cookies and policy headers)."""


@dataclass(frozen=True, slots=True)
class HttpClientTimeouts:
    """Seconds the client waits for the server.

    Attributes:
        connect: to open a connection (TCP and TLS). Also bounds the head of a
            GET stream, which a server sends at once.
        read: silence while a response is due or streaming: the head of a POST
            (a server answering with JSON works first), or the next bytes of a
            body. Long, as SSE streams may idle (servers send keep-alive
            comments; ours every 15 s).
        write: for one write to be taken.
        close: for the DELETE that ends a session when the client closes.
        keep_alive: how long an idle connection is kept for reuse (servers close
            idle ones too: ours after 15 s, uvicorn after 5 s).
    """

    connect: float = 10.0
    read: float = 300.0
    write: float = 30.0
    close: float = 5.0
    keep_alive: float = 4.0


DEFAULT_TIMEOUTS: Final = HttpClientTimeouts()
"""The timeouts used when none are given."""


class ProxyError(ConnectionError):
    """The proxy would not open a tunnel (its status is in the message), or broke
    the exchange that asked for one."""


def environment_proxies() -> ProxySettings:
    """The proxies this process's environment names (`ProxySettings.from_environment`).

    Raises:
        ValueError: a proxy variable holds an unusable URL.
    """
    return ProxySettings.from_environment(os.environ)


FAILURES: Final[tuple[type[BaseException], ...]] = (
    OSError,  # refused, unreachable, reset; ssl.SSLError is one too
    TimeoutError,  # anyio.fail_after
    anyio.BrokenResourceError,
    anyio.ClosedResourceError,
    anyio.EndOfStream,
    h11.RemoteProtocolError,
)
"""What failing to carry an exchange raises."""

_WORDS: Final[dict[type[BaseException], str]] = {
    ProxyError: "the proxy failed",
    TimeoutError: "timed out",
    ssl.SSLCertVerificationError: "the TLS certificate was not accepted",
    ssl.SSLError: "TLS failed",
    ConnectionRefusedError: "the connection was refused",
    ConnectionResetError: "the connection was reset",
    anyio.BrokenResourceError: "the connection broke",
    anyio.ClosedResourceError: "the connection was closed",
    anyio.EndOfStream: "the server closed the connection",
    h11.RemoteProtocolError: "the server broke HTTP/1.1",
    OSError: "the connection failed",
}


def describe(exc: BaseException) -> str:
    """Words for a failure from `FAILURES`."""
    if type(exc) is OSError and isinstance(exc.__cause__, OSError):
        exc = exc.__cause__  # anyio's "All connection attempts failed" says less
    for kind, words in _WORDS.items():
        if isinstance(exc, kind):
            detail = str(exc)
            return f"{words}: {detail}" if detail else words
    return str(exc) or type(exc).__name__


def _dropped(stream: ByteStream) -> bool:
    # Whether an idle connection's socket is readable without waiting: the server
    # closed it (an end of stream or a reset stays readable) or sent what nobody
    # asked for. Either way it cannot carry a request. (poll, not select: select
    # cannot watch a descriptor above 1023.)
    try:
        sock = stream.extra(SocketAttribute.raw_socket)
    except TypedAttributeLookupError:
        return False
    fd = sock.fileno()
    if fd < 0:
        return True
    if hasattr(select, "poll"):
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        return bool(poller.poll(0))
    readable, _, _ = select.select([fd], [], [], 0)  # Windows: no poll, no fd limit
    return bool(readable)


def _chunk_of(event: Any) -> bytes | None:
    # A response body event as a chunk: its data, or None at its end.
    kind = type(event)
    if kind is h11.Data:
        return bytes(event.data)
    if kind is h11.EndOfMessage:
        return None
    raise anyio.EndOfStream


async def _open_tunnel(stream: ByteStream, proxy: Proxy, origin: HttpOrigin) -> None:
    # The CONNECT exchange, with h11: a 2xx switches the connection to a tunnel
    # (h11's SWITCHED_PROTOCOL); anything else is the proxy's refusal.
    target, headers = proxy.tunnel_request(origin)
    h = h11.Connection(h11.CLIENT, max_incomplete_event_size=_MAX_HEAD_BYTES)
    request = h11.Request(method="CONNECT", target=target, headers=headers)
    await stream.send((h.send(request) or b"") + (h.send(_END) or b""))
    while True:
        event = h.next_event()
        if event is h11.NEED_DATA:
            try:
                data = await stream.receive(_READ_BYTES)
            except anyio.EndOfStream:
                data = b""
            if not data:
                raise ProxyError(
                    f"the proxy closed the connection before opening a tunnel to {target}"
                )
            h.receive_data(data)
        elif isinstance(event, h11.Response):
            break
        elif not isinstance(event, h11.InformationalResponse):
            raise ProxyError(f"the proxy answered CONNECT {target} with {type(event).__name__}")
    if not 200 <= event.status_code < 300:
        reason = event.reason.decode("latin-1")
        raise ProxyError(f"the proxy refused a tunnel to {target}: {event.status_code} {reason}")
    if h.trailing_data[0]:
        raise ProxyError(f"the proxy sent bytes before the tunnel to {target} opened")


class HttpConnection:
    """One HTTP/1.1 connection to an origin."""

    def __init__(
        self, stream: ByteStream, origin: HttpOrigin, timeouts: HttpClientTimeouts
    ) -> None:
        self.stream = stream
        self.origin = origin
        self.timeouts = timeouts
        self.h11 = h11.Connection(h11.CLIENT, max_incomplete_event_size=_MAX_HEAD_BYTES)
        #: The cancel scope of the exchange using it, if it has one: each wait
        #: moves its deadline rather than entering a timeout scope of its own; its
        #: owner tells a timeout from a cancellation (`timed_out`).
        self.scope: anyio.CancelScope | None = None
        #: Requests sent on it before the current one.
        self.uses = 0
        #: No byte of the current response has come yet.
        self.fresh = True
        self.idle_since = 0.0
        #: The proxy a plain http connection goes to: requests then name the
        #: whole URL, with the proxy's credentials.
        self.forward: Proxy | None = None

    async def send_request(
        self, method: str, target: str, headers: Sequence[tuple[str, str]], body: bytes
    ) -> None:
        """Send a whole request."""
        self.fresh = True
        forward = self.forward
        if forward is not None:
            target = forward.absolute_target(self.origin, target)
            if forward.authorization is not None:
                headers = (*headers, ("proxy-authorization", forward.authorization))
        own, lines = lines_of(headers)
        if body or method == "POST":
            own.append(("content-length", str(len(body))))
        send = self.h11.send
        request = h11.Request(method=method, target=target, headers=own)
        data = with_lines(send(request) or b"", lines)
        if body:
            data += send(h11.Data(data=body)) or b""
        data += send(_END) or b""
        scope = self.scope
        if scope is not None:
            scope.deadline = anyio.current_time() + self.timeouts.write
            await self.stream.send(data)
        else:
            with anyio.fail_after(self.timeouts.write):
                await self.stream.send(data)

    async def _receive(self) -> bytes:
        try:
            return await self.stream.receive(_READ_BYTES)
        except anyio.EndOfStream:
            return b""

    async def _next_event(self, timeout: float) -> Any:
        while True:
            event = self.h11.next_event()
            if event is not h11.NEED_DATA:
                return event
            scope = self.scope
            if scope is not None:
                scope.deadline = anyio.current_time() + timeout
                data = await self._receive()
            else:
                with anyio.fail_after(timeout):
                    data = await self._receive()
            if data:
                self.fresh = False
            elif self.h11.their_state is h11.SEND_RESPONSE:
                raise anyio.EndOfStream  # closed before answering (h11 words it oddly)
            self.h11.receive_data(data)

    async def receive_head(self, timeout: float) -> h11.Response:
        """The response head (informational 1xx heads skipped)."""
        while True:
            event = await self._next_event(timeout)
            if isinstance(event, h11.Response):
                return event
            if isinstance(event, h11.ConnectionClosed):
                raise anyio.EndOfStream
            if not isinstance(event, h11.InformationalResponse):
                raise h11.RemoteProtocolError(f"unexpected {type(event).__name__}")

    def poll_chunk(self) -> bytes | bool | None:
        """The next chunk of the response body if h11 has it (None at its end),
        else False: getting it would wait."""
        event: Any = self.h11.next_event()
        if event is h11.NEED_DATA:
            return False
        return _chunk_of(event)

    async def receive_chunk(self) -> bytes | None:
        """The next chunk of the response body; None at its end."""
        return _chunk_of(await self._next_event(self.timeouts.read))

    @property
    def reusable(self) -> bool:
        """Both sides finished the exchange and nobody asked to close."""
        return self.h11.our_state is h11.DONE and self.h11.their_state is h11.DONE

    async def aclose(self) -> None:
        await anyio.aclose_forcefully(self.stream)


class ConnectionPool:
    """Opens connections, and keeps up to ``max_idle`` idle ones per origin.

    Args:
        timeouts: connect, write, read and keep-alive times.
        ssl_context: for https origins (and https proxies); None verifies
            certificates with the system's trust store.
        max_idle: idle connections kept per origin.
        proxies: which proxy each origin is reached through; None reads the
            environment (`environment_proxies`), ``ProxySettings()`` uses none.

    Raises:
        ValueError: ``proxies`` is None and a proxy variable is unusable.
    """

    def __init__(
        self,
        timeouts: HttpClientTimeouts = DEFAULT_TIMEOUTS,
        ssl_context: ssl.SSLContext | None = None,
        max_idle: int = 4,
        proxies: ProxySettings | None = None,
    ) -> None:
        self.timeouts = timeouts
        self._ssl_context = ssl_context
        self.max_idle = max_idle
        self.proxies = environment_proxies() if proxies is None else proxies
        self._idle: dict[HttpOrigin, list[HttpConnection]] = {}

    def _context(self) -> ssl.SSLContext:
        if self._ssl_context is None:
            self._ssl_context = ssl.create_default_context()
        return self._ssl_context

    async def acquire(self, origin: HttpOrigin) -> HttpConnection:
        """An idle connection to ``origin``, or a new one."""
        idle = self._idle.get(origin, [])
        now = anyio.current_time()
        while idle:
            connection = idle.pop()
            if now - connection.idle_since < self.timeouts.keep_alive and not _dropped(
                connection.stream
            ):
                return connection
            await connection.aclose()
        proxy = self.proxies.proxy_for(origin)
        with anyio.fail_after(self.timeouts.connect):
            if proxy is None:
                stream = await self._connect(origin)
            else:
                stream = await self._connect(proxy.origin)
                if origin[0] == "https":
                    stream = await self._tunnel(stream, proxy, origin)
        connection = HttpConnection(stream, origin, self.timeouts)
        if proxy is not None and origin[0] == "http":
            connection.forward = proxy
        return connection

    async def _connect(self, origin: HttpOrigin) -> ByteStream:
        scheme, host, port = origin
        if scheme == "https":
            # h11 knows where every message ends, so a TLS close without
            # close_notify cannot truncate anything unnoticed.
            return await anyio.connect_tcp(
                host, port, ssl_context=self._context(), tls_standard_compatible=False
            )
        return await anyio.connect_tcp(host, port)

    async def _tunnel(self, stream: ByteStream, proxy: Proxy, origin: HttpOrigin) -> ByteStream:
        # CONNECT through the proxy, then TLS with the origin inside the tunnel.
        try:
            await _open_tunnel(stream, proxy, origin)
            return await TLSStream.wrap(
                stream,
                hostname=origin[1],
                ssl_context=self._context(),
                standard_compatible=False,
            )
        except BaseException:
            await anyio.aclose_forcefully(stream)
            raise

    async def release(self, connection: HttpConnection) -> None:
        """Take a connection back after its exchange: kept if reusable."""
        if not connection.reusable:
            await connection.aclose()
            return
        connection.h11.start_next_cycle()
        connection.scope = None
        connection.uses += 1
        connection.idle_since = anyio.current_time()
        idle = self._idle.setdefault(connection.origin, [])
        idle.append(connection)
        while len(idle) > self.max_idle:
            await idle.pop(0).aclose()

    async def aclose(self) -> None:
        """Close every idle connection."""
        idle, self._idle = self._idle, {}
        for connections in idle.values():
            for connection in connections:
                await connection.aclose()
