# When the first plan fails: a lost session, refused headers, an older server.
#
# A lost session (2025-11-25 basic/transports.mdx "Session Management" items 3-4):
# the server answers 404 to a request carrying its session id once it has ended
# the session, and the client "MUST start a new session by sending a new
# InitializeRequest without a session ID attached". The endpoint does that on its
# own: it holds what is being sent, replays the initialize the session once sent
# (and its notifications/initialized) to get a new session id, then sends the
# refused request again (a 404 means it was not served) and what was held. The
# session above never notices; state the server kept for the old session (log
# level, subscriptions) is gone, as the new session id says. A second 404 for the
# same request, a refused initialize, or another protocol version ends the
# connection.
#
# Headers the server did not expect (2026-07-28 basic/transports/streamable-http.mdx
# "Client Behavior"): a tools/call refused with HeaderMismatch (-32020), perhaps
# because the tool's x-mcp-header annotations changed or were never listed, "SHOULD"
# make the client call tools/list and send the request again with the headers the
# listing calls for. The endpoint lists every page itself, under ids of its own that
# the session never sees, then sends the call once more; a second refusal is the
# answer.
#
# An older server (2025-11-25 "Backwards Compatibility"): 400, 404 or 405 to the
# initialize POST means a server of the deprecated HTTP+SSE transport (2024-11-05
# basic/transports.mdx "HTTP with SSE") may sit at the URL. A GET there must open
# an SSE stream whose first event, `endpoint`, names the URL to POST messages to
# (_http_urls.resolve_endpoint); the server's messages then come as `message`
# events on that stream, and every POST is answered with 202. The initialize goes
# again, to that endpoint.

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

import msgspec

from ..wire.errors import HEADER_MISMATCH, RemoteProtocolError
from ..wire.jsonrpc import (
    ErrorResponse,
    Message,
    Request,
    RequestId,
    Response,
    decode_message,
    encode_message,
)
from ..wire.sse import ServerSentEvent
from .client_actions import AbortExchange, ClientAction, ClientNote, EndpointClosed
from .client_answers import is_event_stream, visible_ascii
from .client_exchange import HttpExchange, Kind, Mode, Pending
from .headers import media_type
from .tool_headers import absorb_tool_listing, peek_request
from .urls import resolve_endpoint

if TYPE_CHECKING:
    from .client import HttpClientEndpoint

__all__ = [
    "MAX_LISTING_PAGES",
    "Relisting",
    "connect_end",
    "connect_event",
    "connect_head",
    "fall_back",
    "header_mismatch",
    "listing_failed",
    "relisted",
    "reopen_end",
    "reopen_event",
    "reopen_head",
    "session_lost",
]


# --- a lost session --------------------------------------------------------------------


def session_lost(ep: HttpClientEndpoint, exchange: HttpExchange) -> list[ClientAction]:
    """A request of our session got 404: open a new session, then send it again."""
    assert exchange.message is not None and exchange.request_id is not None
    request_id = exchange.request_id
    if exchange.session_id != ep.session_id:
        # Refused for a session we have already replaced (or are replacing).
        ep._requests.pop(request_id, None)
        ep._held.insert(0, (exchange.message, exchange.body))
        return ep._release() if ep._gate is None else []
    actions: list[ClientAction] = []
    ep.session_id = None
    listen = ep._listen
    if listen is not None:
        # The standalone stream belongs to the lost session.
        ep._exchanges.pop(listen.id, None)
        ep._listen = None
        actions.append(AbortExchange(listen.id))
    if request_id in ep._retried or ep._initialize is None:
        return actions + ep._fail(exchange, "the server ended the session (HTTP 404)")
    ep._retried.add(request_id)
    ep._requests.pop(request_id, None)
    ep._held.insert(0, (exchange.message, exchange.body))
    if ep._gate == "reopen":
        return actions
    ep._gate = "reopen"
    message, body = ep._initialize
    return [*actions, ep._post(message, body, session=False, kind=Kind.REOPEN)]


