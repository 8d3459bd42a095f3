"""What the async layers share: bursts of calls, and the CPU clock of a server process.

A timed operation is a burst of ``calls`` identical calls made by ``in_flight``
tasks at once, each making its share one after another; the figures are divided
back to one call (`harness.scaled`). The latency variant of a burst times every
call on its own, inside the same concurrency, so a call's wait for the others is
part of its latency, as it is for a user.
"""

from __future__ import annotations

import os
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio

from .harness import AsyncOperation, CpuClock, LatencyOperation

__all__ = ["Call", "burst", "children", "latency_burst", "process_cpu"]

Call = Callable[[], Awaitable[Any]]


def burst(call: Call, in_flight: int, calls: int) -> AsyncOperation:
    """``calls`` calls from ``in_flight`` tasks at once."""
    if in_flight == 1:
        sequence = range(calls)

        async def sequential() -> None:
            for _ in sequence:
                await call()

        return sequential
    share = range(calls // in_flight)

    async def worker() -> None:
        for _ in share:
            await call()

    async def concurrent() -> None:
        async with anyio.create_task_group() as tg:
            for _ in range(in_flight):
                tg.start_soon(worker)

    return concurrent


def latency_burst(call: Call, in_flight: int, calls: int) -> LatencyOperation:
    """`burst`, with each call's duration in nanoseconds appended to a list."""
    clock = time.perf_counter_ns
    share = range(max(1, calls // in_flight))

    async def worker(durations: list[int]) -> None:
        for _ in share:
            start = clock()
            await call()
            durations.append(clock() - start)

    if in_flight == 1:
        return worker

    async def concurrent(durations: list[int]) -> None:
        async with anyio.create_task_group() as tg:
            for _ in range(in_flight):
                tg.start_soon(worker, durations)

    return concurrent


def process_cpu(pid: int) -> CpuClock | None:
    """The CPU clock of process ``pid``: seconds its threads have run, to the
    nanosecond (Linux ``/proc/PID/task/*/schedstat``); None where there is no such
    file. Threads that have exited no longer count."""
    tasks = Path(f"/proc/{pid}/task")
    if not (tasks / str(pid) / "schedstat").exists():
        return None

    def seconds() -> float:
        total = 0
        for task in os.listdir(tasks):
            try:
                total += int((tasks / task / "schedstat").read_text().split()[0])
            except (OSError, ValueError, IndexError):
                continue  # the thread ended between the listing and the read
        return total / 1e9

    return seconds


def children() -> set[int]:
    """The ids of our child processes (Linux; empty elsewhere). The difference
    before and after a connection is the server a client spawned itself."""
    found: set[int] = set()
    me = os.getpid()
    try:
        threads = os.listdir(f"/proc/{me}/task")
    except OSError:
        return found
    for thread in threads:
        try:
            found.update(
                int(pid) for pid in Path(f"/proc/{me}/task/{thread}/children").read_text().split()
            )
        except OSError:
            continue
    return found
