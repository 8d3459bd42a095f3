"""Loopback networking for the HTTP client tests: our server on a free port, a TCP
proxy that counts and cuts connections (and can speak TLS to the client), a raw
scripted HTTP server, and a throwaway certificate authority. Every wait is bounded
by LIMIT."""

from __future__ import annotations

import datetime
import ipaddress
import ssl
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager, suppress
from pathlib import Path
from typing import Any, Final

import anyio
from anyio.abc import ByteStream, SocketAttribute, TaskGroup
from anyio.streams.tls import TLSListener
from limits import HANG

from mcp_core import REVISIONS, Server
from mcp_core.http.server import HttpServerConfig
from transports.http.server import HttpServer, HttpTimeouts

LIMIT: Final = HANG

_QUIET: Final = (anyio.BrokenResourceError, anyio.ClosedResourceError, anyio.EndOfStream, OSError)


@asynccontextmanager
async def serving(
    server: Server,
    *,
    revisions: tuple[str, ...] = REVISIONS,
    timeouts: HttpTimeouts | None = None,
    max_connections: int | None = None,
    **config: Any,
) -> AsyncIterator[tuple[HttpServer, str]]:
    """Our h11 server for ``server`` on 127.0.0.1, a free port: (server, its URL)."""
    http = HttpServer(
        server,
        HttpServerConfig(**config),
        revisions=revisions,
        timeouts=timeouts or HttpTimeouts(),
        max_connections=max_connections,
    )
    async with anyio.create_task_group() as tg:
        port = await tg.start(http.serve, "127.0.0.1", 0)
        try:
            yield http, f"http://127.0.0.1:{port}{http.endpoint.config.path}"
        finally:
            tg.cancel_scope.cancel()


def port_of(url: str) -> int:
    """The port of a loopback URL."""
    return int(url.split("://", 1)[1].split("/", 1)[0].rsplit(":", 1)[1])


class Proxy:
    """Forwards 127.0.0.1:``port`` (its own) to 127.0.0.1:``target``.

    Attributes:
        connections: connections accepted so far.
        downstream: every byte sent to clients, for `wait_for`.
    """

    def __init__(self, target: int, ssl_context: ssl.SSLContext | None = None) -> None:
        self.target = target
        self.ssl_context = ssl_context
        self.port = 0
        self.connections = 0
        self.downstream = b""
        self._scopes: set[anyio.CancelScope] = set()
        self._seen = anyio.Event()

    @asynccontextmanager
    async def running(self) -> AsyncIterator[Proxy]:
        listener: Any = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=0)
        self.port = int(listener.extra(SocketAttribute.local_port))
        if self.ssl_context is not None:
            listener = TLSListener(listener, self.ssl_context, standard_compatible=False)
        async with listener, anyio.create_task_group() as tg:
            tg.start_soon(listener.serve, self._handle)
            try:
                yield self
            finally:
                tg.cancel_scope.cancel()

    def cut(self) -> None:
        """Break every connection open now (new ones are still accepted)."""
        for scope in list(self._scopes):
            scope.cancel()

    async def wait_for(self, pattern: bytes) -> None:
        """Wait until ``pattern`` has gone to a client."""
        with anyio.fail_after(LIMIT):
            while pattern not in self.downstream:
                self._seen = anyio.Event()
                await self._seen.wait()

    async def _handle(self, client: ByteStream) -> None:
        self.connections += 1
        with anyio.CancelScope() as scope:
            self._scopes.add(scope)
            try:
                async with (
                    client,
                    await anyio.connect_tcp("127.0.0.1", self.target) as upstream,
                    anyio.create_task_group() as tg,
                ):
                    tg.start_soon(self._pipe, client, upstream, False, tg)
                    tg.start_soon(self._pipe, upstream, client, True, tg)
            except _QUIET:
                pass
            finally:
                self._scopes.discard(scope)

    async def _pipe(self, source: ByteStream, sink: ByteStream, down: bool, tg: TaskGroup) -> None:
        try:
            while True:
                chunk = await source.receive()
                if down:
                    self.downstream += chunk
                    self._seen.set()
                await sink.send(chunk)
        except _QUIET:
            pass
        tg.cancel_scope.cancel()


class RawRequest:
    """One request as a scripted server reads it."""

    def __init__(self, method: str, target: str, headers: dict[str, str], body: bytes) -> None:
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body


class RawConnection:
    """One connection of a scripted server: requests read, raw bytes written."""

    def __init__(self, stream: ByteStream) -> None:
        self.stream = stream
        self._buffer = b""

    async def request(self) -> RawRequest | None:
        """The next request, or None when the client closed the connection."""
        while b"\r\n\r\n" not in self._buffer:
            try:
                self._buffer += await self.stream.receive()
            except _QUIET:
                return None
        head, self._buffer = self._buffer.split(b"\r\n\r\n", 1)
        line, *fields = head.decode("latin-1").split("\r\n")
        method, target, _ = line.split(" ", 2)
        headers = {}
        for field in fields:
            name, _, value = field.partition(":")
            headers[name.strip().lower()] = value.strip()
        length = int(headers.get("content-length", "0"))
        while len(self._buffer) < length:
            self._buffer += await self.stream.receive()
        body, self._buffer = self._buffer[:length], self._buffer[length:]
        return RawRequest(method, target, headers, body)

    async def write(self, data: bytes) -> None:
        await self.stream.send(data)


def response(
    status: int, headers: dict[str, str] | None = None, body: bytes = b"", reason: str = "X"
) -> bytes:
    """A whole HTTP/1.1 response with a Content-Length."""
    fields = {"content-length": str(len(body)), **(headers or {})}
    lines = [f"HTTP/1.1 {status} {reason}", *(f"{k}: {v}" for k, v in fields.items())]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def chunk(data: bytes) -> bytes:
    """One chunk of a chunked body (``b""`` ends the body)."""
    return b"%x\r\n%s\r\n" % (len(data), data)


Handler = Callable[[RawConnection], Awaitable[None]]


@asynccontextmanager
async def scripted(handler: Handler) -> AsyncIterator[int]:
    """A server on 127.0.0.1 (free port) running ``handler`` for each connection."""

    async def serve(stream: ByteStream) -> None:
        async with stream:
            with suppress(*_QUIET):
                await handler(RawConnection(stream))

    listener = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=0)
    async with listener, anyio.create_task_group() as tg:
        tg.start_soon(listener.serve, serve)
        try:
            yield int(listener.extra(SocketAttribute.local_port))
        finally:
            tg.cancel_scope.cancel()


def certificate_authority(directory: Path) -> tuple[ssl.SSLContext, ssl.SSLContext]:
    """A throwaway CA and a certificate for 127.0.0.1 and localhost signed by it:
    (the server's context, a client context that trusts the CA)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    def name(text: str) -> x509.Name:
        return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, text)])

    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = (
        x509.CertificateBuilder()
        .subject_name(name("mcp-core test CA"))
        .issuer_name(name("mcp-core test CA"))
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    names = [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
    leaf = (
        x509.CertificateBuilder()
        .subject_name(name("localhost"))
        .issuer_name(ca.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(x509.SubjectAlternativeName(names), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    pem = serialization.Encoding.PEM
    (directory / "ca.pem").write_bytes(ca.public_bytes(pem))
    (directory / "leaf.pem").write_bytes(leaf.public_bytes(pem))
    (directory / "leaf.key").write_bytes(
        key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    server = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server.load_cert_chain(directory / "leaf.pem", directory / "leaf.key")
    client = ssl.create_default_context(cafile=str(directory / "ca.pem"))
    return server, client
