"""Tasks from the wire, over streamable HTTP (h11), on asyncio and trio.

2026-07-28: the tasks extension (CreateTaskResult, tasks/get, tasks/update,
tasks/cancel, Mcp-Name). 2025-11-25: params.task, capabilities, tasks/get,
blocking tasks/result, tasks/list, tasks/cancel. Each request goes on a new
connection where it matters: a task outlives the connection that created it.
"""

from __future__ import annotations

from typing import Any, Final

import anyio
import pytest
from http_helpers import (
    LIMIT,
    META,
    Gates,
    RawClient,
    data,
    initialize,
    modern_headers,
    open_session,
    reply_of,
    running,
)

from mcp_core import Context, McpError, Server
from mcp_core.wire import INTERNAL_ERROR

pytestmark = pytest.mark.anyio

TASKS: Final = "io.modelcontextprotocol/tasks"
WITH_TASKS: Final = {
    **META,
    "io.modelcontextprotocol/clientCapabilities": {"extensions": {TASKS: {}}, "elicitation": {}},
}
CONFIRM: Final = {"type": "object", "properties": {"ok": {"type": "boolean"}}}


def make_server(gates: Gates) -> Server:
    server = Server("tasks", "1", task_poll_interval_ms=50)

    @server.tool
    async def plain() -> str:
        """Never a task."""
        return "plain"

    @server.tool(task=True)
    async def held() -> str:
        """Waits for the test."""
        return await gates.hold()

    @server.tool(task=True)
    async def forever() -> str:
        """Never ends by itself."""
        await anyio.sleep_forever()
        return "never"

    @server.tool(task="required")
    async def must() -> str:
        """Only as a task."""
        return "done"

    @server.tool(task=True)
    async def broken() -> str:
        """A JSON-RPC error."""
        raise McpError(INTERNAL_ERROR, "broken on purpose")

    @server.tool(task=True)
    async def tool_error() -> str:
        """A tool error."""
        raise ValueError("bad value")

    @server.tool(task=True)
    async def ask(ctx: Context) -> str:
        """Two questions, outstanding together."""
        first, second = await ctx.gather(
            ctx.elicit("first?", CONFIRM, key="a"), ctx.elicit("second?", CONFIRM, key="b")
        )
        return f"{first.action} {(second.content or {}).get('ok')}"

    return server


