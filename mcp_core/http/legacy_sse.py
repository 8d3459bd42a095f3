# The deprecated HTTP+SSE transport of protocol revision 2024-11-05, server side,
# sans I/O.
#
# 2024-11-05 basic/transports.mdx "HTTP with SSE": the server offers two
# endpoints. A GET on the SSE endpoint opens a stream whose first event is
# `endpoint`, naming the URI the client POSTs its messages to; everything the
# server says goes on that stream as `message` events. The stream *is* the
# session: it begins with the GET and ends when the connection does. We name
# the session in the endpoint URI (`?session_id=...`, the query parameter the
# official SDKs use), so the POSTs find their stream; a POST is answered 202 at
# once (the answer travels on the stream), one naming no live session 404.
#
# 2025-11-25 basic/transports.mdx "Backwards Compatibility": servers that want
# older clients keep hosting both endpoints beside the streamable-HTTP endpoint;
# `HttpEndpoint` routes to these rules by path, after the Host, Origin, head size
# and authentication checks common to both transports (the 2024-11-05 "Security
# Warning" asks the same Origin validation).

from __future__ import annotations

import secrets
from urllib.parse import parse_qs

from ..wire.errors import INVALID_REQUEST, RemoteProtocolError
from ..wire.jsonrpc import (
    ErrorObject,
    ErrorResponse,
    Request,
    decode_message,
    encode_message,
    error_reply,
)
from ..wire.sse import encode_event
from .config import HttpServerConfig
from .decisions import (
    JSON_HEADER,
    SSE_HEADERS,
    Decision,
    Dispatch,
    HttpRequest,
    OpenSseSession,
    Reply,
    SendOnStream,
    refuse,
)
from .headers import accepts, media_type

__all__ = ["LegacySseSession", "HttpSseRules"]


class LegacySseSession:
    """One session of the HTTP+SSE transport.

    Attributes:
        id: its id, in the endpoint URI.
        principal: who opened it (the authentication hook's answer), or None;
            its POSTs must come from the same principal.
        protocol: the protocol side, bound by the adapter (a ServerSession); the
            rules read its ``requests_in_flight``.
    """

    __slots__ = ("id", "principal", "protocol")

    def __init__(self, session_id: str, principal: str | None) -> None:
        self.id = session_id
        self.principal = principal
        self.protocol: object = None


class HttpSseRules:
    """The rules of the two HTTP+SSE endpoints (``config.sse_path`` and
    ``config.sse_messages_path``); `HttpEndpoint` owns one and routes to it."""

    def __init__(self, config: HttpServerConfig) -> None:
        self.config = config
        #: Live sessions by id.
        self.sessions: dict[str, LegacySseSession] = {}

    def serves(self, path: str) -> bool:
        """Whether ``path`` is one of this transport's endpoints."""
        config = self.config
        return config.sse_path is not None and path in (config.sse_path, config.sse_messages_path)

    def check_head(self, request: HttpRequest) -> Reply | None:
        """The refusal a request to one of the endpoints earns by its head."""
        headers = request.headers
        method = request.method
        if request.path == self.config.sse_path:
            if method != "GET":
                return refuse(405, f"{method} is not served here", headers=(("allow", "GET"),))
            accept = headers.get("accept")
            if accept is not None and not accepts(accept, "text/event-stream"):
                return refuse(406, "Accept must list text/event-stream")
            return None
        if method != "POST":
            return refuse(405, f"{method} is not served here", headers=(("allow", "POST"),))
        if media_type(headers.get("content-type", "")) != "application/json":
            return refuse(415, "Content-Type must be application/json")
        return None

    def receive(
        self, request: HttpRequest, body: bytes, principal: str | None, room: bool
    ) -> Decision:
        """Decide on a request whose head passed `check_head`.

        Args:
            request: the head.
            body: the body (empty for the GET).
            principal: who the request was authenticated as.
            room: whether another session may open (the endpoint's session cap).
        """
        if request.path == self.config.sse_path:
            return self._open(request, principal, room)
        return self._post(request, body, principal)

    def _open(self, request: HttpRequest, principal: str | None, room: bool) -> Decision:
        if not room:
            return refuse(503, "too many sessions", headers=(("retry-after", "5"),))
        session_id = secrets.token_urlsafe(24)  # as Mcp-Session-Id: 192 random bits
        self.sessions[session_id] = LegacySseSession(session_id, principal)
        # "the server MUST send an endpoint event containing a URI for the client
        # to use for sending messages": a relative one, so it stays right behind
        # proxies; `prefix` keeps the mount point of an embedded app.
        uri = f"{request.prefix}{self.config.sse_messages_path}?session_id={session_id}"
        first = encode_event(uri, event="endpoint")
        return OpenSseSession(session_id, principal, first, SSE_HEADERS)

    def _post(self, request: HttpRequest, body: bytes, principal: str | None) -> Decision:
        query = parse_qs(request.query)
        found = query.get("session_id") or query.get("sessionId")
        if not found:
            return refuse(400, "the session_id query parameter is required")
        session = self.sessions.get(found[0])
        # Another principal's session is not found, as if sessions were keyed by
        # principal and id (the Session Hijacking mitigation 2025-11-25
        # basic/transports.mdx "Session Management" links to).
        if session is None or session.principal != principal:
            return refuse(404, "Session not found")
        try:
            message = decode_message(body)
        except RemoteProtocolError as exc:
            return Reply(exc.http_status, (JSON_HEADER,), encode_message(error_reply(exc)))
        accepted = Reply(202)
        if type(message) is Request:
            limit = self.config.max_requests_in_flight
            if getattr(session.protocol, "requests_in_flight", 0) >= limit:
                # The POST was taken; the refusal is the request's answer, on the
                # stream like every answer of this transport.
                error = ErrorObject(
                    code=INVALID_REQUEST,
                    message=f"Too Many Requests: {limit} requests of this session are in flight",
                    data={"limit": limit},
                )
                data = encode_message(ErrorResponse(id=message.id, error=error))
                return SendOnStream(session.id, encode_event(data, event="message"), accepted)
        return Dispatch(message, body, session.id, accepted=accepted)

    def bind(self, session_id: str, protocol: object) -> None:
        """Attach the protocol side (a ServerSession) to a session just opened."""
        session = self.sessions.get(session_id)
        if session is not None:
            session.protocol = protocol

    def end(self, session_id: str) -> bool:
        """Forget a session (its stream ended); True if it was one of ours."""
        return self.sessions.pop(session_id, None) is not None
