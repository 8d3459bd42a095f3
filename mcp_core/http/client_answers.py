# Reading the answers of streamable HTTP, client side.
#
# `AnswerReader`, a part of `HttpClientEndpoint`: the handlers the endpoint calls,
# by exchange kind, when a response head arrives, an SSE event is complete, or a
# response ends. They read (2025-11-25
# basic/transports.mdx "Sending Messages to the Server" items 4-6, "Listening for
# Messages from the Server", "Resumability and Redelivery"):
#
#   a POST's answer   2xx: JSON (one message) or an SSE stream, 202 for what needs
#                     no answer; an error status: see `refusal_end`.
#   a request stream  ends with the response; one that ends or breaks first is
#                     resumed with GET and Last-Event-ID after the server's
#                     `retry`, unless it is a 2026-07-28 stream ("Resumable SSE
#                     streams via Last-Event-ID are not supported") or carried no
#                     event id. A GET that brings nothing (no connection, a 5xx,
#                     a stream that ends at once) is tried again, `retry` doubled
#                     each time up to `max_retry_delay`, `max_reconnects` times
#                     in a row; then the request fails. A 404 means the session
#                     is gone, and the request with it ("session lost"). Either
#                     way the server may have acted on it: the outcome is unknown.
#   the GET stream    a legacy session's standalone stream: SSE, or 405 for none;
#                     reopened after `retry` when the server closes it.

from __future__ import annotations

from typing import Final

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
from .client_config import HttpClientConfig
from .client_exchange import ClientSseStream, ClientState, HttpExchange, Kind, Mode
from .client_host import ClientHost
from .headers import media_type

__all__ = ["AnswerReader", "is_event_stream", "reconnect_delay", "visible_ascii"]

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


