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
# connection. A 404 to notifications/initialized (the session ended
# mid-handshake, by a server at its session cap) starts the handshake again the
# same way, once per endpoint; after that, such a 404 lets what waits go, and
# the next request finds the session gone.
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

from typing import Any, Final

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
from .client_config import HttpClientConfig
from .client_exchange import ClientState, HttpExchange, Kind, Mode, Pending, protocol_version
from .client_host import ClientHost
from .headers import media_type
from .tool_headers import absorb_tool_listing, peek_request
from .urls import resolve_endpoint

__all__ = ["MAX_LISTING_PAGES", "FallbackPlanner", "Relisting"]


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


class FallbackPlanner:
    """Recovers when the first plan fails (the three cases at the top of this
    module), for an `HttpClientEndpoint`.

    Args:
        config: the endpoint's configuration.
        state: the records the endpoint and its parts share.
        host: the endpoint, for what the planner asks it to do.

    Attributes:
        initialize: the initialize the session was opened with, to open
            another when the server ends it.
        initialized: the notifications/initialized that followed it.
    """

    def __init__(self, config: HttpClientConfig, state: ClientState, host: ClientHost) -> None:
        self._config = config
        self._state = state
        self._host = host
        self.initialize: tuple[Message, bytes] | None = None
        self.initialized: tuple[Message, bytes] | None = None
        self._retried: set[RequestId] = set()
        self._handshake_retried = False
        self._refused_status: int | None = None
        self._listings: dict[RequestId, Relisting] = {}
        self._relisted: set[RequestId] = set()
        self._next_listing = 0

    def is_listing(self, request_id: RequestId | None) -> bool:
        """Whether ``request_id`` is one of our own tools/list requests."""
        return request_id in self._listings

    # --- a lost session --------------------------------------------------------------------

    def session_lost(self, exchange: HttpExchange) -> list[ClientAction]:
        """A request of our session got 404: open a new session, then send it again."""
        assert exchange.message is not None and exchange.request_id is not None
        request_id = exchange.request_id
        if exchange.session_id != self._host.session_id:
            # Refused for a session we have already replaced (or are replacing).
            self._state.requests.pop(request_id, None)
            self._state.held.insert(0, (exchange.message, exchange.body))
            return self._host.release() if self._state.gate is None else []
        actions: list[ClientAction] = []
        self._host.session_id = None
        listen = self._state.listen
        if listen is not None:
            # The standalone stream belongs to the lost session.
            self._state.exchanges.pop(listen.id, None)
            self._state.listen = None
            actions.append(AbortExchange(listen.id))
        if request_id in self._retried or self.initialize is None:
            return actions + self._host.fail(exchange, "the server ended the session (HTTP 404)")
        self._retried.add(request_id)
        self._state.requests.pop(request_id, None)
        self._state.held.insert(0, (exchange.message, exchange.body))
        if self._state.gate == "reopen":
            return actions
        self._state.gate = "reopen"
        message, body = self.initialize
        return [*actions, self._host.post(message, body, session=False, kind=Kind.REOPEN)]

    def handshake_lost(self, exchange: HttpExchange) -> list[ClientAction]:
        """notifications/initialized got 404: the same initialize again, with
        no session id (what waits stays held until the new handshake ends)."""
        if (
            self._handshake_retried
            or self.initialize is None
            or exchange.session_id != self._host.session_id
        ):
            return self._host.release()
        self._handshake_retried = True
        self._host.session_id = None
        self._state.gate = "reopen"
        message, body = self.initialize
        return [self._host.post(message, body, session=False, kind=Kind.REOPEN)]

    def reopen_head(self, exchange: HttpExchange, headers: dict[str, str]) -> list[ClientAction]:
        """The head of the answer to the new initialize."""
        status = exchange.status or 0
        if not 200 <= status < 300:
            exchange.mode = Mode.DRAIN
            return self._reopen_failed(f"a new initialize got HTTP {status}")
        session_id = headers.get("mcp-session-id")
        if session_id is not None and visible_ascii(session_id):
            self._host.session_id = session_id
        if media_type(headers.get("content-type", "")) == "text/event-stream":
            exchange.read_sse(self._config.max_event_bytes)
        else:
            exchange.mode = Mode.JSON  # json_end hands the answer to `reopened`
        return []

    def reopen_event(self, exchange: HttpExchange, event: ServerSentEvent) -> list[ClientAction]:
        """An event of the new initialize's SSE answer: wait for the response."""
        if event.event != "message" or not event.data:
            return []
        try:
            answer = decode_message(event.data.encode("utf-8"), self._config.limits)
        except RemoteProtocolError:
            return []
        if type(answer) is not Response and type(answer) is not ErrorResponse:
            return []
        self._state.exchanges.pop(exchange.id, None)
        return [AbortExchange(exchange.id), *self.reopened(answer)]

    def reopened(self, answer: object) -> list[ClientAction]:
        """The new initialize was answered: on success, notifications/initialized goes
        again (then the standalone stream, then what was held)."""
        assert self.initialize is not None and self.initialized is not None
        initialize_id = getattr(self.initialize[0], "id", None)
        if type(answer) is not Response or answer.id != initialize_id:
            return self._reopen_failed("the new initialize was refused")
        version = protocol_version(answer)
        if version != self._host.revision:
            return self._reopen_failed(
                f"the new session speaks {version!r}, not {self._host.revision!r}"
            )
        self._state.gate = None
        message, body = self.initialized
        return self._host.dispatch(message, body)

    def reopen_end(self, exchange: HttpExchange, reason: str) -> list[ClientAction]:
        """The new initialize ended with no answer."""
        return self._reopen_failed(f"the new initialize got no answer: {reason}")

    def _reopen_failed(self, reason: str) -> list[ClientAction]:
        if self._state.gate != "reopen":
            return []
        self._state.gate = "failed"
        text = f"the server ended the session and a new one could not be opened: {reason}"
        return [*self._host.fail_held(text), EndpointClosed(text)]

    # --- refused headers ----------------------------------------------------------------

    def header_mismatch(self, pending: Pending, error: ErrorResponse) -> list[ClientAction] | None:
        """A 2026-07-28 tools/call was refused: list the tools, then send it again (once)."""
        if (
            error.error.code != HEADER_MISMATCH
            or error.id in self._relisted
            or pending.sent is None
        ):
            return None
        assert error.id is not None
        self._relisted.add(error.id)
        return self._list_page(Relisting(pending.sent, error), None)

    def _list_page(self, relisting: Relisting, cursor: str | None) -> list[ClientAction]:
        self._next_listing += 1
        request_id = f"mcp-core/tools-list-{self._next_listing}"  # never one of the session's ids
        params: dict[str, Any] = {"_meta": relisting.meta}
        if cursor is not None:
            params["cursor"] = cursor
        request = Request(id=request_id, method="tools/list", params=params)
        self._listings[request_id] = relisting
        return self._host.dispatch(request, encode_message(request))

    def relisted(self, answer: Response | ErrorResponse) -> list[ClientAction]:
        """A page of our own tools/list came: the next page, or the call again."""
        assert answer.id is not None
        relisting = self._listings.pop(answer.id)
        self._state.requests.pop(answer.id, None)
        notes: list[ClientAction] = []
        if type(answer) is Response:
            _, dropped = absorb_tool_listing(answer.result, self._host.tool_headers)
            notes = [ClientNote(text) for text in dropped]
            relisting.pages += 1
            try:
                cursor = _page_decoder.decode(answer.result).nextCursor
            except (msgspec.DecodeError, UnicodeDecodeError):
                cursor = None
            if isinstance(cursor, str) and cursor and relisting.pages < MAX_LISTING_PAGES:
                return notes + self._list_page(relisting, cursor)
        message, body = relisting.original
        return notes + self._host.dispatch(message, body)

    def listing_failed(self, request_id: RequestId) -> list[ClientAction]:
        """Our own tools/list failed: the refusal of the call is its answer."""
        relisting = self._listings.pop(request_id)
        self._state.requests.pop(request_id, None)
        return self._host.deliver(relisting.error)

    # --- HTTP+SSE, the 2024-11-05 transport --------------------------------------------------

    def fall_back(self, exchange: HttpExchange) -> list[ClientAction]:
        """initialize got 400/404/405: try the HTTP+SSE transport at the same URL."""
        assert exchange.message is not None
        self._host.transport = "sse"
        self._refused_status = exchange.status
        self._state.held.insert(0, (exchange.message, exchange.body))
        self._state.gate = "connect"
        return [self._host.get(Kind.CONNECT, None)]

    def connect_head(self, exchange: HttpExchange, headers: dict[str, str]) -> list[ClientAction]:
        """The head of the HTTP+SSE stream."""
        if is_event_stream(exchange, headers):
            exchange.read_sse(self._config.max_event_bytes)
            return []
        exchange.mode = Mode.DRAIN
        return self._connect_failed(
            f"GET {self._host.url} opened no SSE stream (HTTP {exchange.status})"
        )

    def connect_event(self, exchange: HttpExchange, event: ServerSentEvent) -> list[ClientAction]:
        """An event of the HTTP+SSE stream: `endpoint` first, then `message`s."""
        if event.event == "endpoint":
            if self._host.endpoint is not None:
                return []  # named once; a server cannot move us elsewhere later
            try:
                self._host.endpoint = resolve_endpoint(self._host.url, event.data)
            except ValueError as exc:
                self._state.exchanges.pop(exchange.id, None)
                return [AbortExchange(exchange.id), *self._connect_failed(str(exc))]
            return self._host.release()
        if self._host.endpoint is None:
            return []
        return self._host.stream_event(exchange, event)

    def connect_end(self, exchange: HttpExchange, reason: str) -> list[ClientAction]:
        """The HTTP+SSE stream is the connection: when it ends, everything ends."""
        if self._host.endpoint is None:
            return self._connect_failed(
                f"the HTTP+SSE stream ended before naming its endpoint: {reason}"
            )
        return [EndpointClosed(f"the server closed the HTTP+SSE stream: {reason}")]

    def _connect_failed(self, reason: str) -> list[ClientAction]:
        status = self._refused_status
        if status is not None:
            reason = f"POST {self._host.url} got HTTP {status}, and {reason}"
        self._state.gate = "failed"
        return [*self._host.fail_held(reason, status), EndpointClosed(reason)]
