# Worker threads for plain-function (``def``) handlers: a warm pool and a cheap hand-off.
#
# Why not `anyio.to_thread.run_sync`. A handler written as a plain function may block
# (a file, a database driver), so the runtime runs it in a worker thread, and that
# hop used to be most of what such a call cost: anyio's per call machinery (a
# checkpoint, a CapacityLimiter, a CancelScope, a Queue per worker with its
# Condition, a `call_soon_threadsafe` per result) and one thread wake-up per call
# even when many calls are in flight. Here:
#
#   submit      the loop thread appends the job to the pool's queue and wakes one
#               sleeping worker only if no worker is awake and idle: a burst of
#               calls (16 in flight, read in one go) wakes one thread, which runs
#               them one after another.
#   blocking    a worker that takes a job while others wait behind it arms the
#               watchdog: a thread that looks every `GRACE` seconds whether the
#               queue moved, and, if not (every awake worker is stuck in a
#               handler), wakes or starts another worker. So a handler that blocks
#               stalls no other request for more than about `GRACE` (Go's runtime
#               retakes a processor from a blocked system call the same way).
#   completion  a worker appends its finished job to its event loop's `_Inbox` and
#               wakes the loop only when that inbox goes from empty to non-empty:
#               one wake-up carries every job finished meanwhile.
#   waiting     the calling task waits on the cheapest thing its loop offers (an
#               asyncio Future; trio's wait_task_rescheduled), which the inbox
#               resolves on the loop thread.
#   briefly     a caller with nothing else in flight (``brief=True``: one request
#               at a time) first waits for its job blocked, on a lock the worker
#               releases, for at most `BRIEF_WAIT`: a short handler then costs one
#               sleep of the loop's thread and no loop wake-up, future or task
#               switch (the caller's coroutine does not even suspend). Past
#               `BRIEF_WAIT` the job goes on as any other, and the next
#               `SLOW_SKIPS` calls of the same function skip the brief wait. So
#               a handler that blocks delays other requests by `BRIEF_WAIT` at
#               most, once in `SLOW_SKIPS` calls. `_wait_briefly` is the fast
#               path, the asynchronous wait its reference (``brief=False``, or
#               `use_brief_wait(False)`), and the tests hold both to the same
#               outcomes.
#   batched     a caller that steps several coroutines by hand (the serving of a
#               read of several requests, `transports/serving.py`) has each
#               call yield its job, unsubmitted (`Batched`, `run_batched`),
#               submits them together (`wait_batch`: one lock, one worker
#               wake-up) and waits for all of them blocked, up to `BRIEF_WAIT`
#               in all: one sleep of the loop's thread per read, not a loop
#               wake-up and a task step per call. A worker releases the batch's
#               lock when its last job finishes; what is not finished then
#               goes on the asynchronous way (`Batched.wait`), and the
#               functions still running skip the brief wait as above. A
#               function already known slow is submitted with the batch but
#               behind it, and not waited for.
#   cancelling  a cancelled caller stops waiting at once and its job is abandoned,
#               as ``abandon_on_cancel=True`` does: a job not yet started never
#               runs, a running one finishes on its own and its result is dropped
#               (its thread is not counted against `max_threads` meanwhile).
#
# The pool is the process's, shared by every event loop (a job carries its loop's
# inbox). Threads are daemons, kept warm: `KEEP` of them wait for work for ever,
# the others exit after `IDLE_SECONDS` without any.
#
# What a handler could do in anyio's worker threads still works: it runs in a copy
# of the caller's contextvars (with sniffio's "current async library" cleared, as
# anyio does), and `anyio.from_thread.run_sync` / `run` reach the caller's loop
# (anyio's thread-local loop token is set around the job, see
# `transports/backend.py:claim_anyio_token`). `cancelled()` tells a handler whose
# request was cancelled.
#
# Everything that depends on an event loop's internals is in transports/backend.py
# (`thread_link`, `anyio_thread_token`, `claim_anyio_token`). An event loop with no
# link, plain anyio (`backend.native` False, MCP_CORE_PLAIN_ANYIO=1) or
# `use_pool(False)` runs jobs with plain `anyio.to_thread.run_sync(fn,
# abandon_on_cancel=True)`. trio is never imported here.

from __future__ import annotations

import contextlib
import contextvars
import os
import threading
import time
from collections import deque
from collections.abc import Awaitable, Callable, Generator
from typing import Any, Final, TypeVar

