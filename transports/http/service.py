# Serving a Server on streamable HTTP, whatever carries the requests.
#
# `HttpService` is everything an HTTP server for MCP does besides reading and
# writing HTTP: it asks `mcp_core.HttpEndpoint` what to do with each request,
# keeps the legacy sessions (a `ServerConnection` each, living in the service's
# task group), serves each 2026-07-28 request on a connection of its own, and
# writes answers through a `Responder`, what a server adapter can do with one
# response. The h11 server (http_server) and the ASGI adapter (asgi) are each a
# read loop and a Responder around one service.
#
# Sessions and streams. A legacy-era session (opened with ``initialize``) is one
# `ServerConnection` that lives from its initialize to its DELETE or idle expiry,
# whatever connections its requests come on. A 2026-07-28 request gets a
# session of its own that ends with its answer (`OneRequest`: no driver, no
# workers, its handler served in the answering task): the era is stateless, so
# nothing of one request can reach another, request ids of different clients never
# meet in one session, and closing the request's stream is exactly the
# cancellation the spec asks for when the client closes it.
# Each outgoing message goes where the endpoint routes it, by its response id or
# the request it is related to (`mcp_core.http.routing`, carried out in
# `streams`); the task answering the POST (or GET) writes it, one write per batch
# of events.
#
# Handlers run in the task answering their POST (`Answers.serve_here`, in `answers`): a
# request served at once costs no task and no task switch. A 2026-07-28 handler is
# cancelled with its answer when the client hangs up; a legacy one is not (a
# disconnection is no cancellation there). While a handler runs, a writer task
# (`AnswerWriter`) is started only if the answer must go on meanwhile: messages
# sent before the response, or a stream whose head and keep-alives are due while
# the handler waits. The adapter watches for hang-ups only once an answer waits
# (`Responder.watch`).
#
# The deprecated HTTP+SSE transport (2024-11-05) is served beside: its GET opens an
# `SseSession` that lives exactly as long as that GET's stream, and its POSTs are
# fed to the session and answered 202.
#
# Authentication. `admit` runs the application's hook (sync or async) on each
# request head before its body is read; the principal it returns goes to the
# endpoint (which binds it to the sessions a request opens and checks it on later
# requests) and to the ServerConnection (its Context.principal; 2026-07-28
# requestState is sealed for it). A hook may return an `mcp_core.auth.Principal`
# (a token's subject and scopes): its subject is the principal, and on a protected
# endpoint (a `BearerAuth` hook) its scopes are checked against each request's
# operation.

from __future__ import annotations

import inspect
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import anyio
from anyio.abc import TaskGroup

from mcp_core import REVISIONS, Limits, Server
from mcp_core.auth import Principal
from mcp_core.http import EventStore
from mcp_core.http.decisions import (
    AuthRefusal,
    Dispatch,
    EndSession,
    HttpRequest,
    OpenSseSession,
    OpenStream,
    Reply,
    SendOnStream,
)
from mcp_core.http.forwarded import client_address
from mcp_core.http.server import HttpEndpoint, HttpServerConfig
from mcp_core.session.config import ServerConfig
from mcp_core.types import LEGACY_REVISIONS
from mcp_core.wire import DEFAULT_LIMITS, Message
from mcp_core.wire.errors import RemoteProtocolError, SharedStateUnavailable
from mcp_core.wire.jsonrpc import decode_message

from ..access import refused
from ..auth.bearer import BearerAuth
from ..backend import loop_clock
from ..driver import DEFAULT_MAX_CONCURRENCY
from ..one_request import OneRequest
from ..server_connection import ServerConnection
from ..telemetry import CLIENT_PEER, SESSIONS_ENDED, SSE_STREAMS, hooks
from .admission import Admitted, Authenticate
from .answers import Answers
from .health import Health
from .responder import PeerGone, Responder
from .shared_events import EventShipper, Follower, SharedEventStore
from .shared_sessions import Relay, SharedSessions, unavailable
from .streams import AnswerStream, LegacySession, LegacySseConnection, modern_sink
from .timeouts import DEFAULT_TIMEOUTS, HttpTimeouts

