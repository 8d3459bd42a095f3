"""A task as each era shows it.

2026-07-28 (the io.modelcontextprotocol/tasks extension, tasks.mdx): a flat
``CreateTaskResult`` (``Result & Task`` with ``resultType: "task"``), and
``tasks/get`` / ``notifications/tasks`` carry a ``DetailedTask``: the task with
``inputRequests``, ``result`` or ``error`` inlined for its status. Durations are
``ttlMs`` and ``pollIntervalMs``.

2025-11-25 (basic/utilities/tasks.mdx): ``CreateTaskResult`` wraps the task under
``task``; ``tasks/get`` answers the task itself (``ttl``, ``pollInterval``); the
payload comes separately from ``tasks/result``.

Results, errors and input requests are stored as JSON bytes and go out as
``msgspec.Raw``, never decoded here.
"""

from __future__ import annotations

from typing import Any, Final

import msgspec

from .record import TaskRecord

__all__ = [
    "RELATED_TASK_KEY",
    "iso",
    "modern_task",
    "modern_created",
    "modern_detailed",
    "legacy_task",
    "legacy_created",
]

RELATED_TASK_KEY: Final = "io.modelcontextprotocol/related-task"
"""2025-11-25 tasks.mdx "Related Task Metadata"."""


def _civil(days: int) -> tuple[int, int, int]:
    # Days since 1970-01-01 -> (year, month, day) in the proleptic Gregorian
    # calendar (H. Hinnant's civil_from_days); the core has no datetime module.
    days += 719468
    era = (days if days >= 0 else days - 146096) // 146097
    doe = days - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    day = doy - (153 * mp + 2) // 5 + 1
    month = mp + 3 if mp < 10 else mp - 9
    year = yoe + era * 400 + (1 if month <= 2 else 0)
    return year, month, day


def iso(seconds: float) -> str:
    """``seconds`` since the epoch as an ISO 8601 UTC timestamp with milliseconds,
    e.g. ``2025-11-25T10:30:00.000Z`` (both eras: createdAt, lastUpdatedAt)."""
    millis = int(seconds * 1000)
    days, rest = divmod(millis, 86_400_000)
    year, month, day = _civil(days)
    hours, rest = divmod(rest, 3_600_000)
    minutes, rest = divmod(rest, 60_000)
    secs, ms = divmod(rest, 1000)
    return f"{year:04d}-{month:02d}-{day:02d}T{hours:02d}:{minutes:02d}:{secs:02d}.{ms:03d}Z"


def modern_task(record: TaskRecord) -> dict[str, Any]:
    """The ``Task`` fields of the 2026-07-28 extension."""
    task: dict[str, Any] = {
        "taskId": record.task_id,
        "status": record.status,
        "createdAt": iso(record.created_at),
        "lastUpdatedAt": iso(record.updated_at),
        "ttlMs": record.ttl_ms,
    }
    if record.status_message is not None:
        task["statusMessage"] = record.status_message
    if record.poll_interval_ms is not None:
        task["pollIntervalMs"] = record.poll_interval_ms
    return task


def modern_created(record: TaskRecord) -> dict[str, Any]:
    """The flat CreateTaskResult: no ``task`` wrapper, no payload, no
    ``requestState`` (tasks.mdx "Task Creation")."""
    return {"resultType": "task", **modern_task(record)}


def modern_detailed(record: TaskRecord, *, result_type: bool = True) -> dict[str, Any]:
    """The DetailedTask of ``tasks/get`` (with ``resultType: "complete"``) or of
    ``notifications/tasks`` (``result_type=False``): ``inputRequests`` while
    ``input_required``, ``result`` once completed, ``error`` once failed."""
    task = modern_task(record)
    if result_type:
        task["resultType"] = "complete"
    status = record.status
    if status == "input_required":
        task["inputRequests"] = {k: msgspec.Raw(v) for k, v in record.input_requests.items()}
    elif status == "completed" and record.result is not None:
        task["result"] = msgspec.Raw(record.result)
    elif status == "failed":
        error = record.error
        if error is None:  # a legacy-era tool error: not a JSON-RPC error
            error = b'{"code":-32603,"message":"the task failed"}'
        task["error"] = msgspec.Raw(error)
    return task


def legacy_task(record: TaskRecord) -> dict[str, Any]:
    """The 2025-11-25 ``Task``: ``ttl`` (required, null for unlimited) and
    ``pollInterval`` in milliseconds."""
    task: dict[str, Any] = {
        "taskId": record.task_id,
        "status": record.status,
        "ttl": record.ttl_ms,
        "createdAt": iso(record.created_at),
        "lastUpdatedAt": iso(record.updated_at),
    }
    if record.poll_interval_ms is not None:
        task["pollInterval"] = record.poll_interval_ms
    if record.status_message is not None:
        task["statusMessage"] = record.status_message
    return task


def legacy_created(record: TaskRecord) -> dict[str, Any]:
    """The 2025-11-25 CreateTaskResult: ``{"task": Task}``."""
    return {"task": legacy_task(record)}