class Modern:
    """2026-07-28 requests, each on a connection of its own."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.next_id = 0

    async def request(
        self, method: str, params: dict[str, Any], *, meta: dict[str, Any] = WITH_TASKS
    ) -> dict[str, Any]:
        self.next_id += 1
        name = params.get("taskId", params.get("name"))
        body = {
            "jsonrpc": "2.0",
            "id": self.next_id,
            "method": method,
            "params": {**params, "_meta": meta},
        }
        async with RawClient(self.port) as raw:
            await raw.send("POST", body, **modern_headers(method, name))
            answer = await raw.answer()
        reply: dict[str, Any] = answer.json()
        return reply

    async def result(self, method: str, params: dict[str, Any], **options: Any) -> Any:
        reply = await self.request(method, params, **options)
        assert "result" in reply, reply
        return reply["result"]

    async def until(self, task_id: str, *statuses: str) -> dict[str, Any]:
        with anyio.fail_after(LIMIT):
            while True:
                task = await self.result("tasks/get", {"taskId": task_id})
                if task["status"] in statuses:
                    return dict(task)
                await anyio.sleep(0.02)


async def test_a_modern_task_from_creation_to_its_inlined_result() -> None:
    gates = Gates()
    async with running(make_server(gates)) as port:
        client = Modern(port)
        created = await client.result("tools/call", {"name": "held", "arguments": {}})
        assert created["resultType"] == "task" and created["status"] == "working"
        assert "task" not in created and "result" not in created
        assert created["pollIntervalMs"] == 50 and isinstance(created["ttlMs"], int)
        # The connection that created it is gone; the task goes on.
        await gates.started.wait()
        working = await client.result("tasks/get", {"taskId": created["taskId"]})
        assert (working["status"], working["resultType"]) == ("working", "complete")
        gates.release.set()
        done = await client.until(created["taskId"], "completed")
        assert done["result"]["content"][0]["text"] == "released"
        # A tool the client cannot take as a task is answered at once.
        plain = await client.result("tools/call", {"name": "plain", "arguments": {}})
        assert plain["resultType"] == "complete" and "taskId" not in plain


async def test_errors_by_kind() -> None:
    async with running(make_server(Gates())) as port:
        client = Modern(port)
        failed = await client.result("tools/call", {"name": "broken", "arguments": {}})
        task = await client.until(failed["taskId"], "failed", "completed")
        assert task["status"] == "failed" and "result" not in task
        assert task["error"] == {"code": INTERNAL_ERROR, "message": "broken on purpose"}
        tool = await client.result("tools/call", {"name": "tool_error", "arguments": {}})
        task = await client.until(tool["taskId"], "failed", "completed")
        assert task["status"] == "completed" and task["result"]["isError"] is True


async def test_cancel_while_working_and_after() -> None:
    gates = Gates()
    async with running(make_server(gates)) as port:
        client = Modern(port)
        created = await client.result("tools/call", {"name": "held", "arguments": {}})
        await gates.started.wait()
        ack = await client.result("tasks/cancel", {"taskId": created["taskId"]})
        assert ack["resultType"] == "complete" and "status" not in ack
        with anyio.fail_after(LIMIT):
            await gates.cancelled.wait()  # the work was stopped
        task = await client.result("tasks/get", {"taskId": created["taskId"]})
        assert task["status"] == "cancelled"
        again = await client.result("tasks/cancel", {"taskId": created["taskId"]})
        assert again["resultType"] == "complete"


async def test_input_through_tasks_update() -> None:
    async with running(make_server(Gates())) as port:
        client = Modern(port)
        created = await client.result("tools/call", {"name": "ask", "arguments": {}})
        task_id = created["taskId"]
        with anyio.fail_after(LIMIT):
            while True:
                task = await client.until(task_id, "input_required")
                if len(task["inputRequests"]) == 2:
                    break
        assert task["inputRequests"]["a"]["method"] == "elicitation/create"
        answer = {"action": "accept", "content": {"ok": True}}
        # Unknown keys are ignored; a partial answer keeps the task waiting.
        ack = await client.result(
            "tasks/update", {"taskId": task_id, "inputResponses": {"a": answer, "zz": {}}}
        )
        assert ack["resultType"] == "complete" and "status" not in ack
        task = await client.result("tasks/get", {"taskId": task_id})
        assert task["status"] == "input_required" and list(task["inputRequests"]) == ["b"]
        # An answered key does not count again.
        update = {"taskId": task_id, "inputResponses": {"a": {"action": "decline"}}}
        await client.result("tasks/update", update)
        update = {"taskId": task_id, "inputResponses": {"b": answer}}
        await client.result("tasks/update", update)
        done = await client.until(task_id, "completed")
        assert done["result"]["content"][0]["text"] == "accept True"


async def test_refusals() -> None:
    async with running(make_server(Gates())) as port:
        client = Modern(port)
        unknown = await client.request("tasks/get", {"taskId": "no-such-task"})
        assert unknown["error"]["code"] == -32602
        cancel = await client.request("tasks/cancel", {"taskId": "no-such-task"})
        assert cancel["error"]["code"] == -32602
        update = {"taskId": "no-such-task", "inputResponses": {}}
        assert (await client.request("tasks/update", update))["error"]["code"] == -32602
        # Without the extension: -32021 naming it, and no task.
        bare = await client.request("tasks/get", {"taskId": "x"}, meta=META)
        assert bare["error"]["code"] == -32021
        assert bare["error"]["data"]["requiredCapabilities"] == {"extensions": {TASKS: {}}}
        must = await client.request("tools/call", {"name": "must", "arguments": {}}, meta=META)
        assert must["error"]["code"] == -32021
        held = await client.result("tools/call", {"name": "plain", "arguments": {}}, meta=META)
        assert held["resultType"] == "complete"
        # The removed 2025-11-25 methods.
        for method in ("tasks/result", "tasks/list"):
            gone = await client.request(method, {"taskId": "x"})
            assert gone["error"]["code"] == -32601


async def test_mcp_name_must_match_the_task() -> None:
    async with running(make_server(Gates())) as port:
        created = await Modern(port).result("tools/call", {"name": "must", "arguments": {}})
        body = {
            "jsonrpc": "2.0",
            "id": 9,
            "method": "tasks/get",
            "params": {"taskId": created["taskId"], "_meta": WITH_TASKS},
        }
        async with RawClient(port) as raw:
            await raw.send("POST", body, **modern_headers("tasks/get", "another-task"))
            answer = await raw.answer()
        assert answer.status == 400 and answer.json()["error"]["code"] == -32020
        async with RawClient(port) as raw:
            await raw.send("POST", body, **modern_headers("tasks/get"))
            answer = await raw.answer()
        assert answer.status == 400 and answer.json()["error"]["code"] == -32020


class Legacy:
    """A 2025-11-25 session."""

    def __init__(self, raw: RawClient, session_id: str) -> None:
        self.raw = raw
        self.session_id = session_id
        self.next_id = 10

    async def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.next_id += 1
        body = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}
        await self.raw.send("POST", body, mcp_session_id=self.session_id)
        return await reply_of(self.raw)


async def test_legacy_tasks() -> None:
    gates = Gates()
    async with running(make_server(gates)) as port, RawClient(port) as raw:
        session_id = await open_session(raw)
        legacy = Legacy(raw, session_id)
        listed = await legacy.request("tools/list", {})
        support = {t["name"]: t.get("execution") for t in listed["result"]["tools"]}
        assert support["held"] == {"taskSupport": "optional"}
        assert support["must"] == {"taskSupport": "required"}
        assert support["plain"] is None
        # params.task: a task, wrapped; without it, -32601 for a required tool.
        created = await legacy.request(
            "tools/call", {"name": "held", "arguments": {}, "task": {"ttl": 60_000}}
        )
        task = created["result"]["task"]
        assert task["status"] == "working" and task["ttl"] == 60_000
        assert (await legacy.request("tools/call", {"name": "must"}))["error"]["code"] == -32601
        bad = await legacy.request("tools/call", {"name": "plain", "task": {}})
        assert bad["error"]["code"] == -32601
        got = await legacy.request("tasks/get", {"taskId": task["taskId"]})
        assert got["result"]["status"] == "working" and "ttlMs" not in got["result"]
        listed_tasks = await legacy.request("tasks/list", {})
        assert [t["taskId"] for t in listed_tasks["result"]["tasks"]] == [task["taskId"]]
        # tasks/result waits for the end, on a connection of its own.
        async with RawClient(port) as waiter:
            body = {
                "jsonrpc": "2.0",
                "id": 99,
                "method": "tasks/result",
                "params": {"taskId": task["taskId"]},
            }
            await waiter.send("POST", body, mcp_session_id=session_id)
            await gates.started.wait()
            gates.release.set()
            result = (await reply_of(waiter))["result"]
        assert result["content"][0]["text"] == "released"
        related = result["_meta"]["io.modelcontextprotocol/related-task"]
        assert related == {"taskId": task["taskId"]}
        # Cancelling a terminal task is an error in 2025-11-25.
        cancel = await legacy.request("tasks/cancel", {"taskId": task["taskId"]})
        assert cancel["error"]["code"] == -32602
        # A tool error fails the task in 2025-11-25; tasks/result still returns it.
        created = await legacy.request("tools/call", {"name": "tool_error", "task": {}})
        failed_id = created["result"]["task"]["taskId"]
        payload = await legacy.request("tasks/result", {"taskId": failed_id})
        assert payload["result"]["isError"] is True
        status = await legacy.request("tasks/get", {"taskId": failed_id})
        assert status["result"]["status"] == "failed"
        # Cancel while working: cancelled before the answer.
        created = await legacy.request("tools/call", {"name": "forever", "task": {}})
        cancelled = await legacy.request(
            "tasks/cancel", {"taskId": created["result"]["task"]["taskId"]}
        )
        assert cancelled["result"]["status"] == "cancelled"


async def test_legacy_capabilities() -> None:
    async with running(make_server(Gates())) as port, RawClient(port) as raw:
        await raw.send("POST", initialize())
        capabilities = (await raw.answer()).json()["result"]["capabilities"]
        expected = {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}
        assert capabilities["tasks"] == expected


async def test_modern_status_notifications_over_subscriptions_listen() -> None:
    gates = Gates()
    async with running(make_server(gates)) as port:
        client = Modern(port)
        created = await client.result("tools/call", {"name": "held", "arguments": {}})
        other = await client.result("tools/call", {"name": "forever", "arguments": {}})
        listen = {
            "jsonrpc": "2.0",
            "id": 50,
            "method": "subscriptions/listen",
            "params": {"notifications": {"taskIds": [created["taskId"]]}, "_meta": WITH_TASKS},
        }
        async with RawClient(port) as raw:
            await raw.send("POST", listen, **modern_headers("subscriptions/listen"))
            assert (await raw.head()).headers["content-type"] == "text/event-stream"
            (ack,) = data(await raw.events(lambda events: bool(data(events))))
            assert ack["params"]["notifications"]["taskIds"] == [created["taskId"]]
            await client.result("tasks/cancel", {"taskId": other["taskId"]})  # not asked for
            gates.release.set()
            messages = data(await raw.events(lambda events: bool(data(events))))
        (note,) = messages
        assert note["method"] == "notifications/tasks"
        params = note["params"]
        assert (params["taskId"], params["status"]) == (created["taskId"], "completed")
        assert params["result"]["content"][0]["text"] == "released"
        assert "resultType" not in params


async def test_listening_for_tasks_needs_the_extension() -> None:
    async with running(make_server(Gates())) as port:
        reply = await Modern(port).request(
            "subscriptions/listen", {"notifications": {"taskIds": ["x"]}}, meta=META
        )
        assert reply["error"]["code"] == -32021


async def test_legacy_status_notifications() -> None:
    gates = Gates()
    async with running(make_server(gates)) as port, RawClient(port) as raw:
        session_id = await open_session(raw)
        async with RawClient(port) as get:
            await get.send("GET", mcp_session_id=session_id)
            assert (await get.head()).headers["content-type"] == "text/event-stream"
            await get.events(lambda events: bool(events))  # the priming event
            created = await Legacy(raw, session_id).request(
                "tools/call", {"name": "held", "task": {}}
            )
            task_id = created["result"]["task"]["taskId"]
            gates.release.set()
            events = await get.events(
                lambda events: any(m["params"]["status"] == "completed" for m in data(events))
            )
        statuses = [m for m in data(events) if m["method"] == "notifications/tasks/status"]
        assert statuses[-1]["params"]["taskId"] == task_id
        assert statuses[-1]["params"]["status"] == "completed"


async def test_a_server_without_task_tools_has_no_task_methods() -> None:
    server = Server("plain", "1")
    server.add_tool(lambda: "x", name="x")
    async with running(server) as port:
        client = Modern(port)
        assert (await client.request("tasks/get", {"taskId": "t"}))["error"]["code"] == -32601
        discover = await client.result("server/discover", {})
        assert "extensions" not in discover["capabilities"]
