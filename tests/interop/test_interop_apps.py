"""MCP Apps interop (tests/spec/extensions/apps-2026-01-26.md) with the official MCP
Python SDK 2.3 (``mcp.server.apps``) and FastMCP 4.2 (``fastmcp.apps``), both eras:

* the SDK's client and FastMCP's, declaring the extension (``advertise``), against
  our Apps server on our h11 server: it finds the tool's ``_meta.ui``, reads the view with its MIME
  type and ``_meta.ui``, and our tool sees the declaration;
* our `Client(apps=True)` against a server built with the SDK's ``Apps`` helper and
  against one built with FastMCP's ``AppConfig``, served by their own HTTP apps under
  uvicorn: we find each tool's view and read it (`Client.read_view`), and their
  ``client_supports_apps`` / ``client_supports_extension`` see our declaration.

uvicorn and the SDK's clients run on asyncio, so these tests do too.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, Final

import anyio
import pytest
from apps_helpers import CHART, apps_server
from asgi_helpers import uvicorn_serving
from http_helpers import running
from limits import HANG
from runtime_helpers import ERAS

from mcp_core.apps import EXTENSION_ID, MIME_TYPE, for_model, view_uri
from transports import connect_http

pytestmark = pytest.mark.anyio

sdk_apps = pytest.importorskip("mcp.server.apps")
fastmcp = pytest.importorskip("fastmcp")

from fastmcp import Client as FastClient  # noqa: E402
from fastmcp import Context as FastContext  # noqa: E402
from fastmcp import FastMCP  # noqa: E402
from fastmcp.apps import AppConfig, ResourceCSP  # noqa: E402
from mcp import Client as SdkClient  # noqa: E402
from mcp.client.extension import advertise  # noqa: E402
from mcp.server.mcpserver import Context as SdkContext  # noqa: E402
from mcp.server.mcpserver import MCPServer  # noqa: E402

LIMIT: Final = HANG
VIEW: Final = "<!doctype html><html><body><p id=clock></p></body></html>"


@pytest.fixture
def anyio_backend() -> str:
    """uvicorn and the SDK's client run on asyncio."""
    return "asyncio"


@pytest.mark.parametrize("kind", ["sdk", "fastmcp"])
@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_their_client_with_our_apps_server(kind: str, mode: str) -> None:
    host = advertise(EXTENSION_ID, {"mimeTypes": [MIME_TYPE]})
    client_type: Any = SdkClient if kind == "sdk" else FastClient
    with anyio.fail_after(LIMIT):
        async with (
            running(apps_server()) as port,
            client_type(f"http://127.0.0.1:{port}/mcp", mode=mode, extensions=[host]) as client,
        ):
            revision = client.protocol_version
            listed = await client.list_tools()  # FastMCP's answers lists
            tools = {tool.name: tool for tool in getattr(listed, "tools", listed)}
            read = await client.read_resource("ui://charts/bar.html")
            called = await client.call_tool("sales", {"region": "south"})
    assert revision == ("2025-11-25" if mode == "legacy" else mode)
    assert tools["sales"].meta == {"ui": {"resourceUri": "ui://charts/bar.html"}}
    assert tools["refresh"].meta == {
        "ui": {"resourceUri": "ui://charts/bar.html", "visibility": ["app"]}
    }
    (contents,) = getattr(read, "contents", read)
    assert contents.mime_type == MIME_TYPE and contents.text == CHART  # type: ignore[union-attr]
    assert contents.meta is not None and contents.meta["ui"]["prefersBorder"] is True
    assert called.content[0].text == "chart of south drawn in the view"  # type: ignore[union-attr]


def sdk_apps_server() -> Any:
    """An ``MCPServer`` with the SDK's Apps helper: a tool bound to a view, whose
    text says whether the client declared Apps."""
    apps = sdk_apps.Apps()

    @apps.tool(resource_uri="ui://clock/view.html", description="The time")
    def clock(ctx: SdkContext) -> str:
        return "view" if sdk_apps.client_supports_apps(ctx) else "12:00"

    @apps.tool(resource_uri="ui://clock/view.html", visibility=["app"])
    def tick() -> str:
        return "tick"

    apps.add_html_resource(
        "ui://clock/view.html",
        VIEW,
        csp=sdk_apps.ResourceCsp(connect_domains=["https://time.example"]),
        prefers_border=False,
    )
    return MCPServer("sdk-clock", extensions=[apps])


def fastmcp_apps_server() -> Any:
    """A FastMCP server with a view and a tool bound to it through AppConfig."""
    server = FastMCP("fastmcp-clock")

    @server.resource(
        "ui://clock/view.html",
        app=AppConfig(csp=ResourceCSP(connect_domains=["https://time.example"])),
    )
    def view() -> str:
        return VIEW

    @server.tool(app=AppConfig(resource_uri="ui://clock/view.html"))
    def clock(ctx: FastContext) -> str:
        return "view" if ctx.client_supports_extension(EXTENSION_ID) else "12:00"

    @server.tool(app=AppConfig(resource_uri="ui://clock/view.html", visibility=["app"]))
    def tick() -> str:
        return "tick"

    return server


@asynccontextmanager
async def their_app(kind: str) -> AsyncIterator[str]:
    if kind == "sdk":
        app = sdk_apps_server().streamable_http_app()
    else:
        app = fastmcp_apps_server().http_app(path="/mcp")
    async with uvicorn_serving(app) as port:
        yield f"http://127.0.0.1:{port}/mcp"


@pytest.mark.parametrize("kind", ["sdk", "fastmcp"])
@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_our_host_with_their_apps_server(kind: str, era: str) -> None:
    with anyio.fail_after(LIMIT):
        async with (
            their_app(kind) as url,
            connect_http(url, revisions=ERAS[era], apps=True) as client,
        ):
            tools = (await client.list_tools()).tools
            clock = next(tool for tool in tools if tool.name == "clock")
            view = await client.read_view(clock)
            called = await client.call_tool("clock", {})
            revision = client.revision
    assert revision == ERAS[era][-1]
    assert view_uri(clock) == "ui://clock/view.html"
    assert [tool.name for tool in for_model(tools)] == ["clock"]
    assert view.html == VIEW
    assert view.ui.csp is not None and "https://time.example" in view.content_security_policy()
    assert called.content[0].text == "view"  # type: ignore[union-attr]
