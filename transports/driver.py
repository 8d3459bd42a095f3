# The driver: one sans-IO session, brought to life on anyio.
#
# Theory of operation. mcp_core's sessions take one message at a time and say what
# happened (events) and what to send (messages_to_send). The driver adds what a
# sans-IO object cannot have: tasks, waiting, and a clock.
#
#   feed(item)      a transport hands over one complete incoming message (JSON
#                   bytes, a Message object, or a LineTooLong marker). The driver
#                   passes it to the session, acts on the events at once, and
#                   flushes what the session queued to the transport's sink. It is
#                   a plain function: a transport calls it from its reader task, or,
#                   for the in-memory pipe, the peer's driver calls it directly.
#   request(...)    sends a request and waits for its answer: a waiter per id,
#                   woken by ResponseReceived / InputRequired / ErrorReceived /
#                   RequestTimedOut. A caller that is cancelled while it waits sends
#                   notifications/cancelled (2025-11-25 basic/utilities/cancellation).
#   incoming        each RequestReceived runs in a handler task (a reused worker)
#                   inside a cancel scope, under a concurrency limit;
#                   notifications/cancelled from the peer cancels that scope. The
#                   answer (or the McpError raised) goes back through the session,
#                   which drops answers to cancelled requests. `pump` serves a
#                   request in the task that read it until the handler first waits,
#                   then reads on in another task (`_Reader`); HTTP serves each POST's
#                   requests in the task answering it (`feed_inline`).
#   time            the session's deadlines are kept in anyio's clock; a timer task
#                   sleeps until the next one and calls handle_timeouts(now).
#
# Everything outgoing leaves through one sink, ``sink(messages)``, a plain function
# the transport installs: a queue for a writer task, a non-blocking write with that
# queue behind it (stdio), or the peer's feed. Flushing right after every session
# call, with no await in between, keeps the order the session produced.
#
# The driver knows no MCP method: what a request means is the role's business
# (`handle_request`, `handle_event`), given by the client or the server runtime.
#
# A broken channel ends the connection: when the session enters its sticky ERROR
# (a peer we cannot speak with), or the transport reports a failed write or a
# failed read (send_failed / receive_failed, which tell the session first), the
# driver closes, failing every waiting request with ConnectionClosed(reason).

from __future__ import annotations

import inspect
import time
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Final, Generic, Protocol, TypeVar, runtime_checkable

import anyio
import msgspec
from anyio.abc import ObjectStream, TaskGroup, TaskStatus
from msgspec import UNSET, EncodeError

from mcp_core import LocalProtocolError, McpError, RemoteProtocolError, SessionState
from mcp_core.session import (
    ErrorReceived,
    Event,
    InputRequired,
    ProgressReceived,
    RequestCancelled,
    RequestReceived,
    RequestTimedOut,
    ResponseReceived,
)
from mcp_core.session.base import BaseSession
from mcp_core.wire import (
    INTERNAL_ERROR,
    ErrorObject,
    ErrorResponse,
    LineTooLong,
    Message,
    RequestId,
    Response,
    encode_message,
)

from .first_wait import watching

__all__ = ["ConnectionClosed", "Driver", "Sink", "encode_for_peer", "pump"]

Sink = Callable[[list[Message], "RequestId | None"], None]
"""Takes messages to deliver to the peer, in order, without blocking, and the id of
the peer's request they belong to when the driver knows it (a handler's progress,
logs and questions); None otherwise. Responses carry their own id. Stream
transports ignore it; HTTP uses it to put each message on the right stream."""

ProgressCallback = Callable[[ProgressReceived], Any]

_DRAIN_SECONDS: Final = 2.0

_MAX_IDLE_WORKERS: Final = 256
"""Handler tasks kept waiting for work per connection; more exit when done."""

_MAX_PARKED_READERS: Final = 16
"""Reader tasks of a pump kept waiting for the reading to come back to them."""