def reopen_head(
    ep: HttpClientEndpoint, exchange: HttpExchange, headers: dict[str, str]
) -> list[ClientAction]:
    """The head of the answer to the new initialize."""
    status = exchange.status or 0
    if not 200 <= status < 300:
        exchange.mode = Mode.DRAIN
        return _reopen_failed(ep, f"a new initialize got HTTP {status}")
    session_id = headers.get("mcp-session-id")
    if session_id is not None and visible_ascii(session_id):
        ep.session_id = session_id
    if media_type(headers.get("content-type", "")) == "text/event-stream":
        exchange.read_sse(ep.config.max_event_bytes)
    else:
        exchange.mode = Mode.JSON  # json_end hands the answer to `reopened`
    return []


def reopen_event(
    ep: HttpClientEndpoint, exchange: HttpExchange, event: ServerSentEvent
) -> list[ClientAction]:
    """An event of the new initialize's SSE answer: wait for the response."""
    if event.event != "message" or not event.data:
        return []
    try:
        answer = decode_message(event.data.encode("utf-8"), ep.config.limits)
    except RemoteProtocolError:
        return []
    if type(answer) is not Response and type(answer) is not ErrorResponse:
        return []
    ep._exchanges.pop(exchange.id, None)
    return [AbortExchange(exchange.id), *reopened(ep, answer)]


def reopened(ep: HttpClientEndpoint, answer: object) -> list[ClientAction]:
    """The new initialize was answered: on success, notifications/initialized goes
    again (then the standalone stream, then what was held)."""
    assert ep._initialize is not None and ep._initialized is not None
    initialize_id = getattr(ep._initialize[0], "id", None)
    if type(answer) is not Response or answer.id != initialize_id:
        return _reopen_failed(ep, "the new initialize was refused")
    version = ep._protocol_version(answer)
    if version != ep.revision:
        return _reopen_failed(ep, f"the new session speaks {version!r}, not {ep.revision!r}")
    ep._gate = None
    message, body = ep._initialized
    return ep._dispatch(message, body)


def reopen_end(ep: HttpClientEndpoint, exchange: HttpExchange, reason: str) -> list[ClientAction]:
    """The new initialize ended with no answer."""
    return _reopen_failed(ep, f"the new initialize got no answer: {reason}")


def _reopen_failed(ep: HttpClientEndpoint, reason: str) -> list[ClientAction]:
    if ep._gate != "reopen":
        return []
    ep._gate = "failed"
    text = f"the server ended the session and a new one could not be opened: {reason}"
    return [*ep._fail_held(text), EndpointClosed(text)]


# --- refused headers ---------------------------------------------------------------------

MAX_LISTING_PAGES: Final = 100
"""Pages of tools/list read before the refused call goes again with what is known."""


class _Page(msgspec.Struct):
    nextCursor: Any = None


_page_decoder: Final = msgspec.json.Decoder(_Page)


class Relisting:
    """A tools/call refused for its headers, waiting for a fresh tools listing."""

    __slots__ = ("error", "meta", "original", "pages")

    def __init__(self, original: tuple[Message, bytes], error: ErrorResponse) -> None:
        self.original = original
        self.error = error
        self.meta = peek_request(original[1]).params.get("_meta")
        self.pages = 0


def header_mismatch(
    ep: HttpClientEndpoint, pending: Pending, error: ErrorResponse
) -> list[ClientAction] | None:
    """A 2026-07-28 tools/call was refused: list the tools, then send it again (once)."""
    if error.error.code != HEADER_MISMATCH or error.id in ep._relisted or pending.sent is None:
        return None
    assert error.id is not None
    ep._relisted.add(error.id)
    return _list_page(ep, Relisting(pending.sent, error), None)


