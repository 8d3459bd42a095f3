"""MCP Apps, the host's side, with our `Client` (asyncio and trio, both eras, over
in-memory bytes and over HTTP): it declares the extension when asked, finds a
tool's view, reads it with its sandbox, keeps app-only tools off the model's list,
and the server's tools see the declaration."""

from __future__ import annotations

import msgspec
import pytest
from apps_helpers import CHART, LEGACY, apps_server
from http_helpers import running

from mcp_core.apps import (
    EXTENSION_ID,
    MIME_TYPE,
    View,
    ViewError,
    for_app,
    for_model,
    view_uri,
)
from mcp_core.types import LATEST_REVISION
from transports import connect_in_memory
from transports.client import Client
from transports.http.client import http_connector

pytestmark = pytest.mark.anyio


@pytest.fixture(params=[LEGACY, LATEST_REVISION])
def revision(request: pytest.FixtureRequest) -> str:
    value: str = request.param
    return value


async def test_host_finds_and_reads_views(revision: str) -> None:
    async with connect_in_memory(apps_server(), apps=True, revisions=(revision,)) as client:
        assert client.revision == revision
        tools = (await client.list_tools()).tools
        by_name = {tool.name: tool for tool in tools}
        assert view_uri(by_name["sales"]) == "ui://charts/bar.html"
        # "Visibility": app-only tools stay off the agent's list, views may call them.
        assert [tool.name for tool in for_model(tools)] == ["sales"]
        assert for_app(by_name["refresh"]) and for_app(by_name["sales"])
        view = await client.read_view(by_name["sales"])
        live = await client.read_view("ui://charts/live.html")
        result = await client.call_tool("sales", {"region": "west"})
    assert isinstance(view, View) and view.html == CHART
    assert view.ui.prefers_border is True
    assert view.content_security_policy() == (
        "default-src 'none'; "
        "script-src 'self' 'unsafe-inline' https://cdn.example.com; "
        "style-src 'self' 'unsafe-inline' https://cdn.example.com; "
        "connect-src 'self' https://api.example.com; "
        "img-src 'self' data: https://cdn.example.com; "
        "font-src 'self' https://cdn.example.com; "
        "media-src 'self' data: https://cdn.example.com; "
        "frame-src 'none'; object-src 'none'; base-uri 'self'"
    )
    assert view.allow() == "clipboard-write"
    assert live.html == "<!doctype html><p>mcp-core</p>"
    assert result.content[0].text == "chart of west drawn in the view"  # type: ignore[union-attr]


async def test_client_without_apps(revision: str) -> None:
    server = apps_server()

    @server.resource("ui://charts/none.html")
    def not_a_view() -> str:
        return "plain text"

    async with connect_in_memory(server, revisions=(revision,)) as client:
        result = await client.call_tool("sales", {"region": "west"})
        plain = msgspec.structs.replace((await client.list_tools()).tools[0], meta=msgspec.UNSET)
        with pytest.raises(ViewError, match="has no view"):
            await client.read_view(plain)
        with pytest.raises(ViewError, match="served as 'text/plain'"):
            await client.read_view("ui://charts/none.html")
    # "Server Behavior": a text-only client gets meaningful content.
    assert "extensions" not in msgspec.to_builtins(client.session.config.capabilities)
    assert result.content[0].text == "west: 10, 20, 30"  # type: ignore[union-attr]


async def test_declared_on_the_wire(revision: str) -> None:
    client = Client("http://127.0.0.1:1/mcp", apps=True, revisions=(revision,))
    declared = msgspec.to_builtins(client.session.config.capabilities)
    assert declared == {"extensions": {EXTENSION_ID: {"mimeTypes": [MIME_TYPE]}}}


async def test_over_http(revision: str) -> None:
    async with running(apps_server()) as port:
        url = f"http://127.0.0.1:{port}/mcp"
        async with Client(http_connector(url), apps=True, revisions=(revision,)) as client:
            tools = (await client.list_tools()).tools
            view = await client.read_view(next(t for t in tools if t.name == "sales"))
            result = await client.call_tool("sales", {"region": "east"})
    assert view.uri == "ui://charts/bar.html" and view.html == CHART
    assert result.content[0].text == "chart of east drawn in the view"  # type: ignore[union-attr]
