"""`mcp-core gateway` forwards MCP Apps (``io.modelcontextprotocol/ui``) and any
extension that defines no methods (SEP-2133), both ways: it declares an
upstream's extension to its clients while that upstream is connected, its tools
keep their ``_meta.ui`` (resource URIs are the upstreams' own in the union) and
their views read through it; a client's extensions reach a 2026-07-28 upstream
in each call, a handshake-era upstream is told MCP Apps at ``initialize``.
Clients of both eras, one upstream of each era, asyncio and trio."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import paths
import pytest
from manager_helpers import ENV, LIMIT, MANAGER_SERVER, gateway_client
from runtime_helpers import only_text

from mcp_core.apps import EXTENSION_ID, MIME_TYPE, offers_apps, view_uri
from mcp_core.extensions import server_settings
from transports import Client

pytestmark = pytest.mark.anyio

ERAS = pytest.mark.parametrize("era", ["2026-07-28", "2025-11-25"])
VIEW_SERVER = str(paths.SERVERS / "view_server.py")
UPSTREAMS = {"new": (), "old": ("--revision", "2025-11-25")}
"""The gateway's servers: ``new`` speaks 2026-07-28, ``old`` the handshake era."""
BADGE = "mcp-core.tests/badge"
"""view_server.py's extension with no methods."""
MINE = "example.com/mine"
"""An extension the gateway's client declares, which nobody in the gateway knows."""


def _views() -> dict[str, Any]:
    return {
        name: {"command": "python", "args": [VIEW_SERVER, "--name", name, *args], "env": ENV}
        for name, args in UPSTREAMS.items()
    }


async def _shown(client: Client, upstream: str) -> Any:
    """What ``upstream`` saw the gateway's call of its ``show`` declare."""
    return json.loads(only_text(await client.call_tool(f"{upstream}.show")))


@ERAS
async def test_views_pass_through(tmp_path: Path, anyio_backend: str, era: str) -> None:
    with anyio.fail_after(LIMIT):
        options: dict[str, Any] = {"apps": True, "extensions": {MINE: {"n": 1}}}
        async with gateway_client(tmp_path, anyio_backend, era, _views(), **options) as client:
            # Declared in the handshake and in server/discover alike, with the
            # settings of the first upstream that declares it.
            capabilities = client.server_capabilities
            assert offers_apps(capabilities)
            assert server_settings(capabilities, BADGE) == {"colour": "new"}
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            for upstream in UPSTREAMS:
                tool = tools[f"{upstream}.show"]
                assert view_uri(tool) == f"ui://{upstream}/view.html"
                view = await client.read_view(tool)
                assert view.html == f"<!doctype html><p>{upstream}</p>"
                assert view.ui.prefers_border is True
                [listed] = [
                    each
                    for each in (await client.list_resources()).resources
                    if each.uri == view.uri
                ]
                assert listed.mime_type == MIME_TYPE
                # A 2026-07-28 upstream sees what this client declared, in the
                # call; a handshake-era one what the gateway declared at initialize.
                seen = await _shown(client, upstream)
                assert seen["apps"] is True
                if upstream == "new":
                    assert seen["extensions"] == sorted([EXTENSION_ID, MINE])
                else:
                    assert EXTENSION_ID in seen["extensions"]
                    assert MINE not in seen["extensions"]


@ERAS
async def test_a_client_without_apps(tmp_path: Path, anyio_backend: str, era: str) -> None:
    with anyio.fail_after(LIMIT):
        async with gateway_client(tmp_path, anyio_backend, era, _views()) as client:
            assert offers_apps(client.server_capabilities)
            # The handshake-era upstream's session is every client's: it was
            # told MCP Apps, and answers with content any client can read.
            assert await _shown(client, "new") == {"apps": False, "extensions": []}
            assert (await _shown(client, "old"))["apps"] is True


@ERAS
async def test_nothing_declared_without_an_upstream_that_does(
    tmp_path: Path, anyio_backend: str, era: str
) -> None:
    with anyio.fail_after(LIMIT):
        servers = {"plain": {"command": "python", "args": [MANAGER_SERVER], "env": ENV}}
        async with gateway_client(tmp_path, anyio_backend, era, servers, apps=True) as client:
            capabilities = client.server_capabilities
            assert not offers_apps(capabilities)
            assert server_settings(capabilities, BADGE) is None
            assert only_text(await client.call_tool("plain.whoami")) == "manager-server"
