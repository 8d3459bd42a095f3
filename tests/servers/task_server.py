"""A server with one task tool, for ``mcp-core call ... --task`` (stdio):

python tests/servers/task_server.py
"""

from __future__ import annotations

import anyio

from mcp_core import Context, Server
from transports import run_stdio

server = Server("task-server", "1", task_poll_interval_ms=20)


@server.tool(task=True)
async def count(to: int, ctx: Context) -> str:
    """Counts to ``to``, a status message at each step."""
    for n in range(1, to + 1):
        await ctx.report_status(f"{n} of {to}")
        await anyio.sleep(0.1)
    return f"counted to {to}"


if __name__ == "__main__":
    run_stdio(server)
