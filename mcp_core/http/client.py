# The client side of streamable HTTP (both eras) and of the deprecated HTTP+SSE
# transport, sans I/O.
#
# Theory of operation. The adapter hands every outgoing JSON-RPC message to
# `send`; the endpoint answers with actions (_http_client_decisions): mostly `Send`,
# one HTTP exchange to start. The adapter reports what comes back of each exchange
# by its number: `receive_head`, `receive_data` (body chunks), then `receive_end`
# or `receive_failure`; the endpoint answers each report with more actions:
# `Deliver` a message to the session, `Fail` a request, `Abort` an exchange,
# `Closed` when the connection is over. The endpoint reads every message it passes,
# so no method name ever reaches the adapter.
#
# Eras are per request. A request whose `_meta` names a 2026-07-28-era version is
# sent statelessly with the request metadata headers (_http_metadata); anything
# else belongs to the legacy session that `initialize` opens (2025-11-25
# basic/transports.mdx): the `Mcp-Session-Id` from the initialize answer ("Session
# Management" item 2) and the negotiated `MCP-Protocol-Version` ("Protocol Version
# Header", revisions 2025-06-18 and later) go on every later request.
#
# Ordering. Once `notifications/initialized` is sent, later messages wait until
# its answer came, then until the standalone GET stream is open (or refused): the
# server has then seen the handshake end and knows where to send what is not tied
# to a request. Messages also wait while a lost session is replaced or while the
# HTTP+SSE stream names its POST endpoint. Everything else goes at once.
#
# Answers. A request's POST gets JSON or an SSE stream. An SSE stream that ends
# (or breaks) before the response is resumed with GET and `Last-Event-ID` after
# the server's `retry` ("Resumability and Redelivery"; legacy era only: 2026-07-28
# streams are not resumable). Error statuses (_refused): 404 to a request of our
# session means the session is gone, so a new initialize opens another and the
# request goes again ("Session Management" item 4); 400/404/405 to initialize means
# an older server, and the HTTP+SSE transport is tried ("Backwards Compatibility");
# a JSON-RPC error body is the answer itself (but a 2026-07-28 tools/call refused
# with HeaderMismatch goes again once the tools are listed anew: "Client Behavior");
# anything else fails the request. The fallbacks are in _http_client_fallbacks.
# A 307 or 308 within the server's origin sends the same request to the new URL,
# which becomes the endpoint's (`_redirect`).
#
# Never twice. The adapter reports when a request is written whole
# (`request_sent`). From then on the server may have received it and acted on it,
# so a POST whose answer does not come (the connection breaks, the head times
# out, the answer breaks off) is not sent again (RFC 9112 section 9.3.1: a client
# MUST NOT automatically retry a non-idempotent request): its request fails with
# `RequestFailure.unknown` set, which says the outcome is unknown. A request that
# was provably not received (the connection failed before it was written whole)
# may go again; that is the adapter's (a stale kept-alive connection).

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any, Final
from urllib.parse import urljoin

from ..session.base import PROTOCOL_VERSION_KEY
from ..types.methods import LEGACY_REVISIONS
from ..wire.errors import LocalProtocolError
from ..wire.jsonrpc import (
    ErrorResponse,
    Message,
    Notification,
    Request,
    Response,
    encode_message,
)
from ..wire.sse import ServerSentEvent
from .client_actions import (
    AbortExchange,
    ClientAction,
    ClientNote,
    DeliverMessage,
    FailRequest,
    RequestFailure,
    SendHttp,
)
from .client_answers import AnswerReader
from .client_config import (
    ACCEPT_BOTH,
    DEFAULT_CLIENT_CONFIG,
    DEFAULT_MAX_ANSWER_BYTES,
    VERSION_HEADER_REVISIONS,
    HttpClientConfig,
    Transport,
)
from .client_exchange import (
    ERROR_BODY_BYTES,
    ClientSseStream,
    ClientState,
    HttpExchange,
    Kind,
    Mode,
    Pending,
    protocol_version,
)
from .client_fallbacks import FallbackPlanner
from .tool_headers import absorb_tool_listing, metadata_headers, peek_request
from .urls import host_header, split_url

