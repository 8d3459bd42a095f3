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
from collections.abc import Callable
from typing import Final

import anyio
from anyio.abc import SocketAttribute, SocketStream

__all__ = [
    "DirectWriter",
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
