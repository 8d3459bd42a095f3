"""MCP Apps (tests/spec/extensions/apps-2026-01-26.md) from the wire, in both eras,
on the h11 server (asyncio and trio) and the ASGI app: the server declares
``io.modelcontextprotocol/ui`` (initialize / server/discover), lists views as
``ui://`` resources with the extension's MIME type, reads them with their
``_meta.ui`` on the contents, lists tools with ``_meta.ui.resourceUri`` and
``visibility``, and a tool sees whether its client declared the extension (in
the handshake, or in the request's ``_meta``)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from adapter_flavours import by_flavour, flavour_fixture, served  # noqa: F401
from apps_helpers import CHART, HOST, LEGACY, apps_server
from http_helpers import MODERN, RawClient, modern_headers, reply_of

from mcp_core import Server
from mcp_core.apps import EXTENSION_ID, MIME_TYPE

pytestmark = pytest.mark.anyio


@asynccontextmanager
async def serving(flavour: tuple[str, str], server: Server) -> AsyncIterator[tuple[int, str]]:
    """The port and the MCP endpoint's path of ``server`` served by ``flavour``."""
    async with served(flavour, server) as (port, mount):
        yield port, f"{mount}/mcp"


class Peer:
    """A raw client of one era: requests as JSON-RPC bodies, answers as JSON."""

    def __init__(self, raw: RawClient, era: str, extensions: dict[str, Any]) -> None:
        self.raw, self.era, self.extensions = raw, era, extensions
        self.session: str | None = None
        self.next_id = 1

    async def open(self) -> dict[str, Any]:
        """The server's capabilities: from initialize, or server/discover."""
        capabilities = {"extensions": self.extensions} if self.extensions else {}
        if self.era == LEGACY:
            await self.raw.send(
                "POST",
                {
                    "jsonrpc": "2.0",
                    "id": 0,
                    "method": "initialize",
                    "params": {
                        "protocolVersion": LEGACY,
                        "capabilities": capabilities,
                        "clientInfo": {"name": "host", "version": "1"},
                    },
                },
            )
            answer = await self.raw.answer()
            self.session = answer.headers["mcp-session-id"]
            done = {"jsonrpc": "2.0", "method": "notifications/initialized"}
            await self.raw.send("POST", done, mcp_session_id=self.session)
            assert (await self.raw.answer()).status == 202
            result: dict[str, Any] = answer.json()["result"]
            return result["capabilities"]  # type: ignore[no-any-return]
        return (await self.request("server/discover", {}))["capabilities"]  # type: ignore[no-any-return]

    async def request(self, method: str, params: dict[str, Any], name: str | None = None) -> Any:
        self.next_id += 1
        body: dict[str, Any] = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if self.era == LEGACY:
            body["params"] = params
            await self.raw.send("POST", body, mcp_session_id=self.session or "")
        else:
            capabilities = {"extensions": self.extensions} if self.extensions else {}
            meta = {
                "io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientCapabilities": capabilities,
                "io.modelcontextprotocol/clientInfo": {"name": "host", "version": "1"},
            }
            body["params"] = {**params, "_meta": meta}
            await self.raw.send("POST", body, **modern_headers(method, name))
        reply = await reply_of(self.raw)
        assert "result" in reply, reply
        return reply["result"]


@pytest.fixture(params=[LEGACY, MODERN])
def era(request: pytest.FixtureRequest) -> str:
    value: str = request.param
    return value


async def test_declared_and_listed(flavour: tuple[str, str], era: str) -> None:
    async with (
        serving(flavour, apps_server()) as (port, target),
        RawClient(port, target) as raw,
    ):
        peer = Peer(raw, era, HOST)
        capabilities = await peer.open()
        # "Client<>Server Capability Negotiation": through capabilities.extensions.
        assert capabilities["extensions"] == {EXTENSION_ID: {}}
        tools = {t["name"]: t for t in (await peer.request("tools/list", {}))["tools"]}
        resources = (await peer.request("resources/list", {}))["resources"]
    # "Resource Discovery": the tool names its view, and who may call it.
    assert tools["sales"]["_meta"] == {"ui": {"resourceUri": "ui://charts/bar.html"}}
    assert tools["refresh"]["_meta"] == {
        "ui": {"resourceUri": "ui://charts/bar.html", "visibility": ["app"]}
    }
    # "UI Resource Format": ui:// URIs, the extension's MIME type, _meta.ui.
    assert resources == [
        {
            "uri": "ui://charts/bar.html",
            "name": "bar_chart",
            "description": "A bar chart",
            "mimeType": MIME_TYPE,
            "_meta": {
                "ui": {
                    "csp": {
                        "connectDomains": ["https://api.example.com"],
                        "resourceDomains": ["https://cdn.example.com"],
                    },
                    "permissions": {"clipboardWrite": {}},
                    "prefersBorder": True,
                }
            },
        },
        {"uri": "ui://charts/live.html", "name": "ui://charts/live.html", "mimeType": MIME_TYPE},
    ]


async def test_views_read(flavour: tuple[str, str], era: str) -> None:
    async with (
        serving(flavour, apps_server()) as (port, target),
        RawClient(port, target) as raw,
    ):
        peer = Peer(raw, era, HOST)
        await peer.open()
        bar = await peer.request(
            "resources/read", {"uri": "ui://charts/bar.html"}, "ui://charts/bar.html"
        )
        live = await peer.request(
            "resources/read", {"uri": "ui://charts/live.html"}, "ui://charts/live.html"
        )
    # "Content Requirements": the MIME type, the HTML as text, _meta.ui on the contents.
    (contents,) = bar["contents"]
    assert contents["uri"] == "ui://charts/bar.html"
    assert contents["mimeType"] == MIME_TYPE
    assert contents["text"] == CHART
    assert contents["_meta"]["ui"]["csp"]["connectDomains"] == ["https://api.example.com"]
    assert live["contents"] == [
        {
            "uri": "ui://charts/live.html",
            "mimeType": MIME_TYPE,
            "text": "<!doctype html><p>host</p>",
        }
    ]


@pytest.mark.parametrize("declared", [True, False], ids=["host", "text-only"])
async def test_tool_knows_its_client(flavour: tuple[str, str], era: str, declared: bool) -> None:
    async with (
        serving(flavour, apps_server()) as (port, target),
        RawClient(port, target) as raw,
    ):
        peer = Peer(raw, era, HOST if declared else {})
        await peer.open()
        call = {"name": "sales", "arguments": {"region": "north"}}
        result = await peer.request("tools/call", call, "sales")
    # "Server Behavior": meaningful content either way; the tool may tell.
    text = result["content"][0]["text"]
    assert text == ("chart of north drawn in the view" if declared else "north: 10, 20, 30")
    assert json.dumps(result)  # plain JSON
