"""Task types: 2025-11-25, and the params of the 2026-07-28 tasks extension.

2025-11-25 added experimental tasks to the core protocol; 2026-07-28 moved them to the
``io.modelcontextprotocol/tasks`` extension (2026-07-28 changelog, major change 6), so none of
these definitions exist in the 2026-07-28 schema. The extension (repository
modelcontextprotocol/experimental-ext-tasks, docs/specification/draft/tasks.mdx) adds
``tasks/update`` (`UpdateTaskRequestParams`); its results are plain dicts (the DetailedTask).
"""

from __future__ import annotations

from typing import Any, Final, Literal, TypeAlias

from msgspec import UNSET, UnsetType, field

from .base import (
    MCPModel,
    PaginatedRequestParams,
    PaginatedResult,
    RequestId,
    RequestParams,
    Result,
    ResultType,
)

TASKS_EXTENSION: Final = "io.modelcontextprotocol/tasks"
"""The 2026-07-28 tasks extension's identifier (experimental-ext-tasks tasks.mdx)."""

TaskStatus: TypeAlias = Literal["working", "input_required", "completed", "failed", "cancelled"]


class TaskMetadata(MCPModel, frozen=True, kw_only=True):
    """Asks for a request to run as a task."""

    ttl: int | UnsetType = UNSET


class RelatedTaskMetadata(MCPModel, frozen=True, kw_only=True):
    """``_meta`` entry tying a message to a task."""

    task_id: str


class ToolExecution(MCPModel, frozen=True, kw_only=True):
    """Tool.execution: whether a tool can run as a task."""

    task_support: Literal["forbidden", "optional", "required"] | UnsetType = UNSET


class Task(MCPModel, frozen=True, kw_only=True):
    """The state of a task."""

    task_id: str
    status: TaskStatus
    # Required but nullable: null means unlimited lifetime.
    ttl: int | None
    created_at: str
    last_updated_at: str
    poll_interval: int | UnsetType = UNSET
    status_message: str | UnsetType = UNSET


class TaskAugmentedRequestParams(RequestParams, frozen=True, kw_only=True):
    """Base params of requests that may run as a task."""

    task: TaskMetadata | UnsetType = UNSET


class CreateTaskResult(Result, frozen=True, kw_only=True):
    """Result of a task-augmented request: the created task."""

    task: Task


class TaskRequestParams(RequestParams, frozen=True, kw_only=True):
    """Params naming one task (inline ``{taskId}`` in the schema)."""

    task_id: str


class GetTaskRequest(MCPModel, frozen=True, kw_only=True, tag_field="method", tag="tasks/get"):
    """Polls a task's state."""

    jsonrpc: Literal["2.0"]
    id: RequestId
    params: TaskRequestParams


class GetTaskResult(Task, frozen=True, kw_only=True):
    """A task's state as a result (``Result & Task``); also ``CancelTaskResult``."""

    meta: dict[str, Any] | UnsetType = field(default=UNSET, name="_meta")
    result_type: ResultType | UnsetType = UNSET


CancelTaskResult: TypeAlias = GetTaskResult

#: The payload of ``tasks/result`` is the result of the original request, whatever its type, so
#: it stays a dict until the caller converts it with that request's result type.
GetTaskPayloadResult: TypeAlias = dict[str, Any]


class GetTaskPayloadRequest(
    MCPModel, frozen=True, kw_only=True, tag_field="method", tag="tasks/result"
):
    """Waits for and fetches a task's result."""

    jsonrpc: Literal["2.0"]
    id: RequestId
    params: TaskRequestParams


class CancelTaskRequest(
    MCPModel, frozen=True, kw_only=True, tag_field="method", tag="tasks/cancel"
):
    """Cancels a task."""

    jsonrpc: Literal["2.0"]
    id: RequestId
    params: TaskRequestParams


class ListTasksRequest(MCPModel, frozen=True, kw_only=True, tag_field="method", tag="tasks/list"):
    """Lists tasks."""

    jsonrpc: Literal["2.0"]
    id: RequestId
    params: PaginatedRequestParams | UnsetType = UNSET


class ListTasksResult(PaginatedResult, frozen=True, kw_only=True):
    """Result of ``tasks/list``."""

    tasks: list[Task]


class TaskStatusNotificationParams(Task, frozen=True, kw_only=True):
    """Params of ``notifications/tasks/status`` (``NotificationParams & Task``)."""

    # Repeated rather than inherited: a Struct takes fields from one base class only.
    meta: dict[str, Any] | UnsetType = field(default=UNSET, name="_meta")


class TaskStatusNotification(
    MCPModel, frozen=True, kw_only=True, tag_field="method", tag="notifications/tasks/status"
):
    """Reports a task's new status."""

    jsonrpc: Literal["2.0"]
    params: TaskStatusNotificationParams


class UpdateTaskRequestParams(RequestParams, frozen=True, kw_only=True):
    """Params of ``tasks/update`` (2026-07-28 tasks extension "Task Update Requests")."""

    task_id: str
    #: Key -> the answer to the input request surfaced under that key.
    input_responses: dict[str, Any]


class DetailedTask(Result, frozen=True, kw_only=True):
    """A task of the 2026-07-28 extension, as a client reads it: the flat
    CreateTaskResult (``resultType: "task"``) and the ``tasks/get`` result, with
    ``inputRequests``, ``result`` or ``error`` inlined by status (tasks.mdx
    "Tasks")."""

    task_id: str
    status: TaskStatus
    created_at: str
    last_updated_at: str
    ttl_ms: int | None = None
    poll_interval_ms: int | UnsetType = UNSET
    status_message: str | UnsetType = UNSET
    input_requests: dict[str, Any] | UnsetType = UNSET
    result: dict[str, Any] | UnsetType = UNSET
    error: dict[str, Any] | UnsetType = UNSET