DEFAULT_MAX_CONCURRENCY: Final = 1024
"""Incoming requests served at once per connection; more wait for a slot (up to the
session's Limits.max_requests_in_flight, past which the session refuses them)."""

_ERROR: Final = SessionState.ERROR


# The session's clock. Deadlines are only ever compared with it and turned into
# sleep durations, so any monotonic clock will do; this one costs no backend lookup.
_now = time.monotonic


@runtime_checkable
class BatchStream(Protocol):
    """A byte message stream that can also move several messages per call, and write
    without waiting (stdio: see `transports.stdio_streams.StdioStream`)."""

    async def receive_batch(self) -> list[bytes | LineTooLong]: ...

    async def send_batch(self, items: Sequence[bytes]) -> None: ...

    def send_batch_nowait(self, items: Sequence[bytes]) -> bool: ...


class ConnectionClosed(Exception):
    """The connection ended before the request was answered."""


class _Waiter:
    __slots__ = ("done", "error", "event", "progress", "result")

    def __init__(self) -> None:
        self.event = anyio.Event()
        self.done = False
        self.result: Any = None
        self.error: BaseException | None = None
        self.progress: list[ProgressReceived] = []

    def finish(self, result: Any = None, error: BaseException | None = None) -> None:
        self.done = True
        self.result = result
        self.error = error
        self.event.set()


_Job = RequestReceived
_T = TypeVar("_T")


class _Worker(Generic[_T]):
    """An idle task, waiting for its next job (a handler task's next request)."""

    __slots__ = ("_job", "_wake")

    def __init__(self) -> None:
        self._wake = anyio.Event()
        self._job: _T | None = None

    async def park(self, idle: list[_Worker[_T]]) -> _T | None:
        self._wake = anyio.Event()
        idle.append(self)
        try:
            await self._wake.wait()
        except BaseException:
            # A request handed over as the wait was cancelled stays for `take`.
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


def _refuse_sink(messages: list[Message], related: RequestId | None) -> None:
    raise ConnectionClosed("the connection is not open")


