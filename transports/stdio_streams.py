"""The stdio transport's byte layer: whole messages over pipes, for servers and clients.

Theory of operation
-------------------
MCP's stdio binding is one JSON-RPC message per line on a child process's standard streams
(spec 2025-11-25 basic/transports, "stdio"; 2026-07-28 basic/transports/stdio). This module
turns those byte pipes into an anyio `ObjectStream` of whole messages and leaves everything
else (codec, sessions, the runtime) to its callers.

`StdioStream` is the one stream class. It wraps a pair of POSIX file descriptors:

* Reading: ``receive()`` returns the next complete line without its terminator, as
  ``bytes``, or a `mcp_core.LineTooLong` marker for a line over ``max_line_bytes`` (its bytes
  are discarded as they arrive, never buffered whole; the runtime answers the marker with a
  -32700 parse error whose id is null). At end of input it raises `anyio.EndOfStream`. Lines
  are cut by `mcp_core.LineFramer`, so partial lines, CRLF endings and blank lines are handled
  once, in the sans-IO core ("Messages are delimited by newlines", both pages above).
* Writing: ``send(data)`` writes ``data`` plus ``b"\\n"`` (`mcp_core.wire.frame_line` refuses a
  message with an embedded newline: "MUST NOT contain embedded newlines", same pages).
* I/O is non-blocking on both anyio backends, with no thread: the descriptors are put in
  ``O_NONBLOCK`` mode (their previous flags are restored when the stream lets go of them),
  every read or write is tried first, and only ``EAGAIN`` makes the task wait in
  `anyio.wait_readable` / `anyio.wait_writable` (anyio >= 4.7 takes a plain fd on asyncio and
  trio alike). On asyncio the read side waits instead on a reader it keeps registered with
  the loop between waits (`transports.backend.KeptReader`), which saves two ``epoll_ctl``
  calls a wait.
  Trying first also makes regular files and ``/dev/null`` work, which epoll cannot watch
  but which never return ``EAGAIN``. Reads take 64 KiB at a time, the default capacity of
  a Linux pipe, so one system call empties a full pipe.
* A write may be partial: the rest is written when the pipe drains. If a send is cancelled
  after part of a message went out, the line on the wire is torn; the stream then refuses
  further sends with `anyio.BrokenResourceError` rather than glue the next message onto the
  fragment. A reader that closed its end gives ``EPIPE``, also `anyio.BrokenResourceError`.
* ``send_batch_nowait(items)`` writes from synchronous code, for callers that would otherwise
  hand every message to a writer task: what the pipe does not take at once is kept and goes
  out first with the next ``send`` or ``send_batch``.
* ``aclose()`` wakes any task waiting on the descriptors (it gets
  `anyio.ClosedResourceError`) before it restores flags and closes them, so no readiness
  registration outlives its descriptor.

Server side, `stdio_server_stream` serves on this process's stdin and stdout, which must carry
nothing but MCP messages ("The server MUST NOT write anything to its stdout that is not a valid
MCP message", both pages). While it is active:

* the wire uses private duplicates of fds 0 and 1;
* fd 1 is pointed at stderr, so output from C code or from child processes (which inherit fd
  1) goes to the log, where the server MAY write (same pages), and ``sys.stdout`` is
  ``sys.stderr``, so a stray ``print`` does too; anything Python had buffered for stdout
  before serving began is flushed there as well, not onto the wire;
* fd 0 is ``/dev/null``, so a child process cannot swallow client messages, and never
  inherits a non-blocking stdin (a common cause of spurious ``EAGAIN`` in children).

On exit everything is put back (descriptors, flags, ``sys.stdout``). ``send_eof()`` closes
the wire's stdout for good, which lets the server end the session first ("The server MAY
initiate shutdown by closing its output stream", 2025-11-25 basic/lifecycle, "Shutdown";
2026-07-28 basic/transports/stdio, "Shutdown"); fd 1 then stays on stderr after exit.

Client side, the child process and its shutdown ladder are `stdio_process.py`.

POSIX only: non-blocking pipes, process groups and signals have no Windows equivalent here.
"""

from __future__ import annotations

import fcntl
import os
import sys
from collections import deque
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager, suppress
from typing import Final

import anyio
import anyio.lowlevel
from anyio.abc import ObjectStream

from mcp_core.wire import DEFAULT_MAX_LINE_BYTES, LineFramer, LineTooLong, frame_line

from .backend import KeptReader, kept_reader

__all__ = ["READ_CHUNK_BYTES", "StdioStream", "stdio_server_stream"]

READ_CHUNK_BYTES: Final = 64 * 1024
"""Bytes asked for per read: the default capacity of a Linux pipe, emptied in one call."""