import anyio
import anyio.to_thread

from . import backend

__all__ = [
    "BRIEF_WAIT",
    "Batched",
    "queued",
    "DEFAULT_MAX_THREADS",
    "GRACE",
    "IDLE_SECONDS",
    "KEEP",
    "SLOW_SKIPS",
    "cancelled",
    "loop_inbox",
    "run_batched",
    "run_sync",
    "set_max_threads",
    "submit_batch",
    "use_brief_wait",
    "use_pool",
    "wait_batch",
]

_T = TypeVar("_T")

DEFAULT_MAX_THREADS: Final = 40
"""Jobs run at once (anyio's default thread limiter has as many); more wait in
order. Abandoned jobs still running do not count."""

KEEP: Final = 2
"""Idle workers that never exit."""

IDLE_SECONDS: Final = 10.0
"""How long a worker beyond `KEEP` waits for work before it exits."""

GRACE: Final = 0.002
"""How long a queued job may wait while every awake worker is busy before the
watchdog adds a worker (the longest a blocking handler delays another)."""

BRIEF_WAIT: Final = 0.0003
"""How long a ``brief=True`` caller waits for its job with its thread blocked
before it waits the asynchronous way (a worker's wake-up takes 20-100 us on a
loaded 2-CPU machine; benchmarks/README.md, "def handlers, second pass")."""

SLOW_SKIPS: Final = 32
"""Calls of a function that skip the brief wait after one of its calls outlasted it."""

_MAX_SLOW: Final = 64
"""Functions remembered as slow per event loop (forgotten all at once past it)."""

_QUEUED: Final = 0
_RUNNING: Final = 1
_FINISHED: Final = 2


class _Job:
    """One call: the function and its context, then its outcome."""

    __slots__ = (
        "abandoned",
        "batch",
        "context",
        "error",
        "fn",
        "inbox",
        "result",
        "state",
        "submitted",
        "waiter",
        "woken",
    )

    def __init__(self, fn: Callable[[], Any], context: contextvars.Context, inbox: _Inbox) -> None:
        self.fn = fn
        self.context = context
        self.inbox = inbox
        self.state = _QUEUED
        self.abandoned = False
        self.result: Any = None
        self.error: BaseException | None = None
        #: What the loop side resolves (an asyncio Future, a trio task).
        self.waiter: Any = None
        #: The lock a caller waiting briefly is blocked on (released when finished).
        self.woken: threading.Lock | None = None
        #: The batch it was submitted with (`wait_batch`): ``woken`` is released
        #: only when the last of it finishes.
        self.batch: _Batch | None = None
        #: Handed to the pool already (by `_wait_briefly`).
        self.submitted = False


class _Batch:
    """Jobs submitted together, whose caller waits, blocked, for all of them."""

    __slots__ = ("left", "woken")

    def __init__(self, size: int) -> None:
        #: Jobs of the batch not finished yet (counted down under the pool's lock).
        self.left = size
        self.woken = threading.Lock()
        self.woken.acquire()


class _Worker:
    """A pool thread's wake-up: a lock held while it sleeps, released to wake it."""

    __slots__ = ("wake",)

    def __init__(self) -> None:
        self.wake = threading.Lock()
        self.wake.acquire()


_current = threading.local()


def cancelled() -> bool:
    """In a worker thread running a plain-function handler: True once the request
    it serves was cancelled (its answer will be dropped; stopping early is up to
    the handler). False anywhere else."""
    job = getattr(_current, "job", None)
    return job is not None and job.abandoned


