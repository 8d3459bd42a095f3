"""Where tasks live: the `TaskStore` interface and its bounded in-memory default.

The interface is small on purpose, so that a shared backend (Redis) can stand in:
create, get, compare-and-set, a page of one principal's tasks, and expiry. Every
rule about what may change lives in `record` and `engine`, over `swap`; a store
only keeps records. Methods are coroutines so a networked store can wait; the
in-memory one never does.

Keys are (principal, task id): another principal's task is simply not there.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Protocol

from .record import TaskRecord, is_expired

__all__ = ["TaskStore", "MemoryTaskStore", "StoreFull"]


class StoreFull(Exception):
    """No room for another task: every stored task is still running."""


class TaskStore(Protocol):
    """Storage of task records.

    A record is visible to `get` as soon as `create` returns (the 2026-07-28
    tasks extension "Task Creation": no CreateTaskResult before a ``tasks/get``
    would resolve).
    """

    async def create(self, record: TaskRecord, now: float) -> None:
        """Store a new task.

        Raises:
            StoreFull: the store is at its limit and nothing can go.
        """
        ...

    async def get(self, principal: str, task_id: str) -> TaskRecord | None:
        """The task, or None (unknown, or another principal's)."""
        ...

    async def swap(self, old: TaskRecord, new: TaskRecord) -> bool:
        """Replace ``old`` with ``new`` if the stored record is still ``old``
        (same version); False when someone changed it first, or it is gone."""
        ...

    async def page(self, principal: str, after: str | None, limit: int) -> list[TaskRecord]:
        """Up to ``limit`` of ``principal``'s tasks, oldest first, after task id
        ``after`` (None: from the start)."""
        ...

    async def expire(self, now: float) -> list[TaskRecord]:
        """Drop the tasks whose TTL elapsed; return them."""
        ...


class MemoryTaskStore:
    """A bounded in-process `TaskStore`.

    Args:
        limit: the most tasks kept. At the limit, a new task first makes room by
            dropping expired tasks, then the oldest finished one; when every task
            is still running, `create` raises StoreFull.

    Tasks are lost with the process (see `TaskEngine` for what a client is told).
    """

    def __init__(self, limit: int = 10_000) -> None:
        if limit < 1:
            raise ValueError("limit must be at least 1")
        self.limit = limit
        # Insertion order is creation order: the oldest first.
        self._tasks: OrderedDict[tuple[str, str], TaskRecord] = OrderedDict()

    def __len__(self) -> int:
        return len(self._tasks)

    async def create(self, record: TaskRecord, now: float) -> None:
        key = (record.principal, record.task_id)
        if key in self._tasks:
            raise ValueError(f"task {record.task_id!r} exists already")
        if len(self._tasks) >= self.limit:
            await self.expire(now)
        if len(self._tasks) >= self.limit:
            for old_key, old in self._tasks.items():
                if old.terminal:
                    del self._tasks[old_key]
                    break
            else:
                raise StoreFull(f"{len(self._tasks)} tasks are running; no room for another")
        self._tasks[key] = record

    async def get(self, principal: str, task_id: str) -> TaskRecord | None:
        return self._tasks.get((principal, task_id))

    async def swap(self, old: TaskRecord, new: TaskRecord) -> bool:
        key = (old.principal, old.task_id)
        current = self._tasks.get(key)
        if current is None or current.version != old.version:
            return False
        self._tasks[key] = new
        return True

    async def page(self, principal: str, after: str | None, limit: int) -> list[TaskRecord]:
        found: list[TaskRecord] = []
        started = after is None
        for (owner, task_id), record in self._tasks.items():
            if owner != principal:
                continue
            if not started:
                started = task_id == after
                continue
            found.append(record)
            if len(found) >= limit:
                break
        return found

    async def expire(self, now: float) -> list[TaskRecord]:
        gone = [key for key, record in self._tasks.items() if is_expired(record, now)]
        return [self._tasks.pop(key) for key in gone]
