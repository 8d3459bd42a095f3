"""The task engine: the one place both eras create, read and change tasks.

The engine owns no task and no clock: every call takes ``now`` (seconds, the
caller's wall clock), and the work a task stands for is run by the runtime (see
`host`). It keeps the rules (`record`), talks to a `TaskStore` by
compare-and-set, and tells whoever listens about each change: a handler waiting
for input, the runtime sending status notifications, the work to stop when the
task is cancelled.
"""

from __future__ import annotations

import secrets
import weakref
from collections import Counter
from collections.abc import Callable
from typing import Final

import msgspec

from .record import (
    TaskConflict,
    TaskRecord,
    answered,
    asked,
    cancelled,
    finished,
    is_expired,
    moved,
    took,
)
from .status import TRANSITIONS
from .store import MemoryTaskStore, TaskStore

__all__ = ["ENGINES", "TaskEngine", "TaskNotFound", "TaskConflict"]

_SWAP_TRIES: Final = 16

Listener = Callable[[TaskRecord], None]


ENGINES: Final[weakref.WeakSet[TaskEngine]] = weakref.WeakSet()
"""Every live engine of this process, for telemetry to read their `counts`."""


class TaskNotFound(LookupError):
    """No such task for this principal (unknown, another's, expired, or lost)."""


def new_task_id(boot: str) -> str:
    """An unguessable task id: 128 random bits (2026-07-28 tasks extension
    "Security Considerations": task ids MAY act as bearer tokens and MUST resist
    guessing; 2025-11-25 tasks.mdx "Task Isolation"), after this process's boot
    tag, which tells a later process that the task was lost with this one."""
    return f"{boot}-{secrets.token_urlsafe(16)}"


