"""One HTTP/1.1 connection of the h11 server: requests read with h11, one at a time,
answered by the service (`HttpService`), with the server's timeouts.

`HttpServer` (server.py) accepts sockets and runs one `HttpConnection` each.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Final

import anyio
import h11
from anyio.abc import SocketAttribute, SocketStream, TaskGroup

from mcp_core.http.decisions import Headers, HttpRequest, Reply

from .. import backend
from ..access import refused
from ..errors import RECEIVE_ENDED, SEND_FAILED
from .head_lines import response_head, with_lines
from .service import PeerGone

if TYPE_CHECKING:
    from .server import HttpServer

__all__ = ["HttpConnection"]

_READ_BYTES: Final = 65536
_REQUEST_LINE_BYTES: Final = 8 * 1024
"""Room for the request line besides the header fields (whose size and number the
endpoint checks, `max_header_bytes` and `max_headers`); h11 stops buffering a head
larger than both together, with 431."""
_LINGER_SECONDS: Final = 1.0
"""How long a refused upload is drained before its connection is closed."""


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


class HttpConnection:
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
        #: The client's address, for the endpoint's quota per address.
        self.client = _address(sock)
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
        self._now = owner.service.now
        # The way around anyio for `try_send` (`backend.direct_writer`), found at
        # its first use (`backend.NO_WAY` if there is none).
        self._way: backend.DirectWriter | None = None
        self._behind = b""  # what a try_send could not write: it goes first
        self._sending = False
        self._chunked = False  # the response's body is in chunks, seen by h11's first

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
        except RECEIVE_ENDED:
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
            except RECEIVE_ENDED:
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
        # A read bounded by ``deadline``, which ends the connection when it
        # passes: the server's sweep (HttpServer.waits) cancels the connection's
        # one scope then. No timer per read: arming and disarming one in the event
        # loop for every request cost more than the rest of the wait.
        waits = self.owner.waits
        waits[self] = deadline
        try:
            await self._receive()
        finally:
            waits.pop(self, None)

    async def _read_head(self) -> h11.Request | None:
        # Timeouts apply only to waits: a request whose head (and body) came in
        # one read sets no deadline.
        event = self.h11.next_event()
        if event is h11.NEED_DATA:
            if self.owner.stopping and not self.h11.trailing_data[0]:
                return None  # idle, and the server shuts down
            # Idle between requests: wait keep_alive for the first byte, then
            # head for the rest of the head (a slowloris client is cut off).
            # Meanwhile the server may close this connection for a new one.
            idle = self.owner.idle
            idle[self] = None
            try:
                await self._receive_within(self._now() + self.timeouts.keep_alive)
            finally:
                idle.pop(self, None)
            event = self.h11.next_event()
            if event is h11.NEED_DATA:
                deadline = self._now() + self.timeouts.head
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
                    deadline = self._now() + self.timeouts.body
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
        """End this connection, which waits for a request (the server needs room)
        or for the rest of one past its deadline."""
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
            # raw_items(): one list, where iterating h11's Headers costs two
            # Python calls a field (benchmarks/README.md, issue 20).
            head = HttpRequest.from_pairs(
                request.method, request.target, request.headers.raw_items(), client=self.client
            )
            if self.owner.stopping:
                # A new request while the server shuts down: it will not be served
                # here; the client may send it again on a new connection. A
                # health probe is answered (not ready: draining).
                probed = await service.health.answer(head, started=True)
                if probed is None:
                    refused(head, _SHUTTING_DOWN.status)
                await self.reply(probed or _SHUTTING_DOWN)
                await self._linger()
                return
            fields = head.headers
            if "content-length" in fields and "transfer-encoding" in fields:
                # RFC 9112 section 6.3: a request with both Transfer-Encoding and
                # Content-Length is a smuggling attempt as often as a mistake; the
                # server MUST close the connection after responding.
                await self._fail(400, head)
                await self._linger()
                return
            admitted = await service.admit(head)
            if isinstance(admitted, Reply) and admitted.close:
                await self.reply(admitted)
                await self._linger()
                return
            try:
                body = await self._read_body(endpoint.config.max_body_bytes)
            except h11.RemoteProtocolError as exc:
                await self._fail(exc.error_status_hint, head)
                return
            if body is None:
                too_large = endpoint.too_large()
                refused(head, too_large.status)
                await self.reply(too_large)
                await self._linger()
                return
            if isinstance(admitted, Reply):
                await self.reply(admitted)
            else:
                await service.handle(
                    self, head, body, admitted.principal, checked=True, scopes=admitted.scopes
                )
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

    @property
    def peer(self) -> tuple[str, int] | None:
        found = self.sock.extra(SocketAttribute.remote_address, None)
        return (str(found[0]), int(found[1])) if isinstance(found, tuple) else None

    async def _send(self, data: bytes) -> None:
        # The write's deadline is recorded for the server's sweep, which closes
        # the socket of a write still waiting past it (a client that stopped
        # reading): the send then fails, PeerGone. No cancel scope and no timer
        # per write: for a write the socket takes at once, which is nearly every
        # write, both cost more than the write.
        behind = self._behind
        if behind:
            self._behind = b""
            data = behind + data
        writes = self.owner.writes
        writes[self] = self._now() + self.timeouts.write
        self._sending = True
        try:
            await self.sock.send(data)
        except SEND_FAILED:
            raise PeerGone from None
        finally:
            self._sending = False
            writes.pop(self, None)

    def try_send(self, data: bytes) -> bool | None:
        """Write a part of a streamed body now, without waiting, if the socket
        takes it: an SSE event written by whoever queued it (the fan-out of a
        notification), with no task switch for the stream's writer.

        Returns:
            True: written whole. False: written in part; the rest goes first with
            the next `send`, which the caller must see to. None: not taken (a
            write is under way or behind, the socket is full, or there is no way
            around anyio's stream here): `send` it.
        """
        if self._sending or self._behind:
            return None
        way = self._way
        if way is None:
            way = self._way = backend.direct_writer(self.sock) or backend.NO_WAY
        if not way.ready():
            return None
        try:
            framed = self._chunk(data)
        except h11.LocalProtocolError:
            return None
        sent = way.write(framed)
        if sent is None:
            return None
        if sent == len(framed):
            return True
        self._behind = framed[sent:]
        return False

    async def cut_off(self) -> None:
        """Close the socket under a write that waited past its deadline."""
        with contextlib.suppress(Exception):
            await self.sock.aclose()

    def _head(self, status: int, headers: Headers) -> bytes:
        if self.owner.stopping and _CLOSE not in headers:
            headers = (*headers, _CLOSE)  # the last answer on this connection
        response, lines = response_head(status, headers)
        self._chunked = False
        return with_lines(self.h11.send(response) or b"", lines)

    def _chunk(self, data: bytes) -> bytes:
        # A part of the body as h11 frames it. Its Data costs more than the rest
        # of a direct write (~7 us): once h11 has framed one as a chunk of
        # this response, the next are framed here the same way.
        if self._chunked:
            return b"%x\r\n%b\r\n" % (len(data), data)
        framed = self.h11.send(h11.Data(data=data)) or b""
        self._chunked = framed == b"%x\r\n%b\r\n" % (len(data), data)
        return framed

    async def reply(self, reply: Reply) -> None:
        length = ("content-length", str(len(reply.body)))
        own = (length, _CLOSE) if reply.close else (length,)
        data = self._head(reply.status, reply.headers + own)
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

    async def _fail(self, status: int, head: HttpRequest | None = None) -> None:
        if self.h11.our_state in (h11.IDLE, h11.SEND_RESPONSE):
            refused(head, status)
            with contextlib.suppress(PeerGone, h11.LocalProtocolError):
                await self.reply(Reply(status, close=True))

    def closing(self) -> anyio.CancelScope | None:
        return self._deadline

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

    async def ending(self, write: Callable[[], Awaitable[None]]) -> None:
        # As `watched`, with the connection's own scope as what a hang-up or
        # `gone` cancels: the connection ends (`run`), and no scope of the
        # request's own is entered (~27k instructions on asyncio, issue 20).
        deadline = self._deadline
        if deadline is None:
            await self.watched(write)
            return
        if self.eof:
            self.hung_up = True
            raise PeerGone
        self.hung_up = False
        self._watch = deadline
        try:
            await write()
        except PeerGone:
            self.hung_up = True
            raise
        finally:
            self._watch = None


_END: Final = h11.EndOfMessage()
_CLOSE: Final = ("connection", "close")
_SHUTTING_DOWN: Final = Reply(
    503,
    (("content-type", "text/plain"), ("retry-after", "1")),
    b"the server is shutting down",
    close=True,
)


def _address(sock: SocketStream) -> str | None:
    peer = sock.extra(SocketAttribute.remote_address, None)
    return str(peer[0]) if isinstance(peer, tuple) else None
