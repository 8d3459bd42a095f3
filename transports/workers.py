# The handler tasks of a driver: who serves the peer's requests, and how they stop.
#
# Theory of operation. Each RequestReceived is registered in `Workers.serving`
# the moment the session reports it, so that notifications/cancelled (or a look at
# what is in flight) finds it before any task has taken it up. It is then served
# in a handler task: an idle one if there is one, else a new one; or, when a
# transport serves it in its own task (`Driver.feed_inline`), there.
#
# Handler tasks are reused: spawning an anyio task costs more than the rest of a
# small request's round trip, so a task that has answered parks as an idle
# `Worker` (up to MAX_IDLE_WORKERS) and takes the next request. `run_worker` is
# that loop, shared with the pump's reader tasks, which park the same way.
#
# A worker serves its jobs in one cancel scope, which stands for the job it is
# serving (entering a scope per request cost a fifth of a round trip on trio): a
# cancellation cancels it, and the worker goes on in a new one. The scope is
# cancelled only while its request is registered as running, so what it catches
# belongs to that request, or hits the worker parked right after it (the request
# had shielded itself, or finished as the cancellation came); a job handed over
# just then is kept for the next scope, never run in the cancelled one.
#
# A request cancelled before a task took it up is skipped: not run, not answered
# (2025-11-25 basic/utilities/cancellation: the receiver should not respond).
# At most `max_concurrency` handlers run at once; the rest wait for a slot, in
# order, on a counting semaphore that costs one comparison when a slot is free.

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Final, Generic, TypeVar

import anyio
from anyio.abc import TaskGroup
from msgspec import UNSET

from mcp_core import LocalProtocolError, McpError
from mcp_core.session import RequestReceived
from mcp_core.session.base import BaseSession
from mcp_core.wire import RequestId

if TYPE_CHECKING:
    from .driver import Driver

__all__ = ["MAX_IDLE_WORKERS", "Worker", "Workers", "failure_answer", "run_worker"]

MAX_IDLE_WORKERS: Final = 256
"""Handler tasks kept waiting for work per connection; more exit when done."""

_T = TypeVar("_T")

log = logging.getLogger("mcp_core")


def failure_answer(session: BaseSession, request_id: RequestId, exc: Exception) -> tuple[Any, ...]:
    """How to answer a request whose serving raised ``exc``: the session's send,
    then its arguments. An `McpError` goes with its own code, message and data;
    anything else is -32603 and logged (the application layer logs and converts
    what handlers raise: what reaches here is a failure of the dispatch itself).
    """
    if isinstance(exc, McpError):
        data = UNSET if exc.data is None else exc.data
        return session.send_error, request_id, exc.code, exc.message, data
    log.error("serving request %r failed", request_id, exc_info=exc)
    return session.fail_request, request_id, exc


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
    run: Callable[[_T, anyio.CancelScope], Awaitable[None]],
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


