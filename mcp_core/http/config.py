# How an MCP HTTP endpoint behaves: one frozen config object with documented
# defaults (the h2 `H2Configuration` shape). `HttpEndpoint` (_http_server) reads
# it; the adapters read the few limits they enforce while reading (head and body
# sizes, which they must know before the endpoint sees the request).

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from .forwarded import check_trusted
from .headers import LOOPBACK_HOSTS, LOOPBACK_ORIGINS
from .sessions import DEFAULT_MAX_STORED_BYTES, DEFAULT_MAX_STORED_EVENTS

__all__ = [
    "DEFAULT_MAX_BODY_BYTES",
    "DEFAULT_MAX_HEADER_BYTES",
    "DEFAULT_MAX_HEADERS",
    "DEFAULT_MAX_REQUESTS_IN_FLIGHT",
    "HttpServerConfig",
    "ResponseMode",
]

DEFAULT_MAX_BODY_BYTES: Final = 4 * 1024 * 1024
"""Largest request body accepted (4 MiB): the stdio line cap and the SSE event cap,
so every transport takes the same messages. The official Python SDK uses 4 MB."""

DEFAULT_MAX_HEADER_BYTES: Final = 16 * 1024
"""Largest request head (16 KiB, h11's default and Node's `maxHeaderSize`): MCP
sends a handful of short headers; a bearer token and cookies fit many times over."""

DEFAULT_MAX_HEADERS: Final = 100
"""Most header fields in one request (Apache's `LimitRequestFields`)."""

DEFAULT_MAX_REQUESTS_IN_FLIGHT: Final = 256
"""Requests one session may have unanswered at once. Each holds a handler (or a
place in the queue for one) and, in streamable HTTP, an open response; clients
pipeline a few (the conformance suite three), so 256 only stops a flood."""

ResponseMode = Literal["auto", "json", "sse"]


