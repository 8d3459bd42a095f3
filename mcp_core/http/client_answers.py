# Reading the answers of streamable HTTP, client side.
#
# The handlers `HttpClientEndpoint` calls, by exchange kind, when a response head
# arrives, an SSE event is complete, or a response ends. They read (2025-11-25
# basic/transports.mdx "Sending Messages to the Server" items 4-6, "Listening for
# Messages from the Server", "Resumability and Redelivery"):
#
#   a POST's answer   2xx: JSON (one message) or an SSE stream, 202 for what needs
#                     no answer; an error status: see `refusal_end`.
#   a request stream  ends with the response; one that ends or breaks first is
#                     resumed with GET and Last-Event-ID after the server's
#                     `retry`, unless it is a 2026-07-28 stream ("Resumable SSE
#                     streams via Last-Event-ID are not supported") or carried no
#                     event id.
#   the GET stream    a legacy session's standalone stream: SSE, or 405 for none;
#                     reopened after `retry` when the server closes it.

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from ..wire.errors import INVALID_REQUEST, RemoteProtocolError
from ..wire.jsonrpc import (
    ErrorObject,
    ErrorResponse,
    Message,
    Notification,
    Request,
    decode_message,
)
from ..wire.jsonrpc import is_batch as _is_batch
from ..wire.sse import ServerSentEvent
from .client_actions import AbortExchange, ClientAction, DeliverMessage
from .client_exchange import ClientSseStream, HttpExchange, Kind, Mode
from .headers import media_type

if TYPE_CHECKING:
    from .client import HttpClientEndpoint

__all__ = [
    "is_event_stream",
    "json_end",
    "listen_end",
    "listen_head",
    "post_head",
    "posted",
    "refusal_end",
    "resume_head",
    "stream_end",
    "stream_event",
    "visible_ascii",
]

SSE_TYPE: Final = "text/event-stream"
JSON_TYPE: Final = "application/json"


def visible_ascii(value: str) -> bool:
    """Whether a session id is well-formed ("Session Management" item 1: "MUST only
    contain visible ASCII characters")."""
    return bool(value) and all("!" <= c <= "~" for c in value)


def is_event_stream(exchange: HttpExchange, headers: dict[str, str]) -> bool:
    """Whether a response is a 2xx SSE stream."""
    status = exchange.status or 0
    return 200 <= status < 300 and media_type(headers.get("content-type", "")) == SSE_TYPE


def post_head(
    ep: HttpClientEndpoint, exchange: HttpExchange, headers: dict[str, str]
) -> list[ClientAction]:
    """The head of the answer to a POSTed message."""
    status = exchange.status or 0
    message = exchange.message
    if not 200 <= status < 300:
        return posted(ep, exchange) + _refused(ep, exchange)
    if type(message) is Request and message.method == "initialize" and ep.transport != "sse":
        # "Session Management" item 1: the session id comes with the InitializeResult.
        session_id = headers.get("mcp-session-id")
        if session_id is not None:
            if not visible_ascii(session_id):
                exchange.mode = Mode.DRAIN
                return ep._fail(exchange, f"invalid Mcp-Session-Id {session_id!r}")
            ep.session_id = session_id
    actions = posted(ep, exchange)
    if exchange.request_id is None or ep.transport == "sse":
        # A notification or a response (202, no body); or HTTP+SSE, whose
        # answers all come on its GET stream.
        exchange.mode = Mode.DRAIN
        return actions
    content_type = media_type(headers.get("content-type", ""))
    if status == 202:
        exchange.mode = Mode.DRAIN
        return actions + ep._fail(exchange, "the server accepted the request (202), no answer")
    if content_type == JSON_TYPE:
        exchange.mode = Mode.JSON
    elif content_type == SSE_TYPE:
        exchange.stream = ClientSseStream(exchange.request_id)
        exchange.read_sse(ep.config.max_event_bytes)
    else:
        exchange.mode = Mode.DRAIN
        actions += ep._fail(exchange, f"unexpected Content-Type {content_type or '(none)'!r}")
    return actions


def posted(ep: HttpClientEndpoint, exchange: HttpExchange) -> list[ClientAction]:
    """A POST was answered (or failed): the answer to notifications/initialized
    opens the gate; next comes the standalone stream, then everything held."""
    message = exchange.message
    if ep._gate != "initialized" or type(message) is not Notification:
        return []
    if message.method != "notifications/initialized":
        return []
    status = exchange.status or 0
    if ep.transport == "streamable" and ep.config.standalone_stream and 200 <= status < 300:
        ep._gate = "listen"
        return [ep._get(Kind.LISTEN, ep._listen_stream)]
    return ep._release()


def _refused(ep: HttpClientEndpoint, exchange: HttpExchange) -> list[ClientAction]:
    if exchange.request_id is None:
        exchange.mode = Mode.DRAIN  # nothing waits for it
        return []
    if exchange.status == 404 and exchange.session_id is not None:
        exchange.mode = Mode.DRAIN
        return ep._session_lost(exchange)
    exchange.mode = Mode.ERROR  # the body decides: refusal_end
    return []


