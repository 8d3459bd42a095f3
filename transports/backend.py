"""Everything in `transports` that depends on an event loop's internals.

The rest of the package is written against anyio's public API only. A few steps on
the hot paths go around it, because anyio's general answer costs more than the step
(each place below says what it saves and where that was measured). Those ways around
anyio are here, and only here, each beside the plain-anyio way it replaces:

* `loop_clock`: the running loop's clock, resolved once (`anyio.current_time` asks
  which library runs at every call).
* `kept_reader`: a reader kept registered with an asyncio loop between waits on a
  descriptor (`anyio.wait_readable` adds and removes one per wait).
* `direct_writer`: a write on a socket that never yields, under anyio's
  `SocketStream` (its `send` always yields, a checkpoint after the write).
* `thread_link`, `anyio_thread_token`, `claim_anyio_token`: how the worker pool of
  plain-function handlers (`transports/threads.py`) hands a result back to its loop,
  and lets `anyio.from_thread` work in its threads.

Each returns the plain-anyio answer (`anyio.current_time`, None) when it cannot take
its way around, on an anyio backend it does not know, or when `native` is False. Set
``MCP_CORE_PLAIN_ANYIO=1`` in the environment (or `native` to False before a server
starts) to run on plain anyio only: the test suite does so to hold both paths to the
same behaviour.

trio is never imported here: when trio runs, anyio has imported it already, and it is
looked up in ``sys.modules``. So an asyncio program runs without trio installed.
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
import socket
import sys
from collections.abc import Awaitable, Callable
from typing import Any, Final

import anyio
from anyio.abc import SocketAttribute, SocketStream

__all__ = [
    "DirectWriter",
    "ThreadLink",
    "anyio_thread_token",
    "claim_anyio_token",
    "release_anyio_token",
    "thread_link",
    "NO_WAY",
    "available",
    "KeptReader",
    "direct_writer",
    "kept_reader",
    "loop_clock",
    "native",
]

native: bool = os.environ.get("MCP_CORE_PLAIN_ANYIO", "") not in ("1", "true", "yes")
"""Take the ways around anyio below; False: the plain-anyio fallback everywhere."""

_ASYNCIO_STREAM: Final = "anyio._backends._asyncio"
_TRIO_STREAM: Final = "anyio._backends._trio"


def available(name: str) -> bool:
    """Whether the event loop ``name`` ("asyncio", "trio") can run here.

    trio is the ``trio`` extra; it is looked for, not imported.
    """
    return name == "asyncio" or importlib.util.find_spec(name) is not None


# --- the clock ------------------------------------------------------------------------------


def loop_clock() -> Callable[[], float]:
    """The clock `anyio.current_time` reads in the running event loop.

    `anyio.current_time()` asks which async library runs (sniffio) at every call, and
    the HTTP server reads the time a few times for every request. The answer cannot
    change while one event loop runs, so a server resolves the clock when it starts:
    the running asyncio loop's ``time()``, or trio's ``current_time`` (and so a trio
    test's clock); `anyio.current_time` itself otherwise.
    """
    if native:
        try:
            return asyncio.get_running_loop().time
        except RuntimeError:
            trio = sys.modules.get("trio")
            if trio is not None:
                clock: Callable[[], float] = trio.current_time
                return clock
    return anyio.current_time


# --- a kept reader (asyncio) ----------------------------------------------------------------

_IDLE_FIRES: Final = 4
"""Loop turns a kept reader may find the descriptor readable with no task waiting before
it removes itself (reading paused by back-pressure would otherwise turn the loop forever)."""


class KeptReader:
    """An asyncio loop's reader that stays registered on a descriptor between waits.

    `anyio.wait_readable` adds a reader for each wait and removes it after (two
    ``epoll_ctl`` calls and a loop turn, ~7 us of the ~20 a wait costs; benchmarks/README.md,
    "stdio, second pass"), and a pipe read one message at a time waits for nearly every
    message. This one is added at the first wait and stays: the selector's readiness is
    level-triggered, so the callback runs in every loop turn while the pipe is readable.
    It wakes the waiting task if there is one; when it finds no task waiting `_IDLE_FIRES`
    times since the last wait began (data left unread on purpose, or the end of input
    nobody reads yet), it removes itself and the next wait adds it again.

    Its waits are woken by `wake`, not by `anyio.notify_closing`.
    """

    __slots__ = ("_fd", "_idle_fires", "_loop", "_registered", "_waiter")

    def __init__(self, loop: asyncio.AbstractEventLoop, fd: int) -> None:
        self._loop = loop
        self._fd = fd
        self._registered = False
        self._waiter: asyncio.Future[None] | None = None
        self._idle_fires = 0

    async def wait(self) -> None:
        """Wait until the descriptor is readable, or `wake` is called."""
        waiter = self._waiter = self._loop.create_future()
        self._idle_fires = 0
        try:
            if not self._registered:
                self._loop.add_reader(self._fd, self._fire)
                self._registered = True
            await waiter
        finally:
            self._waiter = None

    def wake(self) -> None:
        """End the pending wait, if any."""
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def _fire(self) -> None:
        waiter = self._waiter
        if waiter is not None:
            if not waiter.done():
                waiter.set_result(None)
            return
        # Readable and nobody waits: the data a read just took (a stale event of this
        # turn), or data left for later. Allow a few turns, then stop watching.
        self._idle_fires += 1
        if self._idle_fires >= _IDLE_FIRES:
            self.remove()

    def remove(self) -> None:
        """Unregister from the loop (before the descriptor closes)."""
        if self._registered:
            self._registered = False
            self._loop.remove_reader(self._fd)


def kept_reader(fd: int) -> KeptReader | None:
    """A kept reader for ``fd`` on asyncio; None: wait with `anyio.wait_readable`.

    None on trio too, whose waits are not level-triggered callbacks.
    """
    if not native:
        return None
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return None
    return KeptReader(loop, fd)


# --- a direct write on a socket -------------------------------------------------------------


class DirectWriter:
    """Writes on a connected socket now, never waiting, in order with anyio's sends.

    `ready` says whether a write now keeps the order of the stream's bytes and goes out
    without piling up; `write` takes bytes and says how many went: the rest must be
    sent (awaited) before anything else. None from `write`: nothing was taken.
    """

    __slots__ = ("ready", "write")

    def __init__(self, ready: Callable[[], bool], write: Callable[[bytes], int | None]) -> None:
        self.ready = ready
        self.write = write


def _ready() -> bool:
    return True


def _never() -> bool:
    return False


def _take_nothing(data: bytes) -> int | None:
    return None


NO_WAY: Final = DirectWriter(_never, _take_nothing)
"""A writer never ready: for a caller that keeps "no way around" as a writer."""


def _socket_writer(raw: socket.socket) -> DirectWriter:
    def write(data: bytes) -> int | None:
        try:
            return raw.send(data)
        except OSError:  # full (BlockingIOError), or broken: the awaited write says
            return 0

    return DirectWriter(_ready, write)


def _transport_writer(transport: asyncio.WriteTransport) -> DirectWriter:
    def ready() -> bool:
        # Taken only when nothing waits in its buffer (the client reads), so that a
        # slow reader's stream goes back to its awaited writer.
        return not (transport.get_write_buffer_size() or transport.is_closing())

    def write(data: bytes) -> int | None:
        try:
            transport.write(data)
        except RuntimeError:
            return None
        return len(data)

    return DirectWriter(ready, write)


def direct_writer(sock: SocketStream) -> DirectWriter | None:
    """A way to write on ``sock`` without anyio's `send`; None: use ``sock.send``.

    asyncio: anyio's stream holds the transport, whose write never waits and keeps the
    order of every write (the stream's raw socket is a ``TransportSocket``, which cannot
    send, and writing past the transport's buffer would reorder). trio: the stream's raw
    socket is trio's own, non-blocking, and anyio's send returns only when all is
    written, so a write on it now comes after those. Anything else (a wrapped stream,
    another anyio): None.
    """
    if not native:
        return None
    backend = type(sock).__module__
    if backend == _ASYNCIO_STREAM:
        transport = getattr(sock, "_transport", None)
        if isinstance(transport, asyncio.WriteTransport):
            return _transport_writer(transport)
    elif backend == _TRIO_STREAM:
        raw = sock.extra(SocketAttribute.raw_socket, None)
        if isinstance(raw, socket.socket) and raw.gettimeout() == 0.0:
            return _socket_writer(raw)
    return None


# --- waking a loop from a worker thread (transports/threads.py) ---------------------------
#
# The worker pool for plain-function handlers hands each finished job back to the
# loop that submitted it. anyio's public way (`anyio.from_thread`, or its own
# `to_thread`) costs a CancelScope, a limiter and a `call_soon_threadsafe` per call;
# the pool needs the loop's own thread-safe call and the cheapest thing a task can
# wait on. Measured in benchmarks/README.md, "def handlers, first pass".

ThreadLink = tuple[
    Callable[[Callable[[], None]], None],  # call_soon: from any thread, run on the loop
    Callable[[], bool],  # current: is this still the loop running in this thread?
    Callable[[Any], Awaitable[Any]],  # wait: submit the job and wait for it
    Callable[[Any], None],  # resolve: on the loop, wake the job's waiter
]
"""How the pool reaches one running loop."""


def thread_link(
    submit: Callable[[Any], None],
    abandon: Callable[[Any], None],
    error_of: Callable[[Any], BaseException | None],
) -> ThreadLink | None:
    """How to reach the running event loop from a worker thread; None: use
    `anyio.to_thread.run_sync` (plain anyio, or a loop this module does not know).

    A job is any object with ``waiter`` and ``result`` attributes: ``submit(job)``
    hands it to a worker, ``abandon(job)`` gives it up when its waiter is cancelled,
    and ``error_of(job)`` takes its exception (None when it returned ``result``).
    """
    if not native:
        return None
    loop = asyncio._get_running_loop()
    if loop is not None:
        return _asyncio_link(loop, submit, abandon, error_of)
    if "trio" in sys.modules:
        return _trio_link(submit, abandon, error_of)
    return None


def _asyncio_link(
    loop: Any,  # an asyncio event loop
    submit: Callable[[Any], None],
    abandon: Callable[[Any], None],
    error_of: Callable[[Any], BaseException | None],
) -> ThreadLink:
    # `call_soon_threadsafe`, and an asyncio Future per job (anyio's cancel scopes
    # cancel a task waiting on one as on anything else).
    get_running_loop = asyncio._get_running_loop
    cancelled_error = asyncio.CancelledError

    def current() -> bool:
        return get_running_loop() is loop

    async def wait(job: Any) -> Any:
        future = job.waiter = loop.create_future()
        submit(job)
        try:
            return await future
        except cancelled_error:
            abandon(job)
            raise

    def resolve(job: Any) -> None:
        future = job.waiter
        if not future.done():
            error = error_of(job)
            if error is None:
                future.set_result(job.result)
            else:
                future.set_exception(error)

    return loop.call_soon_threadsafe, current, wait, resolve


def _trio_link(
    submit: Callable[[Any], None],
    abandon: Callable[[Any], None],
    error_of: Callable[[Any], BaseException | None],
) -> ThreadLink | None:
    # The trio token's `run_sync_soon`, and the waiting task rescheduled by hand
    # (`wait_task_rescheduled`, whose abort abandons the job). trio and outcome (a
    # dependency of trio's) are loaded already when trio runs.
    trio = sys.modules["trio"]
    outcome = sys.modules["outcome"]
    lowlevel = trio.lowlevel
    try:
        token = lowlevel.current_trio_token()
    except RuntimeError:
        return None
    current_token = lowlevel.current_trio_token

    def current() -> bool:
        try:
            return current_token() is token
        except RuntimeError:
            return False

    async def wait(job: Any) -> Any:
        job.waiter = lowlevel.current_task()
        submit(job)

        def abort(_: Any) -> Any:
            abandon(job)
            return lowlevel.Abort.SUCCEEDED

        return await lowlevel.wait_task_rescheduled(abort)

    def resolve(job: Any) -> None:
        error = error_of(job)
        lowlevel.reschedule(
            job.waiter, outcome.Value(job.result) if error is None else outcome.Error(error)
        )

    return token.run_sync_soon, current, wait, resolve


def anyio_thread_token(cancelled: Callable[[], bool]) -> Any:
    """anyio's token for the running loop, made to work in the pool's threads, or None.

    Called with no ``token=``, `anyio.from_thread.run_sync` / ``run`` take the token
    anyio keeps in a thread-local and hand the backend no native token: trio then
    looks for its own thread-local, which only trio's worker threads have. So the
    token put there (`claim_anyio_token`) has a backend of ours that always passes
    the native token on, and whose ``check_cancelled`` asks ``cancelled()``.
    """
    try:
        token = anyio.lowlevel.current_token()
    except Exception:  # anyio does not know this loop: `anyio.from_thread` cannot reach it
        return None
    side = _ThreadSide(token.backend_class, token.native_token, cancelled)
    return anyio.lowlevel.EventLoopToken(side, token.native_token)  # type: ignore[arg-type]


class _ThreadSide:
    """The backend, as `anyio.from_thread` sees it from one of the pool's workers."""

    __slots__ = ("_backend", "_cancelled", "_native")

    def __init__(self, backend: Any, native: object, cancelled: Callable[[], bool]) -> None:
        self._backend = backend
        self._native = native
        self._cancelled = cancelled

    def run_sync_from_thread(self, func: Any, args: Any, token: object = None) -> Any:
        return self._backend.run_sync_from_thread(func, args, token=self._native)

    def run_async_from_thread(self, func: Any, args: Any, token: object = None) -> Any:
        return self._backend.run_async_from_thread(func, args, token=self._native)

    def run_sync_soon(self, func: Any, args: Any, token: object = None) -> None:
        self._backend.run_sync_soon(func, args, token=self._native)

    def check_cancelled(self) -> None:
        if self._cancelled():
            raise _cancelled_error(self._backend.cancelled_exception_class())

    def __getattr__(self, name: str) -> Any:
        return getattr(self._backend, name)


def _cancelled_error(cls: type[BaseException]) -> BaseException:
    # trio.Cancelled has no public constructor; anyio.from_thread.check_cancelled
    # raises it in trio's threads.
    create = getattr(cls, "_create", None)
    if create is not None:
        try:
            error: BaseException = create(source="explicit")
            return error
        except TypeError:
            pass
    return cls()


def claim_anyio_token(token: Any) -> bool:
    """Make `anyio.from_thread` in this worker thread reach ``token``'s loop, as in
    one of anyio's worker threads: anyio keeps the token in a private thread-local.
    False when this version of anyio has none (then `anyio.from_thread` needs
    ``token=``)."""
    threadlocals = getattr(_anyio_eventloop, "threadlocals", None)
    if threadlocals is None:
        return False
    threadlocals.current_token = token
    return True


def release_anyio_token() -> None:
    """Undo `claim_anyio_token` in this thread."""
    del _anyio_eventloop.threadlocals.current_token


try:
    from anyio._core import _eventloop as _anyio_eventloop
except ImportError:  # pragma: no cover - a later anyio moved it
    _anyio_eventloop = None  # type: ignore[assignment]
