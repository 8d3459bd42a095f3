# The session rules of the legacy era (2025-03-26 .. 2025-11-25
# basic/transports.mdx), sans I/O: a part of `HttpEndpoint` (mcp_core.http.server),
# which inherits them.
#
# A legacy request names its session with `Mcp-Session-Id` (an `initialize`
# without one mints it); its POST is answered 202 (a notification or response),
# JSON or an SSE stream (a request), its GET opens the session's standalone
# stream or resumes one with Last-Event-ID, its DELETE ends it. The session table
# lives here too: quotas, eviction of idle sessions, idle expiry, and the
# streams the adapter attaches and detaches.

from __future__ import annotations

import math
import secrets
from collections.abc import Callable
from typing import Any, Final

from ..session.lifecycle import SessionState
from ..wire.errors import RemoteProtocolError
from ..wire.jsonrpc import (
    Message,
    Request,
    RequestId,
    check_utf8,
    decode_message,
    encode_message,
    error_reply,
    is_batch,
)
from ..wire.sse import encode_event
from .batches import BATCH_REVISION, read_batch
from .config import HttpServerConfig
from .decisions import (
    JSON_HEADER,
    SSE_HEADERS,
    Decision,
    Dispatch,
    Headers,
    HttpRequest,
    OpenStream,
    Reply,
    refuse,
)
from .legacy_sse import HttpSseRules
from .routing import STANDALONE_STREAM
from .sessions import EventStore, HttpSession

__all__ = ["LegacyRules"]

# Revisions whose transport page has SSE polling: the priming event and `retry`
# (2025-11-25 basic/transports.mdx "Sending Messages to the Server", item 6).
POLLING: Final = frozenset({"2025-11-25"})


def handshaken(session: HttpSession) -> bool:
    """Whether the client finished the handshake: the protocol side, once bound, is
    READY after notifications/initialized (2025-11-25 basic/lifecycle.mdx)."""
    return getattr(session.protocol, "state", None) is SessionState.READY


