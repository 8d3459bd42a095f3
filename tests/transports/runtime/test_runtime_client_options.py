"""Client options from the wire: ``log_level`` (2025-11-25 logging/setLevel after the
handshake; 2026-07-28 ``io.modelcontextprotocol/logLevel`` in every request's
``_meta``), ``set_roots`` (``notifications/roots/list_changed``), and the check of
``structuredContent`` against a listed tool's ``outputSchema``."""

from __future__ import annotations

from typing import Any

import anyio
import msgspec
import pytest
from runtime_helpers import BOTH_ERAS, ERAS, LIMIT, Inbox, Tap, only_text

from mcp_core import Context, Server
from mcp_core.client import ToolOutputError
from mcp_core.types import CallToolResult, Root, TextContent
from transports import Client

pytestmark = [pytest.mark.anyio, BOTH_ERAS]

COUNT = {
    "type": "object",
    "properties": {"n": {"type": "integer", "minimum": 0}},
    "required": ["n"],
}


def options_server() -> Server:
    server = Server("options", "1.0")

    @server.tool
    async def chatty(ctx: Context) -> str:
        await ctx.debug("too fine")
        await ctx.info("worth knowing")
        await ctx.error("bad")
        return "logged"

    @server.tool
    async def where(ctx: Context) -> list[str]:
        return [root.uri for root in (await ctx.list_roots()).roots]

    @server.tool(output_schema=COUNT)
    def good() -> dict[str, Any]:
        return {"n": 3}

    @server.tool(output_schema=COUNT)
    def bad() -> dict[str, Any]:
        return {"n": "three"}

    @server.tool(output_schema=COUNT)
    def nothing() -> CallToolResult:
        return CallToolResult(content=[TextContent(text="no structure")])

    @server.tool(output_schema=COUNT)
    def broken() -> dict[str, Any]:
        raise ValueError("it broke")

    return server


async def test_log_level(era: str) -> None:
    tap = Tap(options_server(), revisions=ERAS[era])
    logs = Inbox()
    with anyio.fail_after(LIMIT):
        async with Client(tap, revisions=ERAS[era], log_level="info", on_log=logs) as client:
            assert only_text(await client.call_tool("chatty")) == "logged"
            info, error = await logs.wait_for(2)
    assert [(info.level, info.data), (error.level, error.data)] == [
        ("info", "worth knowing"),
        ("error", "bad"),
    ]
    set_level = tap.requests("logging/setLevel")
    (call,) = tap.requests("tools/call")
    meta = msgspec.to_builtins(call.params).get("_meta", {})
    if era == "legacy":
        (request,) = set_level
        assert msgspec.to_builtins(request.params) == {"level": "info"}
    else:
        assert set_level == []
        assert meta["io.modelcontextprotocol/logLevel"] == "info"


async def test_without_log_level_nothing_is_set(era: str) -> None:
    tap = Tap(options_server(), revisions=ERAS[era])
    with anyio.fail_after(LIMIT):
        async with Client(tap, revisions=ERAS[era]) as client:
            await client.call_tool("chatty")
    assert tap.requests("logging/setLevel") == []


async def test_set_roots(era: str) -> None:
    tap = Tap(options_server(), revisions=ERAS[era])
    with anyio.fail_after(LIMIT):
        async with Client(tap, revisions=ERAS[era], roots=[Root(uri="file:///a")]) as client:
            where = await client.call_tool("where")
            assert where.structured_content == {"result": ["file:///a"]}
            await client.set_roots([Root(uri="file:///b"), {"uri": "file:///c"}])
            where = await client.call_tool("where")
            assert where.structured_content == {"result": ["file:///b", "file:///c"]}
    changed = tap.notifications("notifications/roots/list_changed")
    # 2026-07-28 has no such notification: roots are asked within each request.
    assert len(changed) == (1 if era == "legacy" else 0)


async def test_set_roots_needs_the_roots_capability(era: str) -> None:
    tap = Tap(options_server(), revisions=ERAS[era])
    with anyio.fail_after(LIMIT):
        async with Client(tap, revisions=ERAS[era]) as client:
            with pytest.raises(RuntimeError, match="roots"):
                await client.set_roots([Root(uri="file:///a")])
    assert tap.notifications("notifications/roots/list_changed") == []


async def test_structured_content_is_checked_against_the_output_schema(era: str) -> None:
    tap = Tap(options_server(), revisions=ERAS[era])
    with anyio.fail_after(LIMIT):
        async with Client(tap, revisions=ERAS[era]) as client:
            # Not listed yet: nothing to check against, and no tools/list is sent
            # just to check (clients must not prefetch).
            unchecked = await client.call_tool("bad")
            assert unchecked.structured_content == {"n": "three"}
            assert tap.requests("tools/list") == []

            await client.list_tools()
            assert (await client.call_tool("good")).structured_content == {"n": 3}
            with pytest.raises(ToolOutputError) as invalid:
                await client.call_tool("bad")
            assert invalid.value.tool == "bad"
            assert invalid.value.errors == ["$.n: expected integer, got string"]
            assert invalid.value.result.structured_content == {"n": "three"}
            with pytest.raises(ToolOutputError, match="no structuredContent"):
                await client.call_tool("nothing")
            # An error result carries the error, not the output: unchecked.
            assert (await client.call_tool("broken")).is_error is True