class Driver:
    """Runs one session: feeds it, flushes it, waits on it, serves its requests.

    Args:
        session: a ClientSession or ServerSession, not yet started.
        task_group: where request handlers and the timer run; the driver lives as
            long as it.
        handle_request: answers a RequestReceived; returns the result or raises
            McpError. Any other exception becomes a -32603 error.
        handle_event: sees every other event the driver does not consume itself
            (notifications, handshake, protocol violations). Called synchronously.
        max_concurrency: incoming requests served at once.
    """

    def __init__(
        self,
        session: BaseSession,
        task_group: TaskGroup,
        *,
        handle_request: Callable[[RequestReceived], Awaitable[Any]],
        handle_event: Callable[[Event], None],
        max_concurrency: int = DEFAULT_MAX_CONCURRENCY,
    ) -> None:
        self.session = session
        self._tg = task_group
        self._handle_request = handle_request
        self._handle_event = handle_event
        self._sink: Sink = _refuse_sink
        self._waiters: dict[RequestId, _Waiter] = {}
        # Requests of the peer being served, with the cancel scope that cancels
        # each (None: not started yet, or nothing to cancel); those cancelled
        # before they started are skipped (made on first use).
        self._serving: dict[RequestId, anyio.CancelScope | None] = {}
        self._cancelled_early: set[RequestId] | None = None
        self._idle_workers: list[_Worker[_Job]] = []
        self._max_concurrency = max_concurrency
        self._active = 0
        # Made on first use: an idle connection should cost little (a deque is
        # 600 bytes, more than the rest of an idle HTTP session's driver).
        self._slot_waiters: deque[anyio.Event] | None = None
        self._timer: anyio.Event | None = None
        self.closed = False
        self.close_reason = "the connection is closed"
        #: What closed the connection, when a transport gave a reason as an exception.
        self.close_error: BaseException | None = None
        self._on_close: list[Callable[[str], None]] = []
        self._idle: anyio.Event | None = None
        self._inline: list[_Job] | None = None  # see feed_inline
        #: Set by a transport that can carry a request in the task that waits for
        #: its answer: `wait_for` calls it instead of `flush` (it flushes), and
        #: awaits what it returns, if anything, before waiting for the answer.
        #: Not used for a request that takes progress, whose waiter must wake
        #: for each notification.
        self.carry: Callable[[RequestId | None], Awaitable[None] | None] | None = None

    # --- wiring -----------------------------------------------------------------------

    def attach(self, sink: Sink) -> None:
        """Install the function that delivers our outgoing messages."""
        self._sink = sink

    def flush(self, related: RequestId | None = None) -> None:
        """Hand whatever the session queued to the sink.

        Args:
            related: the peer's request the queued messages belong to, if known.
        """
        out = self.session.messages_to_send()
        if out and not self.closed:
            self._sink(out, related)

    # --- incoming ---------------------------------------------------------------------

    def feed(self, item: bytes | Message | LineTooLong) -> None:
        """Take one complete incoming message and act on it."""
        if self.closed:
            return
        session = self.session
        try:
            if type(item) is bytes:
                events = session.receive_bytes(item, _now())
            elif isinstance(item, LineTooLong):
                size = item.size_hint - 1
                events = session.receive_unreadable(f"message longer than {size} bytes")
            else:
                events = session.receive_message(item, _now())  # type: ignore[arg-type]
        except RemoteProtocolError:  # the session was already broken: nothing was read
            self._broken()
            return
        for event in events:
            self._on_event(event)
        self.flush()
        if session.state is _ERROR:
            self._broken()

    def _broken(self) -> None:
        self.close(f"the session is broken: {self.session.error_reason}")

    def send_failed(self, reason: str) -> None:
        """The transport could not deliver what we sent: break the session, close."""
        if not self.closed:
            self.session.send_failed(reason)
            self.close(reason)

    def receive_failed(self, reason: str) -> None:
        """The transport cannot read the peer's messages any more: break the
        session, close."""
        if not self.closed:
            self.session.receive_failed(reason)
            self.close(reason)

    def _on_event(self, event: Event) -> None:
        # Exact type checks, most frequent first: this runs for every message.
        if type(event) is ResponseReceived or type(event) is InputRequired:
            waiter = self._waiters.pop(event.id, None)
            if waiter is not None:
                waiter.finish(event.result)
        elif type(event) is RequestReceived:
            # Registered now: a cancellation (or a look at what is in flight)
            # before a task serves it still finds it.
            self._serving[event.id] = None
            if self._inline is not None:
                self._inline.append(event)
            else:
                self.dispatch(event)
        elif type(event) is ErrorReceived:
            waiter = self._waiters.pop(event.id, None) if event.id is not None else None
            if waiter is None:
                self._handle_event(event)
            else:
                error = event.error
                data = None if error.data is UNSET else error.data
                waiter.finish(error=McpError(error.code, error.message, data))
        elif type(event) is ProgressReceived:
            waiter = self._waiters.get(event.request_id)
            if waiter is not None:
                waiter.progress.append(event)
                waiter.event.set()
        elif type(event) is RequestCancelled:
            self._cancel(event.id)
        elif type(event) is RequestTimedOut:
            waiter = self._waiters.pop(event.id, None)
            if waiter is not None:
                waiter.finish(error=TimeoutError(f"{event.method} timed out"))
        else:
            self._handle_event(event)

    def dispatch(self, event: RequestReceived) -> None:
        """Serve a request the peer sent (and `feed_inline` returned) in a handler
        task: an idle worker, or a new one."""
        idle = self._idle_workers
        if idle:
            idle.pop().start(event)
        else:
            self._tg.start_soon(self._work, event)

    def _cancel(self, request_id: RequestId) -> None:
        # notifications/cancelled for a request being served, or about to be.
        if request_id not in self._serving:
            return
        scope = self._serving[request_id]
        if scope is not None:
            scope.cancel()
            return
        if self._cancelled_early is None:
            self._cancelled_early = set()
        self._cancelled_early.add(request_id)

    # Handler tasks are reused: spawning an anyio task costs more than the rest of
    # a small request's round trip, so a task that has answered parks as an idle
    # worker (up to _MAX_IDLE_WORKERS) and takes the next request. A worker serves
    # its requests in one cancel scope, which stands for the request it is serving
    # (entering a scope per request cost a fifth of a round trip on trio): a
    # cancellation cancels it, and the worker goes on in a new one. The scope is
    # cancelled only while its request is registered as running, so what it
    # catches belongs to that request, or hits the worker parked right after it
    # (the request had shielded itself, or finished as the cancellation came);
    # a request handed over just then is kept for the next scope, never run in
    # the cancelled one.

    async def _work(self, job: _Job | None) -> None:
        worker: _Worker[_Job] | None = None
        while True:
            scope = anyio.CancelScope()
            with scope:
                while True:
                    if job is None:
                        if self.closed or len(self._idle_workers) >= _MAX_IDLE_WORKERS:
                            return
                        if worker is None:
                            worker = _Worker()
                        job = await worker.park(self._idle_workers)
                        if job is None:
                            return  # told to exit
                        if scope.cancel_called:
                            break  # serve it in a scope of its own, below
                    event, job = job, None
                    await self._serve(event, scope)
            if job is None and worker is not None:
                job = worker.take()

    async def _serve(self, event: RequestReceived, scope: anyio.CancelScope | None) -> None:
        request_id = event.id
        early = self._cancelled_early
        if self.closed or (early is not None and request_id in early):
            # Cancelled before it started (2025-11-25 basic/utilities/cancellation:
            # no response for a cancelled request), or the connection ended.
            if early is not None:
                early.discard(request_id)
            self._served(request_id)
            return
        if scope is not None:
            self._serving[request_id] = scope
        try:
            if self._active >= self._max_concurrency:
                await self._wait_for_slot()
            else:
                self._active += 1
            try:
                result = await self._handle_request(event)
            finally:
                self._release_slot()
        except McpError as exc:
            data = UNSET if exc.data is None else exc.data
            self._answer(
                request_id, self.session.send_error, request_id, exc.code, exc.message, data
            )
        except Exception as exc:
            message = f"Internal error: {exc or type(exc).__name__}"
            self._answer(request_id, self.session.send_error, request_id, INTERNAL_ERROR, message)
        else:
            self._answer(request_id, self.session.send_response, request_id, result)
        finally:
            # Made meanwhile, perhaps: a request served without a scope of its own
            # notes its cancellation there.
            early = self._cancelled_early
            if early is not None:
                early.discard(request_id)
            self._served(request_id)

    def _served(self, request_id: RequestId) -> None:
        self._serving.pop(request_id, None)
        if not self._serving and self._idle is not None:
            self._idle.set()

    def feed_inline(self, item: bytes | Message | LineTooLong) -> list[_Job]:
        """`feed`, except that the requests it brings get no task: they are
        returned, for the caller to serve in its own task with `serve_inline`."""
        jobs: list[_Job] = []
        self._inline = jobs
        try:
            self.feed(item)
        finally:
            self._inline = None
        return jobs

    def serving_in(self, request_id: RequestId, scope: anyio.CancelScope) -> None:
        """A request being served without a scope of its own is cancelled with
        ``scope`` from now on (the task serving it does nothing else any more)."""
        if request_id in self._serving:
            self._serving[request_id] = scope

    async def serve_one(self, event: RequestReceived) -> None:
        """Serve one request from `feed_inline` in the calling task, with no cancel
        scope (see `serving_in`)."""
        await self._serve(event, None)

    async def serve_inline(self, jobs: list[_Job], *, scoped: bool = True) -> None:
        """Serve requests from `feed_inline` in the calling task, one after another,
        each in a cancel scope of its own (which a cancellation cancels, as with
        a handler task); ``scoped=False`` when the caller's own scope is how they
        are cancelled (nothing else will)."""
        for event in jobs:
            if scoped:
                with anyio.CancelScope() as scope:
                    await self._serve(event, scope)
            else:
                await self._serve(event, None)

    async def finish_serving(self, timeout: float) -> None:
        """Wait, at most ``timeout`` seconds, for the peer's requests in flight to be
        answered (the peer stopped sending but may still read the answers)."""
        if not self._serving:
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

    def _answer(self, related: RequestId, send: Callable[..., None], *args: Any) -> None:
        if self.closed:
            return
        try:
            send(*args)
        except LocalProtocolError:
            return  # the request is gone: cancelled, or the session closed
        self.flush(related)

    # --- outgoing ---------------------------------------------------------------------

    async def request(
        self,
        method: str,
        params: Any,
        *,
        timeout: float | None = None,
        on_progress: ProgressCallback | None = None,
        sent: Callable[[RequestId], None] | None = None,
        related: RequestId | None = None,
    ) -> Any:
        """Send a request and wait for its result.

        Args:
            method: the MCP method.
            params: its params (a Struct, a dict, or UNSET).
            timeout: seconds to wait; then the request is cancelled at the peer.
            on_progress: called with each ProgressReceived, in order (a progress
                token is added to the request).
            sent: called with the request's id once it is queued.
            related: the peer's request this one is asked on behalf of (a
                handler asking its client), for transports that route by it.

        Returns:
            The typed result, or (2026-07-28) an InputRequiredResult.

        Raises:
            McpError: the peer answered with an error.
            TimeoutError: no answer within ``timeout`` seconds.
            ConnectionClosed: the connection ended first.
            LocalProtocolError: the session refuses to send it (not ready,
                capability not declared, method not in this revision).
        """
        if self.closed:
            raise ConnectionClosed(self.close_reason)
        request_id = self.session.send_request(  # type: ignore[attr-defined]
            method,
            params,
            now=_now(),
            timeout=timeout,
            progress=on_progress is not None,
        )
        if sent is not None:
            sent(request_id)
        return await self.wait_for(
            request_id, timeout=timeout, on_progress=on_progress, related=related
        )

    async def wait_for(
        self,
        request_id: RequestId,
        *,
        timeout: float | None = None,
        on_progress: ProgressCallback | None = None,
        related: RequestId | None = None,
    ) -> Any:
        """Flush, then wait for the answer to a request the session has queued.

        ``timeout`` only wakes the timer: the deadline itself was given to the
        session when the request was queued. See `request` for what it raises.
        """
        waiter = _Waiter()
        self._waiters[request_id] = waiter
        carried = None
        if self.carry is not None and on_progress is None:
            carried = self.carry(related)  # flushes
        else:
            self.flush(related)
        if timeout is not None:
            self.watch_deadlines()
        try:
            if carried is not None:
                await carried  # its I/O waited: no checkpoint is owed if it brought the answer
                if not waiter.done:
                    await waiter.event.wait()
            elif on_progress is None:
                await waiter.event.wait()
            else:
                await self._wait_with_progress(waiter, on_progress)
        except BaseException:
            if self._waiters.pop(request_id, None) is not None and not self.closed:
                try:
                    self.session.cancel_request(request_id, "cancelled by the caller")
                except LocalProtocolError:
                    pass
                else:
                    self.flush()
            raise
        if waiter.error is not None:
            raise waiter.error
        return waiter.result

    async def _wait_with_progress(self, waiter: _Waiter, on_progress: ProgressCallback) -> None:
        while True:
            while waiter.progress:
                event = waiter.progress.pop(0)
                outcome = on_progress(event)
                if inspect.isawaitable(outcome):
                    await outcome
            if waiter.done:
                return
            waiter.event = anyio.Event()
            await waiter.event.wait()

    def notify(self, method: str, params: Any = UNSET, related: RequestId | None = None) -> None:
        """Send a notification (``related``: the peer's request it belongs to)."""
        if self.closed:
            raise ConnectionClosed(self.close_reason)
        self.session.send_notification(method, params)
        self.flush(related)

    def fail(self, request_id: RequestId, error: BaseException) -> None:
        """Fail one of our requests whose answer cannot come: the transport lost it
        (HTTP: the server refused it, or its stream ended first).

        The session forgets the request, so a late answer is dropped; whoever waits
        for it gets ``error``. A request nobody waits for before the session is
        ready is the opening (initialize, server/discover): without it the
        connection cannot go on, so it closes with ``error``.
        """
        if self.closed:
            return
        self.session.abandon_request(request_id)
        waiter = self._waiters.pop(request_id, None)
        if waiter is not None:
            waiter.finish(error=error)
        elif self.session.state is not SessionState.READY:
            self.close(str(error), error)

    # --- time -------------------------------------------------------------------------

    def watch_deadlines(self) -> None:
        """Make the timer look at the session's deadlines again (a new one was set)."""
        if self._timer is None:
            self._timer = anyio.Event()
            self._tg.start_soon(self._run_timer)
        else:
            self._timer.set()

    async def _run_timer(self) -> None:
        while not self.closed:
            deadline = self.session.next_deadline()
            wake = self._timer = anyio.Event()
            if deadline is None:
                await wake.wait()
            else:
                with anyio.move_on_after(deadline - _now()):
                    await wake.wait()
            if self.closed:
                return
            for event in self.session.handle_timeouts(_now()):
                self._on_event(event)
            self.flush()

    # --- the end ----------------------------------------------------------------------

    def close(
        self, reason: str = "the connection is closed", error: BaseException | None = None
    ) -> None:
        """End the session: fail every waiting request, cancel every handler.

        Args:
            reason: why, for the ConnectionClosed every waiting request gets.
            error: the exception that ended the connection, if one did (kept in
                ``close_error``; a client whose opening it ended raises it).
        """
        if self.closed:
            return
        self.closed = True
        self.close_reason = reason
        self.close_error = error
        self.session.close()
        waiters, self._waiters = self._waiters, {}
        for waiter in waiters.values():
            waiter.finish(error=ConnectionClosed(reason))
        for scope in self._serving.values():
            if scope is not None:
                scope.cancel()
        for worker in self._idle_workers:
            worker.start(None)
        self._idle_workers.clear()
        if self._timer is not None:
            self._timer.set()
        self._sink = _refuse_sink
        for callback in self._on_close:
            callback(reason)

    def on_close(self, callback: Callable[[str], None]) -> None:
        """Call ``callback(reason)`` when the driver closes (for waits of its owner)."""
        self._on_close.append(callback)


