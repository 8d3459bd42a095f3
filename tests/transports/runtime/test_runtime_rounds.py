"""2026-07-28 runs a handler that asks for input again from the top when the answer
comes back; `ctx.once` keeps work across the rounds and `ctx.round` counts them. Up
to 2025-11-25 the handler waits for the answer and runs once."""

from __future__ import annotations

import pytest
from runtime_helpers import BOTH_ERAS, connected, only_text

from mcp_core import Context, Server
from mcp_core.types.client import ElicitRequestParams, ElicitResult

pytestmark = pytest.mark.anyio

SCHEMA = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}


def make_server(counts: dict[str, int]) -> Server:
    server = Server("rounds", "1")

    async def create_order() -> dict[str, object]:
        counts["created"] += 1
        return {"id": "order-7", "items": 2}

    @server.tool
    async def order(ctx: Context) -> str:
        counts["ran"] += 1  # not kept: runs on every round
        made = await ctx.once("order", create_order)
        answer = await ctx.elicit("Place the order?", SCHEMA)
        return f"{made['id']} {answer.action} round={ctx.round}"

    return server


def accept(params: ElicitRequestParams) -> ElicitResult:
    return ElicitResult(action="accept", content={"ok": True})


@BOTH_ERAS
async def test_once_runs_once_however_many_rounds(anyio_backend: str, era: str) -> None:
    counts = {"ran": 0, "created": 0}
    async with connected(make_server(counts), era, elicitation=accept) as client:
        result = await client.call_tool("order", {})
    if era == "modern":
        assert only_text(result) == "order-7 accept round=1"
        assert counts == {"ran": 2, "created": 1}
    else:
        assert only_text(result) == "order-7 accept round=0"
        assert counts == {"ran": 1, "created": 1}