def _set_nonblocking(fd: int) -> int:
    flags = fcntl.fcntl(fd, fcntl.F_GETFL)
    if not flags & os.O_NONBLOCK:
        fcntl.fcntl(fd, fcntl.F_SETFL, flags | os.O_NONBLOCK)
    return flags


class _Pipe:
    """One direction of a non-blocking descriptor, with at most one task waiting on it."""

    __slots__ = (
        "_flags",
        "_idle",
        "_reader",
        "_reader_known",
        "_waiting",
        "backlog",
        "closed",
        "fd",
        "fd_closed",
        "source_gone",
        "torn",
    )

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._flags = _set_nonblocking(fd)
        #: A task waits on the descriptor (`_wait`).
        self._waiting = False
        #: Set by `_wait` when its wait ends, for `release` (made only when it waits).
        self._idle: anyio.Event | None = None
        #: The kept reader of the read side on asyncio (`KeptReader`), made at its first wait.
        self._reader: KeptReader | None = None
        self._reader_known = False
        self.closed = False
        self.fd_closed = False
        #: Set once the writer is known to be gone: EAGAIN then means end of input.
        self.source_gone = False
        #: Set when a write stopped partway through a message.
        self.torn = False
        #: What `write_nowait` could not write yet; the next write sends it first.
        self.backlog = b""

    async def _wait(self, readable: bool) -> None:
        # A wait ends when the descriptor is ready, or when `_wake` interrupts it; the
        # caller looks again either way. No cancel scope and no event of our own: a
        # pipe is waited on for nearly every message that arrives one at a time, and
        # those cost more than the rest of the wait (see benchmarks/README.md, "stdio,
        # second pass").
        self._waiting = True
        try:
            if not readable:
                await anyio.wait_writable(self.fd)
            elif self._reader is not None:
                await self._reader.wait()
            elif self._reader_known:
                await anyio.wait_readable(self.fd)
            else:
                self._reader_known = True
                self._reader = kept_reader(self.fd)
                if self._reader is None:
                    await anyio.wait_readable(self.fd)
                else:
                    await self._reader.wait()
        except anyio.ClosedResourceError:
            pass  # woken by `_wake`: the caller sees why (closed, source gone)
        finally:
            self._waiting = False
            if self._idle is not None:
                self._idle.set()

    def _wake(self) -> None:
        # End a pending wait. A kept reader wakes its own waiter only; `notify_closing`
        # wakes every anyio wait on the descriptor, in either direction: a wait of the
        # other `_Pipe` of a shared descriptor (a socket) wakes for nothing, looks again
        # and waits again.
        if self._waiting:
            if self._reader is not None:
                self._reader.wake()
            else:
                anyio.notify_closing(self.fd)

    def end_of_source(self) -> None:
        """Note that the writer has gone; a pending wait ends and EAGAIN now means EOF."""
        self.source_gone = True
        self._wake()

    async def release(self, *, close: bool) -> None:
        """Stop using the descriptor: wake its waiter, restore its flags, maybe close it."""
        if self.closed:
            return
        self.closed = True
        if self._waiting:
            idle = self._idle = anyio.Event()
            self._wake()
            with anyio.CancelScope(shield=True):
                await idle.wait()
            self._idle = None
        if self._reader is not None:
            self._reader.remove()  # before the descriptor may close
        with suppress(OSError):
            fcntl.fcntl(self.fd, fcntl.F_SETFL, self._flags)
        if close:
            os.close(self.fd)
            self.fd_closed = True

    async def read(self) -> bytes:
        """Return the next chunk, or ``b""`` at end of input."""
        while True:
            if self.closed:
                raise anyio.ClosedResourceError
            try:
                return os.read(self.fd, READ_CHUNK_BYTES)
            except BlockingIOError:
                if self.source_gone:
                    return b""
            except OSError as exc:  # EIO from a hung-up terminal, ECONNRESET from a socket
                raise anyio.BrokenResourceError from exc
            await self._wait(readable=True)

    def write_nowait(self, data: bytes) -> bool:
        """Write what the descriptor takes now; keep the rest as the backlog.

        Returns True if nothing is left over.
        """
        if self.closed:
            raise anyio.ClosedResourceError
        if not self.backlog:
            try:
                data = data[os.write(self.fd, data) :]
            except BlockingIOError:
                pass
            except OSError as exc:  # EPIPE: the reader closed its end
                raise anyio.BrokenResourceError from exc
        self.backlog += data
        return not self.backlog

    async def write_all(self, data: bytes) -> None:
        """Write the backlog and all of ``data``, waiting while the descriptor is full."""
        # A backlog is the rest of a message whose start is on the wire already.
        owed = bool(self.backlog)
        if owed:
            data, self.backlog = self.backlog + data, b""
        view = memoryview(data)
        try:
            while True:
                if self.closed:
                    raise anyio.ClosedResourceError
                try:
                    view = view[os.write(self.fd, view) :]
                except BlockingIOError:
                    pass
                except OSError as exc:  # EPIPE: the reader closed its end
                    raise anyio.BrokenResourceError from exc
                if not view:
                    return
                await self._wait(readable=False)
        except BaseException:
            if owed or len(view) < len(data):
                self.torn = True
            raise


