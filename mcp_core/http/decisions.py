# What the streamable-HTTP rules decide, and the request head they decide on.
#
# `HttpEndpoint` (_http_server) turns an `HttpRequest` and its body into one of
# the decisions below; an adapter carries it out. The decisions are plain frozen
# records: the adapter needs no knowledge of MCP to act on them. They are frozen
# msgspec Structs, not frozen dataclasses: several are made per request, and a
# frozen dataclass sets each field through `object.__setattr__` (a Dispatch took
# ten times as long to make).

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

from msgspec import UNSET, Struct

from ..wire.errors import INVALID_REQUEST
from ..wire.jsonrpc import ErrorObject, ErrorResponse, Message, RequestId, encode_message
from .headers import CREDENTIAL_FIELDS, KEPT_VALUE_CHARS

__all__ = [
    "JSON_HEADER",
    "SSE_HEADERS",
    "Headers",
    "HttpRequest",
    "Reply",
    "Dispatch",
    "OpenStream",
    "EndSession",
    "OpenSseSession",
    "SendOnStream",
    "Decision",
    "AuthRefusal",
    "refuse",
]

JSON_HEADER: Final = ("content-type", "application/json")
"""The Content-Type of a JSON answer."""

SSE_HEADERS: Final = (
    ("content-type", "text/event-stream"),
    ("cache-control", "no-cache"),
    # 2026-07-28 streamable-http.mdx "Receiving Messages": SHOULD, so that proxies
    # such as nginx pass events on at once.
    ("x-accel-buffering", "no"),
)
"""Response headers that start an SSE stream."""

_REASONS: Final = {
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    405: "Method Not Allowed",
    406: "Not Acceptable",
    409: "Conflict",
    413: "Content Too Large",
    415: "Unsupported Media Type",
    421: "Misdirected Request",
    429: "Too Many Requests",
    431: "Request Header Fields Too Large",
    503: "Service Unavailable",
}


_MAX_FIELDS: Final = 4096
"""Distinct header fields kept decoded (a field whose value changes with every
request, such as a client's request id, would otherwise grow the table)."""

_FIELDS: dict[tuple[Any, Any], tuple[str, str, int]] = {}


def _field(pair: Any) -> tuple[str, str, int]:
    # A field's name (lower case) and value as text, and its size for the head
    # limit. Exact type checks: h11 and ASGI give bytes, tests str.
    name, value = pair
    key = (name.decode("latin-1") if type(name) is bytes else str(name)).lower()
    text = value.decode("latin-1") if type(value) is bytes else str(value)
    return key, text, len(key) + len(text) + 4


class HttpRequest(Struct, frozen=True):
    """The head of one HTTP request: method, target and headers.

    ``headers`` maps lower-case names to values; repeated headers are joined
    with ", " (RFC 9110 section 5.3). Build it with `from_pairs`.

    Attributes:
        method: the request method.
        target: the request target below ``prefix`` (path and query).
        headers: the header fields.
        prefix: the path the application is mounted at (ASGI ``root_path``), for
            URLs the server hands out; "" at the root.
        header_count: header fields as received (before joining repeats).
        header_bytes: their size, names and values plus 4 bytes each (": ",
            CRLF), for the head size limit.
        client: the address the request came from (the peer's IP address, as
            the adapter knows it), or None; for the quota per address.
    """

    method: str
    target: str
    headers: Mapping[str, str]
    prefix: str = ""
    header_count: int = 0
    header_bytes: int = 0
    client: str | None = None

    @classmethod
    def from_pairs(
        cls,
        method: str | bytes,
        target: str | bytes,
        pairs: Iterable[tuple[str | bytes, str | bytes]],
        prefix: str = "",
        client: str | None = None,
    ) -> HttpRequest:
        """Build a request head from raw (name, value) pairs, as h11 gives them."""
        headers: dict[str, str] = {}
        count = size = 0
        fields = _FIELDS
        for pair in pairs:
            # A client sends the same fields with every request (all but
            # Content-Length, often that too): each (name, value) is decoded
            # once, then found by its bytes, one lookup where two decodes and a
            # lower() cost several times more.
            try:
                field = fields.get(pair)
            except TypeError:  # unhashable (a list): decoded every time
                field = _field(pair)
            if field is None:
                field = _field(pair)
                if len(field[1]) <= KEPT_VALUE_CHARS and field[0] not in CREDENTIAL_FIELDS:
                    if len(fields) >= _MAX_FIELDS:
                        fields.clear()
                    fields[pair] = field
            key, text, length = field
            if key in headers:
                headers[key] = f"{headers[key]}, {text}"
            else:
                headers[key] = text
            count += 1
            size += length
        return cls(
            method=method.decode("ascii") if type(method) is bytes else str(method),
            target=target.decode("latin-1") if type(target) is bytes else str(target),
            headers=headers,
            prefix=prefix,
            header_count=count,
            header_bytes=size,
            client=client,
        )

    @property
    def query(self) -> str:
        """The query string (after ``?``), or ""."""
        return self.target.partition("?")[2]

    @property
    def path(self) -> str:
        """The target without its query string."""
        return self.target.split("?", 1)[0]


Headers = tuple[tuple[str, str], ...]


class Reply(Struct, frozen=True):
    """Answer at once.

    Attributes:
        status: the HTTP status.
        headers: response headers (Content-Length is the adapter's).
        body: the response body, often a JSON-RPC error.
        close: close the connection afterwards (the body was not read).
    """

    status: int
    headers: Headers = ()
    body: bytes = b""
    close: bool = False


