"""Tasks by status (``mcp_core.tasks``), read as the metrics are collected: tasks
run by a client to each status over the in-memory pipe (JSON bytes), both eras,
asyncio and trio: working while it runs, input_required while it waits for the
client's answer, then completed, failed and cancelled, each counted once."""

from __future__ import annotations

import gc
from typing import Any

import anyio
import pytest
from otel_helpers import Recorded, recorded
from runtime_helpers import BOTH_ERAS, connected, only_text

from mcp_core import Context, McpError, Server
from mcp_core.types import ElicitResult
from mcp_core.wire import INTERNAL_ERROR

pytestmark = pytest.mark.anyio

NAME = {"type": "object", "properties": {"name": {"type": "string"}}}


def by_status(record: Recorded, before: dict[str, int] | None = None) -> dict[str, int]:
    """The counts now, less ``before`` (the metric sums every live server of
    the process, earlier tests' included until they are collected)."""
    points = record.metrics()["mcp_core.tasks"]
    base = before or {}
    return {p.attributes["status"]: p.value - base.get(p.attributes["status"], 0) for p in points}


def make_server() -> Server:
    server = Server("tasks", "1", task_poll_interval_ms=10)

    @server.tool(task=True)
    async def quick() -> str:
        """Answers."""
        return "done"

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


@BOTH_ERAS
async def test_tasks_counted_by_status(era: str) -> None:
    seen: list[dict[str, int]] = []
    with recorded() as record:

        def elicitation(params: Any) -> ElicitResult:
            seen.append(by_status(record, before))  # the task waits for this answer
            return ElicitResult(action="accept", content={"name": "Ada"})

        gc.collect()  # servers of earlier tests gone, not going while this one runs
        before = by_status(record)
        assert set(before) == {"working", "input_required", "completed", "failed", "cancelled"}
        async with connected(make_server(), era, elicitation=elicitation) as client:
            assert only_text(await (await client.call_tool("quick", task=True)).result()) == "done"
            with pytest.raises(McpError):
                await (await client.call_tool("broken", task=True)).result()
            assert only_text(await (await client.call_tool("hello", task=True)).result()) == (
                "Hello, Ada!"
            )
            running = await client.call_tool("forever", task=True)  # working once made
            assert by_status(record, before)["working"] == 1
            await running.cancel()
            counts = by_status(record, before)
    assert seen and seen[0]["input_required"] == 1
    assert counts == {
        "working": 0,
        "input_required": 0,
        "completed": 2,
        "failed": 1,
        "cancelled": 1,
    }
