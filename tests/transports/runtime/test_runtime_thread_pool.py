"""The runtime's worker threads for plain-function handlers (transports/threads.py),
end to end and on their own: with the pool and with its plain-anyio fallback
(`anyio.to_thread`), on asyncio and trio.

What a handler could do in anyio's worker threads it can still do: contextvars of
the caller, `anyio.from_thread.run_sync` and ``run`` back to the loop; a cancelled
request stops waiting at once and its thread is abandoned; a handler that blocks
does not hold up another one queued behind it.
"""

from __future__ import annotations

import contextvars
import queue
import threading
import time
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

import anyio
import anyio.from_thread
import pytest
from runtime_helpers import BOTH_ERAS, LIMIT, connected, only_text

from mcp_core import Server
from transports import backend, threads

pytestmark = pytest.mark.anyio

_where: contextvars.ContextVar[str] = contextvars.ContextVar("where", default="unset")


@pytest.fixture(params=["pool", "anyio"])
def pool(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Every test runs with the pool, and with the plain-anyio fallback (the pool
    reaches its loop through transports/backend.py, which MCP_CORE_PLAIN_ANYIO=1
    turns off: the "pool" runs take it whatever the environment says)."""
    monkeypatch.setattr(backend, "native", request.param == "pool")
    threads.use_pool(request.param == "pool")
    try:
        yield str(request.param)
    finally:
        threads.use_pool(True)


class Gate:
    """A plain function blocked until the test opens the gate (bounded)."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.opened = threading.Event()
        self.saw_cancel = threading.Event()
        self.check_raised: list[str] = []
        self.finished = threading.Event()

    def block(self) -> str:
        self.entered.set()
        try:
            self.opened.wait(LIMIT)
            if threads.cancelled():
                self.saw_cancel.set()
            try:
                anyio.from_thread.check_cancelled()
            except BaseException as exc:  # the loop's cancellation exception
                self.check_raised.append(type(exc).__name__)
            return "through"
        finally:
            self.finished.set()


def make_server(gate: Gate) -> Server:
    server = Server("pool", "1")

    @server.tool
    def blocking() -> str:
        return gate.block()

    @server.tool
    def quick(text: str) -> str:
        return text

    @server.tool
    def from_thread() -> str:
        # Both ways back to the loop a worker of anyio's offered.
        here = threading.get_ident()
        loop_thread = anyio.from_thread.run_sync(threading.get_ident)

        async def on_the_loop() -> int:
            await anyio.sleep(0)
            return threading.get_ident()

        again = anyio.from_thread.run(on_the_loop)
        return "loop" if loop_thread == again != here else "elsewhere"

    return server


@BOTH_ERAS
async def test_a_blocked_handler_does_not_hold_up_the_next(
    anyio_backend: str, era: str, pool: str
) -> None:
    gate = Gate()
    server = make_server(gate)
    async with connected(server, era) as client, anyio.create_task_group() as tg:
        answers: list[str] = []

        async def call_blocking() -> None:
            answers.append(only_text(await client.call_tool("blocking", {})))

        tg.start_soon(call_blocking)
        await anyio.to_thread.run_sync(gate.entered.wait, LIMIT)
        assert only_text(await client.call_tool("quick", {"text": "a"})) == "a"
        assert not gate.finished.is_set()  # answered while the other still blocks
        gate.opened.set()
    assert answers == ["through"]


async def test_a_cancelled_request_abandons_its_thread(anyio_backend: str, pool: str) -> None:
    gate = Gate()
    async with connected(make_server(gate), "legacy") as client:
        async with anyio.create_task_group() as tg:
            tg.start_soon(client.call_tool, "blocking")
            await anyio.to_thread.run_sync(gate.entered.wait, LIMIT)
            tg.cancel_scope.cancel()
        # The server stopped waiting; the thread is still in the handler.
        assert only_text(await client.call_tool("quick", {"text": "b"})) == "b"
        assert not gate.finished.is_set()
        gate.opened.set()
        await anyio.to_thread.run_sync(gate.finished.wait, LIMIT)
        # As in anyio's threads, the handler can tell that its request was cancelled.
        expected = "Cancelled" if anyio_backend == "trio" else "CancelledError"
        assert gate.check_raised == [expected]
        if pool == "pool":
            assert gate.saw_cancel.is_set()


async def test_from_thread_reaches_the_loop(anyio_backend: str, pool: str) -> None:
    async with connected(make_server(Gate()), "modern") as client:
        assert only_text(await client.call_tool("from_thread", {})) == "loop"


# --- the hand-off on its own ------------------------------------------------------------


async def test_results_errors_and_contextvars(anyio_backend: str, pool: str) -> None:
    _where.set("caller")

    def read() -> str:
        return _where.get()

    def fail() -> None:
        raise KeyError("nope")

    def stop() -> None:
        raise StopIteration

    with anyio.fail_after(LIMIT):
        assert await threads.run_sync(read) == "caller"
        with pytest.raises(KeyError):
            await threads.run_sync(fail)
        with pytest.raises(RuntimeError):
            await threads.run_sync(stop)
        assert threading.get_ident() != await threads.run_sync(threading.get_ident)


async def test_many_at_once_each_get_their_own_answer(anyio_backend: str, pool: str) -> None:
    results: dict[int, int] = {}

    async def one(n: int) -> None:
        results[n] = await threads.run_sync(lambda: n * n)

    with anyio.fail_after(LIMIT):
        for _ in range(3):  # bursts, with the pool warm after the first
            async with anyio.create_task_group() as tg:
                for n in range(100):
                    tg.start_soon(one, n)
    assert results == {n: n * n for n in range(100)}


async def test_a_burst_behind_a_blocked_job_is_served(anyio_backend: str, pool: str) -> None:
    # Submitted together, the blocked job first: the others must not wait for it.
    opened = threading.Event()
    done: list[int] = []
    all_done = anyio.Event()

    async def one(n: int) -> None:
        done.append(await threads.run_sync(lambda: n))
        if len(done) == 8:
            all_done.set()

    with anyio.fail_after(LIMIT):
        async with anyio.create_task_group() as tg:
            tg.start_soon(threads.run_sync, lambda: opened.wait(LIMIT))
            for n in range(8):
                tg.start_soon(one, n)
            await all_done.wait()
            assert not opened.is_set()
            opened.set()
    assert sorted(done) == list(range(8))


# --- the brief wait (fast path) against the asynchronous wait (its reference) ----------


def _outcome_cases(loop_thread: int) -> dict[str, Callable[[], Any]]:
    def library() -> str:
        import sniffio

        try:
            return sniffio.current_async_library()
        except sniffio.AsyncLibraryNotFoundError:
            return "none"

    def back_to_the_loop() -> bool:
        # Needs the loop while its thread may be blocked in the brief wait.
        return anyio.from_thread.run_sync(threading.get_ident) == loop_thread

    def slow() -> str:
        time.sleep(threads.BRIEF_WAIT * 3)  # outlasts the brief wait: handed over
        return "slow"

    def stop() -> None:
        raise StopIteration

    def fail() -> None:
        raise KeyError("nope")

    return {
        "value": lambda: 42,
        "contextvar": _where.get,
        "library": library,
        "cancelled": threads.cancelled,
        "elsewhere": lambda: threading.get_ident() != loop_thread,
        "back": back_to_the_loop,
        "slow": slow,
        "stop": stop,
        "fail": fail,
    }


async def _outcome(fn: Callable[[], Any], brief: bool) -> tuple[str, Any]:
    try:
        return "value", await threads.run_sync(fn, brief=brief)
    except Exception as exc:
        return type(exc).__name__, str(exc)


async def test_the_brief_wait_gives_what_the_asynchronous_wait_gives(
    anyio_backend: str, pool: str
) -> None:
    _where.set("caller")
    cases = _outcome_cases(threading.get_ident())
    with anyio.fail_after(LIMIT):
        for name, fn in cases.items():
            for _ in range(2):  # the second call of "slow" skips the brief wait
                reference = await _outcome(fn, brief=False)
                fast = await _outcome(fn, brief=True)
                assert fast == reference, name
    assert [await _outcome(cases[name], brief=False) for name in ("value", "fail")] == [
        ("value", 42),
        ("KeyError", "'nope'"),
    ]


async def _batched_outcomes(fns: list[Callable[[], Any]]) -> list[tuple[str, Any]]:
    # What `transports.serving` does with the calls of one read: step each to its
    # `Batched`, wait for the batch, then finish each (here, or the asynchronous way).
    async def one(fn: Callable[[], Any]) -> Any:
        return await threads.run_batched(fn, threads.loop_inbox())

    calls = [one(fn) for fn in fns]
    marks = [call.send(None) for call in calls]
    assert all(type(mark) is threads.Batched for mark in marks)
    threads.wait_batch(marks)
    outcomes: list[tuple[str, Any]] = []
    for call, mark in zip(calls, marks, strict=True):
        if mark.finished:
            result, error = mark.outcome()
        else:
            try:
                result, error = await mark.wait(), None
            except Exception as exc:
                result, error = None, exc
        try:
            if error is None:
                call.send(result)
            else:
                call.throw(error)
        except StopIteration as stop:
            outcomes.append(("value", stop.value))
        except Exception as exc:
            outcomes.append((type(exc).__name__, str(exc)))
    return outcomes


async def test_a_batch_gives_what_the_asynchronous_wait_gives(
    anyio_backend: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(backend, "native", True)  # the pool, whatever the environment
    _where.set("caller")
    cases = _outcome_cases(threading.get_ident())
    with anyio.fail_after(LIMIT):
        for _ in range(2):  # the second time, "slow" is not waited for
            reference = [await _outcome(fn, brief=False) for fn in cases.values()]
            assert await _batched_outcomes(list(cases.values())) == reference


async def test_a_function_that_outlasts_the_brief_wait_skips_it_for_a_while(
    anyio_backend: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(backend, "native", True)  # the pool, whatever the environment
    entered, gate = threading.Event(), threading.Event()

    def slow() -> bool:
        entered.set()
        return gate.wait(LIMIT)  # cannot finish within the brief wait: the gate is shut

    with anyio.fail_after(LIMIT):
        inbox = threads._inbox()
        assert inbox is not None
        inbox.slow.clear()
        key = threads._key(slow)
        async with anyio.create_task_group() as tg:
            tg.start_soon(partial(threads.run_sync, slow, brief=True))
            # The loop's thread is blocked in the other task's brief wait from
            # before ``slow`` starts until that wait runs out: this task is woken
            # by the loop only after.
            await anyio.to_thread.run_sync(entered.wait, LIMIT)
            assert inbox.slow == {key: threads.SLOW_SKIPS}
            gate.set()
        assert await threads.run_sync(slow, brief=True)  # skips the brief wait
        assert inbox.slow == {key: threads.SLOW_SKIPS - 1}
        # Another function still waits briefly.
        assert await threads.run_sync(lambda: 1, brief=True) == 1
        assert key in inbox.slow


# --- the pool without an event loop: an inbox that hands results to a queue -------------


def _private_pool() -> tuple[threads._Pool, threads._Inbox, Any]:
    finished: queue.SimpleQueue[Any] = queue.SimpleQueue()

    def call_soon(drain: Callable[[], None]) -> None:
        drain()  # in the worker: there is no loop to go back to

    def resolve(job: threads._Job) -> None:
        finished.put(job.result)

    link = (call_soon, lambda: True, None, resolve)
    return threads._Pool(max_threads=8), threads._Inbox(link), finished  # type: ignore[arg-type]


def test_blocked_workers_get_company_and_idle_ones_leave(monkeypatch: pytest.MonkeyPatch) -> None:
    # Three jobs that can only finish together: the watchdog must add a worker
    # for each (the first worker to take one blocks in it). Idle past
    # IDLE_SECONDS with none to keep, every worker exits.
    monkeypatch.setattr(threads, "IDLE_SECONDS", 0.01)
    monkeypatch.setattr(threads, "KEEP", 0)
    pool, inbox, finished = _private_pool()
    together = threading.Barrier(3, timeout=LIMIT)
    before = set(threading.enumerate())
    for n in range(3):
        pool.submit(
            threads._Job(lambda n=n: (together.wait(), n)[1], contextvars.copy_context(), inbox)
        )
    assert sorted(finished.get(timeout=LIMIT) for _ in range(3)) == [0, 1, 2]
    workers = [t for t in threading.enumerate() if t not in before and t.name == "mcp-core worker"]
    assert len(workers) == 3
    for worker in workers:
        worker.join(LIMIT)
        assert not worker.is_alive()
