# Serving the peer's requests: the one way a request is served in `transports/`,
# whatever the transport and the era.
#
# Theory of operation. The job is the session's `RequestReceived`. A link (a
# `Driver`, or a `OneRequest` for a 2026-07-28 request on a session of its own)
# holds one `Serving`, which decides where each job runs and answers it:
#
#     session event RequestReceived (the job)
#              |
#     Serving.take ---- registered in `serving`: cancellable from now on
#         |                                   |
#         | kept by the caller (`keep`)       | else
#         v                                   v
#     HERE, in the task that read it      a handler TASK (`in_task`: a reused
#     (stdio's reader, HTTP's POST)        worker, `transports.workers`)
#         |                                   |
#         +-------------> Serving.serve <-----+   slot, handler, answer
#   (or Serving.start: served up to   |
#    the handler's first wait)        |
#              handler: the application (`Server.dispatch`); a `def`
#              handler's body runs in a worker THREAD (`Serving.run_sync`,
#              `transports.threads`), an `async def` one in the task
#                                     |
#                       Serving._answer ---- the one place answers leave:
#                                     |      the session's send, then link.flush
#                                     v
#                               the link's sink
#
# Served HERE, a caller may want to know when the handler first waits (stdio:
# the reading then goes on in another task; HTTP: the answer's writer starts):
# `Serving.start` serves up to that point and returns the rest to await, or
# None when the job was answered at once. That is the one place a coroutine is
# stepped by hand (`_first_step`); the reference beside it (``HAND_STEPPED``
# False) assumes every handler waits, and a differential test
# (tests/transports/runtime/test_serving.py) holds the two to the same answers
# on the wire. See `_first_step` for what the stepping saves.
#
# A read of several (stdio: `more_to_serve`), batched. `start` steps each
# request of the read, in a context of its own, to its first wait; a `def`
# handler's thread job (`Serving.run_sync`) is then not submitted but named
# (`threads.Batched`), and the request is held. Once the read is stepped the
# caller calls `run_batch`: the held jobs go to the workers together, the
# loop's thread waits for them blocked, up to `threads.BRIEF_WAIT` in all (one
# sleep and wake-up per read instead of a loop wake-up and a task step per
# call), and each finished one is resumed and answered right there, its answer
# held for the read's one write. What the batch cannot finish (a job still
# running or queued, a request cancelled meanwhile, the link closed) goes on in
# a handler task of its own, in its own cancel scope, waiting the asynchronous
# way (`threads.Batched.wait`), as it would have without the batch. Only a
# coroutine whose awaits down to the job are all mcp_core's and transports'
# (`_movable`: they hold nothing bound to a task across it) is held: a
# handler's own `await ctx.run_sync(...)` is not, and this task keeps it.
# ``BATCHED`` False is the reference, which the differential test holds to the
# same answers on the wire.
#
# Cancellation. A job's cancel scope is the one given to `serve` (a handler
# task's, the reader task's, the POST's), registered in `serving`; a job
# cancelled before it started is skipped: not run, not answered (2025-11-25
# basic/utilities/cancellation.mdx: the receiver should not respond). At most
# ``max_concurrency`` handlers run at once; the rest wait for a slot, in order,
# on a counting semaphore that costs one comparison when a slot is free.

from __future__ import annotations

import contextvars
import inspect
import logging
import os
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine, Generator
from functools import partial
from types import CoroutineType
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import anyio
from anyio.abc import TaskGroup
from msgspec import UNSET

import mcp_core
from mcp_core import LocalProtocolError, McpError
from mcp_core.session import RequestReceived
from mcp_core.session.base import BaseSession
from mcp_core.wire import RequestId

from . import threads
from .workers import MAX_IDLE_WORKERS, Worker, run_worker

if TYPE_CHECKING:
    from mcp_core import ServerSession

__all__ = ["BATCHED", "HAND_STEPPED", "Serving", "failure_answer"]

_T = TypeVar("_T")

log = logging.getLogger("mcp_core")

HAND_STEPPED = True
"""`Serving.start` takes the handler's first step by hand (`_first_step`); tests
set it False to run the plain reference instead."""

BATCHED = True
"""While a read of several is served (`Serving.more_to_serve`), `Serving.start`
batches the thread jobs the requests first wait for (`Serving.run_batch`); tests
set it False to run the reference, every such request waiting on its own."""


class Link(Protocol):
    """What a `Serving` answers through: a `Driver`, or a `OneRequest`."""

    @property
    def session(self) -> BaseSession | ServerSession: ...

    @property
    def closed(self) -> bool: ...

    def flush(self, related: RequestId | None = None) -> None: ...


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