class _Pool:
    """The process's worker threads (see the module's notes)."""

    def __init__(self, max_threads: int = DEFAULT_MAX_THREADS) -> None:
        self._lock = threading.Lock()
        self._jobs: deque[_Job] = deque()
        self._sleepers: list[_Worker] = []
        #: Workers awake with no job: each will look at the queue before sleeping.
        self._free = 0
        #: Worker threads, less those lost to an abandoned job still running.
        self._threads = 0
        self.max_threads = max_threads
        #: Jobs taken so far: the watchdog's sign that the queue moves.
        self._taken = 0
        self._watch = threading.Condition(self._lock)
        self._watching = False
        self._watchdog: threading.Thread | None = None
        #: Loops whose results a worker holds back while it runs more jobs.
        self._unwoken: set[_Inbox] = set()

    # --- the loop side ----------------------------------------------------------------

    def submit(self, job: _Job) -> None:
        with self._lock:
            self._jobs.append(job)
            if not self._free:
                self._add_worker()

    def submit_all(self, jobs: list[_Job]) -> None:
        with self._lock:
            self._jobs.extend(jobs)
            if not self._free:
                self._add_worker()

    def abandon(self, job: _Job) -> None:
        """The caller stopped waiting for ``job`` (again: nothing more)."""
        with self._lock:
            if job.abandoned:
                return
            job.abandoned = True
            if job.state == _RUNNING:
                self._threads -= 1  # its thread is lost to it until it returns

    def _add_worker(self) -> None:
        # Under the lock: wake the most recently idle worker, or start one.
        if self._sleepers:
            self._free += 1
            self._sleepers.pop().wake.release()
        elif self._threads < self.max_threads:
            self._free += 1
            self._threads += 1
            thread = threading.Thread(target=self._work, name="mcp-core worker", daemon=True)
            thread.start()

    # --- the worker threads -----------------------------------------------------------

    def _take(self) -> _Job | None:
        # Under the lock, by a free worker.
        jobs = self._jobs
        while jobs:
            job = jobs.popleft()
            if job.abandoned:
                continue  # cancelled before it started: never run
            self._free -= 1
            self._taken += 1
            job.state = _RUNNING
            if jobs:
                self._arm_watchdog()  # others wait behind a job that may block
            return job
        return None

    def _work(self) -> None:
        _no_wake_preemption()
        me: _Worker | None = None
        # Loops this worker has results for and has not woken yet.
        owed: set[_Inbox] | None = None
        # The lock of a caller waiting blocked for the job just finished.
        woken: threading.Lock | None = None
        lock = self._lock
        while True:
            with lock:
                job = self._take()
                if job is None:
                    if me is None:
                        me = _Worker()
                    self._free -= 1
                    self._sleepers.append(me)
            if woken is not None:
                # Released only now, right before this thread sleeps (or runs the
                # next job): the caller's thread, woken, would otherwise wait for
                # the GIL this thread still holds, one more sleep and wake-up.
                woken.release()
                woken = None
            if job is None:
                assert me is not None
                if not self._sleep(me):
                    return
                continue
            _run(job)
            inbox = job.inbox
            with lock:
                job.state = _FINISHED
                blocked = job.woken
                if blocked is not None:
                    # Its caller waits, blocked: released below (a batch's caller
                    # when the last job of the batch finishes).
                    batch = job.batch
                    if batch is None:
                        woken = blocked
                    else:
                        batch.left -= 1
                        if not batch.left:
                            woken = blocked
                elif job.abandoned:
                    if self._threads >= self.max_threads:
                        if owed:
                            for other in owed:
                                other.wake()
                        return  # replaced meanwhile
                    self._threads += 1
                else:
                    inbox.post(job)
                self._free += 1
                more = bool(self._jobs)
                if more and blocked is None:
                    self._unwoken.add(inbox)
                    self._arm_watchdog()  # it wakes loops whose results wait
            if blocked is not None:
                if not more and owed:
                    for other in owed:
                        other.wake()
                    owed.clear()
            elif more:
                # Jobs are waiting: run them before waking the loop, which would
                # take the GIL from this thread at once (its wake-up is a write,
                # and so are the answers it sends). One wake-up for the batch.
                if owed is None:
                    owed = set()
                owed.add(inbox)
            else:
                inbox.wake()
                if owed:
                    for other in owed:
                        other.wake()
                    owed.clear()

    def _sleep(self, me: _Worker) -> bool:
        # Wait to be woken (counted free by the waker); False: exit.
        if me.wake.acquire(timeout=IDLE_SECONDS):
            return True
        with self._lock:
            if me not in self._sleepers:
                me.wake.acquire()  # woken as the wait ended: the release is there
                return True
            if self._threads > KEEP:
                self._sleepers.remove(me)
                self._threads -= 1
                return False
        me.wake.acquire()
        return True

    # --- the watchdog -----------------------------------------------------------------

    def _arm_watchdog(self) -> None:
        # Under the lock.
        if not self._watching:
            self._watching = True
            self._ensure_watchdog()
            self._watch.notify()

    def _ensure_watchdog(self) -> None:
        if self._watchdog is None:
            self._watchdog = threading.Thread(
                target=self._watch_queue, name="mcp-core worker watchdog", daemon=True
            )
            self._watchdog.start()

    def _watch_queue(self) -> None:
        watch = self._watch
        while True:
            with watch:
                while not self._watching:
                    watch.wait()
                seen = self._taken
            time.sleep(GRACE)
            with watch:
                # Results a busy worker holds back for its batch wait at most GRACE.
                unwoken, self._unwoken = self._unwoken, set()
                jobs = self._jobs
                while jobs and jobs[0].abandoned:
                    jobs.popleft()
                if not jobs and not unwoken:
                    self._watching = False
                elif jobs and self._taken == seen and not self._free:
                    self._add_worker()  # every awake worker is stuck: one more
            for inbox in unwoken:
                inbox.wake()


