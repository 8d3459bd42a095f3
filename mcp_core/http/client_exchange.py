# The records behind the client-side HTTP rules: exchanges, SSE streams, requests.
#
# An *exchange* is one HTTP request of ours and its response. Its `Kind` says what
# it is for; its `Mode`, decided from the response head, says how its body is read:
# collected whole (a JSON answer, or an error body kept for diagnosis), parsed as
# Server-Sent Events, or drained unread.
#
# A *stream* is an SSE stream in the sense of 2025-11-25 basic/transports.mdx
# "Resumability and Redelivery": it can outlive the exchange that opened it. When
# the connection of a POST's SSE stream ends before the response came, a GET with
# `Last-Event-ID` continues the same stream on a new exchange; the stream keeps the
# last event id seen, the server's `retry`, and how many reconnections in a row
# brought nothing.

from __future__ import annotations

import enum
from typing import Any, Final

import msgspec

from ..wire.jsonrpc import Message, Request, RequestId, Response
from ..wire.sse import ServerSentEvent, SSEError, SSEParser
from .client_actions import SendHttp

__all__ = [
    "ERROR_BODY_BYTES",
    "HttpExchange",
    "Kind",
    "Mode",
    "Pending",
    "ClientSseStream",
    "ClientState",
    "protocol_version",
]

ERROR_BODY_BYTES: Final = 64 * 1024
"""How much of an error answer's body is kept: a JSON-RPC error, or the start of an
HTML error page, for the message that fails the request."""


class Kind(enum.Enum):
    """What an exchange is for."""

    #: A message of ours, POSTed (streamable HTTP, or the HTTP+SSE POST endpoint).
    POST = "post"
    #: The standalone GET stream of a legacy session (server-initiated messages).
    LISTEN = "listen"
    #: A GET with Last-Event-ID that continues a request's interrupted stream.
    RESUME = "resume"
    #: The GET stream of the deprecated HTTP+SSE transport (2024-11-05).
    CONNECT = "connect"
    #: A new initialize after the server lost our session (404).
    REOPEN = "reopen"


class Mode(enum.Enum):
    """How a response body is read."""

    #: Not decided yet: the head has not come.
    WAIT = "wait"
    #: Collected whole, then decoded as one JSON-RPC message.
    JSON = "json"
    #: Parsed as Server-Sent Events as it arrives.
    SSE = "sse"
    #: An error status: the start of the body is kept, then judged.
    ERROR = "error"
    #: Read and dropped (a 202, an answer nobody needs).
    DRAIN = "drain"


class ClientSseStream:
    """One SSE stream, across the exchanges that carry it.

    Attributes:
        request_id: the request whose response ends it; None for the standalone
            stream.
        last_event_id: the last event id the server gave on it.
        retry: the server's reconnection delay in seconds, if it gave one.
        attempts: reconnections in a row that brought no event.
    """

    __slots__ = ("attempts", "last_event_id", "request_id", "retry")

    def __init__(self, request_id: RequestId | None) -> None:
        self.request_id = request_id
        self.last_event_id: str | None = None
        self.retry: float | None = None
        self.attempts = 0


class Pending:
    """A request of ours that waits for its answer.

    Attributes:
        method: its MCP method.
        version: the 2026-07-28-era protocol version its ``_meta`` carries, or None
            for a legacy-era request (session, resumable streams).
        exchange: the exchange that currently carries its answer.
        sent: the message and its body, kept where it may have to go again (a
            2026-07-28 tools/call refused for its headers).
    """

    __slots__ = ("exchange", "method", "sent", "version")

    def __init__(self, method: str, version: str | None) -> None:
        self.method = method
        self.version = version
        self.exchange: int | None = None
        self.sent: tuple[Message, bytes] | None = None