__all__ = [
    "DEFAULT_TIMEOUTS",
    "Admitted",
    "Authenticate",
    "HttpTimeouts",
    "PeerGone",
    "Responder",
    "HttpService",
]

log = logging.getLogger("mcp_core.http")


class HttpService:
    """Serves one `Server` on streamable HTTP, through any HTTP implementation.

    Requests are handed to `handle` between `running` and its end.

    Args:
        server: the application.
        config: the endpoint's rules and limits.
        revisions: protocol revisions served.
        limits: message limits of each session.
        timeouts: how long clients may take.
        max_concurrency: requests served at once per session.
        authenticate: the authentication hook, or None to admit everyone.
        event_store: makes each legacy session's SSE event store (see
            `mcp_core.EventStore`); by default a bounded `MemoryEventStore`.
    """

    def __init__(
        self,
        server: Server,
        config: HttpServerConfig,
        *,
        revisions: tuple[str, ...] = REVISIONS,
        limits: Limits = DEFAULT_LIMITS,
        timeouts: HttpTimeouts = DEFAULT_TIMEOUTS,
        max_concurrency: int = DEFAULT_MAX_CONCURRENCY,
        authenticate: Authenticate | None = None,
        event_store: Callable[[], EventStore] | None = None,
    ) -> None:
        self.server = server
        self.authenticate = authenticate
        self.revisions = revisions
        self.limits = limits
        self.timeouts = timeouts
        self.max_concurrency = max_concurrency
        self._default_limits = limits == DEFAULT_LIMITS
        #: Legacy sessions' SSE events copied to the server's shared event log.
        self.shipper = None
        if server.event_log is not None and event_store is None:
            self.shipper = EventShipper(
                server.event_log, config.max_stored_events, config.max_stored_bytes
            )
            event_store = self.shipper.store
        self.endpoint = HttpEndpoint(
            config,
            revisions=revisions,
            tool_headers=server.tool_header_paths,
            event_store=event_store,
            resource=authenticate.resource if isinstance(authenticate, BearerAuth) else None,
            stream_prefix="" if self.shipper is None else self.shipper.tag,
        )
        #: Writes the answers of dispatched requests (answers.py).
        self.answers = Answers(self.endpoint, timeouts)
        self.sessions: dict[str, LegacySession] = {}
        registry = server.session_registry
        #: Legacy sessions shared with other workers, when the server shares them.
        self.shared = None if registry is None else SharedSessions(registry, self.endpoint)
        #: Changes and ended sessions to and from other workers, over the server's bus.
        self.relay = (
            None if server.bus is None else Relay(server, self._end_here, self._deliver_reply)
        )
        #: Live HTTP+SSE (2024-11-05) sessions by id.
        self.sse_sessions: dict[str, LegacySseConnection] = {}
        #: 2026-07-28 requests holding a subscriptions/listen stream open.
        self.listening: set[OneRequest] = set()
        #: The health probes; the adapter sets ``health.draining`` as it shuts down.
        self.health = Health(self.endpoint.health, server)
        self._tg: TaskGroup | None = None
        #: The event loop's clock (`anyio.current_time`), resolved in `running`.
        self.now: Callable[[], float] = anyio.current_time

    @property
    def is_running(self) -> bool:
        """Between the start and the end of `running`."""
        return self._tg is not None

    @asynccontextmanager
    async def running(self) -> AsyncIterator[TaskGroup]:
        """Serve: the task group legacy sessions live in, and the sweep of idle
        sessions. On the way out every session ends.

        Yields:
            The task group (the h11 server runs its connections in it too).

        Raises:
            RuntimeError: the service is running already.
        """
        if self._tg is not None:
            raise RuntimeError("the HTTP service is running already")
        async with self.server.running(), anyio.create_task_group() as tg:
            self._tg = self.answers.tg = tg
            self.now = self.answers.now = loop_clock()
            tg.start_soon(self._sweep)
            if self.relay is not None:
                await tg.start(self.relay.run)
            if self.shipper is not None:
                tg.start_soon(self.shipper.run)
                tg.start_soon(self.shipper.beat)
            try:
                yield tg
            finally:
                self._tg = self.answers.tg = None
                for session_id in [*self.sessions, *self.sse_sessions]:
                    self.endpoint.end_session(session_id)
                    self._end(session_id)
                tg.cancel_scope.cancel()

    async def _sweep(self) -> None:
        while True:
            await anyio.sleep(self.timeouts.session_sweep)
            for session_id in self.endpoint.expire(self.now()):
                self._end(session_id, "expired")

    def end_streams(self, *, in_flight: bool) -> None:
        """End SSE streams cleanly, for a server that shuts down: each GET stream
        of a session (a 2025-11-25 client resumes it with Last-Event-ID), and each
        HTTP+SSE session with no request in flight, each 2026-07-28
        subscriptions/listen stream (with its completion result); with
        ``in_flight``, every stream of a legacy session, answers in flight
        included (an answer not yet begun becomes a stream that ends after its
        priming event, which a client resumes)."""
        for request in list(self.listening):
            request.end_subscriptions()
        for session in self.sessions.values():
            streams = session.streams.values() if in_flight else (session.standalone,)
            for stream in list(streams):
                if stream.mode is None and not stream.json_only:
                    stream.mode = "sse"
                    if stream.early is not None:
                        stream.early()
                stream.finish()
        for sse in self.sse_sessions.values():
            if in_flight or not sse.connection.session.requests_in_flight:
                sse.stream.finish()

    def _deliver_reply(self, session_id: str, body: bytes) -> None:
        # A client's answer or cancellation another worker received: fed here
        # if what it names is here.
        session = self.sessions.get(session_id)
        if session is None:
            return
        try:
            message = decode_message(body)
        except RemoteProtocolError:
            return
        if session.connection.session.held_here(message):
            session.connection.driver.feed(message)

    def _end_here(self, session_id: str) -> None:
        # Another worker ended the session (DELETE): so does this one.
        if session_id in self.sessions:
            self.endpoint.end_session(session_id)
            self._end(session_id, "deleted")

    def _end(self, session_id: str, reason: str = "closed") -> None:
        # reason, for telemetry: deleted, expired, evicted or closed (the rest).
        if self.shared is not None:
            self.shared.forget(session_id)
        session = self.sessions.pop(session_id, None) or self.sse_sessions.pop(session_id, None)
        if session is not None:
            session.close()
            meters = hooks.meters
            if meters is not None:
                meters.add(SESSIONS_ENDED, 1, {"reason": reason})

    def _connection(
        self,
        task_group: TaskGroup,
        principal: str | None,
        session_id: str,
        revisions: tuple[str, ...] | None = None,
    ) -> ServerConnection:
        connection = ServerConnection(
            self.server,
            task_group,
            revisions=revisions or self.revisions,
            principal=principal,
            session_id=session_id,
            limits=self.limits,
            max_concurrency=self.max_concurrency,
        )
        connection.network_transport = "tcp"
        return connection

    def _legacy_session(self, session_id: str, principal: str | None) -> ServerConnection:
        # The protocol side of a legacy session minted (or adopted) by the endpoint.
        assert self._tg is not None, "handle() is called while running()"
        connection = self._connection(self._tg, principal, session_id)
        self.sessions[session_id] = LegacySession(session_id, connection, self.endpoint)
        self.endpoint.bind(session_id, connection.session)
        http = self.endpoint.sessions[session_id]
        if isinstance(http.events, SharedEventStore):
            http.events.bind(session_id, principal, lambda: http.standalone_open)
        return connection

    def _config(self) -> ServerConfig:
        return self.server.config(revisions=self.revisions)

    def _fed(self, decision: Dispatch) -> bytes | Message:
        # What a session is fed: the message the endpoint decoded already, when the
        # session's limits are the ones the endpoint decoded under (the defaults);
        # else the body, for the session to check against its own.
        message = decision.message
        return message if message is not None and self._default_limits else decision.body

    # --- carrying out decisions ----------------------------------------------------------

    async def admit(self, head: HttpRequest) -> Reply | Admitted:
        """Check a request head before its body is read: the endpoint's checks
        (path, head size, Host, Origin, media types, declared length), then the
        authentication hook.

        Returns:
            The refusal to send (when it says ``close``, without reading the
            body), or who the request comes from.
        """
        refusal = self.endpoint.check_head(head)
        if refusal is not None:
            # Not the MCP endpoint's path, perhaps a health probe's or the
            # server card's: answered before the Host, Origin and auth checks
            # (see `health`, mcp_core/http/server_card.py).
            card = self.endpoint.card.answer(head, self._config)
            answer = card or await self.health.answer(head, started=self.is_running)
            if answer is None:
                refused(head, refusal.status)
                return refusal
            return answer
        if self.authenticate is None:
            return Admitted()
        try:
            found = self.authenticate(head)
            if inspect.isawaitable(found):
                found = await found
        except Exception:
            # A bug in the hook, or a backend it could not reach: the client gets a
            # 500 (and the connection closes, its body unread), the log the cause.
            log.exception("the authenticate hook failed on %s %s", head.method, head.target)
            refused(head, 500)
            plain = (("content-type", "text/plain"),)
            return Reply(500, plain, b"Internal Server Error", close=True)
        if isinstance(found, AuthRefusal):
            reply = found.reply()
            refused(head, reply.status)
            return reply
        if isinstance(found, Principal):
            return Admitted(found.subject, found.scopes)
        return Admitted(found)

    def _peer(self, out: Responder, head: HttpRequest) -> tuple[str, int | None] | None:
        # The client's address as the rest of the server takes it (the quota per
        # address): behind the trusted proxies, the one they forwarded, whose
        # port they do not say; else the connection's peer, with its port.
        trusted = self.endpoint.config.trusted_proxies
        address = client_address(head.client, head.headers, trusted)
        if address is None:
            return None
        peer: tuple[str, int] | None = getattr(out, "peer", None)
        return (address, peer[1] if peer is not None and peer[0] == address else None)

    async def handle(
        self,
        out: Responder,
        head: HttpRequest,
        body: bytes,
        principal: str | None = None,
        *,
        checked: bool = False,
        scopes: frozenset[str] | None = None,
    ) -> None:
        """Answer one complete request that `admit` let in (``checked``: the
        endpoint's head checks need not run again; ``scopes``: `Admitted.scopes`).

        Raises:
            PeerGone: the client went away before the answer was written.
        """
        if hooks.server is not None:
            # For the server spans of this request (and of the handler tasks
            # it starts, which inherit the context).
            CLIENT_PEER.set(self._peer(out, head))
        now = self.now()
        if self.shared is not None:
            refusal = await self.shared.before(
                head,
                principal,
                now,
                lambda sid: self._legacy_session(sid, principal),
                self._end_here,
            )
            if refusal is not None:
                refused(head, refusal.status, principal)
                await out.reply(refusal)
                return
        if self.shipper is not None:
            await self.shipper.prefetch(self.endpoint, head)
        decision = self.endpoint.receive(head, body, now, principal, checked=checked, scopes=scopes)
        for session_id in self.endpoint.take_evicted():
            self._end(session_id, "evicted")
        if isinstance(decision, Reply):
            refused(head, decision.status, principal)
            await out.reply(decision)
        elif isinstance(decision, Dispatch):
            await self._dispatch(out, decision, principal)
        elif isinstance(decision, OpenStream):
            await self._open_stream(out, decision, head.headers.get("last-event-id"))
        elif isinstance(decision, OpenSseSession):
            await self._sse_session(out, decision)
        elif isinstance(decision, SendOnStream):
            sse = self.sse_sessions.get(decision.session_id)
            if sse is not None:
                sse.stream.push(decision.data)
            await out.reply(decision.reply)
        else:
            assert isinstance(decision, EndSession) and decision.reply is not None
            self._end(decision.session_id, "deleted")
            if self.shared is not None:
                await self.shared.ended(decision.session_id, principal)
            if self.relay is not None:
                self.relay.ended(decision.session_id)
            await out.reply(decision.reply)

    async def _dispatch(self, out: Responder, decision: Dispatch, principal: str | None) -> None:
        endpoint = self.endpoint
        if decision.session_id is None:
            if decision.accepted is not None:
                # 2026-07-28 defines no client notification over HTTP (the
                # "Sending Messages" note): accept it, act on nothing.
                await out.reply(decision.accepted)
                return
            await self._modern(out, decision, principal)
            return
        sse = self.sse_sessions.get(decision.session_id)
        if sse is not None:
            # HTTP+SSE: every POST is answered 202; answers go on the stream.
            assert decision.accepted is not None
            sse.connection.driver.feed(self._fed(decision))
            await out.reply(decision.accepted)
            return
        session = self.sessions.get(decision.session_id)
        if decision.created:
            self._legacy_session(decision.session_id, principal)
            session = self.sessions[decision.session_id]
        if session is None:  # pragma: no cover - the endpoint and we agree on sessions
            await out.reply(Reply(404))
            return
        if decision.accepted is not None:
            message = decision.message
            held = message is None or session.connection.session.held_here(message)
            if self.relay is not None and not held:
                # An answer or a cancellation for another worker's handler.
                try:
                    await self.relay.route_reply(decision.session_id, decision.body)
                except SharedStateUnavailable as exc:
                    await out.reply(unavailable(exc))
                    return
            else:
                session.connection.driver.feed(self._fed(decision))
            await out.reply(decision.accepted)
            return
        stream = session.open(decision)
        stream.attach(out)
        stream_id = decision.stream_id or ""
        events = endpoint.sessions[decision.session_id].events
        request_id = decision.request_id
        if (
            isinstance(events, SharedEventStore)
            and request_id is not None
            and not decision.json_only
        ):
            # Any worker can then end it with an error if this one dies.
            events.name(stream_id, request_id)
        endpoint.attach(decision.session_id, stream_id, self.now())
        driver = session.connection.driver
        # A batch's handlers run in tasks of their own, side by side, as on stdio.
        jobs = [] if decision.batch else driver.keep(self._fed(decision))
        if decision.batch:
            driver.feed(decision.body)
        ended = endpoint.fed(decision)
        if ended is not None:
            self._end(ended.session_id)
        try:
            if decision.created and ended is None and self.shared is not None:
                refusal = await self.shared.opened(
                    decision.session_id, principal, session.connection.session
                )
                if refusal is not None:
                    endpoint.end_session(decision.session_id)
                    self._end(decision.session_id)
                    await out.reply(refusal)
                    return
            if jobs:
                # Its handler runs here, unwatched: a client that hangs up does not
                # cancel a legacy request (see below).
                await self.answers.serve_here(out, stream, decision, driver, jobs, None)
            else:
                await self.answers.answer(out, stream, decision)
        except (PeerGone, anyio.get_cancelled_exc_class()):
            # 2025-11-25 "Sending Messages" item 6: a disconnection is not a
            # cancellation. A stream that has sent an event id goes on in the
            # event store; one that has not cannot be resumed. Nor can a
            # JSON-only answer whose cancellation ended its connection
            # (`Answers.serve_here`).
            if stream.mode != "sse":
                session.abandon(stream)
            raise
        finally:
            stream.detach(out)
            endpoint.detach(decision.session_id, stream_id, self.now())

    async def _modern(self, out: Responder, decision: Dispatch, principal: str | None) -> None:
        # The request gets a connection of its own and its handler runs here,
        # watched: a client that hangs up cancels it (2026-07-28
        # streamable-http.mdx "Cancellation": closing the stream cancels the
        # request).
        assert self._tg is not None, "handle() is called while running()"
        stream = AnswerStream(None, None, decision.request_id, mode="sse" if decision.sse else None)
        stream.attached = True
        # No driver: its handler runs here, and nothing else (see `OneRequest`).
        # It watches the registry only if its request opened a subscription,
        # the only place a 2026-07-28 session publishes to (see
        # `ServerConnection.watch`): most requests never do.
        request = OneRequest(
            self.server,
            modern_sink(self.endpoint, stream),
            self._tg,
            revisions=self.revisions,
            principal=principal,
            limits=self.limits,
        )
        try:
            jobs = request.feed(self._fed(decision))
            if request.session.subscriptions:
                request.watch()
                self.listening.add(request)  # ended cleanly on shutdown: end_streams
            # How the handler is cancelled when the client hangs up, or a write
            # of the writer task fails (out.gone): the connection ends with it
            # (on h11, its own scope is cancelled; nothing here needs PeerGone).
            await out.ending(
                lambda: self.answers.serve_here(out, stream, decision, request, jobs, out.gone)
            )
        finally:
            self.listening.discard(request)
            request.close()

    async def _sse_session(self, out: Responder, decision: OpenSseSession) -> None:
        # The HTTP+SSE session lives as long as this response: it ends when the
        # client hangs up (or stops reading), or when the service stops.
        assert self._tg is not None, "handle() is called while running()"
        legacy = tuple(r for r in self.revisions if r in LEGACY_REVISIONS)
        connection = self._connection(self._tg, decision.principal, decision.session_id, legacy)
        session = LegacySseConnection(decision.session_id, connection)
        self.sse_sessions[decision.session_id] = session
        self.endpoint.bind_sse(decision.session_id, connection.session)
        stream = session.stream
        _count_stream(1, "http+sse")
        try:
            await out.watched(
                lambda: self.answers.write_sse(out, stream, decision.headers, decision.first)
            )
        finally:
            _count_stream(-1, "http+sse")
            self.endpoint.end_session(decision.session_id)
            self._end(decision.session_id)

    async def _open_stream(self, out: Responder, decision: OpenStream, last: str | None) -> None:
        session = self.sessions.get(decision.session_id)
        stream = session.streams.get(decision.stream_id) if session is not None else None
        now = self.now()
        self.endpoint.attach(decision.session_id, decision.stream_id, now)
        _count_stream(1, "get")
        try:
            if stream is None and self.shipper is not None:
                # Not live here: perhaps another worker's, to be followed.
                http = self.endpoint.sessions[decision.session_id]
                follower = self.shipper.follower(http, decision.stream_id, last)
                if follower is not None:
                    await out.watched(lambda: self._follow(out, decision, follower))
                    return
            await self.answers.stream_events(out, stream, decision)
        finally:
            _count_stream(-1, "get")
            if stream is not None:
                stream.detach(out)
            self.endpoint.detach(decision.session_id, decision.stream_id, self.now())

    async def _follow(self, out: Responder, decision: OpenStream, follower: Follower) -> None:
        # Another worker's stream, from the shared log (replay included).
        await out.start(200, decision.headers)
        out.watch()
        await follower.follow(self.endpoint, out.send, self.timeouts.sse_ping)
        await out.end()


def _count_stream(change: int, kind: str) -> None:
    # Telemetry's count of open SSE streams: GET streams and HTTP+SSE sessions.
    meters = hooks.meters
    if meters is not None:
        meters.add(SSE_STREAMS, change, {"stream": kind})
