# MCP Server Cards (SEP-2127), sans I/O: what a server publishes about itself at
# a well-known URI, for clients and registries that have not connected yet.
#
# The text followed is SEP-2127 as filed (tests/spec/extensions/
# sep-2127-server-cards.md, commit 3bb88318 of the specification repository; the
# README beside it says why that one): the card's fields ("MCP Server Card
# Schema", "Field Descriptions"), its path ``/.well-known/mcp/server-card.json``
# (".well-known URI": MUST answer Content-Type application/json, MUST carry the
# CORS headers of "CORS Requirements", MAY carry the Cache-Control of "Caching"),
# and "Dynamic Primitives" (``["dynamic"]``: list the primitives through the
# protocol, as ours may change at any time).
#
# Off by default (`HttpServerConfig.server_card`). The card is public by design
# ("Security Implications": it holds only what ``initialize`` answers anyway), so,
# like the health probes, it is answered before the Host, Origin and
# authentication checks and opens no session; ``authentication`` tells a client
# that the MCP endpoint wants a bearer token when the server has a token check.
# The path is below the mount point, as the other paths are: an application
# mounted below the origin's root has the outer application route it.

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

import msgspec
from msgspec import UNSET, Struct, UnsetType, field

from mcp_core.session.config import ServerConfig, handshake_capabilities
from mcp_core.types.base import ClientCapabilities, MCPModel, ServerCapabilities

from .decisions import HttpRequest, Reply

if TYPE_CHECKING:
    from mcp_core.server.app import Server

__all__ = [
    "CARD_RESOURCE_URI",
    "SCHEMA_URL",
    "SERVER_CARD_PATH",
    "CardAuthentication",
    "CardServerInfo",
    "CardTransport",
    "ServerCard",
    "ServerCardRules",
    "add_card_resource",
    "server_card",
]

SERVER_CARD_PATH: Final = "/.well-known/mcp/server-card.json"
"""Where the card is served (SEP-2127 ".well-known URI")."""

SCHEMA_URL: Final = "https://static.modelcontextprotocol.io/schemas/mcp-server-card/v1.json"
"""The card's ``$schema`` (SEP-2127 "MCP Server Card Schema")."""

CARD_RESOURCE_URI: Final = "mcp://server-card.json"
"""The card as an MCP resource (SEP-2127 "MCP Resource": servers SHOULD offer it)."""

DYNAMIC: Final = ["dynamic"]
"""Primitives listed through the protocol only (SEP-2127 "Dynamic Primitives")."""

_HEADERS: Final = (
    ("content-type", "application/json"),
    # SEP-2127 "CORS Requirements" (MUST) and "Caching" (MAY).
    ("access-control-allow-origin", "*"),
    ("access-control-allow-methods", "GET"),
    ("access-control-allow-headers", "Content-Type"),
    ("cache-control", "public, max-age=3600"),
)
_ALLOW: Final = ("allow", "GET, HEAD, OPTIONS")


class CardServerInfo(MCPModel, frozen=True, kw_only=True):
    """``serverInfo``: name, title and version (the fields the SEP lists)."""

    name: str
    title: str | UnsetType = UNSET
    version: str


class CardTransport(MCPModel, frozen=True, kw_only=True):
    """``transport``: its type and, for HTTP, the endpoint's path."""

    type: str
    endpoint: str | UnsetType = UNSET


class CardAuthentication(MCPModel, frozen=True, kw_only=True):
    """``authentication``: whether it is required, and the schemes."""

    required: bool
    schemes: list[str]


class ServerCard(MCPModel, frozen=True, kw_only=True):
    """An MCP Server Card (SEP-2127 "Field Descriptions"): ``$schema`` is
    `SCHEMA_URL` and ``version`` "1.0" for the cards of this text."""

    schema: str = field(name="$schema")
    version: str
    protocol_version: str
    server_info: CardServerInfo
    description: str | UnsetType = UNSET
    icon_url: str | UnsetType = UNSET
    documentation_url: str | UnsetType = UNSET
    transport: CardTransport
    capabilities: ServerCapabilities
    requires: ClientCapabilities | UnsetType = UNSET
    authentication: CardAuthentication | UnsetType = UNSET
    instructions: str | UnsetType = UNSET
    resources: list[Any] | UnsetType = UNSET
    tools: list[Any] | UnsetType = UNSET
    prompts: list[Any] | UnsetType = UNSET
    meta: dict[str, Any] | UnsetType = field(default=UNSET, name="_meta")


