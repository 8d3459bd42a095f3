"""MCP over streamable HTTP: an h11 server on anyio (asyncio and trio).

    serve_http(server, host, port, path)   serve until cancelled
    run_http(server, ...)                  the same, as the whole program

The HTTP rules (which status, which session, JSON or SSE, event ids, replay) are
`mcp_core.HttpEndpoint`'s; this module reads requests with h11, asks the endpoint,
and carries out its decisions on the socket.

Sessions and streams. A legacy-era session (opened with ``initialize``) is one
`ServerConnection` that lives from its initialize to its DELETE or idle expiry,
whatever sockets its requests come on. A 2026-07-28 request gets a
`ServerConnection` of its own that ends with its answer: the era is stateless, so
nothing of one request can reach another, request ids of different clients never
meet in one session, and closing the request's connection is exactly the
cancellation the spec asks for when the client closes the stream.
Each outgoing message is routed by its response id or the request it is related to
(see `_http_streams`); the connection task of the POST (or GET) writes it, one
flush per event.

Timeouts (`HttpTimeouts`): a connection idle between requests, a request head
or body that trickles in (slowloris), and a write the client does not read are
all cut off.
"""

from __future__ import annotations

import contextlib
import logging
import math
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

import anyio
import h11
from anyio.abc import SocketAttribute, SocketStream, TaskGroup, TaskStatus

from mcp_core import DEFAULT_LIMITS, REVISIONS, Limits, Server, SessionState
from mcp_core._http_decisions import (
    SSE_HEADERS,
    Dispatch,
    EndSession,
    HttpRequest,
    OpenStream,
    Reply,
)
from mcp_core._http_headers import LOOPBACK_HOSTS, header_param_paths, is_loopback
from mcp_core._http_server import HttpEndpoint, HttpServerConfig

from ._driver import DEFAULT_MAX_CONCURRENCY
from ._http_streams import LegacySession, Stream, modern_sink
from ._serve import ServerConnection

__all__ = ["HttpTimeouts", "HttpServer", "serve_http", "run_http"]

log = logging.getLogger("mcp_core.http")

_READ_BYTES: Final = 65536
_MAX_HEAD_BYTES: Final = 16 * 1024
"""Largest request head: h11's default, ample for MCP's few headers."""
_LINGER_SECONDS: Final = 1.0
"""How long a refused upload is drained before its connection is closed."""


@dataclass(frozen=True, slots=True)
class HttpTimeouts:
    """Seconds the server waits for a client.

    Attributes:
        keep_alive: an idle connection between requests (browsers and HTTP
            clients reuse connections within seconds, or not at all).
        head: from the first byte of a request to the end of its head.
        body: to read a whole body (4 MiB at a slow 150 KB/s).
        write: for one write to be taken by a client that stopped reading.
        sse_ping: quiet time on an SSE stream before a keep-alive comment
            (2026-07-28 streamable-http.mdx suggests them for long streams;
            proxies commonly cut idle connections after 30-60 s).
        session_sweep: how often idle sessions are looked for.
    """

    keep_alive: float = 15.0
    head: float = 10.0
    body: float = 30.0
    write: float = 30.0
    sse_ping: float = 15.0
    session_sweep: float = 30.0