class HttpExchange:
    """One HTTP request of ours and what has come back of its response.

    Attributes:
        id: its number.
        kind: what it is for.
        method: the HTTP method.
        url: the URL it went to.
        message: the JSON-RPC message it carries (POST, REOPEN), else None.
        body: the request body (kept to send again after a lost session).
        session_id: the Mcp-Session-Id it carried.
        stream: the SSE stream it carries, once known.
        status: the response status, once the head came.
        mode: how the body is read.
        events: SSE events read on this exchange.
        send: the request as it was sent (to send again where a redirect says).
        sent: the adapter reported the request written whole (`request_sent`):
            from then on the server may have received it.
        hops: redirects followed to get here.
    """

    __slots__ = (
        "_buffer",
        "_parser",
        "body",
        "events",
        "hops",
        "id",
        "kind",
        "message",
        "method",
        "mode",
        "send",
        "sent",
        "session_id",
        "status",
        "stream",
        "url",
    )

    def __init__(
        self,
        exchange_id: int,
        kind: Kind,
        method: str,
        url: str,
        *,
        message: Message | None = None,
        body: bytes = b"",
        session_id: str | None = None,
        stream: ClientSseStream | None = None,
    ) -> None:
        self.id = exchange_id
        self.kind = kind
        self.method = method
        self.url = url
        self.message = message
        self.body = body
        self.session_id = session_id
        self.stream = stream
        self.status: int | None = None
        self.mode = Mode.WAIT
        self.events = 0
        self.send: SendHttp | None = None
        self.sent = False
        self.hops = 0
        self._buffer = bytearray()
        self._parser: SSEParser | None = None

    @property
    def request_id(self) -> RequestId | None:
        """The id of our request whose answer this exchange carries, if any."""
        if self.stream is not None:
            return self.stream.request_id
        message = self.message
        # Only a request of ours: a response we POST carries the server's id.
        return message.id if type(message) is Request else None

    def read_sse(self, max_event_bytes: int) -> None:
        """Read the body as SSE from now on."""
        self.mode = Mode.SSE
        self._parser = SSEParser(max_event_bytes)

    def feed_events(self, data: bytes) -> tuple[list[ServerSentEvent], str | None]:
        """Parse a chunk of an SSE body.

        Returns:
            The completed events, and why the stream cannot go on (an event over
            the size limit), or None.
        """
        assert self._parser is not None
        problem: str | None = None
        try:
            events = self._parser.feed(data)
        except SSEError as exc:
            events, problem = list(exc.events), str(exc)
        stream = self.stream
        if stream is not None:
            # "Resumability and Redelivery": the cursor within this stream.
            if self._parser.last_event_id is not None:
                stream.last_event_id = self._parser.last_event_id
            if self._parser.retry is not None:
                stream.retry = self._parser.retry / 1000
        self.events += len(events)
        return events, problem

    def collect(self, data: bytes, limit: int) -> bool:
        """Keep a chunk of a collected body; False once it would pass ``limit``
        (an error body is cut at the limit instead)."""
        room = limit - len(self._buffer)
        if len(data) > room:
            if self.mode is Mode.ERROR:
                self._buffer += data[: max(room, 0)]
                return True
            return False
        self._buffer += data
        return True

    def collected(self) -> bytes:
        """The body collected so far."""
        return bytes(self._buffer)


class ClientState:
    """What the HTTP client endpoint and its parts (the answer reader, the
    fallback planner) share, handed to each part at construction.

    Attributes:
        exchanges: live exchanges by number.
        requests: our requests still unanswered, by id.
        held: messages waiting for the gate to open, oldest first.
        gate: why messages wait (None: they go at once): "initialized"
            (the handshake's end is being answered), "listen" (the standalone
            stream is opening), "reopen" (a lost session is being replaced),
            "connect" (the HTTP+SSE stream is to name its endpoint), "failed".
        listen: the exchange carrying the standalone GET stream, if open.
        modern_seen: a 2026-07-28 request was answered: the server is modern.
    """

    __slots__ = ("exchanges", "gate", "held", "listen", "modern_seen", "requests")

    def __init__(self) -> None:
        self.exchanges: dict[int, HttpExchange] = {}
        self.requests: dict[RequestId, Pending] = {}
        self.held: list[tuple[Message, bytes]] = []
        self.gate: str | None = None
        self.listen: HttpExchange | None = None
        self.modern_seen = False


class _Protocol(msgspec.Struct):
    protocolVersion: Any = None


_protocol_decoder: Final = msgspec.json.Decoder(_Protocol)


def protocol_version(message: Response) -> str | None:
    """The ``protocolVersion`` an initialize result names, if it names one."""
    try:
        version = _protocol_decoder.decode(message.result).protocolVersion
    except (msgspec.DecodeError, UnicodeDecodeError):
        return None
    return version if isinstance(version, str) else None
