# Where the runtime reports what it does, when something listens: the hooks.
#
# Off means free. The serving path reads one attribute of `hooks` and finds None,
# unless `transports.otel.instrument` (or `mcp-core serve --otel` / `--metrics`)
# installed observers; nothing here imports OpenTelemetry, so without the `otel`
# extra nothing changes at all. Each hook is a plain object with the methods below,
# named for what happened; `transports.otel` implements them on the OpenTelemetry
# API (spans and metrics of the MCP semantic conventions, and metrics of our own).
#
# Where each is called (the narrowest stable points of the serving path):
#
#   server   `ServerConnection._handle` (every transport with a driver: stdio,
#            in-memory, HTTP sessions of the handshake era, HTTP+SSE) and
#            `OneRequest._serve` (a 2026-07-28 request on HTTP): around the
#            application's `Server.dispatch`, so a handler's own spans nest
#            under the server span;
#   client   `Client.request` (every request a `Client` sends, so a gateway's
#            upstream calls too) and a Client's lifetime;
#   asked    a request the server sends its client (handshake era): the
#            server's `RequestPeer.request` (a handler's Context asking), and
#            the client's `Client._serve` (its callback answering);
#   observe  a notification, sent or received, on either side: the session's
#            own `messages_to_send` and `receive_message`, where every message
#            of every transport passes, wrapped on the session when it is made
#            (`ServerConnection`, `OneRequest`, `Client`) if an observer is
#            installed then: a session made while off has nothing to skip;
#   meters   counts of our own: sessions, streams, evictions, Redis round trips.
#
# The HTTP service says where each request comes from (`CLIENT_PEER`, set only
# while a server observer is installed) for the server spans' client.address
# and client.port.

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from typing import Any, Final, Protocol

from mcp_core.session import RequestReceived

__all__ = ["CLIENT_PEER", "ClientObserver", "Meters", "Served", "ServerObserver", "hooks"]


class Served(Protocol):
    """What the server observer reads of where a request is served."""

    session_id: str | None
    network_transport: str | None


class ServerObserver(Protocol):
    async def serve(self, event: RequestReceived, call: Awaitable[Any], where: Served) -> Any:
        """Await ``call`` (the application answering ``event``) and return its
        result, observed (a span around it, its duration)."""

    async def ask(
        self,
        method: str,
        params: Any,
        send: Callable[..., Awaitable[Any]],
        session: Any,
        where: Served,
    ) -> Any:
        """Send a request to the client (a handler asking for sampling,
        elicitation or roots) with ``send(params, sent=fn)``, as
        `ClientObserver.request` does, from ``session`` served at ``where``."""

    def session_started(self, where: Served) -> Callable[[str | None], None]:
        """A session began; returns what to call when it ends (with the error
        type it ended with, or None)."""

    def observe(self, session: Any, where: Served) -> None:
        """Observe the notifications ``session`` (a ServerSession served at
        ``where``) sends and receives, from now on."""


class ClientObserver(Protocol):
    async def request(
        self,
        client: Any,
        method: str,
        params: Any,
        send: Callable[..., Awaitable[Any]],
    ) -> Any:
        """Send a request with ``send(params, sent=fn)`` (the params with the
        trace context put in their ``_meta``; ``fn`` is told the request's id)
        and return its result, observed."""

    async def answer(self, client: Any, event: RequestReceived, call: Awaitable[Any]) -> Any:
        """Await ``call`` (the client's callback answering the server's request
        ``event``) and return its result, observed."""

    def session_started(self, client: Any) -> Callable[[str | None], None]:
        """A client session opened; returns what to call when it closes."""

    def observe(self, client: Any) -> None:
        """Observe the notifications ``client.session`` sends and receives,
        from now on."""


class Meters(Protocol):
    """Counts of our own (item 2 of issue 29): each method adds to one."""

    def add(self, name: str, value: int, attributes: dict[str, str] | None = None) -> None: ...


class Hooks:
    """The observers installed, each None when nothing listens."""

    __slots__ = ("client", "meters", "server")

    def __init__(self) -> None:
        self.server: ServerObserver | None = None
        self.client: ClientObserver | None = None
        self.meters: Meters | None = None


hooks = Hooks()
"""The one set of hooks of this process (read with ``hooks.server`` etc.)."""

CLIENT_PEER: Final[ContextVar[tuple[str, int | None] | None]] = ContextVar(
    "mcp_core_client_peer", default=None
)
"""Where the HTTP request being served comes from: its client's address (behind
the trusted proxies) and port (None when a proxy named the address), set by the
HTTP service for each request while a server observer is installed; what a
handler task started for it inherits."""

# Names of our own metrics (their kinds and meanings: transports/otel/meters.py).
SSE_STREAMS = "mcp_core.http.sse.streams"
SESSIONS_ENDED = "mcp_core.server.sessions.ended"
REDIS_ROUND_TRIPS = "mcp_core.redis.round_trips"