class Dispatch(Struct, frozen=True):
    """Feed ``body`` to a session and answer from what it sends.

    Attributes:
        message: the decoded message (params still Raw); None for a batch.
        body: its bytes, to feed as they are.
        session_id: the legacy session to feed, or None: a 2026-07-28 request,
            served on its own.
        created: the session was minted by this request (initialize); the
            adapter creates its protocol side and `bind`s it.
        request_id: the request's id; None for a notification or a response,
            which are answered with ``accepted`` once fed.
        stream_id: the stream of a legacy request's answer, for event ids and
            Last-Event-ID replay.
        sse: start an SSE stream at once (else JSON unless something comes
            before the response, or ``json_only``).
        json_only: never stream: messages for the request that are not its
            response go to the session's standalone stream.
        priming: the first event to write when streaming: an event id with
            empty data and a ``retry`` (2025-11-25 polling), or None.
        headers: headers for the answer besides Content-Type (Mcp-Session-Id).
        accepted: the answer to a notification or response (or a batch of them).
        poll_after: end the SSE answer this many seconds after it starts if
            the response has not come by then (SSE polling; the client resumes
            with GET and Last-Event-ID), or None.
        batch: the ids of the requests of a 2025-03-26 batch (see `batches`),
            whose responses all go on this one answer: a JSON array, or events
            of one SSE stream that ends after the last of them.
    """

    message: Message | None
    body: bytes
    session_id: str | None
    created: bool = False
    request_id: RequestId | None = None
    stream_id: str | None = None
    sse: bool = False
    json_only: bool = False
    priming: bytes | None = None
    headers: Headers = ()
    accepted: Reply | None = None
    poll_after: float | None = None
    batch: tuple[RequestId, ...] = ()


class OpenStream(Struct, frozen=True):
    """Start an SSE stream of a session (GET).

    Attributes:
        session_id: the session.
        stream_id: `STANDALONE_STREAM`, or the interrupted stream being resumed.
        replay: encoded events to write first (those after Last-Event-ID).
        priming: a priming event to write first, or None.
        headers: the response headers (status 200).
    """

    session_id: str
    stream_id: str
    replay: tuple[bytes, ...] = ()
    priming: bytes | None = None
    headers: Headers = SSE_HEADERS


class EndSession(Struct, frozen=True):
    """End a session: close its protocol side, then send ``reply`` (a DELETE), if
    there is one (None: the session ended on its own, see `HttpEndpoint.fed`)."""

    session_id: str
    reply: Reply | None = None


class OpenSseSession(Struct, frozen=True):
    """Open a session of the deprecated HTTP+SSE transport (2024-11-05): a GET on
    the SSE path. The adapter creates the session's protocol side, `bind_sse`s
    it, writes ``first`` (the ``endpoint`` event) and then every message of the
    session as a ``message`` event, until the client goes; then it calls
    `end_session`.

    Attributes:
        session_id: the new session.
        principal: who the request was authenticated as, bound to the session.
        first: the encoded ``endpoint`` event.
        headers: the response headers (status 200).
    """

    session_id: str
    principal: str | None
    first: bytes
    headers: Headers = SSE_HEADERS


class SendOnStream(Struct, frozen=True):
    """Put ``data`` (an encoded SSE event) on an HTTP+SSE session's stream, then
    send ``reply``: the server's answer to a POST it refuses to feed (a request
    beyond the in-flight cap, answered with an error on the stream)."""

    session_id: str
    data: bytes
    reply: Reply


Decision = Reply | Dispatch | OpenStream | EndSession | OpenSseSession | SendOnStream


class AuthRefusal(Struct, frozen=True):
    """What an authentication hook returns to refuse a request.

    Attributes:
        status: 401 (no or bad credentials), 403 (not allowed) or 400 (a
            malformed authorization request), as 2025-11-25
            basic/authorization.mdx "Error Handling" assigns them.
        message: a short reason, put in the JSON-RPC error body.
        headers: extra response headers, such as ``WWW-Authenticate``.
    """

    status: int = 401
    message: str = "authentication required"
    headers: Headers = ()

    def __post_init__(self) -> None:
        if self.status not in (400, 401, 403):
            raise ValueError(f"an authentication refusal is 400, 401 or 403, not {self.status}")

    def reply(self) -> Reply:
        """The refusal as an HTTP reply."""
        return refuse(self.status, self.message, headers=self.headers)


def _error_body(
    code: int, message: str, request_id: RequestId | None = None, data: Any = None
) -> bytes:
    error = ErrorObject(code=code, message=message, data=UNSET if data is None else data)
    return encode_message(ErrorResponse(id=request_id, error=error))


def refuse(
    status: int,
    message: str,
    code: int = INVALID_REQUEST,
    *,
    request_id: RequestId | None = None,
    data: Any = None,
    headers: Headers = (),
    close: bool = False,
) -> Reply:
    """A refusal with a JSON-RPC error body (``request_id`` None: the request's id
    was not read)."""
    # A refusal with a JSON-RPC error body (2025-11-25 basic/transports.mdx: "The
    # HTTP response body MAY comprise a JSON-RPC error response that has no id").
    body = _error_body(code, f"{_REASONS.get(status, 'Error')}: {message}", request_id, data)
    return Reply(status, (JSON_HEADER, *headers), body, close)