class Serving:
    """The peer's requests one link serves: where each runs, its cancellation,
    its slot, its answer.

    Args:
        link: whose session answers, and which says when it closed.
        task_group: where handler tasks run (None: every job is served where it
            is kept, as a `OneRequest`'s is).
        handle_request: answers a RequestReceived: returns the result, or raises
            (McpError: that error; anything else: -32603).
        max_concurrency: requests served at once.
    """

    __slots__ = (
        "_active",
        "_batch",
        "_cancelled_early",
        "_handle_request",
        "_idle",
        "_idle_resumers",
        "_idle_workers",
        "_inbox",
        "_link",
        "_max_concurrency",
        "_slot_waiters",
        "_stepping",
        "_tg",
        "keep",
        "more_to_serve",
        "serving",
    )

    def __init__(
        self,
        link: Link,
        task_group: TaskGroup | None,
        handle_request: Callable[[RequestReceived], Awaitable[Any]],
        max_concurrency: int,
    ) -> None:
        self._link = link
        self._tg = task_group
        self._handle_request = handle_request
        #: Requests of the peer being served, with the cancel scope that cancels
        #: each (None: not started yet, or nothing to cancel).
        self.serving: dict[RequestId, anyio.CancelScope | None] = {}
        #: Set by a transport while it holds more requests, read and not yet
        #: served, behind the one being served (a pump serving a read of several):
        #: a `def` handler should not hold the loop then (`run_sync`).
        self.more_to_serve = False
        #: While not None, `take` keeps jobs here for the caller to serve.
        self.keep: list[RequestReceived] | None = None
        # Those cancelled before they started are skipped (made on first use).
        self._cancelled_early: set[RequestId] | None = None
        self._idle_workers: list[Worker[RequestReceived]] = []
        self._idle_resumers: list[Worker[_Stepped]] = []
        self._max_concurrency = max_concurrency
        self._active = 0
        # Made on first use: an idle connection should cost little (a deque is
        # 600 bytes, more than the rest of an idle HTTP session's driver).
        self._slot_waiters: deque[anyio.Event] | None = None
        self._idle: anyio.Event | None = None
        # Requests stepped to a thread job and held for `run_batch`, and whether a
        # request of a read of several is being stepped (`run_sync` batches then).
        self._batch: list[_Stepped] = []
        self._stepping = False
        # The loop's link to the thread pool, once looked up (`run_sync`).
        self._inbox: threads._Inbox | None = None

    # --- where a job runs -------------------------------------------------------------

    def take(self, job: RequestReceived) -> None:
        """A job the session just reported: registered (a cancellation, or a look at
        what is in flight, finds it from now on), then kept for the caller, or
        handed to a handler task."""
        self.serving[job.id] = None
        keep = self.keep
        if keep is not None:
            keep.append(job)
        else:
            self.in_task(job)

    def in_task(self, job: RequestReceived) -> None:
        """Serve a job in a handler task: an idle worker, or a new one."""
        idle = self._idle_workers
        if idle:
            idle.pop().start(job)
        else:
            assert self._tg is not None, "this link serves its jobs where they are kept"
            self._tg.start_soon(self._work, job)

    async def _work(self, job: RequestReceived | None) -> None:
        await run_worker(job, self._idle_workers, MAX_IDLE_WORKERS, self._done, self.serve)

    def _done(self) -> bool:
        return self._link.closed

    def run_sync(self, fn: Callable[[], _T]) -> Awaitable[_T]:
        """Run a `def` handler's body in a worker thread (`transports.threads`); a
        cancelled request stops waiting, its thread finishes on its own.

        Alone in flight on its connection (nothing else served, nothing read and
        waiting), the loop waits for a short job blocked (``brief``): it has
        nothing else of this connection to do meanwhile. Stepped by `start` in a
        read of several, the job joins the read's batch (`run_batch`)."""
        if self._stepping:
            inbox = self._inbox
            if inbox is None:  # looked up once: a link serves on one loop
                inbox = self._inbox = threads.loop_inbox()
            return threads.run_batched(fn, inbox)
        alone = len(self.serving) <= 1 and not self.more_to_serve
        return threads.run_sync(fn, brief=alone)

    # --- serving ----------------------------------------------------------------------

    async def serve(self, job: RequestReceived, scope: anyio.CancelScope | None = None) -> None:
        """Serve one job in the calling task and answer it.

        This is every request's way through `transports/` (a handler task's, a
        reader's, an HTTP POST's): the place to hook tracing.

        Args:
            job: the request, registered by `take`.
            scope: the cancel scope that cancels it from now on, or None when the
                caller's own scope is how it is cancelled (nothing else will).
        """
        link = self._link
        request_id = job.id
        early = self._cancelled_early
        if link.closed or (early is not None and request_id in early):
            # Cancelled before it started, or the connection ended.
            self._served(request_id)
            return
        if scope is not None:
            self.serving[request_id] = scope
        session = link.session
        try:
            if self._active >= self._max_concurrency:
                await self._wait_for_slot()
            else:
                self._active += 1
            try:
                result = await self._handle_request(job)
            finally:
                self._release_slot()
        except Exception as exc:
            self._answer(request_id, *failure_answer(session, request_id, exc))
        else:
            self._answer(request_id, session.send_response, request_id, result)
        finally:
            self._served(request_id)

    def start(
        self, job: RequestReceived, scope: anyio.CancelScope | None = None
    ) -> Awaitable[None] | None:
        """`serve`, up to the handler's first wait: None if the job was answered at
        once, else what to await for the rest (the caller may first pass on what
        else it was doing: stdio's reading, HTTP's answer writing).

        While `more_to_serve` is set, None also when the request waits for a
        thread job held for `run_batch`, which the caller must call before it
        next waits itself (see the module's notes)."""
        if not HAND_STEPPED:
            return self.serve(job, scope)  # the reference: assume it waits
        if not (self.more_to_serve and BATCHED):
            return _first_step(self.serve(job, scope))
        # A request of a read of several: a thread job it first waits for joins
        # the read's batch, and the caller must `run_batch` before it next
        # waits. Stepped in a context of its own, as a task would run it: the
        # requests of a batch interleave, and one may end in another task.
        context = contextvars.copy_context()
        coro = self.serve(job, None)  # until it waits, nothing can cancel it
        self._stepping = True
        try:
            first = context.run(coro.send, None)
        except StopIteration:
            return None
        finally:
            self._stepping = False
        if type(first) is threads.Batched and _movable(coro):
            self._batch.append((job.id, coro, first, context))
            return None
        # It waits (or its thread job was awaited by code that must stay in this
        # task): this task keeps it, the jobs batched so far go on without it.
        self._batch_to_tasks()
        self._own(job.id, scope)
        return _Resumed(coro, first, context)

    def run_batch(self, scope: anyio.CancelScope | None = None) -> Awaitable[None] | None:
        """Finish the requests `start` batched: their thread jobs go to the workers
        together and the loop's thread waits for them, blocked, up to
        `threads.BRIEF_WAIT` in all; each finished one is answered here, the
        others go on in handler tasks. Returns what to await when one of them,
        resumed, waits again (this task keeps it, in ``scope``), else None."""
        batch = self._batch
        if not batch:
            return None
        self._batch = []
        threads.wait_batch([stepped[2] for stepped in batch])
        link = self._link
        kept: Awaitable[None] | None = None
        for stepped in batch:
            request_id, coro, call, context = stepped
            early = self._cancelled_early
            if link.closed or (early is not None and request_id in early):
                call.abandon()  # now, as a cancelled wait would (its task ends it)
                self._in_task(stepped)
                continue
            if kept is not None or not call.finished:
                self._in_task(stepped)
                continue
            result, error = call.outcome()
            try:
                if error is None:
                    yielded = context.run(coro.send, result)
                else:
                    yielded = context.run(coro.throw, error)
            except StopIteration:
                continue  # answered
            self._own(request_id, scope)
            kept = _Resumed(coro, yielded, context)
        return kept

    def _batch_to_tasks(self) -> None:
        batch = self._batch
        if batch:
            self._batch = []
            threads.submit_batch([stepped[2] for stepped in batch])
            for stepped in batch:
                self._in_task(stepped)

    def _in_task(self, stepped: _Stepped) -> None:
        # A batched request whose job the batch did not finish, or that was
        # cancelled meanwhile: the rest, in a handler task (and its cancel scope)
        # of its own, reused as `in_task`'s are.
        idle = self._idle_resumers
        if idle:
            idle.pop().start(stepped)
        else:
            assert self._tg is not None, "this link serves its jobs where they are kept"
            self._tg.start_soon(self._resume_rest, stepped)

    async def _resume_rest(self, stepped: _Stepped | None) -> None:
        await run_worker(stepped, self._idle_resumers, MAX_IDLE_WORKERS, self._done, self._resume)

    async def _resume(self, stepped: _Stepped, scope: anyio.CancelScope) -> None:
        request_id, coro, call, context = stepped
        self._own(request_id, scope)
        await _Resumed(coro, call, context)

    def _own(self, request_id: RequestId, scope: anyio.CancelScope | None) -> None:
        # ``scope`` cancels the request from now on (it was served with none).
        if scope is None or request_id not in self.serving:
            return
        self.serving[request_id] = scope
        early = self._cancelled_early
        if self._link.closed or (early is not None and request_id in early):
            scope.cancel()

    def _answer(self, related: RequestId, send: Callable[..., None], *args: Any) -> None:
        # The one place answers leave: the session's send, then the link's flush.
        link = self._link
        if link.closed:
            return
        try:
            send(*args)
        except LocalProtocolError:
            return  # the request is gone: cancelled, or the session closed
        link.flush(related)

    def _served(self, request_id: RequestId) -> None:
        early = self._cancelled_early
        if early is not None:
            early.discard(request_id)
        serving = self.serving
        serving.pop(request_id, None)
        if not serving and self._idle is not None:
            self._idle.set()

    # --- cancellation and the end -----------------------------------------------------

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
        for resumer in self._idle_resumers:
            resumer.start(None)
        self._idle_resumers.clear()

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


