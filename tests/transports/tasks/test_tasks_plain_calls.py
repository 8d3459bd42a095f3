"""A plain 2026-07-28 ``client.call_tool`` (no ``task=True``) does not become a
task to poll: the client declares the tasks extension only on calls that ask for
a task (tasks extension "Capability Negotiation"), so a tool with optional task
support answers inline; a task-only tool refuses the plain call with -32021 and
the client sends it again declaring the extension and follows the task. In
memory and over HTTP, asyncio and trio; the server counts the requests it got."""

from __future__ import annotations

from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest
from net_helpers import serving
from runtime_helpers import ERAS, LIMIT, connected, only_text

from mcp_core import Context, Server
from mcp_core.session.events import RequestReceived
from mcp_core.types import CallToolResult
from transports import Client, connect_http

pytestmark = pytest.mark.anyio


def make_server() -> tuple[Server, Counter[str]]:
    """A server with an optional-task and a task-only tool, and the count of the
    requests it got by method."""
    server = Server("plain", "1", task_poll_interval_ms=10)
    seen: Counter[str] = Counter()

    @server.use
    async def count(
        event: RequestReceived, ctx: Context, call_next: Callable[[], Awaitable[Any]]
    ) -> Any:
        seen[event.method] += 1
        return await call_next()

    @server.tool(task=True)
    async def quick() -> str:
        """Answers at once."""
        return "quick"

    @server.tool(task="required")
    async def queued() -> str:
        """Runs only as a task."""
        await anyio.sleep(0.01)
        return "queued"

    return server, seen


@asynccontextmanager
async def client_of(server: Server, transport: str) -> AsyncIterator[Client]:
    if transport == "memory":
        async with connected(server, "modern") as client:
            yield client
        return
    with anyio.fail_after(LIMIT * 2):
        async with serving(server) as (_, url), connect_http(url, revisions=ERAS["modern"]) as c:
            yield c


TRANSPORTS = pytest.mark.parametrize("transport", ["memory", "http"])


@TRANSPORTS
async def test_a_plain_call_to_an_optional_task_tool_answers_inline(transport: str) -> None:
    server, seen = make_server()
    async with client_of(server, transport) as client:
        with anyio.fail_after(LIMIT):
            result = await client.call_tool("quick")
        assert type(result) is CallToolResult and only_text(result) == "quick"
        assert seen["tools/call"] == 1
        assert seen["tasks/get"] == 0


@TRANSPORTS
async def test_a_plain_call_to_a_task_only_tool_returns_the_final_result(transport: str) -> None:
    server, seen = make_server()
    async with client_of(server, transport) as client:
        with anyio.fail_after(LIMIT):
            result = await client.call_tool("queued")
        assert only_text(result) == "queued"
        # The refused plain call, then the one declaring the extension; then polls.
        assert seen["tools/call"] == 2
        assert seen["tasks/get"] >= 1


@TRANSPORTS
async def test_asking_for_a_task_still_gets_a_handle(transport: str) -> None:
    server, seen = make_server()
    async with client_of(server, transport) as client:
        with anyio.fail_after(LIMIT):
            handle = await client.call_tool("queued", task=True)
            assert handle.task_id is not None
            assert only_text(await handle.result()) == "queued"
            quick = await client.call_tool("quick", task=True)
            assert quick.task_id is not None
            assert only_text(await quick.result()) == "quick"
        assert seen["tools/call"] == 2