def _no_wake_preemption() -> None:
    # Linux: a woken worker does not preempt the event loop's thread, which holds
    # the GIL when it wakes one (the worker would only wait for it).
    with contextlib.suppress(AttributeError, OSError):
        os.sched_setscheduler(0, os.SCHED_BATCH, os.sched_param(0))


def _run(job: _Job) -> None:
    _current.job = job
    token = job.inbox.anyio_token
    claimed = token is not None and backend.claim_anyio_token(token)
    try:
        job.result = job.context.run(job.fn)
    except BaseException as exc:
        job.error = exc
    finally:
        _current.job = None
        if claimed:
            backend.release_anyio_token()


_pool = _Pool()


def _reset_after_fork() -> None:
    # A child process has none of its parent's threads.
    global _pool
    _pool = _Pool(_pool.max_threads)
    _inboxes.__dict__.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset_after_fork)


def set_max_threads(count: int) -> None:
    """How many plain-function handlers run at once in the process (default
    `DEFAULT_MAX_THREADS`); more wait for a thread, in order."""
    if count < 1:
        raise ValueError("at least one thread")
    _pool.max_threads = count


def queued() -> int:
    """Jobs handed to the worker threads and not yet taken by one (a gauge of
    telemetry: the thread hand-off queue)."""
    return len(_pool._jobs)


_use_pool = True


def use_pool(enabled: bool) -> None:
    """False: run jobs with `anyio.to_thread.run_sync` (anyio's worker threads and
    default limiter) rather than this module's pool; for comparison and tests."""
    global _use_pool
    _use_pool = enabled


# --- the loop side of a job ---------------------------------------------------------------


class _Inbox:
    """Finished jobs of one event loop, handed back with one wake-up per batch.

    Workers append to a deque and wake the loop only when no wake-up is pending;
    the loop clears the flag before it empties the deque, so a job appended while
    it drains is either taken by that drain or wakes it again (at worst once too
    often). Every step is a single operation the GIL makes atomic.
    """

    __slots__ = (
        "_armed",
        "_done",
        "anyio_token",
        "call_soon",
        "current",
        "resolve",
        "slow",
        "wait",
    )

    def __init__(self, link: backend.ThreadLink) -> None:
        self._done: deque[_Job] = deque()
        self._armed = False
        #: Brief waits still to skip, by function (`_key`).
        self.slow: dict[int, int] = {}
        self.call_soon, self.current, self.wait, self.resolve = link
        #: anyio's loop token, for `anyio.from_thread` in a worker.
        self.anyio_token = backend.anyio_thread_token(cancelled)

    def post(self, job: _Job) -> None:
        """From a worker: ``job`` finished (`wake` the loop to hand it over)."""
        self._done.append(job)

    def wake(self) -> None:
        """From a worker: have the loop take what was posted, unless it will."""
        if not self._armed and self._done:
            self._armed = True
            # A RuntimeError: the loop has closed, nobody waits any more.
            with contextlib.suppress(RuntimeError):
                self.call_soon(self._drain)

    def _drain(self) -> None:
        self._armed = False
        done = self._done
        resolve = self.resolve
        while done:
            job = done.popleft()
            if not job.abandoned:
                resolve(job)


_inboxes = threading.local()


def _inbox() -> _Inbox | None:
    # The running loop's inbox (one per loop; a thread runs one loop at a time).
    inbox: _Inbox | None = getattr(_inboxes, "inbox", None)
    if inbox is not None and inbox.current():
        return inbox
    link = backend.thread_link(_submit, _abandon, _error)
    if link is None:
        return None
    inbox = _inboxes.inbox = _Inbox(link)
    return inbox


