"""The task engine without I/O: statuses, TTL, ids, principals, input keys,
cancellation, the bounded store, and the rendering of each era.

The in-memory store never waits, so each coroutine runs to its end on one send().
"""

from __future__ import annotations

from collections.abc import Coroutine
from typing import Any, TypeVar

import msgspec
import pytest

from mcp_core.tasks import (
    TERMINAL,
    TRANSITIONS,
    MemoryTaskStore,
    StoreFull,
    TaskConflict,
    TaskEngine,
    TaskNotFound,
    can_move,
)
from mcp_core.tasks.render import (
    iso,
    legacy_created,
    legacy_task,
    modern_created,
    modern_detailed,
)

T = TypeVar("T")
MODERN = "2026-07-28"
LEGACY = "2025-11-25"


def run(coro: Coroutine[Any, Any, T]) -> T:
    try:
        coro.send(None)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]
    raise AssertionError("the in-memory store waited")


def engine(**options: Any) -> TaskEngine:
    return TaskEngine(**options)


def test_status_table() -> None:
    assert {"completed", "failed", "cancelled"} == TERMINAL
    for status in TERMINAL:
        assert TRANSITIONS[status] == frozenset()
    assert can_move("working", "input_required")
    assert can_move("input_required", "working")
    assert not can_move("completed", "working")
    assert not can_move("working", "working")


def test_counts_by_status() -> None:
    # Live statuses go up and down; terminal ones only grow; a task that
    # expires while it runs leaves the count of its status.
    tasks = engine(ttl_ms=10_000)
    first = run(tasks.create(None, MODERN, 0.0))
    second = run(tasks.create(None, MODERN, 0.0))
    assert +tasks.counts == {"working": 2}
    assert set(tasks.counts) == set(TRANSITIONS)  # every status, from the start
    first, _ = run(tasks.ask(first, {None: b"{}"}, 1.0))
    assert (tasks.counts["working"], tasks.counts["input_required"]) == (1, 1)
    run(tasks.cancel(None, first.task_id, 2.0))
    run(tasks.finish(second, 2.0, result=b"{}"))
    assert +tasks.counts == {"completed": 1, "cancelled": 1}
    run(tasks.create(None, MODERN, 5.0))
    assert run(tasks.expire(15.0)) == 3
    assert +tasks.counts == {"completed": 1, "cancelled": 1}


def test_ids_are_unguessable_and_distinct() -> None:
    tasks = engine()
    ids = {run(tasks.create(None, MODERN, 0.0)).task_id for _ in range(200)}
    assert len(ids) == 200
    for task_id in ids:
        tag, _, secret = task_id.partition("-")
        assert tag == tasks.boot
        # 16 random bytes in URL-safe base64: 22 characters, 128 bits.
        assert len(secret) == 22


def test_get_is_scoped_to_the_principal() -> None:
    tasks = engine()
    record = run(tasks.create("alice", MODERN, 0.0))
    assert run(tasks.get("alice", record.task_id, 1.0)) == record
    with pytest.raises(TaskNotFound):
        run(tasks.get("bob", record.task_id, 1.0))
    with pytest.raises(TaskNotFound):
        run(tasks.get(None, record.task_id, 1.0))
    with pytest.raises(TaskNotFound):
        run(tasks.cancel("bob", record.task_id, 1.0))
    assert run(tasks.get("alice", record.task_id, 1.0)).status == "working"


def test_ttl_counts_from_creation_with_the_callers_clock() -> None:
    tasks = engine(ttl_ms=10_000)
    record = run(tasks.create(None, MODERN, 100.0))
    assert record.ttl_ms == 10_000
    assert run(tasks.get(None, record.task_id, 109.999)).task_id == record.task_id
    with pytest.raises(TaskNotFound, match="expired"):
        run(tasks.get(None, record.task_id, 110.0))
    # A 2025-11-25 client may ask for less, never more.
    shorter = run(tasks.create(None, LEGACY, 0.0, ttl_ms=500))
    assert shorter.ttl_ms == 500
    longer = run(tasks.create(None, LEGACY, 0.0, ttl_ms=99_000_000))
    assert longer.ttl_ms == 10_000
    assert run(tasks.expire(110.0)) == 3
    unlimited = run(engine(ttl_ms=None).create(None, MODERN, 0.0))
    assert unlimited.ttl_ms is None


def test_a_task_of_an_earlier_process_is_said_lost() -> None:
    before, after = engine(), engine()
    record = run(before.create(None, MODERN, 0.0))
    with pytest.raises(TaskNotFound, match="restarted"):
        run(after.get(None, record.task_id, 0.0))
    with pytest.raises(TaskNotFound) as plain:
        run(after.get(None, "not-a-task", 0.0))
    assert "restarted" not in str(plain.value)


