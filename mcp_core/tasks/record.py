"""One task as stored, and the pure rules that change it.

A `TaskRecord` is immutable: every change makes a new one with ``version`` one
higher, so a store can compare-and-set (`TaskStore.swap`). Results, errors and
input requests are kept as raw JSON bytes: a store writes them as they are, and
each era renders them without a decode-encode round trip.

Times are seconds from the caller's clock (the runtime passes ``now``); ``ttl_ms``
counts from ``created_at`` (2025-11-25 basic/utilities/tasks.mdx "TTL and Resource
Management"; 2026-07-28 tasks extension, ``Task.ttlMs``: "Time-to-live duration
from creation").
"""

from __future__ import annotations

from typing import Final

import msgspec

from .status import TERMINAL, can_move

__all__ = [
    "TaskRecord",
    "TaskConflict",
    "expires_at",
    "is_expired",
    "moved",
    "finished",
    "asked",
    "answered",
    "took",
    "cancelled",
]

LEGACY_ERA: Final = "2025-11-25"
"""The revision of the tasks of the handshake era (basic/utilities/tasks.mdx)."""


class TaskConflict(Exception):
    """A change the task's current state does not allow (a terminal task moved, a
    key asked twice)."""


class TaskRecord(msgspec.Struct, frozen=True, kw_only=True):
    """A task: who owns it, where it is, and what it produced."""

    task_id: str
    #: Who created it ("" for unauthenticated callers); others cannot see it.
    principal: str
    #: The revision it was created under: it decides how it is rendered.
    era: str
    status: str = "working"
    status_message: str | None = None
    created_at: float
    updated_at: float
    #: Lifetime from creation in milliseconds; None is unlimited.
    ttl_ms: int | None
    poll_interval_ms: int | None = None
    #: The request it runs ("tools/call") and the tool's name, for listings and logs.
    method: str = "tools/call"
    #: The final result (JSON bytes of the result object), once completed (or, in
    #: 2025-11-25, failed with a tool error).
    result: bytes | None = None
    #: The JSON-RPC error object (JSON bytes), once failed with a protocol error.
    error: bytes | None = None
    #: Outstanding input requests: key -> JSON bytes of {"method", "params"}.
    input_requests: dict[str, bytes] = {}
    #: Answers delivered and not yet taken by the handler: key -> JSON bytes.
    answers: dict[str, bytes] = {}
    #: How many keys were ever issued; keys are never reused within a task.
    keys_issued: int = 0
    #: Every key issued so far, answered or not.
    keys: frozenset[str] = frozenset()
    cancel_requested: bool = False
    #: Which process runs it (see `TaskEngine.boot`).
    runner: str = ""
    version: int = 0

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL


def expires_at(record: TaskRecord) -> float | None:
    """When the task may be discarded, or None (unlimited)."""
    if record.ttl_ms is None:
        return None
    return record.created_at + record.ttl_ms / 1000


def is_expired(record: TaskRecord, now: float) -> bool:
    """Whether its TTL has elapsed at ``now``: an expired task reads as not found
    (2026-07-28 tasks extension "Error Handling": "Task has expired")."""
    end = expires_at(record)
    return end is not None and now >= end


def _next(record: TaskRecord, now: float, **changes: object) -> TaskRecord:
    return msgspec.structs.replace(record, updated_at=now, version=record.version + 1, **changes)


def moved(record: TaskRecord, status: str, now: float, message: str | None = None) -> TaskRecord:
    """The task in ``status``.

    Raises:
        TaskConflict: the status table does not allow the move.
    """
    if not can_move(record.status, status):
        raise TaskConflict(f"a {record.status} task cannot become {status}")
    return _next(record, now, status=status, status_message=message)


def finished(
    record: TaskRecord,
    now: float,
    *,
    result: bytes | None = None,
    error: bytes | None = None,
    status: str,
    message: str | None = None,
) -> TaskRecord:
    """The task ended with a result or a JSON-RPC error; outstanding input
    requests go. A task that is terminal already (cancelled while it ran) stays
    as it is: "Once a task is cancelled, it MUST remain in cancelled status even
    if execution continues to completion or fails" (2025-11-25 tasks.mdx "Task
    Cancellation").
    """
    if record.terminal:
        return record
    done = moved(record, status, now, message)
    return msgspec.structs.replace(done, result=result, error=error, input_requests={})


def asked(
    record: TaskRecord, requests: dict[str | None, bytes], now: float
) -> tuple[TaskRecord, list[str]]:
    """The task waits for input: each request gets its key (the one given, or the
    next ordinal) and the task moves to ``input_required``.

    Keys are unique over the task's lifetime (2026-07-28 tasks extension "Task
    Update Requests": a key MUST NOT be reused).

    Returns:
        The new record and the keys, in the order of ``requests``.

    Raises:
        TaskConflict: the task is terminal, or a given key was used before.
    """
    if record.terminal:
        raise TaskConflict(f"a {record.status} task cannot ask for input")
    issued = record.keys_issued
    keys: list[str] = []
    used = set(record.keys)
    for key in requests:
        if key is None:
            issued += 1
            key = str(issued)
            while key in used:
                issued += 1
                key = str(issued)
        elif key in used:
            raise TaskConflict(f"input key {key!r} was used before in this task")
        used.add(key)
        keys.append(key)
    pending = dict(record.input_requests)
    pending.update(zip(keys, requests.values(), strict=True))
    status = "input_required"
    return (
        _next(
            record,
            now,
            status=status,
            input_requests=pending,
            keys_issued=issued,
            keys=frozenset(used),
        ),
        keys,
    )


def answered(
    record: TaskRecord, responses: dict[str, bytes], now: float
) -> tuple[TaskRecord, list[str]]:
    """Deliver answers: only keys outstanding now count; others (never issued,
    answered already) are ignored (2026-07-28 tasks extension "Task Update
    Requests": a server SHOULD ignore them). A partial answer leaves the task in
    ``input_required``; the last one moves it back to ``working``.

    Returns:
        The new record (the same one when nothing counted) and the keys taken.
    """
    taken = [key for key in responses if key in record.input_requests]
    if not taken or record.terminal:
        return record, []
    pending = {k: v for k, v in record.input_requests.items() if k not in responses}
    answers = dict(record.answers)
    for key in taken:
        answers[key] = responses[key]
    status = "input_required" if pending else "working"
    return _next(record, now, status=status, input_requests=pending, answers=answers), taken


def took(record: TaskRecord, key: str, now: float) -> TaskRecord:
    """The handler took the answer under ``key``."""
    answers = {k: v for k, v in record.answers.items() if k != key}
    return msgspec.structs.replace(record, answers=answers, version=record.version + 1)


def cancelled(record: TaskRecord, now: float) -> TaskRecord:
    """Cancellation asked for: the task is ``cancelled`` at once and its work told
    to stop (cooperative: the work may finish anyway, the status stays). A
    terminal task is left as it is, so asking twice is harmless.
    """
    if record.terminal:
        return record
    done = moved(record, "cancelled", now, "The task was cancelled.")
    return msgspec.structs.replace(done, cancel_requested=True, input_requests={})