def refusal_end(ep: HttpClientEndpoint, exchange: HttpExchange) -> list[ClientAction]:
    """A request was answered with an error status; its body decides what it means."""
    body = exchange.collected()
    request_id = exchange.request_id
    status = exchange.status
    try:
        answer: Message | None = decode_message(body, ep.config.limits)
    except RemoteProtocolError:
        answer = None
    ours = type(answer) is ErrorResponse and answer.id == request_id
    message = exchange.message
    if (
        type(message) is Request
        and message.method == "initialize"
        and status in (400, 404, 405)
        and ep.config.transport == "auto"
        and ep.transport == "streamable"
        and not ours
    ):
        # 2025-11-25 "Backwards Compatibility": perhaps an HTTP+SSE server.
        return ep._fall_back(exchange)
    if type(answer) is ErrorResponse and request_id is not None:
        # The server's own JSON-RPC answer; one it could not tie to the request
        # ("a JSON-RPC error response that has no id") is tied to it here.
        return ep._deliver(ErrorResponse(id=request_id, error=answer.error))
    pending = ep._requests.get(request_id) if request_id is not None else None
    if (
        request_id is not None
        and pending is not None
        and pending.version is not None
        and not ep._modern_seen
        and status in (400, 404, 405)
    ):
        # 2026-07-28 streamable-http.mdx "Backward Compatibility": a 4xx without a
        # recognised modern error means a legacy server. The session decides that
        # from a JSON-RPC error, so it gets one.
        text = f"HTTP {status}: not a 2026-07-28 server"
        return ep._deliver(
            ErrorResponse(id=request_id, error=ErrorObject(code=INVALID_REQUEST, message=text))
        )
    return ep._fail(exchange, f"the server answered HTTP {status}", body)


def json_end(ep: HttpClientEndpoint, exchange: HttpExchange) -> list[ClientAction]:
    """A JSON answer is complete."""
    body = exchange.collected()
    try:
        answer = decode_message(body, ep.config.limits)
    except RemoteProtocolError as exc:
        if exchange.kind is Kind.POST and _is_batch(body):
            # 2025-03-26 batches: the session reads them.
            return [DeliverMessage(body), *_unless_answered(ep, exchange)]
        return ep._fail(exchange, f"the answer is not a JSON-RPC message: {exc.message}")
    if exchange.kind is Kind.REOPEN:
        return ep._reopened(answer)
    return [*ep._deliver(answer), *_unless_answered(ep, exchange)]


def _unless_answered(ep: HttpClientEndpoint, exchange: HttpExchange) -> list[ClientAction]:
    request_id = exchange.request_id
    if request_id is not None and request_id in ep._requests:
        return ep._fail(exchange, "the answer was not the response to the request")
    return []


def stream_event(
    ep: HttpClientEndpoint, exchange: HttpExchange, event: ServerSentEvent
) -> list[ClientAction]:
    """One event of a POST's, a resumed, or the standalone stream: JSON-RPC
    messages come in "message" events; a priming event (an id, empty data) has
    none."""
    if event.event != "message" or not event.data:
        return []
    data = event.data.encode("utf-8")
    try:
        message = decode_message(data, ep.config.limits)
    except RemoteProtocolError:
        return [DeliverMessage(data)]  # the session answers what can be answered
    actions = ep._deliver(message)
    if exchange.kind is Kind.RESUME and exchange.request_id not in ep._requests:
        # Answered: a resumed GET has nothing more to bring, and a server may hold
        # it open.
        ep._exchanges.pop(exchange.id, None)
        actions.append(AbortExchange(exchange.id))
    return actions


def stream_end(ep: HttpClientEndpoint, exchange: HttpExchange, reason: str) -> list[ClientAction]:
    """A request's stream ended or broke: fine once answered, else resumed."""
    stream = exchange.stream
    request_id = exchange.request_id
    if exchange.mode is not Mode.SSE or stream is None or request_id not in ep._requests:
        return []  # answered, answered elsewhere (HTTP+SSE), or failed already
    pending = ep._requests[request_id]
    resumable = (
        pending.version is None
        and ep.transport == "streamable"
        and stream.last_event_id is not None
        and exchange.session_id == ep.session_id
    )
    stream.attempts = 0 if exchange.events else stream.attempts + 1
    if resumable and stream.attempts < ep.config.max_reconnects:
        # "The client MUST respect the retry field, waiting the given number of
        # milliseconds before attempting to reconnect."
        delay = ep.config.default_retry if stream.retry is None else stream.retry
        return [ep._get(Kind.RESUME, stream, delay)]
    return ep._fail(exchange, f"no answer came: {reason}")


def resume_head(
    ep: HttpClientEndpoint, exchange: HttpExchange, headers: dict[str, str]
) -> list[ClientAction]:
    """The head of a GET resuming a request's stream."""
    if is_event_stream(exchange, headers):
        exchange.read_sse(ep.config.max_event_bytes)
        return []
    exchange.mode = Mode.DRAIN
    return ep._fail(exchange, f"resuming the stream failed: HTTP {exchange.status}")


def listen_head(
    ep: HttpClientEndpoint, exchange: HttpExchange, headers: dict[str, str]
) -> list[ClientAction]:
    """The head of the standalone GET stream: SSE, or 405 for none ("Listening for
    Messages from the Server" item 3). Any other refusal also means none."""
    if is_event_stream(exchange, headers):
        exchange.read_sse(ep.config.max_event_bytes)
    else:
        exchange.mode = Mode.DRAIN
        ep._listen = None
    return ep._release() if ep._gate == "listen" else []


def listen_end(ep: HttpClientEndpoint, exchange: HttpExchange, reason: str) -> list[ClientAction]:
    """The standalone stream ended: reopen it after the server's retry, unless
    reopening keeps bringing nothing (then back off, and give up)."""
    actions = ep._release() if ep._gate == "listen" else []
    if ep._listen is not exchange or ep.closed:
        return actions
    ep._listen = None
    stream = ep._listen_stream
    stream.attempts = 0 if exchange.events else stream.attempts + 1
    if exchange.session_id != ep.session_id or stream.attempts >= ep.config.max_reconnects:
        return actions
    delay = ep.config.default_retry if stream.retry is None else stream.retry
    backoff = 2 ** max(stream.attempts - 1, 0)
    return [*actions, ep._get(Kind.LISTEN, stream, delay * backoff)]