class Workers:
    """The peer's requests a driver serves: their tasks, cancellation and slots.

    Args:
        driver: the driver whose session answers (and which says when it closed).
        task_group: where handler tasks run.
        handle_request: answers a RequestReceived (see `Driver`).
        max_concurrency: requests served at once.
    """

    def __init__(
        self,
        driver: Driver,
        task_group: TaskGroup,
        handle_request: Callable[[RequestReceived], Awaitable[Any]],
        max_concurrency: int,
    ) -> None:
        self._driver = driver
        self._tg = task_group
        self._handle_request = handle_request
        #: Requests of the peer being served, with the cancel scope that cancels
        #: each (None: not started yet, or nothing to cancel).
        self.serving: dict[RequestId, anyio.CancelScope | None] = {}
        # Those cancelled before they started are skipped (made on first use).
        self._cancelled_early: set[RequestId] | None = None
        self._idle_workers: list[Worker[RequestReceived]] = []
        self._max_concurrency = max_concurrency
        self._active = 0
        # Made on first use: an idle connection should cost little (a deque is
        # 600 bytes, more than the rest of an idle HTTP session's driver).
        self._slot_waiters: deque[anyio.Event] | None = None
        self._idle: anyio.Event | None = None

    def dispatch(self, event: RequestReceived) -> None:
        """Serve a request in a handler task: an idle worker, or a new one."""
        idle = self._idle_workers
        if idle:
            idle.pop().start(event)
        else:
            self._tg.start_soon(self._work, event)

    def cancel(self, request_id: RequestId) -> None:
        """The peer cancelled a request being served, or about to be."""
        if request_id not in self.serving:
            return
        scope = self.serving[request_id]
        if scope is not None:
            scope.cancel()
            return
        if self._cancelled_early is None:
            self._cancelled_early = set()
        self._cancelled_early.add(request_id)

    def close(self) -> None:
        """Cancel every handler, and make every idle worker exit."""
        for scope in self.serving.values():
            if scope is not None:
                scope.cancel()
        for worker in self._idle_workers:
            worker.start(None)
        self._idle_workers.clear()

    def _done(self) -> bool:
        return self._driver.closed

    async def _work(self, job: RequestReceived | None) -> None:
        await run_worker(job, self._idle_workers, MAX_IDLE_WORKERS, self._done, self.serve)

    async def serve(self, event: RequestReceived, scope: anyio.CancelScope | None) -> None:
        """Serve one request in the calling task and answer it.

        Args:
            event: the request, registered in `serving` when it was received.
            scope: the cancel scope that cancels it from now on, or None if it
                is cancelled some other way (see `Driver.serving_in`).
        """
        driver = self._driver
        request_id = event.id
        early = self._cancelled_early
        if driver.closed or (early is not None and request_id in early):
            # Cancelled before it started, or the connection ended.
            if early is not None:
                early.discard(request_id)
            self._served(request_id)
            return
        if scope is not None:
            self.serving[request_id] = scope
        session = driver.session
        try:
            if self._active >= self._max_concurrency:
                await self._wait_for_slot()
            else:
                self._active += 1
            try:
                result = await self._handle_request(event)
            finally:
                if self._slot_waiters:
                    self._release_slot()
                else:
                    self._active -= 1  # `_release_slot` when nobody waits, inlined
        except Exception as exc:
            self._answer(request_id, *failure_answer(session, request_id, exc))
        else:
            # `_answer`, inlined: this is every request's way out.
            if not driver.closed:
                try:
                    session.send_response(request_id, result)
                except LocalProtocolError:
                    pass  # the request is gone: cancelled, or the session closed
                else:
                    driver.flush(request_id)
        finally:
            # Made meanwhile, perhaps: a request served without a scope of its own
            # notes its cancellation there.
            early = self._cancelled_early
            if early is not None:
                early.discard(request_id)
            # `_served`, inlined.
            serving = self.serving
            serving.pop(request_id, None)
            if not serving and self._idle is not None:
                self._idle.set()

    def _served(self, request_id: RequestId) -> None:
        self.serving.pop(request_id, None)
        if not self.serving and self._idle is not None:
            self._idle.set()

    def _answer(self, related: RequestId, send: Callable[..., None], *args: Any) -> None:
        driver = self._driver
        if driver.closed:
            return
        try:
            send(*args)
        except LocalProtocolError:
            return  # the request is gone: cancelled, or the session closed
        driver.flush(related)

    async def finish(self, timeout: float) -> None:
        """Wait, at most ``timeout`` seconds, for the requests in flight to end."""
        if not self.serving:
            return
        self._idle = anyio.Event()
        with anyio.move_on_after(timeout):
            await self._idle.wait()
        self._idle = None

    # A counting semaphore without anyio's checkpoints: the common case (a free
    # slot) costs one comparison. A finishing handler hands its slot straight to
    # the oldest waiter.

    async def _wait_for_slot(self) -> None:
        ready = anyio.Event()
        if self._slot_waiters is None:
            self._slot_waiters = deque()
        self._slot_waiters.append(ready)
        try:
            await ready.wait()
        except BaseException:
            if ready.is_set():
                self._release_slot()  # handed a slot while being cancelled: pass it on
            else:
                self._slot_waiters.remove(ready)
            raise

    def _release_slot(self) -> None:
        if self._slot_waiters:  # None or empty: nobody waits
            self._slot_waiters.popleft().set()
        else:
            self._active -= 1
