"""The tools the tasks-* scenarios of conformance 0.2.0-alpha.12 call (SEP-2663).

Each scenario's description lists them: ``greet`` (never a task), ``slow_compute``,
``failing_job`` (a tool error; task support ``required``), ``protocol_error_job``
(a JSON-RPC error), ``confirm_delete`` (one question), ``multi_input`` (two
questions outstanding at once) and ``test_tool_with_task`` (a question by multi
round-trip, then a task; task support ``required``).
"""

from __future__ import annotations

from typing import Any

import anyio

from mcp_core import Context, McpError, Server
from mcp_core.wire import INTERNAL_ERROR

_CONFIRM: dict[str, Any] = {
    "type": "object",
    "properties": {"confirm": {"type": "boolean", "description": "Go ahead?"}},
    "required": ["confirm"],
}
_NAME: dict[str, Any] = {
    "type": "object",
    "properties": {"name": {"type": "string", "description": "Your name"}},
    "required": ["name"],
}


def add_task_fixtures(server: Server) -> None:
    """Register the fixtures on ``server``."""

    @server.tool
    async def greet(name: str) -> str:
        """Says hello; always answered at once."""
        return f"Hello, {name}!"

    @server.tool(task=True)
    async def slow_compute(seconds: float = 1.0, label: str = "") -> str:
        """Sleeps ``seconds`` seconds, then answers (a task when it can be)."""
        await anyio.sleep(seconds)
        return f"computed {label} after {seconds} seconds"

    @server.tool(task="required")
    async def failing_job() -> str:
        """Fails as a tool after half a second (only as a task)."""
        await anyio.sleep(0.5)
        raise RuntimeError("the job failed, as it always does")

    @server.tool(task=True)
    async def protocol_error_job() -> str:
        """Fails with a JSON-RPC error (the task ends failed)."""
        await anyio.sleep(0.1)
        raise McpError(INTERNAL_ERROR, "the job broke at the protocol level")

    @server.tool(task=True)
    async def confirm_delete(filename: str, ctx: Context) -> str:
        """Asks for confirmation, then pretends to delete ``filename``."""
        answer = await ctx.elicit(f"Delete {filename}?", _CONFIRM)
        confirmed = answer.action == "accept" and bool((answer.content or {}).get("confirm"))
        return f"{filename} {'deleted' if confirmed else 'kept'}"

    @server.tool(task=True)
    async def multi_input(ctx: Context) -> str:
        """Asks two questions at once."""
        name, confirm = await ctx.gather(
            ctx.elicit("Your name?", _NAME, key="name"),
            ctx.elicit("Go ahead?", _CONFIRM, key="confirm"),
        )
        return f"name={(name.content or {}).get('name')} confirm={confirm.action}"

    @server.tool(task="required", ask_first=True)
    async def test_tool_with_task(ctx: Context) -> str:
        """Asks for a name in the request, then goes on as a task."""
        answer = await ctx.elicit("What is your name?", _NAME, key="user_name")
        await ctx.detach()
        await anyio.sleep(0.1)
        return f"Hello, {(answer.content or {}).get('name')}!"