def test_finish_by_era() -> None:
    tasks = engine()
    result = b'{"content":[],"isError":true}'
    modern = run(tasks.create(None, MODERN, 0.0))
    legacy = run(tasks.create(None, LEGACY, 0.0))
    # A tool error: completed in 2026-07-28, failed in 2025-11-25.
    assert run(tasks.finish(modern, 1.0, result=result, tool_error=True)).status == "completed"
    assert run(tasks.finish(legacy, 1.0, result=result, tool_error=True)).status == "failed"
    broken = run(tasks.create(None, MODERN, 0.0))
    error = b'{"code":-32603,"message":"x"}'
    done = run(tasks.finish(broken, 2.0, error=error))
    assert (done.status, done.error, done.result) == ("failed", error, None)
    # Terminal is terminal: a second finish changes nothing.
    again = run(tasks.finish(done, 3.0, result=b"{}"))
    assert again == done


def test_cancel_is_idempotent_and_final() -> None:
    tasks = engine()
    stopped: list[str] = []
    record = run(tasks.create(None, MODERN, 0.0))
    tasks.on_stop(record, lambda: stopped.append(record.task_id))
    cancelled = run(tasks.cancel(None, record.task_id, 1.0))
    assert cancelled.status == "cancelled" and cancelled.cancel_requested
    assert stopped == [record.task_id]
    # Again: nothing changes, nothing is stopped twice.
    assert run(tasks.cancel(None, record.task_id, 2.0)) == cancelled
    assert stopped == [record.task_id]
    # The work finishing anyway leaves it cancelled.
    late = run(tasks.finish(record, 3.0, result=b"{}"))
    assert late.status == "cancelled" and late.result is None
    # Cancelling a completed task changes nothing either.
    other = run(tasks.create(None, MODERN, 0.0))
    done = run(tasks.finish(other, 1.0, result=b"{}"))
    assert run(tasks.cancel(None, other.task_id, 2.0)) == done


def test_a_task_cancelled_on_another_replica_is_stopped_where_it_runs() -> None:
    # Two replicas on one store: the work runs on the first, the cancel comes
    # to the second, which tells the first (a runtime carries the message).
    store = MemoryTaskStore()
    runner, other = TaskEngine(store), TaskEngine(store)
    told: list[tuple[str, str]] = []
    other.stop_elsewhere = lambda principal, task_id: told.append((principal, task_id))
    stopped: list[str] = []
    record = run(runner.create("ada", MODERN, 0.0))
    runner.on_stop(record, lambda: stopped.append(record.task_id))
    assert run(other.cancel("ada", record.task_id, 1.0)).status == "cancelled"
    assert told == [("ada", record.task_id)] and stopped == []
    # Only the replica running the work stops it, once.
    assert not other.stop("ada", record.task_id)
    assert runner.stop(*told[0]) and stopped == [record.task_id]
    assert not runner.stop(*told[0])
    # Cancelled where it runs, nobody else is told.
    second = run(runner.create("ada", MODERN, 0.0))
    runner.on_stop(second, lambda: stopped.append(second.task_id))
    runner.stop_elsewhere = lambda principal, task_id: told.append((principal, task_id))
    run(runner.cancel("ada", second.task_id, 1.0))
    assert stopped[-1] == second.task_id and len(told) == 1


def test_input_requests_are_keyed_partial_and_never_reused() -> None:
    tasks = engine()
    record = run(tasks.create(None, MODERN, 0.0))
    record, keys = run(
        tasks.ask(record, {None: b'{"method":"a"}', "named": b'{"method":"b"}'}, 1.0)
    )
    assert keys == ["1", "named"]
    assert record.status == "input_required"
    assert set(record.input_requests) == {"1", "named"}
    # Unknown keys are ignored; a partial answer keeps the task waiting.
    assert run(tasks.deliver(None, record.task_id, {"zz": b"1", "1": b'{"x":1}'}, 2.0)) == ["1"]
    record = run(tasks.get(None, record.task_id, 2.0))
    assert record.status == "input_required" and set(record.input_requests) == {"named"}
    # An answered key does not count twice.
    assert run(tasks.deliver(None, record.task_id, {"1": b'{"x":2}'}, 3.0)) == []
    assert run(tasks.take(record, "1", 3.0)) == b'{"x":1}'
    assert run(tasks.take(record, "1", 3.0)) is None
    assert run(tasks.deliver(None, record.task_id, {"named": b"{}"}, 4.0)) == ["named"]
    record = run(tasks.get(None, record.task_id, 4.0))
    assert record.status == "working" and record.input_requests == {}
    # Keys are unique over the task's lifetime: named or ordinal.
    with pytest.raises(TaskConflict):
        run(tasks.ask(record, {"named": b"{}"}, 5.0))
    record, keys = run(tasks.ask(record, {None: b"{}"}, 5.0))
    assert keys == ["2"]
    with pytest.raises(TaskNotFound):
        run(tasks.deliver(None, "unknown", {"2": b"{}"}, 6.0))


