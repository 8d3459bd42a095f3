# The streamable-HTTP server rules, sans I/O.
#
# Theory of operation. An adapter reads one HTTP request (method, target,
# headers, then the body) and asks `HttpEndpoint` what to do with it; the answer is
# a decision it carries out without further thought:
#
#   Reply       answer now: status, headers, body (refusals, 202, DELETE).
#   Dispatch    feed the body to a session and answer from what it sends: a
#               notification or response gets the Dispatch's 202 once fed; a
#               request gets JSON or an SSE stream (`sse` says which to start
#               with; when False the adapter answers JSON if the response is the
#               first message for the request, else starts SSE then).
#               `session_id` None means a 2026-07-28 request: served on its own.
#   OpenStream  a GET: start an SSE stream of the session (the standalone one,
#               or, with Last-Event-ID, the interrupted one after a replay).
#   EndSession  a DELETE: end the session, then send the reply.
#   OpenSseSession, SendOnStream   the deprecated HTTP+SSE transport of
#               2024-11-05, served beside (see _http_sse_2024).
#
# Authentication is the adapter's (it may need I/O); it passes the principal it
# found to `receive`, and the endpoint binds it to the session a request opens
# and checks it on every later request of that session. A protected endpoint
# (`resource`, mcp_core.auth) also serves the Protected Resource Metadata from
# `check_head`, and checks the scopes of the admitted token against the operation
# each decoded request names (`receive`'s ``scopes``).
#
# Two eras share one endpoint, told apart per request (2026-07-28
# basic/versioning.mdx "A dual-era server selects its behavior from how the client
# opens"; streamable-http.mdx "Protocol Version Header"): a `MCP-Protocol-Version`
# header naming a modern revision selects the stateless rules of 2026-07-28
# streamable-http.mdx; a legacy revision, or no header at all ("the server SHOULD
# assume protocol version 2025-03-26", 2025-11-25 basic/transports.mdx "Protocol
# Version Header"), selects the session rules of 2025-03-26 .. 2025-11-25.
#
# The endpoint owns the HTTP side of legacy sessions (ids, idle time, event
# stores; see _http_sessions) and numbers SSE events; the protocol side (the
# ServerSession) belongs to the adapter, which binds it here. Time comes in as
# `now`; the adapter calls `expire(now)` now and then and ends what it returns.
# The decisions are in _http_decisions, the header helpers in _http_headers and
# the 2026-07-28 header and `_meta` checks in _http_modern; the legacy era's
# session rules in `legacy` (`LegacyRules`, which the endpoint holds).

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final, Literal

from ..session.lifecycle import SessionState
from ..types.methods import LEGACY_REVISIONS, REVISIONS
from ..wire.errors import (
    HEADER_MISMATCH,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    PARSE_ERROR,
    SERVICE_UNAVAILABLE,
    UNSUPPORTED_PROTOCOL_VERSION,
    http_status_for,
)
from ..wire.jsonrpc import (
    ErrorResponse,
    Message,
    Notification,
    Request,
)
from ..wire.sse import encode_event
from .config import DEFAULT_MAX_BODY_BYTES, HttpServerConfig
from .decisions import (
    JSON_HEADER,
    Decision,
    Dispatch,
    EndSession,
    HttpRequest,
    Reply,
    refuse,
)
from .headers import accepts, host_allowed, media_type, origin_allowed
from .health import HealthRules
from .legacy import LegacyRules
from .legacy_sse import HttpSseRules
from .mcp_headers import ToolHeaders, modern_refusal
from .routing import StreamRouter
from .server_card import ServerCardRules
from .sessions import EventStore, HttpSession, MemoryEventStore

if TYPE_CHECKING:
    from ..auth.resource import ProtectedResource

__all__ = ["DEFAULT_MAX_BODY_BYTES", "HttpServerConfig", "HttpEndpoint"]

# 2026-07-28 streamable-http.mdx "Protocol Version Header": an unknown method
# gets 404 with -32601; header mismatch, an unsupported version and a missing
# client capability get 400 ("Backward Compatibility"); so do a body that is not
# JSON-RPC. These codes are answered with the status `http_status_for` (the one
# code -> status table, in wire.errors) gives them; other errors of a request
# that reached JSON-RPC are answered with 200, as in every earlier revision.
_STATUS_CODES: Final = frozenset(
    {
        METHOD_NOT_FOUND,
        HEADER_MISMATCH,
        MISSING_REQUIRED_CLIENT_CAPABILITY,
        UNSUPPORTED_PROTOCOL_VERSION,
        PARSE_ERROR,
        INVALID_REQUEST,
        SERVICE_UNAVAILABLE,
    }
)