# --- knowing when a handler first waits ------------------------------------------------


_Stepped = tuple[RequestId, Coroutine[Any, Any, None], threads.Batched, contextvars.Context]
"""A request `Serving.start` batched: its id, its coroutine, the thread job it
waits for, and the context it runs in."""

_OURS = (
    os.path.dirname(inspect.getfile(mcp_core)) + os.sep,
    os.path.dirname(__file__) + os.sep,
)
_our_code: set[Any] = set()


def _movable(coro: Coroutine[Any, Any, None]) -> bool:
    # May the rest of ``coro`` run in another task? Only if every coroutine it
    # awaits down to the thread job is of mcp_core or transports, which hold
    # nothing bound to the task they run in (no cancel scope, task group or
    # task handle) across that await, only context variables, which go with
    # the coroutine (its own context). A handler's or a middleware's own await
    # of `ctx.run_sync` may hold anything: not batched, this task keeps it.
    awaited: Any = coro
    our_code = _our_code
    while type(awaited) is CoroutineType:
        code = awaited.cr_code
        if code not in our_code:
            if not code.co_filename.startswith(_OURS):
                return False
            our_code.add(code)
        awaited = awaited.cr_await
    return getattr(awaited, "gi_code", None) is _BATCHED_CODE


_BATCHED_CODE = threads.Batched.__await__.__code__


