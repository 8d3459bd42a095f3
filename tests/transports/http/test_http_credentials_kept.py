"""No credential stays in a process-wide table after its message: the header lines
our client writes and the response heads our server writes
(transports/http/head_lines.py), and the request fields the server decodes
(mcp_core/http/decisions.py), are kept for the next message, but not an
Authorization, DPoP, Proxy-Authorization or cookie value, nor a long value; on
asyncio and trio."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import pytest
from http_helpers import LIMIT, Gates, make_server, running
from runtime_helpers import only_text

from mcp_core import Context
from mcp_core.http import decisions
from mcp_core.session.events import RequestReceived
from transports import connect_http
from transports.http import head_lines

pytestmark = pytest.mark.anyio

SECRET = "kept-nowhere-7f3a"


def _kept() -> list[str]:
    tables = (head_lines._lines, head_lines._heads, decisions._FIELDS)
    return [text for table in tables for text in map(str, table.items()) if SECRET in text]


async def test_the_client_keeps_no_credential_after_its_request() -> None:
    server = make_server(Gates())
    seen: list[str] = []

    @server.use
    async def note(
        event: RequestReceived, ctx: Context, call_next: Callable[[], Awaitable[Any]]
    ) -> Any:
        seen.append(event.method)
        return await call_next()

    headers = {
        "Authorization": f"Bearer {SECRET}",
        "DPoP": f"eyJ0eXAiOiJkcG9wK2p3dCJ9.{SECRET}.sig",
        "Cookie": f"sid={SECRET}",
        "Proxy-Authorization": f"Basic {SECRET}",
        "X-Long": "v" * 129,
        "X-Short": "kept",
    }
    with anyio.fail_after(LIMIT):
        async with running(server) as port:
            url = f"http://127.0.0.1:{port}/mcp"
            async with connect_http(url, headers=headers) as client:
                assert only_text(await client.call_tool("echo", {"text": "hi"})) == "hi"
    assert "tools/call" in seen  # the requests went over the wire, with the fields
    assert _kept() == []
    assert ("x-long", "v" * 129) not in head_lines._lines
    assert head_lines._lines[("x-short", "kept")] == b"x-short: kept\r\n"


def test_a_response_head_with_a_credential_is_not_kept() -> None:
    fields = (("set-cookie", f"sid={SECRET}-set"), ("content-length", "0"))
    first = head_lines.response_head(200, fields)
    assert head_lines.response_head(200, fields) == first  # the same head each time
    assert (200, fields) not in head_lines._heads
    assert [line for line in head_lines._lines.values() if b"-set" in line] == []
    plain = (("content-type", "application/json"), ("content-length", "2"))
    assert head_lines.response_head(200, plain) is head_lines.response_head(200, plain)