class StdioStream(ObjectStream[bytes | LineTooLong]):
    """Newline-delimited messages over a pair of non-blocking POSIX file descriptors.

    Items received are whole messages: ``bytes`` without the line terminator, or a
    `LineTooLong` marker for a line over ``max_line_bytes``. Items sent are ``bytes``, one
    message each. One task may receive while another sends; two tasks receiving (or two
    sending) at once get `anyio.BusyResourceError`.

    The descriptors are switched to non-blocking mode at construction, and their flags are
    restored when the stream releases them (``aclose``, or ``send_eof`` for the write side).
    The stream works over pipes, sockets, terminals and regular files.
    """

    def __init__(
        self,
        read_fd: int,
        write_fd: int,
        *,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
        close_fds: bool = True,
    ) -> None:
        """Wrap two descriptors.

        Args:
            read_fd: Descriptor the peer's messages arrive on.
            write_fd: Descriptor our messages leave on. May equal ``read_fd`` (a socket).
            max_line_bytes: Largest accepted incoming message, terminator excluded.
            close_fds: Close both descriptors on ``aclose``. ``send_eof`` closes
                ``write_fd`` regardless, because a pipe's reader only sees end of input
                once the write end is closed.

        Raises:
            ValueError: If ``max_line_bytes`` is less than 1.
            OSError: If a descriptor is not open.
        """
        self._framer = LineFramer(max_line_bytes)
        self._pending: deque[bytes | LineTooLong] = deque()
        # Two objects even for one descriptor: a read and a write may wait at the same time.
        # Flags are restored in the reverse order they were saved (write side first), which
        # also puts a description shared by both sides (a terminal, a socket) back right.
        self._in = _Pipe(read_fd)
        self._out = _Pipe(write_fd)
        self._same_fd = read_fd == write_fd
        self._close_fds = close_fds
        self._receive_guard = anyio.ResourceGuard("reading from")
        self._send_guard = anyio.ResourceGuard("writing to")
        self._eof = False
        self._closed = False

    @property
    def buffered_bytes(self) -> int:
        """Bytes of an incomplete line held in memory (never above ``max_line_bytes + 1``)."""
        return self._framer.buffered_bytes

    async def receive(self) -> bytes | LineTooLong:
        """Return the next message.

        Returns:
            The message's bytes without ``\\n`` or ``\\r\\n``, or `LineTooLong` when a line
            went over the cap (the stream goes on with the line after it). Blank lines are
            skipped. A final line without a newline is still returned at end of input.

        Raises:
            anyio.EndOfStream: The peer closed its end and every message was returned.
            anyio.ClosedResourceError: The stream was closed, before or during the call.
            anyio.BrokenResourceError: Reading failed (the descriptor is unusable).
            anyio.BusyResourceError: Another task is already receiving.

        If cancelled, no message is lost: a partial line stays buffered for the next call.
        """
        with self._receive_guard:
            return (await self._filled()).popleft()

    async def receive_batch(self) -> list[bytes | LineTooLong]:
        """Return every message already read, waiting for at least one.

        What `receive` does, for a whole read's worth of messages at once: one
        checkpoint per batch instead of per message (the runtime's reader uses it).
        Raises what `receive` raises.
        """
        with self._receive_guard:
            pending = await self._filled()
            batch = list(pending)
            pending.clear()
            return batch

    async def _filled(self) -> deque[bytes | LineTooLong]:
        # The messages read and not yet returned, at least one: reads until then.
        await anyio.lowlevel.checkpoint()
        pending = self._pending
        while True:
            if self._closed:
                raise anyio.ClosedResourceError
            if pending:
                return pending
            if self._eof:
                raise anyio.EndOfStream
            chunk = await self._in.read()
            if chunk:
                pending.extend(self._framer.feed(chunk))
            else:
                self._eof = True
                pending.extend(self._framer.close())

    async def send_batch(self, items: Sequence[bytes]) -> None:
        """Write several messages, each with its newline, in as few writes as the pipe
        allows. Raises what `send` raises; nothing is written if one is invalid."""
        data = b"".join([frame_line(item) for item in items])
        with self._send_guard:
            await anyio.lowlevel.checkpoint()
            await self._writable().write_all(data)

    def send_batch_nowait(self, items: Sequence[bytes]) -> bool:
        """Write several messages, each with its newline, without waiting.

        What the descriptor does not take at once is kept, and the next `send` or
        `send_batch` writes it before anything else (``send_batch([])`` only that).
        A caller that sends from synchronous code (the runtime's sink) saves the
        trip through a writer task while the pipe has room, which it nearly always
        has.

        Returns:
            True if everything was written; False if part of it is kept.

        Raises:
            What `send_batch` raises, with nothing written; `anyio.BusyResourceError`
            if another task is sending.
        """
        data = b"".join([frame_line(item) for item in items])
        with self._send_guard:
            return self._writable().write_nowait(data)

    async def send(self, item: bytes | LineTooLong) -> None:
        """Write one message and its newline.

        Args:
            item: One serialized JSON-RPC message (``LineTooLong`` is only ever received;
                it is in the signature because anyio streams have one item type).

        Raises:
            TypeError: If ``item`` is a `LineTooLong` marker.
            ValueError: If ``item`` contains ``\\n`` or ``\\r``; nothing was written.
            anyio.BrokenResourceError: The peer closed its end, or an earlier send was
                interrupted halfway through a message. No later send will succeed.
            anyio.ClosedResourceError: The stream, or its write side, was closed.
            anyio.BusyResourceError: Another task is already sending.

        If cancelled before any byte was written, the stream is unchanged; if cancelled
        after part of the message was written, the stream is broken for sending.
        """
        if isinstance(item, LineTooLong):
            raise TypeError("LineTooLong is a received marker, not a message to send")
        data = frame_line(item)
        with self._send_guard:
            await anyio.lowlevel.checkpoint()
            await self._writable().write_all(data)

    def _writable(self) -> _Pipe:
        # The write side, if a send may start on it.
        out = self._out
        if out.closed:
            raise anyio.ClosedResourceError
        if out.torn:
            raise anyio.BrokenResourceError("an earlier send stopped in mid-message")
        return out

    async def send_eof(self) -> None:
        """Close the write side, so the peer reads end of input; receiving goes on.

        Closes ``write_fd``, unless it is ``read_fd`` too (then only further sends are
        refused). A send in progress is interrupted with `anyio.ClosedResourceError`.
        """
        await self._out.release(close=not self._same_fd)

    async def aclose(self) -> None:
        """Close the stream, waking any task waiting on it. Idempotent.

        Tasks in ``receive`` or ``send`` get `anyio.ClosedResourceError`.
        """
        self._closed = True
        await self._out.release(close=self._close_fds and not self._same_fd)
        await self._in.release(close=self._close_fds)


