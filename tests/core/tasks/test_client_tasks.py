"""The client's task decisions without I/O (mcp_core/client/tasks.py)."""

from __future__ import annotations

import msgspec
import pytest

from mcp_core import McpError
from mcp_core.client.tasks import (
    TaskState,
    cancel_call,
    final,
    get_call,
    next_step,
    task_call,
    tasks_refused,
    update_call,
    with_tasks,
)
from mcp_core.session.requests import with_meta
from mcp_core.types import (
    CallToolResult,
    ClientCapabilities,
    CreateTaskResult,
    DetailedTask,
    ElicitRequest,
    GetTaskResult,
)

STAMP = "2026-07-28T00:00:00.000Z"
CAPS = ClientCapabilities()
CAPS_KEY = "io.modelcontextprotocol/clientCapabilities"
TASKS = "io.modelcontextprotocol/tasks"


def modern(**fields: object) -> DetailedTask:
    base: dict[str, object] = {
        "taskId": "t",
        "status": "working",
        "createdAt": STAMP,
        "lastUpdatedAt": STAMP,
        "ttlMs": 1000,
        "pollIntervalMs": 250,
    }
    return msgspec.convert({**base, **fields}, DetailedTask)


def test_a_working_modern_task_is_polled_at_its_interval() -> None:
    state = TaskState.of(modern())
    assert (state.task_id, state.status, state.modern) == ("t", "working", True)
    assert next_step(state, set()) == ("poll", 0.25)
    assert get_call(state, CAPS).method == "tasks/get"
    assert cancel_call(state, CAPS).method == "tasks/cancel"


def test_input_requests_are_answered_once_per_key() -> None:
    ask = {
        "method": "elicitation/create",
        "params": {"message": "?", "requestedSchema": {"type": "object", "properties": {}}},
    }
    state = TaskState.of(modern(status="input_required", inputRequests={"k": ask}))
    assert isinstance(state.input_requests["k"], ElicitRequest)
    assert next_step(state, set()) == ("answer", 0.0)
    assert next_step(state, {"k"})[0] == "poll"
    update = update_call(state, {"k": {"action": "decline"}}, CAPS)
    assert update.method == "tasks/update" and update.params.input_responses == {
        "k": {"action": "decline"}
    }


def test_terminal_modern_tasks() -> None:
    done = TaskState.of(modern(status="completed", result={"content": []}))
    assert next_step(done, set())[0] == "done"
    assert final(done) == CallToolResult(content=[])
    failed = TaskState.of(modern(status="failed", error={"code": -32603, "message": "no"}))
    with pytest.raises(McpError) as raised:
        final(failed)
    assert (raised.value.code, raised.value.message) == (-32603, "no")
    cancelled = TaskState.of(modern(status="cancelled"))
    assert next_step(cancelled, set())[0] == "done"
    with pytest.raises(McpError):
        final(cancelled)


def test_legacy_tasks_wait_on_tasks_result() -> None:
    task = {"taskId": "t", "status": "working", "ttl": None, "createdAt": STAMP}
    task["lastUpdatedAt"] = STAMP
    created = msgspec.convert({"task": task}, CreateTaskResult)
    state = TaskState.of(created)
    assert (state.modern, state.status) == (False, "working")
    assert next_step(state, set()) == ("wait_result", 0.0)
    got = TaskState.legacy_task(msgspec.convert(task, GetTaskResult))
    assert get_call(got, CAPS).result_type is GetTaskResult


def test_an_answer_at_once_is_a_completed_call() -> None:
    state = TaskState.of(CallToolResult(content=[]))
    assert state.task_id is None and next_step(state, set())[0] == "done"


def test_params_task_only_in_2025_11_25() -> None:
    legacy = task_call("x", {}, task=True, revision="2025-11-25", ttl_ms=500)
    assert msgspec.to_builtins(legacy.params)["task"] == {"ttl": 500}
    modern_call = task_call("x", {}, task=True, revision="2026-07-28", ttl_ms=500)
    assert "task" not in msgspec.to_builtins(modern_call.params)
    plain = task_call("x", None, task=False, revision="2025-11-25", ttl_ms=None)
    assert "task" not in msgspec.to_builtins(plain.params)


def test_the_client_declares_the_extension() -> None:
    declared = with_tasks(ClientCapabilities(extensions={"other": {}}))
    assert declared.extensions == {"other": {}, "io.modelcontextprotocol/tasks": {}}


def test_a_malformed_input_request_is_a_protocol_error() -> None:
    bad = {"method": "elicitation/create", "params": {"message": 3}}
    with pytest.raises(McpError):
        TaskState.of(modern(status="input_required", inputRequests={"k": bad}))


def declared(call: object) -> dict[str, object]:
    params = msgspec.to_builtins(call.params)  # type: ignore[attr-defined]
    return params.get("_meta", {}).get(CAPS_KEY, {}).get("extensions", {})  # type: ignore[no-any-return]


def test_a_modern_call_declares_tasks_only_when_it_asks_for_one() -> None:
    caps = ClientCapabilities(extensions={"x.example/other": {}})
    plain = task_call("x", {}, task=False, revision="2026-07-28", ttl_ms=None, capabilities=caps)
    assert "_meta" not in msgspec.to_builtins(plain.params)
    asked = task_call("x", {}, task=True, revision="2026-07-28", ttl_ms=None, capabilities=caps)
    assert declared(asked) == {"x.example/other": {}, TASKS: {}}
    legacy = task_call("x", {}, task=True, revision="2025-11-25", ttl_ms=None, capabilities=caps)
    assert "_meta" not in msgspec.to_builtins(legacy.params)


def test_modern_tasks_methods_declare_the_extension() -> None:
    state = TaskState.of(modern())
    for call in (get_call(state, CAPS), cancel_call(state, CAPS), update_call(state, {}, CAPS)):
        assert declared(call) == {TASKS: {}}


def test_the_calls_own_capabilities_win_over_the_sessions() -> None:
    asked = task_call("x", {}, task=True, revision="2026-07-28", ttl_ms=None, capabilities=CAPS)
    session_meta = {CAPS_KEY: CAPS, "io.modelcontextprotocol/protocolVersion": "2026-07-28"}
    merged = msgspec.to_builtins(with_meta(asked.params, session_meta))["_meta"]
    assert merged[CAPS_KEY] == {"extensions": {TASKS: {}}}
    assert merged["io.modelcontextprotocol/protocolVersion"] == "2026-07-28"
    merged = with_meta({"_meta": {CAPS_KEY: {"a": 1}}}, session_meta)["_meta"]
    assert merged[CAPS_KEY] == {"a": 1}


def test_only_a_refusal_naming_the_tasks_extension_is_retried() -> None:
    data = {"requiredCapabilities": {"extensions": {TASKS: {}}}}
    assert tasks_refused(McpError(-32021, "Missing required client capability", data))
    assert not tasks_refused(McpError(-32602, "bad", data))
    other = {"requiredCapabilities": {"extensions": {"x.example/other": {}}}}
    assert not tasks_refused(McpError(-32021, "missing", other))
    assert not tasks_refused(McpError(-32021, "missing", None))
    assert not tasks_refused(McpError(-32021, "missing", {"requiredCapabilities": 3}))