class AnswerReader:
    """Reads what comes back of each exchange (the rules at the top of this
    module), for an `HttpClientEndpoint`.

    Args:
        config: the endpoint's configuration.
        state: the records the endpoint and its parts share.
        host: the endpoint, for what the reader asks it to do.

    Attributes:
        listen_stream: the standalone GET stream (its last event id and
            ``retry`` outlive each GET that carries it).
    """

    def __init__(self, config: HttpClientConfig, state: ClientState, host: ClientHost) -> None:
        self._config = config
        self._state = state
        self._host = host
        self.listen_stream = ClientSseStream(None)

    def post_head(self, exchange: HttpExchange, headers: dict[str, str]) -> list[ClientAction]:
        """The head of the answer to a POSTed message."""
        status = exchange.status or 0
        message = exchange.message
        if not 200 <= status < 300:
            return self.posted(exchange) + self._refused(exchange)
        if (
            type(message) is Request
            and message.method == "initialize"
            and self._host.transport != "sse"
        ):
            # "Session Management" item 1: the session id comes with the InitializeResult.
            session_id = headers.get("mcp-session-id")
            if session_id is not None:
                if not visible_ascii(session_id):
                    exchange.mode = Mode.DRAIN
                    return self._host.fail(exchange, f"invalid Mcp-Session-Id {session_id!r}")
                self._host.session_id = session_id
        actions = self.posted(exchange)
        if exchange.request_id is None or self._host.transport == "sse":
            # A notification or a response (202, no body); or HTTP+SSE, whose
            # answers all come on its GET stream.
            exchange.mode = Mode.DRAIN
            return actions
        content_type = media_type(headers.get("content-type", ""))
        if status == 202:
            exchange.mode = Mode.DRAIN
            return actions + self._host.fail(
                exchange, "the server accepted the request (202), no answer"
            )
        if content_type == JSON_TYPE:
            exchange.mode = Mode.JSON
        elif content_type == SSE_TYPE:
            exchange.stream = ClientSseStream(exchange.request_id)
            exchange.read_sse(self._config.max_event_bytes)
        else:
            exchange.mode = Mode.DRAIN
            actions += self._host.fail(
                exchange, f"unexpected Content-Type {content_type or '(none)'!r}"
            )
        return actions

    def posted(self, exchange: HttpExchange) -> list[ClientAction]:
        """A POST was answered (or failed): the answer to notifications/initialized
        opens the gate; next comes the standalone stream, then everything held."""
        message = exchange.message
        if self._state.gate != "initialized" or type(message) is not Notification:
            return []
        if message.method != "notifications/initialized":
            return []
        status = exchange.status or 0
        if status == 404 and exchange.session_id is not None:
            # The server ended the session before the handshake finished (a
            # server at its session cap, say): start again, once.
            return self._host.handshake_lost(exchange)
        if (
            self._host.transport == "streamable"
            and self._config.standalone_stream
            and 200 <= status < 300
        ):
            self._state.gate = "listen"
            return [self._host.get(Kind.LISTEN, self.listen_stream)]
        return self._host.release()

    def _refused(self, exchange: HttpExchange) -> list[ClientAction]:
        if exchange.request_id is None:
            exchange.mode = Mode.DRAIN  # nothing waits for it
            return []
        if exchange.status == 404 and exchange.session_id is not None:
            exchange.mode = Mode.DRAIN
            return self._host.session_lost(exchange)
        exchange.mode = Mode.ERROR  # the body decides: refusal_end
        return []

    def refusal_end(self, exchange: HttpExchange) -> list[ClientAction]:
        """A request was answered with an error status; its body decides what it means."""
        body = exchange.collected()
        request_id = exchange.request_id
        status = exchange.status
        try:
            answer: Message | None = decode_message(body, self._config.limits)
        except RemoteProtocolError:
            answer = None
        ours = type(answer) is ErrorResponse and answer.id == request_id
        message = exchange.message
        if (
            type(message) is Request
            and message.method == "initialize"
            and status in (400, 404, 405)
            and self._config.transport == "auto"
            and self._host.transport == "streamable"
            and not ours
        ):
            # 2025-11-25 "Backwards Compatibility": perhaps an HTTP+SSE server.
            return self._host.fall_back(exchange)
        if type(answer) is ErrorResponse and request_id is not None:
            # The server's own JSON-RPC answer; one it could not tie to the request
            # ("a JSON-RPC error response that has no id") is tied to it here.
            return self._host.deliver(ErrorResponse(id=request_id, error=answer.error))
        pending = self._state.requests.get(request_id) if request_id is not None else None
        if (
            request_id is not None
            and pending is not None
            and pending.version is not None
            and not self._state.modern_seen
            and status in (400, 404, 405)
        ):
            # 2026-07-28 streamable-http.mdx "Backward Compatibility": a 4xx without a
            # recognised modern error means a legacy server. The session decides that
            # from a JSON-RPC error, so it gets one.
            text = f"HTTP {status}: not a 2026-07-28 server"
            return self._host.deliver(
                ErrorResponse(id=request_id, error=ErrorObject(code=INVALID_REQUEST, message=text))
            )
        return self._host.fail(exchange, f"the server answered HTTP {status}", body)

    def json_end(self, exchange: HttpExchange) -> list[ClientAction]:
        """A JSON answer is complete."""
        body = exchange.collected()
        try:
            answer = decode_message(body, self._config.limits)
        except RemoteProtocolError as exc:
            if exchange.kind is Kind.POST and _is_batch(body):
                # 2025-03-26 batches: the session reads them.
                return [DeliverMessage(body), *self._unless_answered(exchange)]
            return self._host.fail(exchange, f"the answer is not a JSON-RPC message: {exc.message}")
        if exchange.kind is Kind.REOPEN:
            return self._host.reopened(answer)
        return [*self._host.deliver(answer), *self._unless_answered(exchange)]

    def _unless_answered(self, exchange: HttpExchange) -> list[ClientAction]:
        request_id = exchange.request_id
        if request_id is not None and request_id in self._state.requests:
            return self._host.fail(exchange, "the answer was not the response to the request")
        return []

    def stream_event(self, exchange: HttpExchange, event: ServerSentEvent) -> list[ClientAction]:
        """One event of a POST's, a resumed, or the standalone stream: JSON-RPC
        messages come in "message" events; a priming event (an id, empty data) has
        none."""
        if event.event != "message" or not event.data:
            return []
        data = event.data.encode("utf-8")
        try:
            message = decode_message(data, self._config.limits)
        except RemoteProtocolError:
            return [DeliverMessage(data)]  # the session answers what can be answered
        actions = self._host.deliver(message)
        if exchange.kind is Kind.RESUME and exchange.request_id not in self._state.requests:
            # Answered: a resumed GET has nothing more to bring, and a server may hold
            # it open.
            self._state.exchanges.pop(exchange.id, None)
            actions.append(AbortExchange(exchange.id))
        return actions

    def stream_end(self, exchange: HttpExchange, reason: str) -> list[ClientAction]:
        """A request's stream ended or broke (or a GET resuming it brought
        nothing): fine once answered, else resumed, a bounded number of times."""
        stream = exchange.stream
        request_id = exchange.request_id
        if stream is None or request_id not in self._state.requests:
            return []  # answered, answered elsewhere (HTTP+SSE), or failed already
        pending = self._state.requests[request_id]
        resumable = (
            pending.version is None
            and self._host.transport == "streamable"
            and stream.last_event_id is not None
            and exchange.session_id == self._host.session_id
        )
        stream.attempts = 0 if exchange.events else stream.attempts + 1
        if not resumable:
            return self._host.fail(exchange, f"no answer came: {reason}", unknown=True)
        if stream.attempts >= self._config.max_reconnects:
            return self._host.fail(
                exchange,
                f"no answer came, and resuming the stream failed {stream.attempts} "
                f"times in a row (the last: {reason})",
                unknown=True,
            )
        return [self._host.get(Kind.RESUME, stream, reconnect_delay(self._config, stream))]

    def resume_head(self, exchange: HttpExchange, headers: dict[str, str]) -> list[ClientAction]:
        """The head of a GET resuming a request's stream."""
        if is_event_stream(exchange, headers):
            exchange.read_sse(self._config.max_event_bytes)
            return []
        exchange.mode = Mode.DRAIN
        status = exchange.status or 0
        if status >= 500:
            return []  # the server is in trouble, perhaps restarting: its end is an attempt
        if status == 404 and exchange.session_id is not None:
            # "Session Management" item 3: the server ended the session, and with it
            # the stream and what the request would have answered. The next
            # request of ours gets 404 too and opens a new session.
            return self._host.fail(
                exchange,
                "session lost: the server no longer knows the session (HTTP 404), "
                "so the stream cannot be resumed",
                unknown=True,
            )
        return self._host.fail(exchange, f"resuming the stream failed: HTTP {status}", unknown=True)

    def listen_head(self, exchange: HttpExchange, headers: dict[str, str]) -> list[ClientAction]:
        """The head of the standalone GET stream: SSE, or 405 for none ("Listening for
        Messages from the Server" item 3). Any other refusal also means none."""
        if is_event_stream(exchange, headers):
            exchange.read_sse(self._config.max_event_bytes)
        else:
            exchange.mode = Mode.DRAIN
            self._state.listen = None
        return self._host.release() if self._state.gate == "listen" else []

    def listen_end(self, exchange: HttpExchange, reason: str) -> list[ClientAction]:
        """The standalone stream ended: reopen it after the server's retry, unless
        reopening keeps bringing nothing (then back off, and give up)."""
        actions = self._host.release() if self._state.gate == "listen" else []
        if self._state.listen is not exchange or self._host.closed:
            return actions
        self._state.listen = None
        stream = self.listen_stream
        stream.attempts = 0 if exchange.events else stream.attempts + 1
        if (
            exchange.session_id != self._host.session_id
            or stream.attempts >= self._config.max_reconnects
        ):
            return actions
        return [
            *actions,
            self._host.get(Kind.LISTEN, stream, reconnect_delay(self._config, stream)),
        ]


def reconnect_delay(config: HttpClientConfig, stream: ClientSseStream) -> float:
    """Seconds before reconnecting to a stream: the server's ``retry`` (2025-11-25
    basic/transports.mdx "Resumability and Redelivery": "The client MUST respect
    the retry field, waiting the given number of milliseconds before attempting to
    reconnect"), doubled for each reconnection in a row that brought nothing, up
    to ``max_retry_delay`` (never below ``retry``)."""
    base = config.default_retry if stream.retry is None else stream.retry
    backoff: float = base * 2.0**stream.attempts
    return max(base, min(backoff, config.max_retry_delay))