class LegacyRules:
    """The legacy-era part of `HttpEndpoint`: its sessions and their requests."""

    config: HttpServerConfig
    #: Live legacy sessions by id.
    sessions: dict[str, HttpSession]
    #: The deprecated HTTP+SSE transport, served beside.
    sse: HttpSseRules
    _evicted: list[str]
    _event_store: Callable[[], EventStore]
    stream_prefix: str

    @staticmethod
    def _decode(body: bytes) -> Message | Reply:
        try:
            message = decode_message(body)
            # Invalid UTF-8 where the envelope pass does not look (params) is a
            # 400 as any other parse error, not an error on the answer's stream.
            check_utf8(body, message)
            return message
        except RemoteProtocolError as exc:
            reply = error_reply(exc)
            return Reply(exc.http_status, (JSON_HEADER,), encode_message(reply))

    @classmethod
    def _admit(
        cls, body: bytes, guard: Callable[[Message], Reply | None] | None
    ) -> Message | Reply:
        # The message, or the reply refusing it: unreadable, or denied by ``guard``
        # (a protected resource's scope check).
        message = cls._decode(body)
        if isinstance(message, Reply) or guard is None:
            return message
        refusal = guard(message)
        return message if refusal is None else refusal

    def _allow(self) -> tuple[str, str]:
        methods = ["GET", "POST"] if self.config.standalone_stream else ["POST"]
        if self.config.allow_delete:
            methods.append("DELETE")
        return ("allow", ", ".join(methods))

    # --- the legacy era (2025-03-26 .. 2025-11-25 basic/transports.mdx) -----------------

    def _session_of(
        self, request: HttpRequest, now: float, principal: str | None
    ) -> HttpSession | Reply:
        session_id = request.headers.get("mcp-session-id")
        if session_id is None:
            # "Session Management" item 2: SHOULD answer 400.
            return refuse(400, "Mcp-Session-Id header is required")
        session = self.sessions.get(session_id)
        # Item 3: after the server ended it, MUST answer 404. A session opened
        # by another principal is not found either: item 1 links the Session
        # Hijacking mitigations of the security best practices, which bind a
        # session to its user (keyed "<user_id>:<session_id>"), so under the
        # key of this principal there is no such session. A 404 (rather than
        # 403) also tells a guesser nothing about which ids are live.
        if session is None or session.principal != principal:
            return refuse(404, "Session not found")
        session.last_seen = now
        return session

    def _legacy_post(
        self,
        request: HttpRequest,
        body: bytes,
        now: float,
        principal: str | None,
        guard: Callable[[Message], Reply | None] | None = None,
    ) -> Decision:
        if is_batch(body):
            return self._legacy_batch(request, body, now, principal, guard)
        message = self._admit(body, guard)
        if isinstance(message, Reply):
            return message
        created = False
        if (
            type(message) is Request
            and message.method == "initialize"
            and "mcp-session-id" not in request.headers
        ):
            full = self._make_room(principal, request.client)
            if full is not None:
                return full
            session = self._mint(now, principal, request.client)
            created = True
        else:
            found = self._session_of(request, now, principal)
            if isinstance(found, Reply):
                return found
            session = found
        headers = (("mcp-session-id", session.id),)
        if type(message) is not Request:
            # "Sending Messages to the Server" item 4: 202 with no body.
            return Dispatch(message, body, session.id, accepted=Reply(202, headers))
        busy = self._too_busy(session, 1, message.id, headers)
        if busy is not None:
            return busy
        mode = self.config.response_mode
        stream_id = session.new_stream_id()
        polling = session.revision in POLLING and mode != "json"
        sse = mode == "sse" or (mode == "auto" and polling)
        # Registered now, before the body is fed, as the session may answer at
        # once (ping); see `routing` for where its messages go.
        session.routes.open(message.id, stream_id, json_only=mode == "json")
        return Dispatch(
            message,
            body,
            session.id,
            created=created,
            request_id=message.id,
            stream_id=stream_id,
            sse=sse,
            json_only=mode == "json",
            priming=self._priming(session, stream_id) if polling else None,
            # Item 6: with an event id and a `retry` sent, the server MAY close.
            poll_after=self.config.sse_poll_after if polling else None,
            headers=headers,
        )

    def _legacy_batch(
        self,
        request: HttpRequest,
        body: bytes,
        now: float,
        principal: str | None,
        guard: Callable[[Message], Reply | None] | None = None,
    ) -> Decision:
        # A JSON-RPC batch: only in a 2025-03-26 session (see `batches`); in any
        # other, or with no session yet, refused as it always was (-32600).
        found = self._session_of(request, now, principal)
        if isinstance(found, Reply) or found.revision != BATCH_REVISION:
            refusal = self._decode(body)
            assert isinstance(refusal, Reply)  # an array is never one message
            return refusal
        session = found
        members = read_batch(body)
        if isinstance(members, Reply):
            return members
        # A protected resource checks every member's scopes: the batch is served
        # whole or refused whole, so one member the token may not run refuses it.
        if guard is not None:
            for member in members:
                denied = guard(member)
                if denied is not None:
                    return denied
        headers = (("mcp-session-id", session.id),)
        ids = tuple(member.id for member in members if type(member) is Request)
        if not ids:
            # 2025-03-26 "Sending Messages to the Server" item 4.
            return Dispatch(None, body, session.id, accepted=Reply(202, headers))
        busy = self._too_busy(session, len(ids), None, headers)
        if busy is not None:
            return busy
        # Item 5: JSON (here one array of the responses) or SSE. The answer is one
        # array unless every answer is a stream ("sse"); then, as for one request
        # answered in JSON, messages related to the batch's requests go on the
        # standalone stream.
        sse = self.config.response_mode == "sse"
        stream_id = session.new_stream_id()
        for request_id in ids:
            session.routes.open(request_id, stream_id, json_only=not sse)
        return Dispatch(
            None,
            body,
            session.id,
            stream_id=stream_id,
            sse=sse,
            json_only=not sse,
            headers=headers,
            batch=ids,
        )

    def _too_busy(
        self, session: HttpSession, count: int, request_id: RequestId | None, headers: Headers
    ) -> Reply | None:
        # ``count`` more requests would pass max_requests_in_flight: RFC 6585
        # section 4: 429, "too many requests", with Retry-After; the body is the
        # request's JSON-RPC error, which clients (the SDK's among them) hand to
        # the caller of that request.
        limit = self.config.max_requests_in_flight
        if getattr(session.protocol, "requests_in_flight", 0) + count <= limit:
            return None
        return refuse(
            429,
            f"{limit} requests of this session are in flight",
            request_id=request_id,
            data={"limit": limit},
            headers=(("retry-after", "1"), *headers),
        )

    def _make_room(self, principal: str | None, address: str | None) -> Reply | None:
        # A new session is about to be minted: keep within the quota of its
        # principal (or, without one, of its address) and the table's size by
        # ending idle sessions, or refuse.
        if principal is not None:
            quota, who = self.config.max_sessions_per_principal, repr(principal)
        else:
            quota = None if address is None else self.config.max_sessions_per_address
            who = f"address {address}"
        if quota is not None:
            own = [
                s
                for s in self.sessions.values()
                if s.principal == principal and (principal is not None or s.address == address)
            ]
            if len(own) >= quota and not self._evict(own):
                return refuse(
                    429, f"{who} holds {quota} sessions already", headers=(("retry-after", "5"),)
                )
        full = len(self.sessions) + len(self.sse.sessions) >= self.config.max_sessions
        if full and not self._evict(list(self.sessions.values())):
            return refuse(503, "too many sessions", headers=(("retry-after", "5"),))
        return None

    def _evict(self, candidates: list[HttpSession]) -> bool:
        # Ends one session with no stream open: one that never completed its
        # handshake (oldest first), else the longest idle. False if all are busy.
        idle = [s for s in candidates if s.attached == 0]
        if not idle:
            return False
        victim = min(idle, key=lambda s: (handshaken(s), s.last_seen, s.created))
        del self.sessions[victim.id]
        self._evicted.append(victim.id)
        return True

    def take_evicted(self) -> list[str]:
        """Sessions the endpoint ended to make room for new ones since the last
        call; the caller closes their protocol side (as for `expire`)."""
        if not self._evicted:
            return []
        evicted, self._evicted = self._evicted, []
        return evicted

    def _mint(self, now: float, principal: str | None, address: str | None) -> HttpSession:
        # "Session Management" item 1: globally unique, cryptographically secure,
        # visible ASCII only. 32 URL-safe characters carry 192 random bits.
        session_id = secrets.token_urlsafe(24)
        while session_id in self.sessions:  # pragma: no cover - 2**-192
            session_id = secrets.token_urlsafe(24)
        session = HttpSession(
            session_id, now, self._event_store(), principal, address, self.stream_prefix
        )
        self.sessions[session_id] = session
        return session

    def _priming(self, session: HttpSession, stream_id: str) -> bytes:
        # 2025-11-25 "Sending Messages to the Server" item 6: an event id and
        # empty data first, and a `retry` before the server may close the
        # connection; the id is stored so that Last-Event-ID can name it.
        event_id = session.events.store(stream_id, None)
        return encode_event(b"", id=event_id, retry=self.config.sse_retry_ms)

    def _get(self, request: HttpRequest, session: HttpSession) -> Decision:
        if not self.config.standalone_stream:
            return refuse(
                405, "this server offers no standalone SSE stream", headers=(self._allow(),)
            )
        last = request.headers.get("last-event-id")
        if last is not None:
            # "Resumability and Redelivery" item 2: replay what followed that
            # event on its own stream, and go on with that stream.
            found = session.events.replay_after(last)
            if found is None:
                return refuse(400, "unknown Last-Event-ID")
            stream_id, events = found
            if stream_id == STANDALONE_STREAM and session.standalone_open:
                return refuse(409, "the standalone SSE stream is already open")
            replay = tuple(encode_event(data, id=event_id) for event_id, data in events)
            return OpenStream(session.id, stream_id, replay, headers=self._sse_headers(session))
        if session.standalone_open:
            # One standalone stream per session: each message goes on only one
            # stream ("Multiple Connections" item 2), so a second is refused.
            return refuse(409, "the standalone SSE stream is already open")
        priming = self._priming(session, STANDALONE_STREAM) if session.revision in POLLING else None
        return OpenStream(
            session.id, STANDALONE_STREAM, priming=priming, headers=self._sse_headers(session)
        )

    @staticmethod
    def _sse_headers(session: HttpSession) -> Headers:
        return (*SSE_HEADERS, ("mcp-session-id", session.id))

    # --- sessions -----------------------------------------------------------------------

    def needs_session(self, session_id: str) -> bool:
        """Whether a request naming ``session_id`` would find no session here: with
        a shared session registry, the adapter then looks it up there and, when
        found, `adopt`s it before `receive` (the endpoint decides, the adapter
        does the I/O)."""
        return session_id not in self.sessions and session_id not in self.sse.sessions

    def adopt(self, session_id: str, principal: str | None, now: float) -> None:
        """Take up a legacy session another process opened (found in the shared
        registry under ``principal``); the adapter then `bind`s its protocol
        side, resumed in the registered revision."""
        self.sessions[session_id] = HttpSession(
            session_id, now, self._event_store(), principal, None, self.stream_prefix
        )

    def bind(self, session_id: str, protocol: Any) -> None:
        """Attach the protocol side (a ServerSession) to a minted session."""
        self.sessions[session_id].protocol = protocol

    def attach(self, session_id: str, stream_id: str, now: float) -> None:
        """A stream of the session is now being written to a client."""
        session = self.sessions.get(session_id)
        if session is not None:
            session.attached += 1
            session.last_seen = now
            if stream_id == STANDALONE_STREAM:
                session.standalone_open = True

    def detach(self, session_id: str, stream_id: str, now: float) -> None:
        """A stream attached with `attach` stopped being written."""
        session = self.sessions.get(session_id)
        if session is not None:
            session.attached = max(0, session.attached - 1)
            session.last_seen = now
            if stream_id == STANDALONE_STREAM:
                session.standalone_open = False

    def bind_sse(self, session_id: str, protocol: Any) -> None:
        """Attach the protocol side (a ServerSession) to an HTTP+SSE session."""
        self.sse.bind(session_id, protocol)

    def end_session(self, session_id: str) -> None:
        """Forget a session the server ended (or whose HTTP+SSE stream ended); its
        id gets 404 from now on."""
        if not self.sse.end(session_id):
            self.sessions.pop(session_id, None)

    def expire(self, now: float) -> list[str]:
        """End the sessions idle for ``session_idle_timeout``.

        Returns:
            Their ids; the caller closes their protocol side.
        """
        limit = now - self.config.session_idle_timeout
        opened = now - self.config.handshake_timeout
        idle = [
            s.id
            for s in self.sessions.values()
            if s.attached == 0
            and (s.last_seen <= limit or (s.created <= opened and not handshaken(s)))
        ]
        for session_id in idle:
            del self.sessions[session_id]
        return idle

    def next_expiry(self) -> float | None:
        """When the next idle session would expire, if nothing happens before."""
        times = [
            min(
                s.last_seen + self.config.session_idle_timeout,
                math.inf if handshaken(s) else s.created + self.config.handshake_timeout,
            )
            for s in self.sessions.values()
            if s.attached == 0
        ]
        return min(times) if times else None
