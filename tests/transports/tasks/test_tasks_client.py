"""The client's tasks in memory, both eras, asyncio and trio: a handle
(result, status, cancel), transparent following of a task the server made, input
requests answered by the client's callbacks, and errors."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from runtime_helpers import BOTH_ERAS, LIMIT, connected, only_text

from mcp_core import Context, McpError, Server
from mcp_core.types import ElicitResult
from mcp_core.wire import INTERNAL_ERROR

pytestmark = pytest.mark.anyio

NAME = {"type": "object", "properties": {"name": {"type": "string"}}}


def make_server() -> Server:
    server = Server("tasks", "1", task_poll_interval_ms=10)

    @server.tool(task=True)
    async def slow(seconds: float = 0.05) -> str:
        """Sleeps, then answers."""
        await anyio.sleep(seconds)
        return f"slept {seconds}"

    @server.tool(task=True)
    async def forever() -> str:
        """Never ends by itself."""
        await anyio.sleep_forever()
        return "never"

    @server.tool(task=True)
    async def broken() -> str:
        """A JSON-RPC error."""
        raise McpError(INTERNAL_ERROR, "broken on purpose")

    @server.tool(task=True)
    async def hello(ctx: Context) -> str:
        """Asks a name."""
        answer = await ctx.elicit("Who?", NAME)
        return f"Hello, {(answer.content or {}).get('name')}!"

    return server


def elicitation(params: Any) -> ElicitResult:
    return ElicitResult(action="accept", content={"name": "Ada"})


@BOTH_ERAS
async def test_a_handle_to_the_result(era: str) -> None:
    async with connected(make_server(), era) as client:
        handle = await client.call_tool("slow", {"seconds": 0.05}, task=True)
        assert handle.task_id is not None and handle.status == "working"
        assert only_text(await handle.result()) == "slept 0.05"
        assert handle.status == "completed"


@BOTH_ERAS
async def test_input_goes_through_the_clients_callbacks(era: str) -> None:
    async with connected(make_server(), era, elicitation=elicitation) as client:
        handle = await client.call_tool("hello", task=True)
        assert only_text(await handle.result()) == "Hello, Ada!"


@BOTH_ERAS
async def test_cancel(era: str) -> None:
    async with connected(make_server(), era) as client:
        handle = await client.call_tool("forever", task=True)
        await handle.cancel()
        assert handle.status == "cancelled"
        with pytest.raises(McpError):
            await handle.result()


@BOTH_ERAS
async def test_a_failed_task_raises_its_error(era: str) -> None:
    async with connected(make_server(), era) as client:
        handle = await client.call_tool("broken", task=True)
        with pytest.raises(McpError) as raised:
            await handle.result()
        assert raised.value.code == INTERNAL_ERROR
        assert "broken on purpose" in raised.value.message


async def test_a_plain_modern_call_returns_the_final_result() -> None:
    # 2026-07-28: a plain call does not declare the tasks extension, so the tool
    # answers inline (test_tasks_plain_calls.py counts the requests).
    async with connected(make_server(), "modern") as client:
        with anyio.fail_after(LIMIT):
            result = await client.call_tool("slow", {"seconds": 0.05})
        assert only_text(result) == "slept 0.05"


async def test_a_legacy_call_without_task_runs_in_the_request() -> None:
    async with connected(make_server(), "legacy") as client:
        result = await client.call_tool("slow", {"seconds": 0})
        assert only_text(result) == "slept 0.0"
        handle = await client.call_tool("slow", {"seconds": 0}, task=True, ttl_ms=1_000)
        assert handle.state.task_id is not None
        await handle.result()