def server_card(
    config: ServerConfig,
    *,
    endpoint: str | None,
    transport: str = "streamable-http",
    authenticated: bool = False,
    documentation_url: str | None = None,
) -> ServerCard:
    """The card of the server ``config`` describes, served at ``endpoint``.

    Args:
        config: the server's session config (its info, capabilities,
            instructions, revisions).
        endpoint: the MCP endpoint's path (``transport.endpoint``); None for
            a transport without one (stdio).
        transport: ``transport.type``.
        authenticated: the endpoint checks a bearer token.
        documentation_url: where its documentation is.

    The card names one ``protocolVersion``, the newest served; the
    capabilities are those that revision's answer carries. Tools, resources and
    prompts are ``["dynamic"]``: a server's registry changes while it runs.
    """
    revision = max(config.revisions)
    info = config.server_info
    icons = info.icons
    capabilities = handshake_capabilities(config, revision)
    return ServerCard(
        schema=SCHEMA_URL,
        version="1.0",
        protocol_version=revision,
        server_info=CardServerInfo(name=info.name, title=info.title, version=info.version),
        description=info.description,
        icon_url=UNSET if icons is UNSET or not icons else icons[0].src,
        documentation_url=UNSET if documentation_url is None else documentation_url,
        transport=CardTransport(type=transport, endpoint=UNSET if endpoint is None else endpoint),
        capabilities=capabilities,
        authentication=(
            CardAuthentication(required=True, schemes=["bearer"]) if authenticated else UNSET
        ),
        instructions=UNSET if config.instructions is None else config.instructions,
        resources=DYNAMIC if capabilities.resources is not UNSET else UNSET,
        tools=DYNAMIC if capabilities.tools is not UNSET else UNSET,
        prompts=DYNAMIC if capabilities.prompts is not UNSET else UNSET,
    )


def add_card_resource(
    server: Server, *, transport: str = "streamable-http", endpoint: str | None = "/mcp"
) -> None:
    """Offer the server card as the resource ``mcp://server-card.json``
    (``application/json``; SEP-2127 "MCP Resource"), for clients already
    connected, on any transport: ``transport="stdio", endpoint=None`` for a
    server run over stdio. Read, it is the card of the server as it is then."""

    def read() -> str:
        card = server_card(server.config(), endpoint=endpoint, transport=transport)
        return msgspec.json.encode(card).decode()

    server.add_resource(
        read,
        CARD_RESOURCE_URI,
        name="server-card",
        description="This server's MCP Server Card (SEP-2127)",
        mime_type="application/json",
        threaded=False,
    )


class _Cached(Struct):
    config: ServerConfig
    prefix: str
    body: bytes


class ServerCardRules:
    """Whether a request asks for the server card, and the answer.

    Args:
        enabled: serve the card (`HttpServerConfig.server_card`).
        endpoint: the MCP endpoint's path, named in the card.
        authenticated: the endpoint checks a bearer token.
    """

    def __init__(self, *, enabled: bool, endpoint: str, authenticated: bool = False) -> None:
        self.path = SERVER_CARD_PATH if enabled else None
        self.endpoint = endpoint
        self.authenticated = authenticated
        self._cached: _Cached | None = None

    def answer(self, request: HttpRequest, config: Callable[[], ServerConfig]) -> Reply | None:
        """The answer to ``request`` if it is for the card, else None: the card
        (GET; HEAD without the body), the CORS headers alone (OPTIONS, a
        browser's preflight), or 405 for another method. ``config`` gives the
        server's config, asked only for a card."""
        if self.path is None or request.path != self.path:
            return None
        method = request.method
        if method == "OPTIONS":
            return Reply(204, _HEADERS[1:])
        if method != "GET" and method != "HEAD":
            return Reply(405, (("content-type", "text/plain; charset=utf-8"), _ALLOW))
        body = b"" if method == "HEAD" else self.body(config(), request.prefix)
        return Reply(200, _HEADERS, body)

    def body(self, config: ServerConfig, prefix: str = "") -> bytes:
        """The card as JSON, encoded once while ``config`` stays the same object
        (`Server.config` keeps it while nothing changed). ``prefix``: the mount
        point, before the endpoint's path in the card."""
        cached = self._cached
        if cached is None or cached.config is not config or cached.prefix != prefix:
            card = server_card(
                config, endpoint=prefix + self.endpoint, authenticated=self.authenticated
            )
            cached = self._cached = _Cached(config, prefix, msgspec.json.encode(card))
        return cached.body