class TaskEngine:
    """Tasks of one server.

    Args:
        store: where tasks live; by default a `MemoryTaskStore` of 10,000 tasks.
        ttl_ms: the lifetime of a task from creation (None: unlimited). A
            2025-11-25 client may ask for less (``params.task.ttl``), not more.
        poll_interval_ms: the polling interval suggested to clients.
    """

    def __init__(
        self,
        store: TaskStore | None = None,
        *,
        ttl_ms: int | None = 3_600_000,
        poll_interval_ms: int | None = 500,
    ) -> None:
        self.store: TaskStore = MemoryTaskStore() if store is None else store
        self.ttl_ms = ttl_ms
        self.poll_interval_ms = poll_interval_ms
        #: Tags this process's task ids (see `new_task_id`).
        self.boot = secrets.token_hex(4)
        self._listeners: dict[object, Listener] = {}
        self._watchers: dict[tuple[str, str], dict[object, Listener]] = {}
        # (principal, task id) -> what stops its work.
        self._stoppers: dict[tuple[str, str], Callable[[], None]] = {}
        #: Told (principal, task id) when a task is cancelled here whose work
        #: runs in no task of this process: a runtime whose replicas share the
        #: store passes it on, and the replica running the work calls `stop`.
        self.stop_elsewhere: Callable[[str, str], None] | None = None
        #: Tasks by status, as this engine made and moved them: ``working`` and
        #: ``input_required`` count the tasks in that status now (up and down);
        #: a terminal status counts the tasks that ended so (it only grows: a
        #: task never leaves it). With replicas sharing a store, each counts
        #: what it did, and their sum is the whole (a task made on one replica
        #: and cancelled on another is +1 working there, -1 working here).
        #: Every status is a key from the start: telemetry reads the counts from
        #: another thread, and a dict that never grows can be read meanwhile.
        self.counts: Counter[str] = Counter(dict.fromkeys(TRANSITIONS, 0))
        ENGINES.add(self)

    # --- listening -----------------------------------------------------------------------

    def listen(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener(record)`` after every change of any task.

        Returns:
            A function that stops listening.
        """
        token = object()
        self._listeners[token] = listener
        return lambda: self._listeners.pop(token, None) and None

    def watch(self, record: TaskRecord, listener: Listener) -> Callable[[], None]:
        """Call ``listener(record)`` after every change of this one task.

        Returns:
            A function that stops watching.
        """
        key = (record.principal, record.task_id)
        token = object()
        self._watchers.setdefault(key, {})[token] = listener

        def unwatch() -> None:
            watchers = self._watchers.get(key)
            if watchers is not None:
                watchers.pop(token, None)
                if not watchers:
                    del self._watchers[key]

        return unwatch

    def on_stop(self, record: TaskRecord, stop: Callable[[], None]) -> Callable[[], None]:
        """Register what stops the task's work when it is cancelled.

        Returns:
            A function that unregisters it (when the work ends).
        """
        key = (record.principal, record.task_id)
        self._stoppers[key] = stop
        return lambda: self._stoppers.pop(key, None) and None

    def _changed(self, record: TaskRecord) -> None:
        watchers = self._watchers.get((record.principal, record.task_id))
        if watchers:
            for listener in list(watchers.values()):
                listener(record)
        for listener in list(self._listeners.values()):
            listener(record)

    # --- reading ---------------------------------------------------------------------------

    async def create(
        self,
        principal: str | None,
        era: str,
        now: float,
        *,
        ttl_ms: int | None = None,
        method: str = "tools/call",
    ) -> TaskRecord:
        """A new ``working`` task, stored (a `get` finds it once this returns).

        Args:
            ttl_ms: the lifetime the client asked for, capped by the engine's.

        Raises:
            StoreFull: no room (see `MemoryTaskStore`).
        """
        ttl = self.ttl_ms
        if ttl_ms is not None and ttl_ms > 0 and (ttl is None or ttl_ms < ttl):
            ttl = ttl_ms
        record = TaskRecord(
            task_id=new_task_id(self.boot),
            principal=principal or "",
            era=era,
            created_at=now,
            updated_at=now,
            ttl_ms=ttl,
            poll_interval_ms=self.poll_interval_ms,
            method=method,
            runner=self.boot,
        )
        await self.store.create(record, now)
        self.counts[record.status] += 1
        return record

    async def get(self, principal: str | None, task_id: str, now: float) -> TaskRecord:
        """The task, if ``principal`` may see it and it has not expired.

        Raises:
            TaskNotFound: with a message saying why, as far as it may be told.
        """
        record = await self.store.get(principal or "", task_id)
        if record is None:
            tag = task_id.partition("-")[0]
            if tag and tag != self.boot and len(tag) == len(self.boot) and "-" in task_id:
                # Not one of this process's ids: a task of an earlier process,
                # lost on restart with the in-memory store (or a guess).
                raise TaskNotFound(
                    "Task not found: it was created by an earlier run of this server, "
                    "and its tasks were lost when the server restarted"
                )
            raise TaskNotFound("Task not found")
        if is_expired(record, now):
            raise TaskNotFound("Task has expired")
        return record

    async def page(
        self, principal: str | None, after: str | None, limit: int, now: float
    ) -> list[TaskRecord]:
        """A page of ``principal``'s live tasks (see `TaskStore.page`)."""
        records = await self.store.page(principal or "", after, limit)
        return [r for r in records if not is_expired(r, now)]

    async def expire(self, now: float) -> int:
        """Drop expired tasks; how many went."""
        gone = await self.store.expire(now)
        for record in gone:
            self._stoppers.pop((record.principal, record.task_id), None)
            if not record.terminal:  # expired still running: no longer counted so
                self.counts[record.status] -= 1
        return len(gone)

    # --- changing ------------------------------------------------------------------------

    async def _change(
        self, record: TaskRecord, change: Callable[[TaskRecord], TaskRecord]
    ) -> TaskRecord:
        # Compare-and-set, again from the stored record when someone else changed
        # it first (another replica, with a shared store).
        current = record
        for _ in range(_SWAP_TRIES):
            new = change(current)
            if new is current:
                return current
            if await self.store.swap(current, new):
                if new.status != current.status:
                    counts = self.counts
                    counts[current.status] -= 1
                    counts[new.status] += 1
                self._changed(new)
                return new
            found = await self.store.get(current.principal, current.task_id)
            if found is None:
                raise TaskNotFound("Task not found")
            current = found
        raise TaskConflict("the task kept changing; giving up")

    async def report(self, record: TaskRecord, message: str | None, now: float) -> TaskRecord:
        """A new status message for a running task (its status unchanged)."""

        def change(r: TaskRecord) -> TaskRecord:
            return r if r.terminal else _msg(r, message, now)

        return await self._change(record, change)

    async def mark(self, record: TaskRecord, status: str, now: float) -> TaskRecord:
        """Move a running task between ``working`` and ``input_required`` (a
        2025-11-25 task waiting on a server-to-client request); a terminal task
        stays as it is."""

        def change(r: TaskRecord) -> TaskRecord:
            if r.terminal or r.status == status:
                return r
            return moved(r, status, now, r.status_message)

        return await self._change(record, change)

    async def finish(
        self,
        record: TaskRecord,
        now: float,
        *,
        result: bytes | None = None,
        error: bytes | None = None,
        tool_error: bool = False,
        message: str | None = None,
    ) -> TaskRecord:
        """The work ended: with ``result`` (JSON of the request's result) or
        ``error`` (JSON of a JSON-RPC error object).

        Which status that is depends on the era: a tool result with ``isError``
        is ``completed`` in 2026-07-28 (tasks extension "Task Execution Errors":
        ``failed`` is for JSON-RPC errors only) and ``failed`` in 2025-11-25
        (tasks.mdx "Task Execution Errors": "when the tool result has isError set
        to true"). A cancelled task stays cancelled.
        """
        if error is not None or (tool_error and record.era == "2025-11-25"):
            status = "failed"
        else:
            status = "completed"
        return await self._change(
            record,
            lambda r: finished(r, now, result=result, error=error, status=status, message=message),
        )

    async def ask(
        self, record: TaskRecord, requests: dict[str | None, bytes], now: float
    ) -> tuple[TaskRecord, list[str]]:
        """Post input requests (key or None for the next ordinal -> JSON of
        ``{"method", "params"}``); the task becomes ``input_required``.

        Raises:
            TaskConflict: a key was used before in this task, or the task ended.
        """
        keys: list[str] = []

        def change(r: TaskRecord) -> TaskRecord:
            new, found = asked(r, requests, now)
            keys[:] = found
            return new

        return await self._change(record, change), keys

    async def deliver(
        self, principal: str | None, task_id: str, responses: dict[str, bytes], now: float
    ) -> list[str]:
        """Deliver ``tasks/update`` answers; the keys that counted (see
        `record.answered`).

        Raises:
            TaskNotFound: no such task for ``principal``.
        """
        record = await self.get(principal, task_id, now)
        taken: list[str] = []

        def change(r: TaskRecord) -> TaskRecord:
            new, found = answered(r, responses, now)
            taken[:] = found
            return new

        await self._change(record, change)
        return taken

    async def take(self, record: TaskRecord, key: str, now: float) -> bytes | None:
        """The answer under ``key`` if delivered (and forget it), else None."""
        current = await self.store.get(record.principal, record.task_id)
        if current is None:
            raise TaskNotFound("Task not found")
        answer = current.answers.get(key)
        if answer is not None:
            await self._change(current, lambda r: took(r, key, now))
        return answer

    async def cancel(self, principal: str | None, task_id: str, now: float) -> TaskRecord:
        """Cancel a task: ``cancelled`` at once, its work told to stop. Cancelling
        a terminal task changes nothing and returns it (the caller decides
        whether that is an error: it is in 2025-11-25, not in 2026-07-28).

        Raises:
            TaskNotFound: no such task for ``principal``.
        """
        record = await self.get(principal, task_id, now)
        if record.terminal:
            return record
        record = await self._change(record, lambda r: cancelled(r, now))
        if not self.stop(record.principal, record.task_id) and self.stop_elsewhere is not None:
            self.stop_elsewhere(record.principal, record.task_id)
        return record

    def stop(self, principal: str, task_id: str) -> bool:
        """Stop the work of a cancelled task if it runs in this process (a
        replica that shares the store cancelled it: see `stop_elsewhere`).

        Returns:
            Whether its work ran here.
        """
        stop = self._stoppers.pop((principal, task_id), None)
        if stop is None:
            return False
        stop()
        return True


def _msg(record: TaskRecord, message: str | None, now: float) -> TaskRecord:
    return msgspec.structs.replace(
        record, status_message=message, updated_at=now, version=record.version + 1
    )
