"""tools/list through a runtime, in both eras, as JSON and as objects: the pages
the server keeps (and sends pre-encoded over JSON) read like any others, and a
change to the tools shows in the next list."""

from __future__ import annotations

import pytest
from runtime_helpers import connected

from mcp_core import Server

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("era", ["legacy", "modern"])
@pytest.mark.parametrize("objects", [False, True])
async def test_kept_pages_list_like_any_other(era: str, objects: bool) -> None:
    server = Server("pages", "1", page_size=2)
    for name in ("a", "b", "c"):
        server.add_tool(lambda: "x", name=name, description=f"Tool {name}.")
    async with connected(server, era, objects=objects) as client:
        for _ in range(2):
            first = await client.list_tools()
            assert [tool.name for tool in first.tools] == ["a", "b"]
            assert first.tools[0].description == "Tool a."
            assert [tool.name async for tool in client.iter_tools()] == ["a", "b", "c"]
        server.add_tool(lambda: "x", name="d")
        assert [tool.name async for tool in client.iter_tools()] == ["a", "b", "c", "d"]