def test_a_terminal_task_asks_nothing() -> None:
    tasks = engine()
    record = run(tasks.create(None, MODERN, 0.0))
    record = run(tasks.cancel(None, record.task_id, 1.0))
    with pytest.raises(TaskConflict):
        run(tasks.ask(record, {None: b"{}"}, 2.0))


def test_listeners_see_every_change() -> None:
    tasks = engine()
    seen: list[str] = []
    one: list[str] = []
    stop = tasks.listen(lambda r: seen.append(r.status))
    record = run(tasks.create(None, MODERN, 0.0))
    unwatch = tasks.watch(record, lambda r: one.append(r.status))
    record, _ = run(tasks.ask(record, {None: b"{}"}, 1.0))
    run(tasks.cancel(None, record.task_id, 2.0))
    assert seen == one == ["input_required", "cancelled"]
    stop()
    unwatch()
    other = run(tasks.create(None, MODERN, 0.0))
    run(tasks.cancel(None, other.task_id, 1.0))
    assert seen == one == ["input_required", "cancelled"]


def test_compare_and_set_retries_from_the_stored_record() -> None:
    tasks = engine()
    record = run(tasks.create(None, MODERN, 0.0))
    newer = run(tasks.report(record, "half way", 1.0))
    # A change from the stale record applies to the stored one.
    done = run(tasks.finish(record, 2.0, result=b"{}"))
    assert done.version == newer.version + 1
    assert done.status == "completed" and done.status_message is None


def test_the_store_is_bounded_dropping_expired_then_finished() -> None:
    store = MemoryTaskStore(limit=3)
    tasks = engine(store=store, ttl_ms=1_000)
    first = run(tasks.create(None, MODERN, 0.0))
    run(tasks.create(None, MODERN, 5.0))
    third = run(tasks.create(None, MODERN, 5.0))
    # The first has expired at 2.0: it makes room.
    run(tasks.create(None, MODERN, 5.5))
    assert len(store) == 3
    assert run(store.get("", first.task_id)) is None
    # None expired, none finished: full.
    with pytest.raises(StoreFull):
        run(tasks.create(None, MODERN, 5.6))
    run(tasks.finish(third, 5.7, result=b"{}"))
    fresh = run(tasks.create(None, MODERN, 5.8))
    assert run(store.get("", third.task_id)) is None
    assert run(store.get("", fresh.task_id)) is not None


def test_ten_thousand_tasks_stay_within_the_limit() -> None:
    store = MemoryTaskStore(limit=1_000)
    tasks = engine(store=store, ttl_ms=None)
    ids = []
    for i in range(10_000):
        record = run(tasks.create(None, MODERN, float(i)))
        run(tasks.finish(record, float(i), result=b"{}"))
        ids.append(record.task_id)
        assert len(store) <= 1_000
    assert len(store) == 1_000
    # The oldest went first: the last thousand are the ones kept.
    kept = {r.task_id for r in run(store.page("", None, 2_000))}
    assert kept == set(ids[-1_000:])


def test_pages_of_one_principal() -> None:
    tasks = engine()
    mine = [run(tasks.create("me", LEGACY, 0.0)).task_id for _ in range(5)]
    run(tasks.create("you", LEGACY, 0.0))
    first = run(tasks.page("me", None, 2, 0.0))
    assert [r.task_id for r in first] == mine[:2]
    rest = run(tasks.page("me", first[-1].task_id, 10, 0.0))
    assert [r.task_id for r in rest] == mine[2:]


def test_iso_timestamps() -> None:
    assert iso(0) == "1970-01-01T00:00:00.000Z"
    assert iso(1764066600.25) == "2025-11-25T10:30:00.250Z"
    assert iso(951782400) == "2000-02-29T00:00:00.000Z"


def test_rendering_per_era() -> None:
    tasks = engine(ttl_ms=60_000, poll_interval_ms=250)
    record = run(tasks.create(None, MODERN, 0.0))
    created = modern_created(record)
    assert created["resultType"] == "task"
    assert {"ttlMs", "pollIntervalMs", "taskId", "createdAt", "lastUpdatedAt"} <= set(created)
    assert not {"task", "ttl", "pollInterval", "result", "error", "requestState"} & set(created)
    record, _ = run(tasks.ask(record, {"k": b'{"method":"elicitation/create"}'}, 1.0))
    detailed = msgspec.json.decode(msgspec.json.encode(modern_detailed(record)))
    assert detailed["resultType"] == "complete"
    assert detailed["inputRequests"] == {"k": {"method": "elicitation/create"}}
    record = run(tasks.finish(record, 2.0, result=b'{"content":[]}'))
    detailed = msgspec.json.decode(msgspec.json.encode(modern_detailed(record, result_type=False)))
    assert detailed["result"] == {"content": []} and "resultType" not in detailed
    assert "inputRequests" not in detailed
    legacy = legacy_task(record)
    assert legacy["ttl"] == 60_000 and legacy["pollInterval"] == 250
    assert "ttlMs" not in legacy
    assert legacy_created(record) == {"task": legacy}
