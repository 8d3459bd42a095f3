"""A server for the client manager's tests, run in a process of its own (stdio, or
HTTP with ``mcp-core serve --transport http``).

    python manager_server.py [--name NAME] [--tool EXTRA ...] [--revision REV ...]

Tools: ``pid`` (its process id), ``whoami`` (its --name), ``block`` (never
returns: a call in flight to cut), ``count`` (reports progress), ``grow`` (adds a
tool, so the list changes), ``shout`` (logs its text, then asks the client for a
sampling answer, its roots and a form), ``interview`` (asks questions one round after
another; its answer counts the calls that started), ``plan`` (samples with a tool
the model may use), ``sign_in`` (a URL-mode elicitation, completed at once),
``gated`` (needs a URL elicitation first), ``survey`` (samples; may run as a
task), ``report`` (runs only as a task), ``roots`` (waits for that many
``notifications/roots/list_changed``, then lists the client's roots) and an echo
tool for each ``--tool``
(names that collide in a union). The arguments also come from MANAGER_SERVER_ARGS, for
``mcp-core serve``, which takes none.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from typing import Any

import anyio

from mcp_core import Context, Server
from mcp_core.extensions import Extension
from mcp_core.server.context import UrlElicitationRequiredError, url_elicitation

parser = argparse.ArgumentParser()
parser.add_argument("--name", default="manager-server")
parser.add_argument("--tool", action="append", default=[])
parser.add_argument("--revision", action="append", default=[], help="serve only these (stdio)")
options = parser.parse_args(
    shlex.split(os.environ.get("MANAGER_SERVER_ARGS", ""))
    if __name__ != "__main__"
    else sys.argv[1:]
)

server = Server(options.name, "1.0.0", task_poll_interval_ms=20)


@server.tool()
def pid() -> int:
    """This server's process id."""
    return os.getpid()


@server.tool()
def whoami() -> str:
    """This server's name."""
    return options.name


@server.tool()
async def block() -> str:
    """Never answer."""
    await anyio.sleep_forever()
    return "unreachable"


@server.tool()
async def count(n: int, ctx: Context) -> str:
    """Report progress from 1 to ``n``."""
    for step in range(1, n + 1):
        await ctx.report_progress(step, n, f"step {step}")
    return f"counted {n}"


@server.tool()
def grow(name: str) -> str:
    """Add a tool called ``name``."""
    server.add_tool(lambda: name, name=name, description="Grown at run time.")
    return f"added {name}"


@server.tool()
async def shout(text: str, ctx: Context) -> str:
    """Log ``text``, then ask the client to sample and for its roots."""
    await ctx.info(text)
    sampled = await ctx.sample(text, max_tokens=5)
    roots = await ctx.list_roots()
    form = await ctx.elicit(text, {"type": "object", "properties": {"who": {"type": "string"}}})
    answer = getattr(sampled.content, "text", "?")
    who = (form.content or {}).get("who") if form.action == "accept" else form.action
    return f"{answer} {[root.uri for root in roots.roots]} {who}"


STARTED = 0
"""Calls of ``interview`` that started (a 2026-07-28 retry continues one)."""


def _start() -> int:
    global STARTED
    STARTED += 1
    return STARTED


@server.tool()
async def interview(rounds: int, ctx: Context, block: bool = False) -> str:
    """Ask for ``rounds`` samples one after another, then (``block``) never answer."""
    await ctx.once("started", _start)
    answers = []
    for number in range(1, rounds + 1):
        sampled = await ctx.sample(f"q{number}", max_tokens=5, key=f"q{number}")
        answers.append(getattr(sampled.content, "text", "?"))
    if block:
        await anyio.sleep_forever()
    return f"{' '.join(answers)} started={STARTED}"


@server.tool()
async def plan(goal: str, ctx: Context) -> str:
    """Sample with a tool the model may use (needs ``sampling.tools``)."""
    lookup = {"name": "lookup", "inputSchema": {"type": "object"}}
    sampled = await ctx.sample(goal, max_tokens=5, tools=[lookup], tool_choice="auto")
    content = sampled.content if isinstance(sampled.content, list) else [sampled.content]
    used = [getattr(block, "name", None) for block in content]
    return f"{sampled.stop_reason} {used}"


@server.tool()
async def sign_in(url: str, ctx: Context) -> str:
    """Send the user to ``url`` (needs ``elicitation.url``); up to 2025-11-25,
    say at once that it is done."""
    answer = await ctx.elicit_url(url, "Sign in", elicitation_id="sign-in-1")
    if answer.action == "accept":
        await ctx.complete_elicitation("sign-in-1")
    return answer.action


GATE_OPEN = False
"""Whether the URL elicitation ``gated`` asks for was completed."""


@server.tool()
async def gated(ctx: Context) -> str:
    """Needs a URL elicitation completed first (-32042 up to 2025-11-25, an
    input request in 2026-07-28), then answers; it completes at once."""
    global GATE_OPEN
    if not GATE_OPEN:
        GATE_OPEN = True  # done as soon as asked
        elicitation = url_elicitation("https://a.example/gate", "Open", elicitation_id="gate-1")
        raise UrlElicitationRequiredError([elicitation])
    await ctx.complete_elicitation("gate-1")
    return "through"


@server.tool(task="optional")
async def survey(question: str, ctx: Context) -> str:
    """Ask the client to sample, as a task or not."""
    sampled = await ctx.sample(question, max_tokens=5)
    return f"answered {getattr(sampled.content, 'text', '?')}"


@server.tool(task="required")
async def report(topic: str, ctx: Context) -> str:
    """Runs only as a task."""
    await ctx.report_status(f"writing about {topic}")
    return f"report on {topic}"


class RootsWatch(Extension):
    """Counts the client's ``notifications/roots/list_changed`` (declares nothing)."""

    id = "mcp-core.tests/roots-watch"

    def __init__(self) -> None:
        self.seen = 0
        self.changed = anyio.Event()

    def settings(self) -> None:
        return None

    def notification_routes(self) -> dict[str, Any]:
        return {"notifications/roots/list_changed": self.notified}

    def notified(self, method: str, params: Any) -> None:
        self.seen += 1
        self.changed.set()
        self.changed = anyio.Event()


watch = server.extend(RootsWatch())


@server.tool()
async def roots(ctx: Context, changes: int = 0) -> str:
    """Wait for ``changes`` roots-changed notices in all, then list the roots."""
    while watch.seen < changes:
        await watch.changed.wait()
    listed = await ctx.list_roots()
    return f"{watch.seen} {[root.uri for root in listed.roots]}"


for extra in options.tool:
    server.add_tool(lambda extra=extra: f"{options.name}:{extra}", name=extra)


if __name__ == "__main__":
    from transports import run_stdio

    run_stdio(server, **({"revisions": tuple(options.revision)} if options.revision else {}))