def _list_page(
    ep: HttpClientEndpoint, relisting: Relisting, cursor: str | None
) -> list[ClientAction]:
    ep._next_listing += 1
    request_id = f"mcp-core/tools-list-{ep._next_listing}"  # never one of the session's ids
    params: dict[str, Any] = {"_meta": relisting.meta}
    if cursor is not None:
        params["cursor"] = cursor
    request = Request(id=request_id, method="tools/list", params=params)
    ep._listings[request_id] = relisting
    return ep._dispatch(request, encode_message(request))


def relisted(ep: HttpClientEndpoint, answer: Response | ErrorResponse) -> list[ClientAction]:
    """A page of our own tools/list came: the next page, or the call again."""
    assert answer.id is not None
    relisting = ep._listings.pop(answer.id)
    ep._requests.pop(answer.id, None)
    notes: list[ClientAction] = []
    if type(answer) is Response:
        _, dropped = absorb_tool_listing(answer.result, ep.tool_headers)
        notes = [ClientNote(text) for text in dropped]
        relisting.pages += 1
        try:
            cursor = _page_decoder.decode(answer.result).nextCursor
        except (msgspec.DecodeError, UnicodeDecodeError):
            cursor = None
        if isinstance(cursor, str) and cursor and relisting.pages < MAX_LISTING_PAGES:
            return notes + _list_page(ep, relisting, cursor)
    message, body = relisting.original
    return notes + ep._dispatch(message, body)


def listing_failed(ep: HttpClientEndpoint, request_id: RequestId) -> list[ClientAction]:
    """Our own tools/list failed: the refusal of the call is its answer."""
    relisting = ep._listings.pop(request_id)
    ep._requests.pop(request_id, None)
    return ep._deliver(relisting.error)


# --- HTTP+SSE, the 2024-11-05 transport --------------------------------------------------


def fall_back(ep: HttpClientEndpoint, exchange: HttpExchange) -> list[ClientAction]:
    """initialize got 400/404/405: try the HTTP+SSE transport at the same URL."""
    assert exchange.message is not None
    ep.transport = "sse"
    ep._refused_status = exchange.status
    ep._held.insert(0, (exchange.message, exchange.body))
    ep._gate = "connect"
    return [ep._get(Kind.CONNECT, None)]


def connect_head(
    ep: HttpClientEndpoint, exchange: HttpExchange, headers: dict[str, str]
) -> list[ClientAction]:
    """The head of the HTTP+SSE stream."""
    if is_event_stream(exchange, headers):
        exchange.read_sse(ep.config.max_event_bytes)
        return []
    exchange.mode = Mode.DRAIN
    return _connect_failed(ep, f"GET {ep.url} opened no SSE stream (HTTP {exchange.status})")


def connect_event(
    ep: HttpClientEndpoint, exchange: HttpExchange, event: ServerSentEvent
) -> list[ClientAction]:
    """An event of the HTTP+SSE stream: `endpoint` first, then `message`s."""
    if event.event == "endpoint":
        if ep.endpoint is not None:
            return []  # named once; a server cannot move us elsewhere later
        try:
            ep.endpoint = resolve_endpoint(ep.url, event.data)
        except ValueError as exc:
            ep._exchanges.pop(exchange.id, None)
            return [AbortExchange(exchange.id), *_connect_failed(ep, str(exc))]
        return ep._release()
    if ep.endpoint is None:
        return []
    return ep._stream_event(exchange, event)


def connect_end(ep: HttpClientEndpoint, exchange: HttpExchange, reason: str) -> list[ClientAction]:
    """The HTTP+SSE stream is the connection: when it ends, everything ends."""
    if ep.endpoint is None:
        return _connect_failed(
            ep, f"the HTTP+SSE stream ended before naming its endpoint: {reason}"
        )
    return [EndpointClosed(f"the server closed the HTTP+SSE stream: {reason}")]


def _connect_failed(ep: HttpClientEndpoint, reason: str) -> list[ClientAction]:
    status = ep._refused_status
    if status is not None:
        reason = f"POST {ep.url} got HTTP {status}, and {reason}"
    ep._gate = "failed"
    return [*ep._fail_held(reason, status), EndpointClosed(reason)]
