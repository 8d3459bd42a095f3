"""The official Python SDK 1.x (``mcp`` >= 1.23, < 2: its experimental tasks
client) against our 2025-11-25 tasks, over stdio. ``mcp`` 2.x, which the test
extra installs, has no tasks and cannot share a venv with 1.x, so this is a script
to run from a venv of its own:

    python3 -m venv /tmp/sdk1 && /tmp/sdk1/bin/pip install 'mcp>=1.23,<2'
    /tmp/sdk1/bin/python tests/interop/sdk1_tasks_client.py PYTHON

where PYTHON has mcp-core installed (it runs tests/servers/task_server.py). It
prints what it checked and exits 0 when everything held.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client

SERVER = Path(__file__).resolve().parents[1] / "servers" / "task_server.py"


async def main(python: str) -> None:
    root = str(SERVER.parents[2])
    params = StdioServerParameters(command=python, args=[str(SERVER)], env={"PYTHONPATH": root})
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        init = await session.initialize()
        assert init.protocolVersion == "2025-11-25", init.protocolVersion
        tasks = init.capabilities.tasks
        assert tasks is not None and tasks.requests is not None, init.capabilities
        print("capabilities.tasks:", tasks.model_dump(exclude_none=True))
        tools = (await session.list_tools()).tools
        support = {t.name: t.execution.taskSupport if t.execution else None for t in tools}
        assert support == {"count": "optional"}, support
        created = await session.experimental.call_tool_as_task("count", {"to": 2}, ttl=30_000)
        task_id = created.task.taskId
        print("created:", created.task.status, "ttl", created.task.ttl)
        seen = []
        async for status in session.experimental.poll_task(task_id):
            seen.append(status.status)
        print("polled:", seen)
        assert seen[-1] == "completed", seen
        result = await session.experimental.get_task_result(task_id, types.CallToolResult)
        text = result.content[0].text  # type: ignore[union-attr]
        assert text == "counted to 2", text
        print("result:", text)
        listed = await session.experimental.list_tasks()
        assert [t.taskId for t in listed.tasks] == [task_id], listed
        try:
            await session.experimental.cancel_task(task_id)
        except Exception as exc:
            print("cancel of a completed task refused:", exc)
        else:
            raise AssertionError("cancelling a completed task must fail with -32602")
        again = await session.experimental.call_tool_as_task("count", {"to": 50})
        cancelled = await session.experimental.cancel_task(again.task.taskId)
        assert cancelled.status == "cancelled", cancelled
        print("cancelled while working:", cancelled.status)
    print("ok")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1] if len(sys.argv) > 1 else sys.executable))
