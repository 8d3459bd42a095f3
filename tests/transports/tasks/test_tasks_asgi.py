"""A task through the ASGI adapter (Starlette under uvicorn, asyncio): the task
runs in the app's service beyond the request that created it."""

from __future__ import annotations

from typing import Any, Final

import anyio
import pytest
from asgi_helpers import mounted
from http_helpers import LIMIT, META, RawClient, modern_headers

from mcp_core import Server

pytestmark = pytest.mark.anyio

TASKS: Final = "io.modelcontextprotocol/tasks"
WITH_TASKS: Final = {
    **META,
    "io.modelcontextprotocol/clientCapabilities": {"extensions": {TASKS: {}}},
}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"  # uvicorn runs on asyncio


async def ask(port: int, method: str, params: dict[str, Any]) -> Any:
    name = params.get("taskId", params.get("name"))
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": {**params, "_meta": WITH_TASKS}}
    async with RawClient(port, "/api/mcp") as raw:
        await raw.send("POST", body, **modern_headers(method, name))
        return (await raw.answer()).json()


async def test_a_task_through_asgi() -> None:
    server = Server("asgi-tasks", "1", task_poll_interval_ms=10)

    @server.tool(task=True)
    async def nap() -> str:
        """Naps briefly."""
        await anyio.sleep(0.05)
        return "rested"

    async with mounted(server) as port:
        created = (await ask(port, "tools/call", {"name": "nap", "arguments": {}}))["result"]
        assert created["resultType"] == "task"
        with anyio.fail_after(LIMIT):
            while True:
                task = (await ask(port, "tasks/get", {"taskId": created["taskId"]}))["result"]
                if task["status"] == "completed":
                    break
                await anyio.sleep(0.02)
        assert task["result"]["content"][0]["text"] == "rested"
