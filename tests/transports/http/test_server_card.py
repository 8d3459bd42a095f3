"""MCP Server Cards (SEP-2127 as filed, tests/spec/extensions/sep-2127-server-cards.md)
from the wire: on the h11 server (asyncio and trio) and the ASGI app (mounted under
uvicorn): off by default, the card's fields, the MUST headers (application/json,
CORS) and the MAY cache header, HEAD, the CORS preflight, 405, any Host, bearer
authentication announced, a card that follows the registry; and the card as the
MCP resource ``mcp://server-card.json`` (in memory, asyncio and trio)."""

from __future__ import annotations

import json
from contextlib import AbstractAsyncContextManager
from typing import Any

import pytest
from adapter_flavours import by_flavour, flavour_fixture, served  # noqa: F401
from http_helpers import RawClient

from mcp_core import Server
from mcp_core.auth import Principal, ResourceConfig, TokenRefusal
from mcp_core.http.server import HttpServerConfig
from mcp_core.http.server_card import (
    CARD_RESOURCE_URI,
    SCHEMA_URL,
    SERVER_CARD_PATH,
    add_card_resource,
)
from transports import connect_in_memory
from transports.auth.bearer import BearerAuth

pytestmark = pytest.mark.anyio


def demo() -> Server:
    server = Server(
        "cards",
        "2.1.0",
        title="Card demo",
        description="A server with a card",
        icons=[{"src": "https://example.com/icon.png"}],
        instructions="Add numbers.",
    )

    @server.tool
    def add(a: int, b: int) -> int:
        return a + b

    return server


def serving(
    flavour: tuple[str, str], server: Server, authenticate: Any = None, **options: Any
) -> AbstractAsyncContextManager[tuple[int, str]]:
    """The port and mount point of ``server`` served by ``flavour``."""
    return served(flavour, server, HttpServerConfig(**options), authenticate)


async def fetch(port: int, target: str, method: str = "GET", **headers: str) -> Any:
    async with RawClient(port, target) as raw:
        await raw.send(method, **headers)
        return await raw.answer()


async def test_off_by_default(flavour: tuple[str, str]) -> None:
    async with serving(flavour, demo()) as (port, mount):
        assert (await fetch(port, mount + SERVER_CARD_PATH)).status == 404


async def test_the_card(flavour: tuple[str, str]) -> None:
    async with serving(flavour, demo(), server_card=True) as (port, mount):
        answer = await fetch(port, mount + SERVER_CARD_PATH)
    assert answer.status == 200
    # ".well-known URI": MUST be application/json, MUST carry the CORS headers;
    # "Caching": MAY carry Cache-Control.
    assert answer.headers["content-type"] == "application/json"
    assert answer.headers["access-control-allow-origin"] == "*"
    assert answer.headers["access-control-allow-methods"] == "GET"
    assert answer.headers["access-control-allow-headers"] == "Content-Type"
    assert answer.headers["cache-control"] == "public, max-age=3600"
    assert json.loads(answer.body) == {
        "$schema": SCHEMA_URL,
        "version": "1.0",
        "protocolVersion": "2026-07-28",
        "serverInfo": {"name": "cards", "title": "Card demo", "version": "2.1.0"},
        "description": "A server with a card",
        "iconUrl": "https://example.com/icon.png",
        "transport": {"type": "streamable-http", "endpoint": f"{mount}/mcp"},
        "capabilities": {"logging": {}, "tools": {"listChanged": True}},
        "instructions": "Add numbers.",
        "tools": ["dynamic"],
    }


async def test_methods_and_host(flavour: tuple[str, str]) -> None:
    async with serving(flavour, demo(), server_card=True) as (port, mount):
        target = mount + SERVER_CARD_PATH
        head = await fetch(port, target, "HEAD")
        assert (head.status, head.body) == (200, b"")
        assert head.headers["content-type"] == "application/json"
        preflight = await fetch(
            port,
            target,
            "OPTIONS",
            origin="https://elsewhere.example",
            **{"access-control-request-method": "GET"},
        )
        assert preflight.status == 204
        assert preflight.headers["access-control-allow-origin"] == "*"
        refused = await fetch(port, target, "POST")
        assert refused.status == 405 and refused.headers["allow"] == "GET, HEAD, OPTIONS"
        # Public by design: any Host, any Origin (the MCP endpoint refuses both).
        other = await fetch(port, target, host="cards.example.com", origin="https://x.example")
        assert other.status == 200
        assert (await fetch(port, f"{mount}/mcp", "POST", host="cards.example.com")).status == 421
        assert (await fetch(port, target + "/more")).status == 404


async def test_follows_the_registry(flavour: tuple[str, str]) -> None:
    server = demo()
    async with serving(flavour, server, server_card=True) as (port, mount):
        first = json.loads((await fetch(port, mount + SERVER_CARD_PATH)).body)
        assert "resources" not in first["capabilities"]

        @server.resource("note://one")
        def one() -> str:
            return "1"

        second = json.loads((await fetch(port, mount + SERVER_CARD_PATH)).body)
    assert second["capabilities"]["resources"] == {"listChanged": True}
    assert second["resources"] == ["dynamic"]


class Nobody:
    """A token verifier that refuses every token."""

    async def verify(self, token: str) -> Principal | TokenRefusal:
        return TokenRefusal("no token is good here")


async def test_a_protected_server(flavour: tuple[str, str]) -> None:
    resource = ResourceConfig("https://cards.example.com/mcp", ("https://auth.example.com",))
    auth = BearerAuth(resource, Nobody())
    async with serving(flavour, demo(), auth, server_card=True) as (port, mount):
        card = await fetch(port, mount + SERVER_CARD_PATH)
        endpoint = await fetch(port, f"{mount}/mcp", "POST")
    # The card needs no token and says the endpoint does.
    assert card.status == 200
    assert json.loads(card.body)["authentication"] == {"required": True, "schemes": ["bearer"]}
    assert endpoint.status == 401


async def test_the_card_as_a_resource() -> None:
    server = Server("s", "1")
    add_card_resource(server, transport="stdio", endpoint=None)
    async with connect_in_memory(server) as client:
        listed = (await client.list_resources()).resources
        read = await client.read_resource(CARD_RESOURCE_URI)
    # SEP-2127 "MCP Resource": mcp://server-card.json, application/json.
    assert [(r.uri, r.mime_type) for r in listed] == [(CARD_RESOURCE_URI, "application/json")]
    (contents,) = read.contents
    card = json.loads(str(contents.text))
    assert card["transport"] == {"type": "stdio"}
    assert card["resources"] == ["dynamic"]  # the card itself is one
