"""The server of the many-process recipe (docs/tutorial/workers.md).

Any worker may serve any request: each answer says which process served it.
"""

from __future__ import annotations

import os

import anyio

from mcp_core import Context, Server

server = Server("shared-example", "1.0")

NAME = {"type": "object", "properties": {"name": {"type": "string"}}}

#: Labels of the last calls and tasks cancelled in this worker (a cancellation
#: POSTed to any worker reaches the one running the call), 100 at most.
STOPPED: list[str] = []


def stop(label: str) -> None:
    STOPPED.append(label)
    del STOPPED[:-100]


@server.tool
async def worker() -> str:
    """The process id of the worker that served this call."""
    return str(os.getpid())


@server.tool
async def pause(seconds: float, ctx: Context, label: str = "") -> str:
    """Wait, then say which worker waited (also in a progress notice first, when
    the client sent a progress token)."""
    await ctx.report_progress(0, message=str(os.getpid()))
    try:
        await anyio.sleep(seconds)
    except anyio.get_cancelled_exc_class():
        stop(label)
        raise
    return str(os.getpid())


@server.tool
async def stopped() -> str:
    """The labels of the calls and tasks cancelled in this worker, one a line."""
    return "\n".join(STOPPED)


@server.tool
async def greet(ctx: Context) -> str:
    """Ask the user's name (a 2026-07-28 retry may land on another worker)."""
    answer = await ctx.elicit(f"Your name? (asked by {os.getpid()})", NAME)
    return f"Hello, {(answer.content or {}).get('name')} (from {os.getpid()})"


@server.tool(task=True)
async def build(target: str, ctx: Context) -> str:
    """A task: any worker can report or cancel it."""
    await ctx.report_status(f"building {target} on {os.getpid()}")
    if target.startswith("forever"):
        try:
            await anyio.sleep_forever()
        except anyio.get_cancelled_exc_class():
            stop(target)
            raise
    return f"built {target}"


@server.tool
async def haiku(topic: str, ctx: Context) -> str:
    """Ask the client's model (sampling): in a 2025-11-25 session its answer may
    be POSTed to another worker, which routes it here."""
    said = await ctx.sample(f"A haiku about {topic} (asked by {os.getpid()})", 50)
    text = getattr(said.content, "text", "")
    return f"{text} (from {os.getpid()})"


@server.tool
async def offer(name: str) -> str:
    """Offer one more tool here: the clients of every worker hear that the tool
    list changed (notifications/tools/list_changed, relayed between workers)."""

    async def offered() -> str:
        return f"{name} from {os.getpid()}"

    server.add_tool(offered, name=name, description=f"offered by {os.getpid()}")
    return name