def encode_for_peer(message: Message) -> bytes:
    """Encode one outgoing message as JSON, for transports that carry bytes.

    A result JSON cannot carry (a handler returned something msgspec cannot
    encode) goes out as a -32603 error reply instead: one bad answer fails its
    request, not the connection.

    Raises:
        TypeError, msgspec.EncodeError: any other message cannot be encoded.
    """
    try:
        return encode_message(message)
    except (TypeError, msgspec.EncodeError) as exc:
        if type(message) is not Response:
            raise
        error = ErrorObject(
            code=INTERNAL_ERROR, message=f"Internal error: the result cannot be encoded: {exc}"
        )
        return encode_message(ErrorResponse(id=message.id, error=error))


class _Outbox:
    """The pump's queue of outgoing messages: the sink fills it, the writer empties it.

    A deque and a wake-up event rather than a memory object stream: taking what is
    there costs no checkpoint.
    """

    __slots__ = ("_wake", "busy", "closed", "items", "owed")

    def __init__(self) -> None:
        self.items: deque[Message] = deque()
        #: The writer is sending: new messages must queue behind what it holds.
        self.busy = False
        #: The stream kept part of a direct write; the writer must finish it.
        self.owed = False
        self.closed = False
        self._wake: anyio.Event | None = None

    def put(self, messages: list[Message], related: RequestId | None) -> None:
        """Queue messages for the writer (a sink)."""
        self.items.extend(messages)
        self.wake()

    def wake(self) -> None:
        if self._wake is not None:
            self._wake.set()

    def close(self) -> None:
        """No more messages; the writer stops once it has written what is queued."""
        self.closed = True
        self.wake()

    async def wait(self) -> bool:
        """Wait until there is something to write; False once closed and done."""
        while not self.items and not self.owed:
            if self.closed:
                return False
            self._wake = anyio.Event()
            await self._wake.wait()
            self._wake = None
        return True