_PASSED_HEADS: Final = 64
"""Head values that passed `check_head` remembered at most (see there)."""


class HttpEndpoint:
    """The rules of one streamable-HTTP MCP endpoint, for both eras.

    Args:
        config: the endpoint's behaviour and limits (default `HttpServerConfig()`).
        revisions: protocol revisions served (as the sessions' ServerConfig).
        tool_headers: for 2026-07-28 ``Mcp-Param-*`` validation, a function from
            a tool name to its ``x-mcp-header`` map (`header_param_paths`); None
            checks no parameter headers.
        event_store: makes the event store of each new session; by default a
            `MemoryEventStore` sized by the config.
        resource: the OAuth resource server rules of a protected endpoint
            (`mcp_core.auth.ProtectedResource`), or None.
        stream_prefix: put before every request stream's id, so that the
            streams several processes serve for one session never share an id
            (and the id tells which process serves the stream).
    """

    def __init__(
        self,
        config: HttpServerConfig | None = None,
        *,
        revisions: tuple[str, ...] = REVISIONS,
        tool_headers: ToolHeaders | None = None,
        event_store: Callable[[], EventStore] | None = None,
        resource: ProtectedResource | None = None,
        stream_prefix: str = "",
    ) -> None:
        self.config = config = config or HttpServerConfig()
        self.stream_prefix = stream_prefix
        self.resource = resource
        self.revisions = revisions
        self._legacy = frozenset(r for r in revisions if r in LEGACY_REVISIONS)
        self._modern = frozenset(r for r in revisions if r not in LEGACY_REVISIONS)
        self._tool_headers = tool_headers
        #: The deprecated HTTP+SSE transport, served beside.
        self.sse = HttpSseRules(config)
        #: The legacy era's sessions and requests (legacy.py).
        self.legacy = legacy = LegacyRules(
            config,
            self.sse,
            event_store
            or (lambda: MemoryEventStore(config.max_stored_events, config.max_stored_bytes)),
            stream_prefix,
        )
        #: Live legacy sessions by id (the legacy rules' table).
        self.sessions: dict[str, HttpSession] = legacy.sessions
        #: The health probes served beside (`health`; the adapter answers them).
        self.health = HealthRules(config)
        #: The server card served beside, when the config says so (the adapter
        #: answers it, with the server's config).
        self.card = ServerCardRules(
            enabled=config.server_card, endpoint=config.path, authenticated=resource is not None
        )
        self._passed: set[tuple[str, str | None, str | None, str | None, str | None]] = set()

    # --- deciding -----------------------------------------------------------------------

    def check_head(self, request: HttpRequest) -> Reply | None:
        """The refusal a request earns by its head alone, before its body is read.

        `receive` applies the same checks; call this first to avoid reading
        bodies that will be refused (a 413 then closes the connection). A
        protected endpoint answers a request for its Protected Resource Metadata
        here too (a 200, before any token is asked for).
        """
        if self.resource is not None:
            metadata = self.resource.metadata(request)
            if metadata is not None:
                return metadata
        config = self.config
        headers = request.headers
        path = request.path
        old_sse = bool(self._legacy) and self.sse.serves(path)
        if path != config.path and not old_sse:
            return Reply(404, (("content-type", "text/plain"),), b"Not Found")
        if request.header_count > config.max_headers or request.header_bytes > (
            config.max_header_bytes
        ):
            # RFC 6585 section 5: the head is too large to process.
            return refuse(431, "too many or too large header fields", close=True)
        get = headers.get
        method = request.method
        # The checks below depend on these values alone (and the frozen config): a
        # client sends the same ones with every request, so heads that passed are
        # remembered (a few, the last clients') and pass again at once.
        key = (method, get("host"), get("origin"), get("accept"), get("content-type"))
        passed = key in self._passed and not old_sse
        if not passed:
            # DNS rebinding (2025-11-25 basic/transports.mdx "Security Warning"): a
            # page that rebinds its name to our address still names itself as Host.
            if not host_allowed(key[1], config.allowed_hosts):
                return refuse(421, "this server does not answer to that Host")
            # Same section, item 1: a present and invalid Origin MUST get 403.
            if not origin_allowed(key[2], config.allowed_origins):
                return refuse(403, "Origin not allowed")
        length = get("content-length")
        if length is not None and length.isdigit() and int(length) > config.max_body_bytes:
            return self.too_large()
        if old_sse:
            return self.sse.check_head(request)
        if passed:
            return None
        if method == "POST":
            # 2025-11-25 "Sending Messages to the Server" item 2: Accept lists both.
            accept = key[3]
            if not (accepts(accept, "application/json") and accepts(accept, "text/event-stream")):
                return refuse(406, "Accept must list application/json and text/event-stream")
            if media_type(key[4] or "") != "application/json":
                return refuse(415, "Content-Type must be application/json")
        elif method == "GET":
            # "Listening for Messages from the Server" item 2.
            if not accepts(key[3], "text/event-stream"):
                return refuse(406, "Accept must list text/event-stream")
        elif method != "DELETE":
            return refuse(405, f"{method} is not served here", headers=(self.legacy._allow(),))
        if len(self._passed) >= _PASSED_HEADS:
            self._passed.clear()
        self._passed.add(key)
        return None

    def too_large(self) -> Reply:
        """The 413 for a body over ``max_body_bytes`` (closes the connection)."""
        limit = self.config.max_body_bytes
        return refuse(413, f"the body exceeds {limit} bytes", close=True)

    def receive(
        self,
        request: HttpRequest,
        body: bytes,
        now: float,
        principal: str | None = None,
        *,
        checked: bool = False,
        scopes: frozenset[str] | None = None,
    ) -> Decision:
        """Decide what to do with one complete request.

        Args:
            request: its head.
            body: its body (empty for GET and DELETE).
            now: the current time, in the unit of ``session_idle_timeout``.
            principal: who the adapter authenticated the request as, or None.
                A session remembers who opened it; its later requests from
                anyone else get 404 (see `_session_of`).
            checked: `check_head` passed this head already (the adapter asked
                before reading the body), so its checks are not run again.
            scopes: the scopes of the principal's access token, on a protected
                endpoint: a request whose operation needs more gets 403
                (`ProtectedResource.check`). None checks no scopes.

        Returns:
            The decision; the endpoint has already done its part (a session
            minted for initialize, a session forgotten for DELETE).
        """
        if not checked:
            refusal = self.check_head(request)
            if refusal is not None:
                return refusal
        if len(body) > self.config.max_body_bytes:
            return self.too_large()
        guard = self._guard(scopes)
        if self._legacy and self.sse.serves(request.path):
            if guard is not None and body:
                message = self.legacy._decode(body)
                refusal = guard(message) if not isinstance(message, Reply) else None
                if refusal is not None:
                    return refusal
            room = len(self.sessions) + len(self.sse.sessions) < self.config.max_sessions
            return self.sse.receive(request, body, principal, room)
        era = self._era(request, body)
        if isinstance(era, Reply):
            return era
        method = request.method
        if era == "modern":
            if method != "POST":
                # 2026-07-28 streamable-http.mdx "Earlier Streamable HTTP
                # Revisions": GET and DELETE get 405.
                return refuse(
                    405,
                    f"{method} is not part of {request.headers['mcp-protocol-version']}",
                    headers=(("allow", "POST"),),
                )
            return self._modern_post(request, body, guard)
        if method == "POST":
            return self.legacy._legacy_post(request, body, now, principal, guard)
        session = self.legacy._session_of(request, now, principal)
        if isinstance(session, Reply):
            return session
        if method == "GET":
            return self.legacy._get(request, session)
        if not self.config.allow_delete:
            allow = (self.legacy._allow(),)
            return refuse(405, "sessions cannot be ended by DELETE here", headers=allow)
        # "Session Management" item 5.
        del self.sessions[session.id]
        return EndSession(session.id, Reply(200))

    def _guard(self, scopes: frozenset[str] | None) -> Callable[[Message], Reply | None] | None:
        # The scope check of a decoded request on a protected endpoint, or None.
        resource = self.resource
        if resource is None or scopes is None:
            return None
        return lambda message: resource.check(message, scopes)

    def _era(self, request: HttpRequest, body: bytes) -> Literal["legacy", "modern"] | Reply:
        version = request.headers.get("mcp-protocol-version")
        if version is None:
            # 2025-11-25 "Protocol Version Header": assume 2025-03-26. A server
            # that serves no legacy revision reports the missing header instead.
            return "legacy" if self._legacy else "modern"
        if version in self._legacy:
            return "legacy"
        if version in self._modern:
            return "modern"
        # 2025-11-25: "MUST respond with 400 Bad Request"; 2026-07-28 adds the
        # UnsupportedProtocolVersionError listing what we serve, which answers the
        # request, so it carries the request's id when there is one.
        message = self.legacy._decode(body) if body else None
        return refuse(
            http_status_for(UNSUPPORTED_PROTOCOL_VERSION),
            f"protocol version {version!r} is not supported",
            UNSUPPORTED_PROTOCOL_VERSION,
            request_id=message.id if type(message) is Request else None,
            data={"supported": sorted(self.revisions, reverse=True), "requested": version},
        )

    # --- the modern era (2026-07-28 basic/transports/streamable-http.mdx) ---------------

    def _modern_post(
        self,
        request: HttpRequest,
        body: bytes,
        guard: Callable[[Message], Reply | None] | None = None,
    ) -> Decision:
        message = self.legacy._admit(body, guard)
        if isinstance(message, Reply):
            return message
        if type(message) is Notification:
            # "Sending Messages" item 5; no header rules for notifications.
            return Dispatch(message, body, None, accepted=Reply(202))
        if type(message) is not Request:
            # Item 4: "The client MUST NOT send JSON-RPC responses."
            return refuse(400, "a 2026-07-28 client sends no responses")
        refusal = modern_refusal(request, message, self.revisions, self._tool_headers)
        if refusal is not None:
            return refusal
        return Dispatch(
            message,
            body,
            None,
            request_id=message.id,
            sse=self.config.response_mode == "sse",
        )

    # --- the session table (the legacy rules keep it) -----------------------------------

    def needs_session(self, session_id: str) -> bool:
        """See `LegacyRules.needs_session`."""
        return self.legacy.needs_session(session_id)

    def adopt(self, session_id: str, principal: str | None, now: float) -> None:
        """See `LegacyRules.adopt`."""
        self.legacy.adopt(session_id, principal, now)

    def bind(self, session_id: str, protocol: Any) -> None:
        """See `LegacyRules.bind`."""
        self.legacy.bind(session_id, protocol)

    def bind_sse(self, session_id: str, protocol: Any) -> None:
        """See `LegacyRules.bind_sse`."""
        self.legacy.bind_sse(session_id, protocol)

    def attach(self, session_id: str, stream_id: str, now: float) -> None:
        """See `LegacyRules.attach`."""
        self.legacy.attach(session_id, stream_id, now)

    def detach(self, session_id: str, stream_id: str, now: float) -> None:
        """See `LegacyRules.detach`."""
        self.legacy.detach(session_id, stream_id, now)

    def end_session(self, session_id: str) -> None:
        """See `LegacyRules.end_session`."""
        self.legacy.end_session(session_id)

    def expire(self, now: float) -> list[str]:
        """See `LegacyRules.expire`."""
        return self.legacy.expire(now)

    def next_expiry(self) -> float | None:
        """See `LegacyRules.next_expiry`."""
        return self.legacy.next_expiry()

    def take_evicted(self) -> list[str]:
        """See `LegacyRules.take_evicted`."""
        return self.legacy.take_evicted()

    # --- answering ----------------------------------------------------------------------

    def routes(self, session_id: str) -> StreamRouter:
        """Where each message a legacy session sends goes: the session's
        `StreamRouter`, whose ``route(message, related)`` names the stream.

        Raises:
            KeyError: no such session.
        """
        return self.sessions[session_id].routes

    def fed(self, dispatch: Dispatch) -> EndSession | None:
        """Call once a dispatched legacy request has been fed to its session.

        Returns:
            `EndSession` (with no reply of its own) when the request was the
            ``initialize`` that minted the session and the session refused it
            (its protocol side is still NEW): a session is established by a
            successful initialization (2025-11-25 basic/transports.mdx "Session
            Management" item 1: the id comes on "the HTTP response containing
            the InitializeResult"), so there is none to keep. The endpoint has
            forgotten it already; the adapter closes its protocol side and
            still sends the error answer. Otherwise None.
        """
        if not dispatch.created or dispatch.session_id is None:
            return None
        session = self.sessions.get(dispatch.session_id)
        if session is None or getattr(session.protocol, "state", None) is not SessionState.NEW:
            return None
        del self.sessions[session.id]
        return EndSession(session.id)

    def json_reply(self, dispatch: Dispatch, message: Message, data: bytes) -> Reply:
        """The JSON answer to a dispatched request whose response came first.

        A 2026-07-28 error gets the status its code calls for (404 for -32601,
        400 for -32020/-32021/-32022); everything else 200.
        """
        status = 200
        if dispatch.session_id is None and type(message) is ErrorResponse:
            code = message.error.code
            if code in _STATUS_CODES:
                status = http_status_for(code)
        return Reply(status, (JSON_HEADER, *dispatch.headers), data)

    def event(self, session_id: str | None, stream_id: str | None, data: bytes) -> bytes:
        """One message as an SSE event. In a session it gets an event id and is
        stored for replay; 2026-07-28 streams are not resumable ("Resumable SSE
        streams via Last-Event-ID are not supported") and get none."""
        session = self.sessions.get(session_id) if session_id is not None else None
        if session is None or stream_id is None:
            return encode_event(data)
        return encode_event(data, id=session.events.store(stream_id, data))
