"""The end-to-end OAuth setting: our MCP server protected by a real authorization
server (authlib, oauth_server.py), and a user who approves in a headless prompt."""

from __future__ import annotations

import io
import re
import urllib.request
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
from net_helpers import LIMIT
from oauth_server import Running, authorization_server

from mcp_core import Server
from mcp_core.http.server import HttpServerConfig
from transports.http.server import HttpServer

__all__ = ["User", "approve", "protected", "tool_server"]


def tool_server() -> Server:
    server = Server("protected", "1.0")

    @server.tool()
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    return server


@asynccontextmanager
async def protected() -> AsyncIterator[tuple[Running, str]]:
    async with authorization_server(lifetime=60) as auth:
        http = HttpServer(tool_server(), HttpServerConfig(), authenticate=auth.check)
        async with anyio.create_task_group() as tg:
            port = await tg.start(http.serve, "127.0.0.1", 0)
            url = f"http://127.0.0.1:{port}{http.endpoint.config.path}"
            auth.resource = url
            try:
                yield auth, url
            finally:
                tg.cancel_scope.cancel()


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None


class User:
    """Reads the URL the headless prompt printed, 'opens' it (the server approves
    at once and redirects), and pastes the URL it was sent back to."""

    def __init__(self) -> None:
        self.screen = io.StringIO()
        self.pasted: list[str] = []

    def paste(self) -> str:
        url = re.findall(r"^  (http\S+)$", self.screen.getvalue(), re.MULTILINE)[-1]
        self.pasted.append(approve(url))
        return self.pasted[-1] + "\n"


def approve(url: str) -> str:
    """'Open' the authorization URL (the server approves at once) and return the
    URL it redirects the user to."""
    opener = urllib.request.build_opener(_NoRedirect)
    try:
        opener.open(url, timeout=LIMIT)
    except urllib.request.HTTPError as redirect:
        location: str = redirect.headers["location"]
        return location
    raise AssertionError("the authorization endpoint did not redirect")