class _Reader:
    """The read loop of a pump, which passes from task to task.

    The task reading also serves what it reads: a request's handler runs in it
    (no task to wake, no task switch) until the handler first waits; then another
    task takes over the reading, and this one stays with the handler, in a cancel
    scope of its own that now stands for that request (a cancellation, or the
    driver closing, cancels it). A handler that answers at once costs nothing
    more than the feeding did.
    """

    def __init__(
        self,
        driver: Driver,
        receive: Callable[[], Awaitable[Any]],
        tg: TaskGroup,
        *,
        batches: bool,
    ) -> None:
        self.driver = driver
        self._receive = receive
        self._tg = tg
        # ``receive`` gives lists of items (`BatchStream.receive_batch`).
        self._batches = batches
        self._items: deque[Any] = deque()
        self._jobs: deque[_Job] = deque()
        #: Set when the stream ended or reading failed (`failure`).
        self.ended = anyio.Event()
        self.failure: BaseException | None = None
        self._parked: list[_Worker[bool]] = []

    def start(self) -> None:
        """Have a task read: a parked reader task, else a new one."""
        if self._parked:
            self._parked.pop().start(True)
        else:
            self._tg.start_soon(self._task)

    async def _task(self) -> None:
        # A reader task reads (serving what it reads) until the reading passes on,
        # finishes the request it kept, then parks until the reading comes back
        # to it: a task is started only when none is parked. Its cancel scope
        # works as a handler task's does (Driver._work).
        worker: _Worker[bool] | None = None
        reading = True
        while True:
            scope = anyio.CancelScope()
            with scope:
                while True:
                    if not reading:
                        if self.ended.is_set() or len(self._parked) >= _MAX_PARKED_READERS:
                            return
                        if worker is None:
                            worker = _Worker()
                        if await worker.park(self._parked) is None:
                            return
                        reading = True
                        if scope.cancel_called:
                            break  # read in a scope of its own, below
                    reading = False
                    await self._read(scope)
            if not reading and worker is not None and worker.take() is not None:
                reading = True

    async def _serve_here(self, job: _Job, scope: anyio.CancelScope) -> bool:
        # Serve one request in this task; True if it waited, so that the reading
        # went on in another task and this one kept the request.
        driver, items, jobs = self.driver, self._items, self._jobs
        passed = False

        def suspended() -> bool:
            nonlocal passed
            passed = True
            driver.serving_in(job.id, scope)
            # What this read brought besides goes to handler tasks (one new
            # reader per read, not per request that waits).
            while jobs:
                driver.dispatch(jobs.popleft())
            while items:
                driver.feed(items.popleft())
            self.start()
            return True

        await watching(driver.serve_one(job), suspended)
        return passed

    async def _read(self, scope: anyio.CancelScope) -> None:
        driver, items, jobs = self.driver, self._items, self._jobs
        while True:
            if jobs:
                if await self._serve_here(jobs.popleft(), scope):
                    return  # the reading went on elsewhere
            elif items:
                jobs.extend(driver.feed_inline(items.popleft()))
            else:
                try:
                    got = await self._receive()
                except anyio.EndOfStream:
                    self.ended.set()
                    return
                except (anyio.BrokenResourceError, anyio.ClosedResourceError) as exc:
                    self.failure = exc
                    self.ended.set()
                    return
                if self._batches:
                    items.extend(got)
                else:
                    items.append(got)


