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
#                   which drops answers to cancelled requests. The tasks, the
#                   scopes and the limit are `transports.workers`. `pump`
#                   (`transports.pump`) serves a request in the task that read it
#                   until the handler first waits, then reads on in another task;
#                   HTTP serves each POST's requests in the task answering it
#                   (`feed_inline`).
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
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, Final

import anyio
from anyio.abc import TaskGroup
from msgspec import UNSET

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
from mcp_core.wire import LineTooLong, Message, RequestId

# Re-exported: transports built on the driver import them from here.
from .pump import encode_for_peer, pump
from .workers import Workers

__all__ = ["ConnectionClosed", "Driver", "Sink", "encode_for_peer", "pump"]

Sink = Callable[[list[Message], "RequestId | None"], None]
"""Takes messages to deliver to the peer, in order, without blocking, and the id of
the peer's request they belong to when the driver knows it (a handler's progress,
logs and questions); None otherwise. Responses carry their own id. Stream
transports ignore it; HTTP uses it to put each message on the right stream."""

ProgressCallback = Callable[[ProgressReceived], Any]

DEFAULT_MAX_CONCURRENCY: Final = 1024
"""Incoming requests served at once per connection; more wait for a slot (up to the
session's Limits.max_requests_in_flight, past which the session refuses them)."""

_ERROR: Final = SessionState.ERROR


# The session's clock. Deadlines are only ever compared with it and turned into
# sleep durations, so any monotonic clock will do; this one costs no backend lookup.
_now = time.monotonic


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
        self._handle_event = handle_event
        self._sink: Sink = _refuse_sink
        self._waiters: dict[RequestId, _Waiter] = {}
        self._workers = workers = Workers(self, task_group, handle_request, max_concurrency)
        #: The peer's requests being served (see `Workers.serving`): read only.
        self.serving = self._serving = workers.serving
        self._timer: anyio.Event | None = None
        self.closed = False
        self.close_reason = "the connection is closed"
        #: What closed the connection, when a transport gave a reason as an exception.
        self.close_error: BaseException | None = None
        self._on_close: list[Callable[[str], None]] = []
        self._inline: list[RequestReceived] | None = None  # see feed_inline
        #: Set by a transport while it holds more requests, read and not yet
        #: served, behind the one being served (a pump serving a read of several):
        #: the handler should not hold the loop (`transports.threads`, ``brief``).
        self.more_to_serve = False
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
                events = session.receive_unreadable(
                    f"message longer than {size} bytes, the limit of this reader (max_line_bytes)",
                    item.head,
                )
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
                self._workers.dispatch(event)
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
            self._workers.cancel(event.id)
            self._handle_event(event)
        elif type(event) is RequestTimedOut:
            waiter = self._waiters.pop(event.id, None)
            if waiter is not None:
                waiter.finish(error=TimeoutError(f"{event.method} timed out"))
        else:
            self._handle_event(event)

    # --- serving the peer's requests (`transports.workers`) ---------------------------

    def dispatch(self, event: RequestReceived) -> None:
        """Serve a request the peer sent (and `feed_inline` returned) in a handler
        task: an idle worker, or a new one."""
        self._workers.dispatch(event)

    def feed_inline(self, item: bytes | Message | LineTooLong) -> list[RequestReceived]:
        """`feed`, except that the requests it brings get no task: they are
        returned, for the caller to serve in its own task with `serve_inline`."""
        jobs: list[RequestReceived] = []
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

    def serve_one(self, event: RequestReceived) -> Coroutine[Any, Any, None]:
        """Serve one request from `feed_inline` in the calling task, with no cancel
        scope (see `serving_in`): await what it returns (the worker's coroutine
        itself, no frame of ours around it)."""
        return self._workers.serve(event, None)

    async def serve_inline(self, jobs: list[RequestReceived], *, scoped: bool = True) -> None:
        """Serve requests from `feed_inline` in the calling task, one after another,
        each in a cancel scope of its own (which a cancellation cancels, as with
        a handler task); ``scoped=False`` when the caller's own scope is how they
        are cancelled (nothing else will)."""
        serve = self._workers.serve
        for event in jobs:
            if scoped:
                with anyio.CancelScope() as scope:
                    await serve(event, scope)
            else:
                await serve(event, None)

    async def finish_serving(self, timeout: float) -> None:
        """Wait, at most ``timeout`` seconds, for the peer's requests in flight to be
        answered (the peer stopped sending but may still read the answers)."""
        await self._workers.finish(timeout)

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
        self._workers.close()
        if self._timer is not None:
            self._timer.set()
        self._sink = _refuse_sink
        for callback in self._on_close:
            callback(reason)

    def on_close(self, callback: Callable[[str], None]) -> None:
        """Call ``callback(reason)`` when the driver closes (for waits of its owner)."""
        self._on_close.append(callback)
