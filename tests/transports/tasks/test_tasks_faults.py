"""Task faults from the wire (h11 HTTP, 2026-07-28, asyncio and trio): another
principal's task, a task past its TTL, a task of an earlier run of the server,
a client gone while its task runs, and a full store."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, Final

import anyio
import pytest
from http_helpers import LIMIT, META, RawClient, modern_headers, open_session, reply_of

from mcp_core import Server
from mcp_core.http import HttpRequest
from mcp_core.tasks import MemoryTaskStore
from transports.http.server import HttpTimeouts, serve_http

pytestmark = pytest.mark.anyio

TASKS: Final = "io.modelcontextprotocol/tasks"
WITH_TASKS: Final = {
    **META,
    "io.modelcontextprotocol/clientCapabilities": {"extensions": {TASKS: {}}},
}


def who(head: HttpRequest) -> str | None:
    # The principal is whoever the x-user header names (a test's stand-in for a token).
    return head.headers.get("x-user")


@asynccontextmanager
async def serving(server: Server) -> AsyncIterator[int]:
    async with anyio.create_task_group() as tg:
        port = await tg.start(
            lambda task_status: serve_http(
                server,
                port=0,
                timeouts=HttpTimeouts(),
                authenticate=who,
                task_status=task_status,
            )
        )
        try:
            yield port
        finally:
            tg.cancel_scope.cancel()


async def ask(port: int, method: str, params: dict[str, Any], user: str = "ann") -> Any:
    name = params.get("taskId", params.get("name"))
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": {**params, "_meta": WITH_TASKS}}
    async with RawClient(port) as raw:
        await raw.send("POST", body, x_user=user, **modern_headers(method, name))
        return (await raw.answer()).json()


def make_server(**options: Any) -> Server:
    server = Server("faults", "1", **options)
    started = anyio.Event()

    @server.tool(task=True)
    async def forever() -> str:
        """Never ends by itself."""
        started.set()
        await anyio.sleep_forever()
        return "never"

    @server.tool(task=True)
    async def quick() -> str:
        """Ends at once."""
        return "quick"

    return server


async def test_another_principals_task_is_not_found() -> None:
    async with serving(make_server()) as port:
        created = (await ask(port, "tools/call", {"name": "forever", "arguments": {}}))["result"]
        task = {"taskId": created["taskId"]}
        assert (await ask(port, "tasks/get", task))["result"]["status"] == "working"
        for method in ("tasks/get", "tasks/cancel"):
            assert (await ask(port, method, task, user="bob"))["error"]["code"] == -32602
        update = {**task, "inputResponses": {}}
        assert (await ask(port, "tasks/update", update, user="bob"))["error"]["code"] == -32602
        # Bob's cancel changed nothing.
        assert (await ask(port, "tasks/get", task))["result"]["status"] == "working"


async def test_a_task_past_its_ttl_is_gone() -> None:
    async with serving(make_server(task_ttl_ms=200)) as port:
        created = (await ask(port, "tools/call", {"name": "quick", "arguments": {}}))["result"]
        assert created["ttlMs"] == 200
        task = {"taskId": created["taskId"]}
        with anyio.fail_after(LIMIT):
            while "result" in (reply := await ask(port, "tasks/get", task)):
                await anyio.sleep(0.05)
        assert reply["error"]["code"] == -32602
        assert "expired" in reply["error"]["message"]


async def test_a_task_of_an_earlier_run_is_said_lost() -> None:
    # Two servers stand for one server before and after a restart: the second
    # knows nothing of the first's in-memory tasks, and says so, at once.
    async with serving(make_server()) as before:
        created = (await ask(before, "tools/call", {"name": "quick", "arguments": {}}))["result"]
    async with serving(make_server()) as after:
        reply = await ask(after, "tasks/get", {"taskId": created["taskId"]})
    assert reply["error"]["code"] == -32602
    assert "restarted" in reply["error"]["message"]


async def test_a_full_store_refuses_new_tasks_and_keeps_serving() -> None:
    async with serving(make_server(task_store=MemoryTaskStore(limit=2))) as port:
        running = []
        for _ in range(2):
            reply = await ask(port, "tools/call", {"name": "forever", "arguments": {}})
            running.append(reply["result"]["taskId"])
        full = await ask(port, "tools/call", {"name": "forever", "arguments": {}})
        assert full["error"]["code"] == -32603
        # A finished (here cancelled) task makes room: the oldest such goes.
        await ask(port, "tasks/cancel", {"taskId": running[0]})
        again = await ask(port, "tools/call", {"name": "quick", "arguments": {}})
        assert again["result"]["resultType"] == "task"
        gone = await ask(port, "tasks/get", {"taskId": running[0]})
        assert gone["error"]["code"] == -32602
        kept = await ask(port, "tasks/get", {"taskId": running[1]})
        assert kept["result"]["status"] == "working"


async def test_a_task_outlives_the_legacy_session_that_made_it() -> None:
    release = anyio.Event()
    server = Server("faults", "1")

    @server.tool(task=True)
    async def held() -> str:
        """Waits for the test."""
        await release.wait()
        return "released"

    async with serving(server) as port:
        async with RawClient(port) as raw:
            session_id = await open_session(raw)
            body = {
                "jsonrpc": "2.0",
                "id": 5,
                "method": "tools/call",
                "params": {"name": "held", "task": {}},
            }
            await raw.send("POST", body, mcp_session_id=session_id)
            task_id = (await reply_of(raw))["result"]["task"]["taskId"]
            await raw.send("DELETE", mcp_session_id=session_id)
            assert (await raw.answer()).status == 200
        release.set()
        async with RawClient(port) as raw:
            session_id = await open_session(raw)
            body = {
                "jsonrpc": "2.0",
                "id": 6,
                "method": "tasks/result",
                "params": {"taskId": task_id},
            }
            await raw.send("POST", body, mcp_session_id=session_id)
            answer = await reply_of(raw)
        assert answer["result"]["content"][0]["text"] == "released"