async def pump(
    driver: Driver,
    stream: ObjectStream[Any],
    *,
    objects: bool = False,
    task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED,
) -> None:
    """Run ``driver`` over a message stream until either side ends it.

    Args:
        driver: the driver to feed.
        stream: an ObjectStream whose items are whole messages: JSON bytes (or
            LineTooLong markers) by default, Message objects with ``objects``.
        objects: pass Message objects instead of encoding them.

    Reads until the stream ends, then closes the driver (failing what waits) and
    the stream. Start it with ``await tg.start(...)`` to send before anything is
    received (a client opening the session): the driver can send once it has
    started.
    """
    outbox = _Outbox()
    writer_done = anyio.Event()

    # Checked once: a runtime protocol check costs microseconds.
    batch_stream: BatchStream | None = (
        stream if isinstance(stream, BatchStream) and not objects else None
    )

    def write_now(messages: list[Message], related: RequestId | None) -> None:
        # The sink of a batch stream: straight onto the wire while nothing is queued
        # and the writer is idle (the order stays the session's), else to the writer.
        # Not waking a writer task takes a third off a sequential round trip over
        # stdio; with 16 calls in flight, one write per message still beats batching
        # them behind a wake-up (measured: 1.8x). Errors are left for the writer to
        # meet and act on.
        assert batch_stream is not None
        if outbox.items or outbox.busy or outbox.owed:
            outbox.put(messages, related)
            return
        try:
            done = batch_stream.send_batch_nowait([encode_for_peer(m) for m in messages])
        except (anyio.BrokenResourceError, anyio.ClosedResourceError, TypeError, EncodeError):
            outbox.put(messages, related)
            return
        if not done:
            outbox.owed = True
            outbox.wake()

    async def write() -> None:
        items = outbox.items
        try:
            while await outbox.wait():
                outbox.busy = True
                if batch_stream is not None:
                    # Everything queued goes out in one write: under load, one system
                    # call and one checkpoint carry many messages.
                    batch = [encode_for_peer(message) for message in items]
                    items.clear()
                    outbox.owed = False
                    await batch_stream.send_batch(batch)
                else:
                    message = items.popleft()
                    await stream.send(message if objects else encode_for_peer(message))
                outbox.busy = False
        except anyio.BrokenResourceError:
            driver.send_failed("the peer closed the connection")
            tg.cancel_scope.cancel()
        except anyio.ClosedResourceError:
            driver.close("the peer closed the connection")
            tg.cancel_scope.cancel()
        finally:
            writer_done.set()

    driver.attach(outbox.put if batch_stream is None else write_now)
    async with anyio.create_task_group() as tg:
        tg.start_soon(write)
        task_status.started()
        try:
            if batch_stream is not None:
                reader = _Reader(driver, batch_stream.receive_batch, tg, batches=True)
            else:
                reader = _Reader(driver, stream.receive, tg, batches=False)
            reader.start()
            await reader.ended.wait()
            if reader.failure is not None:
                raise reader.failure
            # The peer has stopped sending: a stdio client closing our stdin to
            # shut down (2025-11-25 basic/lifecycle.mdx "Shutdown"), or a script
            # piping requests in. Answer what is in flight before closing, briefly.
            await driver.finish_serving(_DRAIN_SECONDS)
        except anyio.BrokenResourceError:
            driver.receive_failed("reading from the peer failed")
        except anyio.ClosedResourceError:
            pass
        finally:
            driver.close("the peer closed the connection")
            # Let the writer drain what was queued before the end, briefly.
            outbox.close()
            with anyio.CancelScope(shield=True):
                with anyio.move_on_after(_DRAIN_SECONDS):
                    await writer_done.wait()
                tg.cancel_scope.cancel()
                await stream.aclose()