class _PeerGone(Exception):
    """The client closed the connection, or broke it."""


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
        timeouts: HttpTimeouts = HttpTimeouts(),
        max_concurrency: int = DEFAULT_MAX_CONCURRENCY,
    ) -> None:
        self.server = server
        self.revisions = revisions
        self.limits = limits
        self.timeouts = timeouts
        self.max_concurrency = max_concurrency
        self.endpoint = HttpEndpoint(config, revisions=revisions, tool_headers=self._tool_headers)
        self.sessions: dict[str, LegacySession] = {}
        self._param_paths: dict[str, Mapping[str, tuple[str, ...]]] | None = None
        server.watch(self._registry_changed)

    def _tool_headers(self, name: str) -> Mapping[str, tuple[str, ...]]:
        if self._param_paths is None:
            self._param_paths = {
                tool.name: header_param_paths(tool.input_schema) for tool in self.server.tools
            }
        return self._param_paths.get(name, {})

    def _registry_changed(self, method: str, params: Any) -> None:
        if method == "notifications/tools/list_changed":
            self._param_paths = None

    def _connection(self, task_group: TaskGroup) -> ServerConnection:
        return ServerConnection(
            self.server,
            task_group,
            revisions=self.revisions,
            limits=self.limits,
            max_concurrency=self.max_concurrency,
        )

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
        async with listener, anyio.create_task_group() as tg:
            self._tg = tg
            tg.start_soon(self._sweep)
            task_status.started(int(listener.extra(SocketAttribute.local_port)))
            try:
                await listener.serve(self._serve_socket, task_group=tg)
            finally:
                for session in list(self.sessions.values()):
                    session.close()
                self.sessions.clear()

    async def _sweep(self) -> None:
        while True:
            await anyio.sleep(self.timeouts.session_sweep)
            for session_id in self.endpoint.expire(anyio.current_time()):
                self._end(session_id)

    def _end(self, session_id: str) -> None:
        session = self.sessions.pop(session_id, None)
        if session is not None:
            session.close()

    async def _serve_socket(self, sock: SocketStream) -> None:
        async with sock:
            try:
                await _HttpConnection(self, sock).run()
            except (_PeerGone, anyio.BrokenResourceError, anyio.ClosedResourceError):
                pass
            except Exception:  # pragma: no cover - a bug of ours; keep serving others
                log.exception("HTTP connection failed")

    # --- carrying out decisions ----------------------------------------------------------

    async def dispatch(self, conn: _HttpConnection, decision: Dispatch) -> None:
        endpoint = self.endpoint
        if decision.session_id is None:
            if decision.accepted is not None:
                # 2026-07-28 defines no client notification over HTTP (the
                # "Sending Messages" note): accept it, act on nothing.
                await conn.reply(decision.accepted)
                return
            await self._modern(conn, decision)
            return
        session = self.sessions.get(decision.session_id)
        if decision.created:
            session = LegacySession(decision.session_id, self._connection(self._tg), endpoint)
            self.sessions[decision.session_id] = session
            endpoint.bind(decision.session_id, session.connection.session)
        if session is None:  # pragma: no cover - the endpoint and we agree on sessions
            await conn.reply(Reply(404))
            return
        if decision.accepted is not None:
            session.connection.driver.feed(decision.body)
            await conn.reply(decision.accepted)
            return
        stream = session.open(decision)
        stream_id = decision.stream_id or ""
        endpoint.attach(decision.session_id, stream_id, anyio.current_time())
        session.connection.driver.feed(decision.body)
        if decision.created and session.connection.session.state is SessionState.NEW:
            # The initialize was refused: there is no session to keep.
            endpoint.end_session(decision.session_id)
            self._end(decision.session_id)
        try:
            await conn.answer(stream, decision)
        except _PeerGone:
            # 2025-11-25 "Sending Messages" item 6: a disconnection is not a
            # cancellation. A stream that has sent an event id goes on in the
            # event store; one that has not cannot be resumed.
            if stream.mode != "sse":
                session.abandon(stream)
            raise
        finally:
            stream.attached = False
            stream.items.clear()
            endpoint.detach(decision.session_id, stream_id, anyio.current_time())

    async def _modern(self, conn: _HttpConnection, decision: Dispatch) -> None:
        stream = Stream(None, None, decision.request_id, mode="sse" if decision.sse else None)
        stream.attached = True
        async with anyio.create_task_group() as tg:
            connection = self._connection(tg)
            connection.driver.attach(modern_sink(self.endpoint, stream))
            try:
                connection.driver.feed(decision.body)
                # 2026-07-28 streamable-http.mdx "Cancellation": closing the
                # stream cancels the request; _PeerGone leaves through here.
                await conn.answer(stream, decision)
            finally:
                connection.close()
                tg.cancel_scope.cancel()

    async def open_stream(self, conn: _HttpConnection, decision: OpenStream) -> None:
        session = self.sessions.get(decision.session_id)
        stream = session.streams.get(decision.stream_id) if session is not None else None
        now = anyio.current_time()
        self.endpoint.attach(decision.session_id, decision.stream_id, now)
        try:
            await conn.stream_events(stream, decision)
        finally:
            if stream is not None:
                stream.attached = False
                stream.items.clear()
            self.endpoint.detach(decision.session_id, decision.stream_id, anyio.current_time())