def _first_step(coro: Coroutine[Any, Any, None]) -> Awaitable[None] | None:
    # The handler's first step, taken by hand: most handlers answer at once, and
    # then the caller passes nothing on and starts nothing. Against the
    # reference (`Serving.start` with ``HAND_STEPPED`` False: always assume a
    # wait), this saves a task switch per request on stdio (the reading passed
    # to another task) and a writer task per SSE answer on HTTP: measured in
    # benchmarks/README.md ("One serving model"), 239,277 -> 188,352
    # instructions per stdio call. Against wrapping every step (`await`
    # re-implemented), a frame per resume of a handler that waits.
    try:
        first = coro.send(None)
    except StopIteration:
        return None
    return _Resumed(coro, first)


class _Resumed:
    """Await the rest of ``coro``, whose first step was taken by hand and yielded
    ``first``: ``first`` goes to the event loop, and from then on everything
    passes as with ``await`` (values and exceptions both ways), so the loop,
    asyncio's or trio's, cannot tell the difference. A `threads.Batched` first
    is waited for the asynchronous way (`threads.Batched.wait`). With a
    ``context``, every step of ``coro`` runs in it."""

    __slots__ = ("_context", "_coro", "_first")

    def __init__(
        self,
        coro: Coroutine[Any, Any, None],
        first: Any,
        context: contextvars.Context | None = None,
    ) -> None:
        self._coro = coro
        self._first = first
        self._context = context

    def __await__(self) -> Generator[Any, Any, None]:
        coro = self._coro
        context = self._context
        if context is None:
            send: Callable[[Any], Any] = coro.send
            throw: Callable[[BaseException], Any] = coro.throw
        else:
            run: Any = context.run  # every step in the request's own context
            send = partial(run, coro.send)
            throw = partial(run, coro.throw)
        yielded = self._first
        while True:
            try:
                if type(yielded) is threads.Batched:
                    # A thread job the batch did not finish: the asynchronous way.
                    value = yield from yielded.wait().__await__()
                else:
                    value = yield yielded
            except GeneratorExit:
                coro.close()
                raise
            except BaseException as exc:
                try:
                    yielded = throw(exc)
                except StopIteration:
                    return
                continue
            try:
                yielded = send(value)
            except StopIteration:
                return