@dataclass(frozen=True, slots=True)
class HttpServerConfig:
    """How the endpoint behaves. One config may serve many endpoints.

    Attributes:
        path: the streamable-HTTP endpoint's path; paths not served get 404.
        allowed_hosts: Host names (any port) the server answers to, or None for
            any. The default, the loopback names, is what a server bound to a
            loopback address needs: a page that rebinds its own DNS name to
            127.0.0.1 still sends its own name as Host, and gets 421.
        allowed_origins: browser origins admitted (``scheme://host[:port]``,
            ``:*`` for any port, ``*`` for all). Requests without Origin (not
            from a browser) always pass. Default: pages served from loopback.
        max_body_bytes: larger bodies get 413.
        max_header_bytes: a larger request head (names and values, 4 bytes of
            framing each) gets 431 (RFC 6585 section 5).
        max_headers: more header fields than this get 431 too.
        max_sessions: sessions at once (streamable and HTTP+SSE together). An
            initialize beyond it first makes room by ending a session with no
            stream open, taken from whoever holds the most sessions (principal,
            or address without one), never from someone holding fewer than the
            newcomer: a handshake older than ``handshake_grace`` (oldest
            first), else the longest-idle session, and a handshake within its
            grace only when nothing else can go. So a flood from one address
            ends its own sessions, not others'. When nothing can go, 503 (an
            SSE connection beyond gets 503).
        max_sessions_per_principal: sessions one authenticated principal may
            hold; its initialize beyond ends its own longest-idle session, or
            gets 429 when all of them are busy. None: no quota.
        max_sessions_per_address: the same quota for the sessions opened
            without a principal, per client address (as the adapter reports
            it, or as a trusted proxy forwards it). Off by default: clients
            behind one proxy or NAT share an address.
        trusted_proxies: addresses or networks (``"10.0.0.0/8"``) of reverse
            proxies or load balancers whose ``Forwarded`` (RFC 7239) or
            ``X-Forwarded-For`` names the client, for the fair eviction of
            ``max_sessions`` and the quota per address. Empty (the default):
            the connection's address counts, as anyone can send those headers.
            Behind a balancer, name it here, or every client is one holder.
        handshake_grace: seconds a new session keeps its place while its
            client completes the handshake (one round trip, slow under load):
            within them, newcomers making room end other sessions first.
        handshake_timeout: seconds a session may stay without completing its
            handshake (``notifications/initialized``) before it is ended: a flood
            of initialize requests alone cannot hold the session table.
        max_requests_in_flight: unanswered requests per session; a request
            beyond gets 429 with a JSON-RPC error (HTTP+SSE: the error on the
            stream, as its POSTs are answered 202 before any result).
        session_idle_timeout: seconds after which a session with no attached
            stream and no request is ended by `HttpEndpoint.expire`. 30 minutes:
            an editor left open over lunch should not lose its session, and
            the harness of conformance tests never sends DELETE.
        response_mode: how requests are answered. "auto": 2025-11-25 sessions
            get an SSE stream at once, with a priming event (the revision's
            SHOULD), everything else JSON unless the server sends something
            before the response; "json": JSON only (messages that are not the
            response go to the standalone stream); "sse": always SSE.
        sse_retry_ms: the ``retry`` sent with priming events: how long a
            client waits before reconnecting to a closed stream (one second, a
            polling pace that costs little and loses little time).
        sse_poll_after: SSE polling, server half (2025-11-25 basic/transports.mdx
            "Sending Messages to the Server" item 6: after the priming event the
            server MAY close the connection, and the client polls back with GET
            and Last-Event-ID). When set, the SSE answer to a request of a
            2025-11-25 session whose response has not come after this many
            seconds (0: right after the priming event) is ended; the handler goes
            on, and what it sends later waits in the event store for the
            client's GET, which replays it and goes on with the stream. Frees the
            connection of a long call; behind a proxy that cuts long responses it
            keeps calls alive. None (the default): streams stay open.
        max_stored_events: events each session keeps for Last-Event-ID replay.
        max_stored_bytes: bytes of them kept at most.
        standalone_stream: offer the GET stream; False answers GET with 405.
        allow_delete: let clients end sessions with DELETE; False gives 405.
        sse_path: where the deprecated HTTP+SSE transport of 2024-11-05 opens its
            streams (GET), beside streamable HTTP, for clients that only speak
            it; None turns that transport off. On by default: such clients
            exist, and it passes the same Host, Origin, auth and limit checks.
        sse_messages_path: where HTTP+SSE clients POST their messages.
        health_path: the liveness probe (`mcp_core.http.health`): 200 while
            the server answers; None turns it off (404).
        ready_path: the readiness probe: 200 when the server should get
            traffic, else 503 naming why; None turns it off.
        server_card: serve the server's MCP Server Card (SEP-2127,
            `mcp_core.http.server_card`) at ``/.well-known/mcp/server-card.json``
            below the mount point; off by default.
    """

    path: str = "/mcp"
    allowed_hosts: tuple[str, ...] | None = LOOPBACK_HOSTS
    allowed_origins: tuple[str, ...] = LOOPBACK_ORIGINS
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    max_header_bytes: int = DEFAULT_MAX_HEADER_BYTES
    max_headers: int = DEFAULT_MAX_HEADERS
    max_sessions: int = 1000
    max_sessions_per_principal: int | None = None
    max_sessions_per_address: int | None = None
    trusted_proxies: tuple[str, ...] = ()
    handshake_grace: float = 10.0
    handshake_timeout: float = 30.0
    max_requests_in_flight: int = DEFAULT_MAX_REQUESTS_IN_FLIGHT
    session_idle_timeout: float = 1800.0
    response_mode: ResponseMode = "auto"
    sse_retry_ms: int = 1000
    sse_poll_after: float | None = None
    max_stored_events: int = DEFAULT_MAX_STORED_EVENTS
    max_stored_bytes: int = DEFAULT_MAX_STORED_BYTES
    standalone_stream: bool = True
    allow_delete: bool = True
    sse_path: str | None = "/sse"
    sse_messages_path: str = "/messages"
    health_path: str | None = "/healthz"
    ready_path: str | None = "/readyz"
    server_card: bool = False

    def __post_init__(self) -> None:
        # A bad trusted proxy is the operator's mistake: said at start, not
        # found by the first request.
        check_trusted(self.trusted_proxies)