class _HttpConnection:
    """One client socket: requests read with h11, one at a time."""

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
                    raise _PeerGone

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
                await self._decide(head, body)
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

    async def _decide(self, head: HttpRequest, body: bytes) -> None:
        owner = self.owner
        decision = owner.endpoint.receive(head, body, anyio.current_time())
        if isinstance(decision, Reply):
            await self.reply(decision)
        elif isinstance(decision, Dispatch):
            await owner.dispatch(self, decision)
        elif isinstance(decision, OpenStream):
            await owner.open_stream(self, decision)
        else:
            assert isinstance(decision, EndSession)
            owner._end(decision.session_id)
            await self.reply(decision.reply)

    # --- writing ---------------------------------------------------------------------------

    async def _send(self, *events: Any) -> None:
        data = b"".join(self.h11.send(event) or b"" for event in events)
        if data:
            try:
                with anyio.fail_after(self.timeouts.write):
                    await self.sock.send(data)
            except (TimeoutError, anyio.BrokenResourceError, anyio.ClosedResourceError):
                raise _PeerGone from None

    async def reply(self, reply: Reply) -> None:
        headers = [*reply.headers, ("content-length", str(len(reply.body)))]
        if reply.close:
            headers.append(("connection", "close"))
        events: list[Any] = [h11.Response(status_code=reply.status, headers=headers)]
        if reply.body:
            events.append(h11.Data(data=reply.body))
        events.append(h11.EndOfMessage())
        await self._send(*events)

    async def _fail(self, status: int) -> None:
        if self.h11.our_state in (h11.IDLE, h11.SEND_RESPONSE):
            with contextlib.suppress(_PeerGone, h11.LocalProtocolError):
                await self.reply(Reply(status, close=True))

    async def answer(self, stream: Stream, decision: Dispatch) -> None:
        """Write the answer to a dispatched request, JSON or SSE, watching the
        socket meanwhile: a client that hangs up raises _PeerGone."""

        async def write() -> None:
            while stream.mode is None:
                await stream.wait()
            if stream.mode == "json":
                while stream.response is None:
                    await stream.wait()
                message, data = stream.response
                await self.reply(self.owner.endpoint.json_reply(decision, message, data))
            else:
                head = (*SSE_HEADERS, *decision.headers)
                await self._write_sse(stream, head, (decision.priming or b"") + stream.take())

        await self._watched(write)

    async def _watched(self, write: Callable[[], Awaitable[None]]) -> None:
        # Run ``write`` while watching the socket; raise _PeerGone if the client
        # hung up or stopped taking what we wrote.
        self.hung_up = False
        async with anyio.create_task_group() as tg:
            tg.start_soon(self._watch_hangup, tg.cancel_scope)
            try:
                await write()
            except _PeerGone:
                self.hung_up = True
            tg.cancel_scope.cancel()
        if self.hung_up:
            raise _PeerGone

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

    async def stream_events(self, stream: Stream | None, decision: OpenStream) -> None:
        """Write a GET stream: the replay, then the live stream if it goes on."""
        first = (decision.priming or b"") + b"".join(decision.replay)
        if stream is None:
            # Resuming a stream that has ended: the replay is all there is.
            events: list[Any] = [h11.Response(status_code=200, headers=list(decision.headers))]
            if first:
                events.append(h11.Data(data=first))
            await self._send(*events, h11.EndOfMessage())
            return
        stream.attached = True
        live = stream
        await self._watched(lambda: self._write_sse(live, decision.headers, first + live.take()))

    async def _write_sse(
        self, stream: Stream, head: tuple[tuple[str, str], ...], first: bytes
    ) -> None:
        await self._send(h11.Response(status_code=200, headers=list(head)))
        if first:
            await self._send(h11.Data(data=first))
        while True:
            if stream.items:
                await self._send(h11.Data(data=stream.take()))
                continue
            if stream.done or stream.overflow:
                break
            with anyio.move_on_after(self.timeouts.sse_ping) as quiet:
                await stream.wait()
            if quiet.cancelled_caught:
                await self._send(h11.Data(data=b":\n\n"))
        if stream.overflow:
            raise _PeerGone
        await self._send(h11.EndOfMessage())


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
    timeouts: HttpTimeouts = HttpTimeouts(),
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


def run_http(server: Server, *, backend: str = "asyncio", **options: Any) -> None:
    """Run ``server`` on HTTP as the whole program, until interrupted.

    Args:
        server: the application.
        backend: "asyncio" or "trio".
        options: anything `serve_http` takes (host, port, path...).
    """
    anyio.run(lambda: serve_http(server, **options), backend=backend)
