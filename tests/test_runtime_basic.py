"""The runtime end to end over the in-memory pipe: both eras, both modes, both backends."""

from __future__ import annotations

from typing import Any

import pytest

from mcp_core import LEGACY_REVISIONS, Context, Server
from transports import connect

pytestmark = pytest.mark.anyio

ERAS = {"legacy": LEGACY_REVISIONS, "modern": ("2026-07-28",)}


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def make_server() -> Server:
    server = Server("basic", "1.0")

    @server.tool
    def echo(text: str) -> str:
        """Say it back."""
        return text

    @server.tool
    async def greet(ctx: Context) -> str:
        answer = await ctx.elicit(
            "Name?", {"type": "object", "properties": {"name": {"type": "string"}}}
        )
        return f"Hello, {answer.content['name']}"  # type: ignore[index]

    return server


@pytest.mark.parametrize("era", ["legacy", "modern"])
@pytest.mark.parametrize("objects", [False, True])
async def test_call_and_ask_in_both_eras(era: str, objects: bool) -> None:
    def elicit(params: Any) -> dict[str, Any]:
        return {"action": "accept", "content": {"name": "Ada"}}

    async with connect(
        make_server(), objects=objects, revisions=ERAS[era], elicitation=elicit
    ) as client:
        assert client.era == era
        assert client.revision == ERAS[era][-1]
        echoed = await client.call_tool("echo", {"text": "hi"})
        assert echoed.content[0].text == "hi"  # type: ignore[union-attr]
        greeted = await client.call_tool("greet")
        assert greeted.content[0].text == "Hello, Ada"  # type: ignore[union-attr]
        assert [tool.name async for tool in client.iter_tools()] == ["echo", "greet"]
