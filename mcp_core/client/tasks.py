"""A tool call that became a task, on the client side, for both eras (sans-IO).

What the runtime's task handle (``transports.client.TaskHandle``) asks here:

- `task_call`: the ``tools/call`` to send; a 2025-11-25 call asks for a task with
  ``params.task`` (basic/utilities/tasks.mdx "Creating Tasks"); a 2026-07-28 call
  that asks for one declares the extension in its own per-request capabilities
  and the server decides (tasks extension "Capability Negotiation"). A plain
  2026-07-28 call does not declare it, so a tool with optional task support
  answers inline, without a task to poll.
- `tasks_refused`: a plain call refused with -32021 naming the extension (a tool
  that only runs as a task); the tool did not run, so it is sent again once,
  declaring the extension, and the task is followed.
- `TaskState`: a task as last seen, from a CreateTaskResult or a ``tasks/get``
  result of either era, or from an immediate result.
- `next_step`: what to do about it: return the result, raise the error, answer
  input requests (2026-07-28 ``tasks/update``), wait for the result (2025-11-25
  blocking ``tasks/result``), or poll again after ``pollIntervalMs``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, Literal

import msgspec
from msgspec import UNSET

from ..extensions import with_extension
from ..server.context import McpError
from ..session.base import CLIENT_CAPABILITIES_KEY
from ..types import (
    CallToolRequestParams,
    CallToolResult,
    ClientCapabilities,
    CreateTaskResult,
    DetailedTask,
    EmptyResult,
    GetTaskResult,
    TaskMetadata,
    TaskRequestParams,
    UpdateTaskRequestParams,
)
from ..types.client import InputRequest
from ..types.methods import LEGACY_REVISIONS
from ..types.tasks import TASKS_EXTENSION
from ..wire.errors import INTERNAL_ERROR, INVALID_PARAMS, MISSING_REQUIRED_CLIENT_CAPABILITY
from .requests import Call

__all__ = [
    "TaskState",
    "with_tasks",
    "cancel_call",
    "get_call",
    "next_step",
    "payload_call",
    "task_call",
    "tasks_refused",
    "update_call",
]

TERMINAL: Final = frozenset({"completed", "failed", "cancelled"})
DEFAULT_POLL_MS: Final = 1000
"""Polling interval when the server suggests none."""

Step = Literal["done", "answer", "wait_result", "poll"]


class TaskState:
    """A task as the client last saw it.

    Attributes:
        task_id: its id; None for a call the server answered at once.
        status: "working", "input_required", "completed", "failed", "cancelled".
        modern: whether it is a 2026-07-28 task.
        poll_ms: the polling interval the server suggested.
        status_message: the server's message, if any.
        result: the final CallToolResult, once known.
        error: the JSON-RPC error object of a failed task, once known.
        input_requests: outstanding input requests by key (2026-07-28).
    """

    def __init__(
        self,
        task_id: str | None,
        status: str,
        *,
        modern: bool,
        poll_ms: int | None = None,
        status_message: str | None = None,
        result: CallToolResult | None = None,
        error: dict[str, Any] | None = None,
        input_requests: dict[str, InputRequest] | None = None,
    ) -> None:
        self.task_id = task_id
        self.status = status
        self.modern = modern
        self.poll_ms = poll_ms
        self.status_message = status_message
        self.result = result
        self.error = error
        self.input_requests = input_requests or {}

    def __repr__(self) -> str:
        return f"TaskState({self.task_id!r}, {self.status!r})"

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL

    @classmethod
    def of(cls, result: Any) -> TaskState:
        """The state a ``tools/call`` answer shows: a task of either era, or
        (answered at once) a completed call without a task."""
        if isinstance(result, DetailedTask):
            return cls.modern_task(result)
        if isinstance(result, CreateTaskResult):
            return cls.legacy_task(result.task)
        assert isinstance(result, CallToolResult)
        return cls(None, "completed", modern=False, result=result)

    @classmethod
    def modern_task(cls, task: DetailedTask) -> TaskState:
        """From a 2026-07-28 CreateTaskResult or ``tasks/get`` result."""
        inputs = {}
        if task.input_requests is not UNSET:
            try:
                inputs = {
                    key: msgspec.convert(value, InputRequest)
                    for key, value in task.input_requests.items()
                }
            except msgspec.ValidationError as exc:
                raise McpError(INVALID_PARAMS, f"invalid inputRequests: {exc}") from None
        return cls(
            task.task_id,
            task.status,
            modern=True,
            poll_ms=None if task.poll_interval_ms is UNSET else task.poll_interval_ms,
            status_message=None if task.status_message is UNSET else task.status_message,
            result=None if task.result is UNSET else msgspec.convert(task.result, CallToolResult),
            error=None if task.error is UNSET else task.error,
            input_requests=inputs,
        )

    @classmethod
    def legacy_task(cls, task: Any) -> TaskState:
        """From a 2025-11-25 Task (CreateTaskResult.task, tasks/get, tasks/cancel)."""
        poll = task.poll_interval
        message = task.status_message
        return cls(
            task.task_id,
            task.status,
            modern=False,
            poll_ms=None if poll is UNSET else poll,
            status_message=None if message is UNSET else message,
        )


def with_tasks(capabilities: ClientCapabilities) -> ClientCapabilities:
    """``capabilities`` declaring the 2026-07-28 tasks extension: the server may
    then answer with a CreateTaskResult (tasks extension "Capability
    Negotiation"), which `next_step` follows to its end."""
    return with_extension(capabilities, TASKS_EXTENSION)


def task_call(
    name: str,
    arguments: Mapping[str, Any] | None,
    *,
    task: bool,
    revision: str | None,
    ttl_ms: int | None,
    capabilities: ClientCapabilities | None = None,
) -> Call[CallToolResult]:
    """The ``tools/call``; with ``task``, asking for a task.

    2025-11-25: ``params.task`` (only that revision has it: basic/utilities/tasks.mdx).
    2026-07-28: the call's own ``_meta`` declares ``capabilities`` (the client's)
    with the tasks extension; the session's ``_meta`` of every request leaves it
    out, as a server MUST NOT answer a call without it with a CreateTaskResult
    (tasks extension "Capability Negotiation"), and a plain call should not
    become a task to poll.
    """
    legacy_task = task and revision == "2025-11-25"
    modern_task = task and revision is not None and revision not in LEGACY_REVISIONS
    meta: dict[str, Any] | Any = UNSET
    if modern_task:
        meta = _meta(capabilities or ClientCapabilities())
    params = CallToolRequestParams(
        name=name,
        arguments=UNSET if arguments is None else dict(arguments),
        task=TaskMetadata(ttl=UNSET if ttl_ms is None else ttl_ms) if legacy_task else UNSET,
        meta=meta,
    )
    return Call("tools/call", params, CallToolResult)


def tasks_refused(error: McpError) -> bool:
    """Whether a plain ``tools/call`` was refused because the tool runs only as
    a task: -32021 with the tasks extension in ``data.requiredCapabilities``
    (tasks extension "Capability Negotiation" writes -32003; the 2026-07-28 core,
    basic/index.mdx "Missing Required Client Capability", and conformance
    0.2.0-alpha.12 tasks-required-task-error use -32021, followed here). The
    tool did not run, so the call may be sent again asking for a task."""
    if error.code != MISSING_REQUIRED_CLIENT_CAPABILITY or not isinstance(error.data, dict):
        return False
    required = error.data.get("requiredCapabilities")
    extensions = required.get("extensions") if isinstance(required, dict) else None
    return isinstance(extensions, dict) and TASKS_EXTENSION in extensions


def _meta(capabilities: ClientCapabilities) -> dict[str, Any]:
    # A request's own per-request capabilities, declaring the tasks extension.
    return {CLIENT_CAPABILITIES_KEY: with_tasks(capabilities)}


def get_call(state: TaskState, capabilities: ClientCapabilities) -> Call[Any]:
    """``tasks/get`` of the task; in 2026-07-28 it declares the extension (the
    server refuses ``tasks/*`` without it with -32021: tasks extension
    "Capability Negotiation", conformance tasks-capability-negotiation)."""
    assert state.task_id is not None
    if not state.modern:
        return Call("tasks/get", TaskRequestParams(task_id=state.task_id), GetTaskResult)
    params = TaskRequestParams(task_id=state.task_id, meta=_meta(capabilities))
    return Call("tasks/get", params, DetailedTask)


def payload_call(state: TaskState) -> Call[Any]:
    """``tasks/result`` (2025-11-25): waits for the end; the payload is a dict."""
    assert state.task_id is not None
    return Call("tasks/result", TaskRequestParams(task_id=state.task_id), dict)


def update_call(
    state: TaskState, answers: dict[str, Any], capabilities: ClientCapabilities
) -> Call[EmptyResult]:
    """``tasks/update`` (2026-07-28) with answers by key, declaring the extension."""
    assert state.task_id is not None
    params = UpdateTaskRequestParams(
        task_id=state.task_id, input_responses=answers, meta=_meta(capabilities)
    )
    return Call("tasks/update", params, EmptyResult)


def cancel_call(state: TaskState, capabilities: ClientCapabilities) -> Call[Any]:
    """``tasks/cancel``; in 2026-07-28 declaring the extension."""
    assert state.task_id is not None
    if not state.modern:
        return Call("tasks/cancel", TaskRequestParams(task_id=state.task_id), GetTaskResult)
    params = TaskRequestParams(task_id=state.task_id, meta=_meta(capabilities))
    return Call("tasks/cancel", params, EmptyResult)


def next_step(state: TaskState, answered: set[str]) -> tuple[Step, float]:
    """What to do about ``state``, and after how many seconds.

    ``answered``: input keys answered already; they are not answered again
    (2026-07-28 tasks extension "Task Update Requests": clients SHOULD track keys).
    """
    if state.terminal and (state.result is not None or state.error is not None):
        return "done", 0.0
    if state.terminal and state.modern:
        return "done", 0.0
    if not state.modern:
        # 2025-11-25 tasks.mdx "Result Retrieval": tasks/result blocks until the
        # end, and input comes as server requests meanwhile.
        return "wait_result", 0.0
    if state.status == "input_required" and set(state.input_requests) - answered:
        return "answer", 0.0
    poll = state.poll_ms if state.poll_ms is not None else DEFAULT_POLL_MS
    return "poll", poll / 1000


def final(state: TaskState) -> CallToolResult:
    """The task's result.

    Raises:
        McpError: it failed with a JSON-RPC error, or was cancelled.
    """
    if state.result is not None:
        return state.result
    if state.error is not None:
        raise McpError(
            int(state.error.get("code", INTERNAL_ERROR)),
            str(state.error.get("message", "the task failed")),
            state.error.get("data"),
        )
    raise McpError(INTERNAL_ERROR, f"the task ended {state.status} without a result")


def legacy_payload(payload: dict[str, Any]) -> CallToolResult:
    """The CallToolResult in a 2025-11-25 ``tasks/result`` payload."""
    return msgspec.convert(payload, CallToolResult)