def loop_inbox() -> _Inbox | None:
    """The running event loop's link to the pool, for `run_batched` (None: this
    loop has none, its jobs go to anyio's threads)."""
    return _inbox()


async def run_sync(fn: Callable[[], _T], *, brief: bool = False) -> _T:
    """Run ``fn`` in a worker thread and return its result (or raise its
    exception). Cancelled, it stops waiting at once and abandons the job (see the
    module's notes).

    Args:
        fn: the function.
        brief: the caller has nothing else to do meanwhile (no other request of
            its connection in flight): wait for a short job with the loop's
            thread blocked, up to `BRIEF_WAIT`, rather than through the loop.
    """
    inbox = _inbox() if _use_pool else None
    if inbox is None:
        return await anyio.to_thread.run_sync(fn, abandon_on_cancel=True)
    job = _Job(fn, _job_context(), inbox)
    if brief and _brief_wait and _may_wait_briefly(inbox, fn) and _wait_briefly(job):
        error = _error(job)
        if error is not None:
            raise error
        done: _T = job.result
        return done
    result: _T = await inbox.wait(job)
    return result


def run_batched(fn: Callable[[], _T], inbox: _Inbox | None) -> Awaitable[_T]:
    """`run_sync` for a caller whose coroutine is being stepped by hand, with
    others, by one that knows `Batched` (`transports.serving`): awaited, it yields
    a `Batched` naming the job, unsubmitted, instead of waiting. Without the pool
    or its brief wait, `run_sync`'s coroutine. A plain function, not a coroutine:
    the request's chain of awaits is one frame shorter.

    ``inbox`` is the running loop's (`loop_inbox`), which a caller that serves
    on one loop only looks up once."""
    if inbox is None or not (_use_pool and _brief_wait):
        return run_sync(fn)
    context = contextvars.copy_context()  # as `_job_context`, inlined: a call less
    if _sniffio_cvar is not None:
        context.run(_sniffio_cvar.set, None)
    # No function known slow (the common case): no call to ask about this one.
    brief = not inbox.slow or _may_wait_briefly(inbox, fn)
    return Batched(_Job(fn, context, inbox), brief)


def _job_context() -> contextvars.Context:
    # What a job runs in: a copy of the caller's context, sniffio's "current
    # async library" cleared (as anyio does in its worker threads).
    context = contextvars.copy_context()
    if _sniffio_cvar is not None:
        context.run(_sniffio_cvar.set, None)
    return context


def _key(fn: Callable[[], Any]) -> int:
    # What identifies a function across calls: a partial's function, a bound
    # method's object (a handler is ``partial(info.call, ...)``: its FunctionInfo).
    target = getattr(fn, "func", fn)
    return id(getattr(target, "__self__", target))


def _may_wait_briefly(inbox: _Inbox, fn: Callable[[], Any]) -> bool:
    slow = inbox.slow
    if not slow:
        return True
    key = _key(fn)
    skips = slow.get(key)
    if skips is None:
        return True
    if skips > 1:
        slow[key] = skips - 1
    else:
        del slow[key]
    return False


def _wait_briefly(job: _Job) -> bool:
    # Submit ``job`` and wait for it with this thread blocked, up to BRIEF_WAIT;
    # False: not finished, and its result now comes through its inbox. Its
    # function is slow if the wait ran out, even if it finished just after.
    woken = job.woken = threading.Lock()
    woken.acquire()
    job.submitted = True
    pool = _pool
    pool.submit(job)
    if woken.acquire(True, BRIEF_WAIT):
        return True
    with pool._lock:
        job.woken = None
        finished = job.state == _FINISHED
    slow = job.inbox.slow
    if len(slow) >= _MAX_SLOW:
        slow.clear()
    slow[_key(job.fn)] = SLOW_SKIPS
    return finished


