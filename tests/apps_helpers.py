"""MCP Apps for the tests: a server with two views and two tools linked to them
(one for the model and the view, one for the view only)."""

from __future__ import annotations

from typing import Final

from mcp_core import Context, Server
from mcp_core.apps import EXTENSION_ID, MIME_TYPE, Apps, Csp, Permissions, client_supports_apps

LEGACY: Final = "2025-11-25"
HOST: Final = {EXTENSION_ID: {"mimeTypes": [MIME_TYPE]}}
CHART: Final = "<!doctype html><html><body><canvas id=c></canvas></body></html>"


def apps_server() -> Server:
    server = Server("charts", "1.0")
    apps = Apps(server)
    apps.view(
        "ui://charts/bar.html",
        CHART,
        name="bar_chart",
        description="A bar chart",
        csp=Csp(
            connect_domains=["https://api.example.com"],
            resource_domains=["https://cdn.example.com"],
        ),
        permissions=Permissions(clipboard_write={}),
        prefers_border=True,
    )

    @apps.view("ui://charts/live.html")
    def live(ctx: Context) -> str:
        return f"<!doctype html><p>{ctx.client.info.name if ctx.client.info else '?'}</p>"

    @apps.tool(view="ui://charts/bar.html", description="Sales as a bar chart")
    def sales(region: str, ctx: Context) -> str:
        if client_supports_apps(ctx):
            return f"chart of {region} drawn in the view"
        return f"{region}: 10, 20, 30"

    @apps.tool(view="ui://charts/bar.html", visibility=["app"])
    def refresh() -> str:
        return "refreshed"

    return server
