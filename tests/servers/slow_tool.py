"""A server with one slow tool, for the shutdown tests: ``mcp-core serve
tests/servers/slow_tool.py:server --transport http``."""

from __future__ import annotations

import anyio

from mcp_core import Context, Server

server = Server("slow-tool", "1.0")


@server.tool
async def work(seconds: float, ctx: Context) -> str:
    """Report that it started, take ``seconds``, then answer."""
    await ctx.report_progress(0, 1)
    await anyio.sleep(seconds)
    return "finished"