__all__ = ["DEFAULT_MAX_ANSWER_BYTES", "HttpClientConfig", "HttpClientEndpoint", "Transport"]


MAX_REDIRECTS: Final = 5
"""Redirects followed in a row for one request."""

REPLAYABLE_METHODS: Final = frozenset(
    {
        "initialize",  # a second one opens a session that expires unused
        "ping",
        "server/discover",
        "tools/list",
        "prompts/list",
        "prompts/get",
        "resources/list",
        "resources/templates/list",
        "resources/read",
        "resources/subscribe",
        "resources/unsubscribe",
        "completion/complete",
        "logging/setLevel",
        "tasks/get",
        "tasks/list",
        "tasks/result",
    }
)
"""Requests that read, or set what they set however often they come (RFC 9110
section 9.2.2, idempotent): one whose connection turns out stale may go again
even if it was written (`SendHttp.replayable`). tools/call is not one: a tool
may act on the world (and its idempotentHint is only a hint)."""


class HttpClientEndpoint:
    """The rules of talking to one MCP server URL over HTTP, as a client.

    Args:
        url: the MCP endpoint (streamable HTTP) or the SSE URL (HTTP+SSE).
        config: how to talk to it.

    Raises:
        ValueError: ``url`` is not an absolute http(s) URL.
    """

    def __init__(self, url: str, config: HttpClientConfig = DEFAULT_CLIENT_CONFIG) -> None:
        self.url = url
        self.origin, self.target = split_url(url)
        self.config = config
        # The headers of every request, and of every POST: built once.
        self._base = (("host", host_header(self.origin)), *config.headers)
        self._post_headers = (
            *self._base,
            ("content-type", "application/json"),
            ("accept", ACCEPT_BOTH),
        )
        #: "streamable" or "sse" (HTTP+SSE, after a fallback or when asked for).
        self.transport = "sse" if config.transport == "sse" else "streamable"
        #: The HTTP+SSE POST endpoint, once the server named it.
        self.endpoint: str | None = None
        #: The legacy session's Mcp-Session-Id, once the server gave one.
        self.session_id: str | None = None
        #: The legacy revision initialize negotiated.
        self.revision: str | None = None
        self.closed = False
        self._next_exchange = 0
        self._modern: str | None = None
        #: Tool name -> its x-mcp-header map, from 2026-07-28 tools/list answers.
        self.tool_headers: dict[str, dict[str, tuple[str, ...]]] = {}
        self._state = state = ClientState()
        self._answers = answers = AnswerReader(config, state, self)
        self._fallbacks = fallbacks = FallbackPlanner(config, state, self)
        # What to do with a response head, an SSE event, the end of a response,
        # by the kind of exchange.
        self._head = {
            Kind.POST: answers.post_head,
            Kind.LISTEN: answers.listen_head,
            Kind.RESUME: answers.resume_head,
            Kind.CONNECT: fallbacks.connect_head,
            Kind.REOPEN: fallbacks.reopen_head,
        }
        self._event = {
            Kind.POST: answers.stream_event,
            Kind.LISTEN: answers.stream_event,
            Kind.RESUME: answers.stream_event,
            Kind.CONNECT: fallbacks.connect_event,
            Kind.REOPEN: fallbacks.reopen_event,
        }
        self._end = {
            Kind.POST: answers.stream_end,
            Kind.LISTEN: answers.listen_end,
            Kind.RESUME: answers.stream_end,
            Kind.CONNECT: fallbacks.connect_end,
            Kind.REOPEN: fallbacks.reopen_end,
        }

    # --- sending -----------------------------------------------------------------------

    def send(self, message: Message, body: bytes | None = None) -> list[ClientAction]:
        """Take one outgoing message.

        Args:
            message: the message.
            body: its JSON encoding, when the caller has it already.

        Returns:
            The actions that carry it (none while it waits its turn).

        Raises:
            LocalProtocolError: the endpoint is closed.
        """
        if self.closed:
            raise LocalProtocolError("the HTTP client endpoint is closed")
        if body is None:
            body = encode_message(message)
        if self._state.gate is not None:
            self._state.held.append((message, body))
            return []
        if self.transport == "sse" and self.endpoint is None:
            # HTTP+SSE from the start: the stream names where to POST.
            self._state.held.append((message, body))
            self._state.gate = "connect"
            return [self.get(Kind.CONNECT, None)]
        return self.dispatch(message, body)

    def dispatch(self, message: Message, body: bytes) -> list[ClientAction]:
        """Send one message now (for its parts: it is the message's turn)."""
        kind = type(message)
        if kind is Request:
            assert isinstance(message, Request)
            fields = peek_request(body)
            meta = fields.params.get("_meta")
            version = meta.get(PROTOCOL_VERSION_KEY) if isinstance(meta, dict) else None
            modern = (
                version if isinstance(version, str) and version not in LEGACY_REVISIONS else None
            )
            pending = Pending(message.method, modern)
            self._state.requests[message.id] = pending
            headers: list[tuple[str, str]] = []
            if modern is not None:
                tool = fields.params.get("name")
                tool_map = self.tool_headers.get(tool) if isinstance(tool, str) else None
                headers = metadata_headers(fields, modern, tool_map)
                if message.method == "tools/call":
                    pending.sent = (message, body)
            elif message.method == "initialize":
                self._fallbacks.initialize = (message, body)
                self.session_id = self.revision = self._modern = None
            send = self.post(message, body, headers, session=modern is None)
            pending.exchange = send.exchange
            return [send]
        if kind is Notification:
            assert isinstance(message, Notification)
            if message.method == "notifications/cancelled":
                return self._cancel(message, body)
            # 2026-07-28 defines no header for a notification POST; the version
            # the server answered in still tells a dual-era server its era.
            extra = [] if self._modern is None else [("mcp-protocol-version", self._modern)]
            actions: list[ClientAction] = [self.post(message, body, extra)]
            if message.method == "notifications/initialized":
                self._fallbacks.initialized = (message, body)
                self._state.gate = "initialized"
            return actions
        return [self.post(message, body)]

    def _base_headers(self) -> list[tuple[str, str]]:
        return [*self._base]

    def _session_headers(self) -> list[tuple[str, str]]:
        headers = []
        if self.session_id is not None:
            headers.append(("mcp-session-id", self.session_id))
        if self.revision in VERSION_HEADER_REVISIONS:
            headers.append(("mcp-protocol-version", self.revision))
        return headers

    def _new(self, kind: Kind, method: str, url: str, **fields: Any) -> HttpExchange:
        self._next_exchange += 1
        exchange = HttpExchange(self._next_exchange, kind, method, url, **fields)
        self._state.exchanges[exchange.id] = exchange
        return exchange

    def post(
        self,
        message: Message,
        body: bytes,
        extra: Iterable[tuple[str, str]] = (),
        *,
        session: bool = True,
        kind: Kind = Kind.POST,
    ) -> SendHttp:
        """A POST of ``body`` (for its parts)."""
        if self.transport == "sse" and self.endpoint:
            url = self.endpoint
            origin, target = split_url(url)
        else:
            url, origin, target = self.url, self.origin, self.target
        headers = [*self._post_headers, *extra]
        sent_session = None
        if self.transport == "streamable" and session and kind is Kind.POST:
            initialize = type(message) is Request and message.method == "initialize"
            if not initialize:
                headers += self._session_headers()
                sent_session = self.session_id
        exchange = self._new(kind, "POST", url, message=message, body=body, session_id=sent_session)
        replayable = type(message) is not Request or message.method in REPLAYABLE_METHODS
        send = exchange.send = SendHttp(
            exchange.id, "POST", url, origin, target, tuple(headers), body, 0.0, replayable
        )
        return send

    def get(self, kind: Kind, stream: ClientSseStream | None, delay: float = 0.0) -> SendHttp:
        """A GET of an SSE stream (for its parts)."""
        headers = self._base_headers()
        headers.append(("accept", "text/event-stream"))
        session_id = None
        if kind is not Kind.CONNECT:
            headers += self._session_headers()
            session_id = self.session_id
            if stream is not None and stream.last_event_id is not None:
                headers.append(("last-event-id", stream.last_event_id))
        exchange = self._new(kind, "GET", self.url, session_id=session_id, stream=stream)
        if kind is Kind.LISTEN:
            self._state.listen = exchange
        elif kind is Kind.RESUME and stream is not None and stream.request_id is not None:
            pending = self._state.requests.get(stream.request_id)
            if pending is not None:
                pending.exchange = exchange.id
        send = exchange.send = SendHttp(
            exchange.id, "GET", self.url, self.origin, self.target, tuple(headers), b"", delay
        )
        return send

    def _cancel(self, message: Notification, body: bytes) -> list[ClientAction]:
        request_id = peek_request(body).params.get("requestId")
        pending = self._state.requests.pop(request_id, None) if request_id is not None else None
        actions: list[ClientAction] = []
        if pending is None or pending.version is None:
            # Legacy era: the notification tells the server (2025-11-25
            # basic/utilities/cancellation.mdx); a disconnection would not.
            actions.append(self.post(message, body))
        # 2026-07-28 streamable-http.mdx "Cancellation": closing the request's
        # stream is the cancellation, and no notification is sent. In the legacy
        # era the stream is dropped too: nothing on it is wanted any more.
        exchange = (
            self._state.exchanges.pop(pending.exchange, None)
            if pending and pending.exchange
            else None
        )
        if exchange is not None and exchange.kind in (Kind.POST, Kind.RESUME):
            actions.append(AbortExchange(exchange.id))
        return actions

    def release(self) -> list[ClientAction]:
        """Open the gate and send what was held (for its parts)."""
        self._state.gate = None
        actions: list[ClientAction] = []
        while self._state.held and self._state.gate is None:
            message, body = self._state.held.pop(0)
            actions += self.dispatch(message, body)
        return actions

    # --- receiving ---------------------------------------------------------------------

    def receive_head(
        self, exchange: int, status: int, headers: Iterable[tuple[str | bytes, str | bytes]]
    ) -> list[ClientAction]:
        """The status and headers of an exchange's response arrived."""
        found = self._state.exchanges.get(exchange)
        if found is None:
            return []
        found.status = status
        lowered: dict[str, str] = {}
        for name, value in headers:
            key = (name.decode("latin-1") if isinstance(name, bytes) else name).lower()
            text = value.decode("latin-1") if isinstance(value, bytes) else value
            lowered[key] = f"{lowered[key]}, {text}" if key in lowered else text
        if (status == 307 or status == 308) and "location" in lowered:
            return self._redirect(found, lowered)
        return self._head[found.kind](found, lowered)

    def _redirect(self, exchange: HttpExchange, headers: dict[str, str]) -> list[ClientAction]:
        # RFC 9110 sections 15.4.8 and 15.4.9: 307 and 308 send the same request,
        # same method and body, to the Location. An MCP endpoint is one URL
        # (2025-11-25 basic/transports.mdx "Streamable HTTP"), so a redirect of it
        # moves it for every later request too, as a 308 says and as a 307 from a
        # framework's trailing-slash rule means. Followed within the origin only:
        # our headers (credentials, the session id) go nowhere else.
        sent = exchange.send
        assert sent is not None
        url = urljoin(exchange.url, headers["location"].strip())
        try:
            origin, target = split_url(url)
        except ValueError as exc:
            problem: str | None = f"to an unusable URL: {exc}"
        else:
            if origin != sent.origin:
                problem = f"to another origin, {url!r}: not followed"
            elif exchange.hops >= MAX_REDIRECTS:
                problem = f"{MAX_REDIRECTS} times in a row: not followed again"
            else:
                problem = None
        if problem is not None:
            note = ClientNote(f"{exchange.method} {exchange.url} was redirected {problem}")
            return [note, *self._head[exchange.kind](exchange, headers)]
        del self._state.exchanges[exchange.id]  # its body is drained unread
        actions: list[ClientAction] = []
        if exchange.url == self.url and url != self.url:
            actions.append(
                ClientNote(f"the MCP endpoint {self.url} redirects to {url}: using that")
            )
            self.url, self.target = url, target
        elif exchange.url == self.endpoint:
            self.endpoint = url
        again = self._new(
            exchange.kind,
            exchange.method,
            url,
            message=exchange.message,
            body=exchange.body,
            session_id=exchange.session_id,
            stream=exchange.stream,
        )
        again.hops = exchange.hops + 1
        send = again.send = replace(sent, exchange=again.id, url=url, target=target)
        request_id = exchange.request_id
        pending = self._state.requests.get(request_id) if request_id is not None else None
        if pending is not None and pending.exchange == exchange.id:
            pending.exchange = again.id
        if self._state.listen is exchange:
            self._state.listen = again
        actions.append(send)
        return actions

    def receive_data(self, exchange: int, data: bytes) -> list[ClientAction]:
        """A chunk of an exchange's response body arrived."""
        found = self._state.exchanges.get(exchange)
        if found is None or not data:
            return []
        mode = found.mode
        if mode is Mode.SSE:
            events, problem = found.feed_events(data)
            actions: list[ClientAction] = []
            for event in events:
                actions += self._event[found.kind](found, event)
                if found.id not in self._state.exchanges:
                    return actions
            if problem is not None:
                actions += self._too_big(found, problem)
            return actions
        if mode is Mode.JSON or mode is Mode.ERROR:
            limit = self.config.max_answer_bytes if mode is Mode.JSON else ERROR_BODY_BYTES
            if not found.collect(data, limit):
                del self._state.exchanges[found.id]
                reason = f"the answer is over {limit} bytes, the client's limit (max_answer_bytes)"
                return [AbortExchange(found.id), *self.fail(found, reason)]
        return []

    def receive_end(self, exchange: int) -> list[ClientAction]:
        """An exchange's response ended normally."""
        found = self._state.exchanges.pop(exchange, None)
        if found is None:
            return []
        if found.mode is Mode.JSON:
            return self._answers.json_end(found)
        if found.mode is Mode.ERROR:
            return self._answers.refusal_end(found)
        return self._end[found.kind](found, "the server ended the stream")

    def answered(self, exchange: int) -> bool:
        """Whether an exchange carries no unanswered request of ours any more (its
        response came, it failed, or it never carried one)."""
        found = self._state.exchanges.get(exchange)
        return found is None or found.request_id not in self._state.requests

    def request_sent(self, exchange: int) -> None:
        """An exchange's request was written whole: the server may have it now."""
        found = self._state.exchanges.get(exchange)
        if found is not None:
            found.sent = True

    def receive_failure(
        self, exchange: int, reason: str, *, refused: int | None = None
    ) -> list[ClientAction]:
        """An exchange failed: no connection, a broken one, a timeout, bad HTTP;
        ``refused``: the status with which the server refused its request before
        it ran (401 or 403, and no authorization came of it): its request fails
        with that status, its outcome known."""
        found = self._state.exchanges.pop(exchange, None)
        if found is None:
            return []
        if refused is not None:
            found.status, found.sent = refused, False
            return self._unanswered(found, reason)
        if found.status is None:
            return self._unanswered(found, reason)
        return self._broken(found, reason)

    def _drop(self, exchange: HttpExchange, reason: str) -> list[ClientAction]:
        # We stop reading an exchange ourselves.
        del self._state.exchanges[exchange.id]
        return [AbortExchange(exchange.id), *self._broken(exchange, reason)]

    def _too_big(self, exchange: HttpExchange, problem: str) -> list[ClientAction]:
        # An event over the client's limit: on a request's stream it is the answer
        # (or comes before it), which resuming would only replay: the request fails.
        if exchange.kind is Kind.LISTEN or exchange.request_id not in self._state.requests:
            return self._drop(exchange, f"the event stream broke: {problem}")
        del self._state.exchanges[exchange.id]
        limit = self.config.max_event_bytes
        reason = f"the answer is over {limit} bytes, the client's limit (max_event_bytes)"
        return [AbortExchange(exchange.id), *self.fail(exchange, reason)]

    def _broken(self, exchange: HttpExchange, reason: str) -> list[ClientAction]:
        # A response that came in part.
        if exchange.kind is Kind.REOPEN:
            return self._fallbacks.reopen_end(exchange, reason)
        if exchange.mode is Mode.JSON:
            return self.fail(exchange, f"the answer broke off: {reason}", unknown=True)
        if exchange.mode is Mode.ERROR:
            return self._answers.refusal_end(exchange)
        return self._end[exchange.kind](exchange, reason)

    def _unanswered(self, exchange: HttpExchange, reason: str) -> list[ClientAction]:
        # No response at all: connecting, writing or waiting for the head failed.
        kind = exchange.kind
        if kind is Kind.POST:
            actions = self._answers.posted(exchange)
            if exchange.request_id is not None:
                actions += self.fail(exchange, reason, unknown=exchange.sent)
            return actions
        return self._end[kind](exchange, reason)

    # --- what the rest share ------------------------------------------------------------

    def deliver(self, message: Message) -> list[ClientAction]:
        """Hand a message from the server to the session (for its parts)."""
        # Every message from the server passes here: answers settle their request,
        # and the endpoint learns what it needs from a few of them.
        kind = type(message)
        notes: list[ClientAction] = []
        if kind is Response or kind is ErrorResponse:
            request_id = message.id  # type: ignore[union-attr]
            if self._fallbacks.is_listing(request_id):
                return self._fallbacks.relisted(message)  # type: ignore[arg-type]
            pending = self._state.requests.pop(request_id, None) if request_id is not None else None
            if pending is not None and pending.sent is not None and kind is ErrorResponse:
                retry = self._fallbacks.header_mismatch(pending, message)  # type: ignore[arg-type]
                if retry is not None:
                    return retry
            if pending is not None and kind is Response:
                assert isinstance(message, Response)
                if pending.method == "initialize":
                    self.revision = protocol_version(message)
                elif pending.version is not None:
                    self._state.modern_seen = True
                    self._modern = pending.version
                    if pending.method == "tools/list":
                        result, dropped = absorb_tool_listing(message.result, self.tool_headers)
                        if dropped:
                            message = Response(id=message.id, result=result)
                            notes = [ClientNote(text) for text in dropped]
        return [DeliverMessage(message), *notes]

    def fail(
        self, exchange: HttpExchange, reason: str, body: bytes = b"", *, unknown: bool = False
    ) -> list[ClientAction]:
        """Fail the request an exchange carries (for its parts); ``unknown``: the
        server may have acted on it (see `RequestFailure`)."""
        request_id = exchange.request_id
        if request_id is not None and self._fallbacks.is_listing(request_id):
            return self._fallbacks.listing_failed(request_id)
        if request_id is None or self._state.requests.pop(request_id, None) is None:
            return []
        failure = RequestFailure(
            exchange.method, exchange.url, reason, exchange.status, body, unknown
        )
        return [FailRequest(request_id, failure)]

    def fail_held(self, reason: str, status: int | None = None) -> list[ClientAction]:
        """Fail every request that is held (for its parts)."""
        actions: list[ClientAction] = []
        held, self._state.held = self._state.held, []
        for message, _ in held:
            if type(message) is Request:
                self._state.requests.pop(message.id, None)
                actions.append(
                    FailRequest(message.id, RequestFailure("POST", self.url, reason, status))
                )
        return actions

    def stream_event(self, exchange: HttpExchange, event: ServerSentEvent) -> list[ClientAction]:
        """One event of a stream that carries the server's messages."""
        return self._answers.stream_event(exchange, event)

    def session_lost(self, exchange: HttpExchange) -> list[ClientAction]:
        """A request of our session got 404: replace the session."""
        return self._fallbacks.session_lost(exchange)

    def fall_back(self, exchange: HttpExchange) -> list[ClientAction]:
        """initialize was refused as an older server would: try HTTP+SSE."""
        return self._fallbacks.fall_back(exchange)

    def reopened(self, answer: object) -> list[ClientAction]:
        """The answer to the initialize that replaces a lost session."""
        return self._fallbacks.reopened(answer)

    # --- the end -----------------------------------------------------------------------

    def close(self) -> list[ClientAction]:
        """Stop: abort every exchange, and end the legacy session with DELETE
        (2025-11-25 "Session Management" item 5; a 405 answer means the server
        does not let clients end sessions, which is fine)."""
        if self.closed:
            return []
        self.closed = True
        actions: list[ClientAction] = [
            AbortExchange(exchange) for exchange in self._state.exchanges
        ]
        self._state.exchanges.clear()
        self._state.held.clear()
        if self.transport == "streamable" and self.session_id is not None:
            headers = (*self._base_headers(), *self._session_headers())
            actions.append(SendHttp(0, "DELETE", self.url, self.origin, self.target, headers))
        return actions