# -- server side ------------------------------------------------------------------------------

_serving = False


@asynccontextmanager
async def stdio_server_stream(
    *, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
) -> AsyncIterator[StdioStream]:
    """Serve on this process's stdin and stdout, keeping everything else off stdout.

    Args:
        max_line_bytes: Largest accepted incoming message, terminator excluded.

    Yields:
        A `StdioStream` reading the original stdin and writing the original stdout. Until
        the block exits, fd 1 and ``sys.stdout`` lead to stderr and fd 0 reads
        ``/dev/null`` (see the module docstring).

    Raises:
        RuntimeError: If another ``stdio_server_stream`` is active in this process.
        OSError: If stdin or stdout is not open.
    """
    global _serving
    if _serving:
        raise RuntimeError("stdio_server_stream is already active in this process")
    devnull = os.open(os.devnull, os.O_RDWR)
    try:
        wire_in = os.dup(0)
        try:
            wire_out = os.dup(1)
        except OSError:
            os.close(wire_in)
            raise
    except OSError:
        os.close(devnull)
        raise
    saved_stdout = sys.stdout
    wire_out_closed = False
    _serving = True
    try:
        os.dup2(devnull, 0)
        try:
            os.dup2(2, 1)
        except OSError:  # no stderr: output goes nowhere rather than onto the wire
            os.dup2(devnull, 1)
        sys.stdout = sys.stderr
        if saved_stdout is not None:
            saved_stdout.flush()  # what print() buffered before we started, now to stderr
        stream = StdioStream(wire_in, wire_out, max_line_bytes=max_line_bytes, close_fds=False)
        try:
            yield stream
        finally:
            await stream.aclose()
            wire_out_closed = stream._out.fd_closed
    finally:
        for obj in (sys.stdout, saved_stdout):
            if obj is not None:
                with suppress(OSError, ValueError):
                    obj.flush()
        os.dup2(wire_in, 0)
        os.close(wire_in)
        # After send_eof the wire's stdout is gone; fd 1 stays on stderr.
        if not wire_out_closed:
            os.dup2(wire_out, 1)
            os.close(wire_out)
        sys.stdout = saved_stdout
        os.close(devnull)
        _serving = False


# -- client side ------------------------------------------------------------------------------
