# Reused tasks: a task that has done its job parks, and takes the next one.
#
# Spawning an anyio task costs more than the rest of a small request's round
# trip, so a task that has answered parks as an idle `Worker` (up to a limit) and
# takes the next job. `run_worker` is that loop, shared by the handler tasks of
# `transports.serving` and the pump's reader tasks, which park the same way.
#
# A worker serves its jobs in one cancel scope, which stands for the job it is
# serving (entering a scope per request cost a fifth of a round trip on trio): a
# cancellation cancels it, and the worker goes on in a new one. The scope is
# cancelled only while its request is registered as running, so what it catches
# belongs to that request, or hits the worker parked right after it (the request
# had shielded itself, or finished as the cancellation came); a job handed over
# just then is kept for the next scope, never run in the cancelled one.

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Final, Generic, TypeVar

import anyio

__all__ = ["MAX_IDLE_WORKERS", "Worker", "run_worker"]

MAX_IDLE_WORKERS: Final = 256
"""Handler tasks kept waiting for work per connection; more exit when done."""

_T = TypeVar("_T")


class Worker(Generic[_T]):
    """An idle task, waiting for its next job (a handler task's next request)."""

    __slots__ = ("_job", "_wake")

    def __init__(self) -> None:
        self._wake = anyio.Event()
        self._job: _T | None = None

    async def park(self, idle: list[Worker[_T]]) -> _T | None:
        self._wake = anyio.Event()
        idle.append(self)
        try:
            await self._wake.wait()
        except BaseException:
            # A job handed over as the wait was cancelled stays for `take`.
            if self in idle:
                idle.remove(self)
            raise
        return self.take()

    def take(self) -> _T | None:
        """The job handed over and not yet taken, if any."""
        job, self._job = self._job, None
        return job

    def start(self, job: _T | None) -> None:
        """Hand the worker a job, or None to make it exit."""
        self._job = job
        self._wake.set()


async def run_worker(
    job: _T | None,
    idle: list[Worker[_T]],
    limit: int,
    done: Callable[[], bool],
    run: Callable[[_T, anyio.CancelScope], Awaitable[object]],
) -> None:
    """The loop of a reused task: run ``job``, then park in ``idle`` for the next.

    Args:
        job: the first job, or None to park at once.
        idle: where idle workers of this kind wait to be handed a job.
        limit: idle workers kept; past it, the task exits when done.
        done: True once no more jobs will come (the task exits).
        run: runs one job in the cancel scope that stands for it.
    """
    worker: Worker[_T] | None = None
    while True:
        scope = anyio.CancelScope()
        with scope:
            while True:
                if job is None:
                    if done() or len(idle) >= limit:
                        return
                    if worker is None:
                        worker = Worker()
                    job = await worker.park(idle)
                    if job is None:
                        return  # told to exit
                    if scope.cancel_called:
                        break  # run it in a scope of its own, below
                current, job = job, None
                await run(current, scope)
        if job is None and worker is not None:
            job = worker.take()