class Batched:
    """What awaiting a `run_batched` call first yields to the one stepping it by
    hand (never to an event loop): its job, not yet submitted. The stepper
    submits the jobs of several calls together (`wait_batch`), then sends each
    finished job's `outcome` into its coroutine (``send(result)`` or
    ``throw(error)``); a call it cannot finish so goes on the asynchronous way,
    `wait`, whose result or exception the stepper passes on the same way.
    ``brief`` False (its function outlasted a brief wait lately, `SLOW_SKIPS`):
    the batch does not wait for it."""

    __slots__ = ("brief", "job")

    def __init__(self, job: _Job, brief: bool) -> None:
        self.job = job
        self.brief = brief

    def __await__(self) -> Generator[Any, Any, Any]:
        return (yield self)

    @property
    def finished(self) -> bool:
        """The job has finished (after `wait_batch`): its `outcome` is there."""
        return self.job.state == _FINISHED

    def outcome(self) -> tuple[Any, BaseException | None]:
        """The finished job's result, or its exception (taken)."""
        job = self.job
        if job.error is None:  # the common case, without a call
            return job.result, None
        return job.result, _error(job)

    def abandon(self) -> None:
        """Its request was cancelled: give the job up now (see `cancelled`); the
        await, in the request's cancelled scope, then raises the cancellation."""
        _pool.abandon(self.job)

    async def wait(self) -> Any:
        """The asynchronous way: wait for the job as an unbatched call does
        (submitting it now if no batch did), and return its result or raise."""
        job = self.job
        if not job.submitted:
            return await job.inbox.wait(job)
        # Submitted with a batch whose caller no longer waits for it: from now on
        # the worker posts it to the inbox, whose waiter is set before the loop runs.
        with _pool._lock:
            job.woken = None
            waits = job.state != _FINISHED and not job.abandoned
        if waits:
            return await job.inbox.wait(job)
        try:
            # Where an unbatched call would wait: its request's cancellation lands here.
            await anyio.lowlevel.checkpoint()
        except BaseException:
            _pool.abandon(job)
            raise
        if job.abandoned:
            raise RuntimeError("the job was given up, but its request was not cancelled")
        result, error = self.outcome()
        if error is not None:
            raise error
        return result


def submit_batch(calls: list[Batched]) -> None:
    """Hand the jobs of ``calls`` to the workers together (one lock, at most one
    wake-up), their results held for their caller (`wait_batch`, `Batched.wait`)."""
    _submit_batch(calls, [])


def _submit_batch(waited: list[Batched], others: list[Batched]) -> _Batch:
    # The jobs of ``waited`` first, in a batch whose lock the caller may wait on;
    # those of ``others`` behind them (a slow one must not hold them up), held
    # the same way for `Batched.wait`.
    batch = _Batch(len(waited))
    jobs = []
    for calls, held in ((waited, batch), (others, _Batch(len(others)))):
        for call in calls:
            job = call.job
            job.woken = held.woken
            job.batch = held
            job.submitted = True
            jobs.append(job)
    _pool.submit_all(jobs)
    return batch


def wait_batch(calls: list[Batched]) -> None:
    """Submit the jobs of ``calls`` together and wait for those of the ``brief``
    ones with this thread blocked, up to `BRIEF_WAIT` in all: one sleep of the
    loop's thread for the batch. Then `Batched.finished` tells which finished;
    the functions of those still running when the wait ran out skip the brief
    wait, batched or not, for their next `SLOW_SKIPS` calls."""
    waited = [call for call in calls if call.brief]
    others = [call for call in calls if not call.brief] if len(waited) < len(calls) else []
    if not waited:
        _submit_batch(waited, others)
        return
    if _submit_batch(waited, others).woken.acquire(True, BRIEF_WAIT):
        return
    for call in waited:
        job = call.job
        if job.state == _RUNNING:  # not one still queued behind a slow one
            slow = job.inbox.slow
            if len(slow) >= _MAX_SLOW:
                slow.clear()
            slow[_key(job.fn)] = SLOW_SKIPS


_brief_wait = True


def use_brief_wait(enabled: bool) -> None:
    """False: every caller waits the asynchronous way (the reference path of the
    brief wait; for comparison and tests)."""
    global _brief_wait
    _brief_wait = enabled


def _submit(job: _Job) -> None:
    if not job.submitted:
        _pool.submit(job)


def _abandon(job: _Job) -> None:
    _pool.abandon(job)


def _error(job: _Job) -> BaseException | None:
    # The job's exception, taken (no cycle through its traceback); StopIteration
    # cannot cross a coroutine (anyio makes it a RuntimeError too).
    error, job.error = job.error, None
    if isinstance(error, StopIteration):
        wrapped = RuntimeError("the function raised StopIteration")
        wrapped.__cause__ = error
        return wrapped
    return error


try:
    import sniffio

    _sniffio_cvar: contextvars.ContextVar[str | None] | None = sniffio.current_async_library_cvar
except ImportError:  # pragma: no cover - anyio works without sniffio
    _sniffio_cvar = None
