"""The stdio transport's client side: a server launched as a child process, on pipes.

Client side, `open_stdio_process` launches the server ("The client launches the MCP server as
a subprocess", both transport pages) on pipes this module creates, so its end of the pipes is
the same `StdioStream`. The child gets its own session and process group, so it can be
signalled with everything it started. Its stderr is, by choice, inherited (forwarded to ours),
given to a per-line callback, or sent to any descriptor such as ``subprocess.DEVNULL`` (the
client "MAY capture, forward, or ignore the server's stderr", both pages). Its environment is
a short list of harmless variables from ours (`INHERITED_ENV_VARS`) with ``env`` laid over
it, so API keys and other secrets in the client's environment do not leak into third-party
servers by default; pass ``env=os.environ`` to hand over everything.

When the child exits, the stream reads what is left in the pipe and then reports
`anyio.EndOfStream`, even if a grandchild still holds the pipe's write end open.

Shutdown follows 2025-11-25 basic/lifecycle, "Shutdown" / "stdio" and 2026-07-28
basic/transports/stdio, "Shutdown": close the child's stdin, wait up to ``shutdown_timeout``
for it to exit (draining its stdout meanwhile, so it cannot block on a full pipe), then send
SIGTERM to its process group and wait again, then SIGKILL the group. Once the ladder has
escalated, the group gets SIGKILL after the SIGTERM wait even if the child itself has exited,
so helpers that ignored SIGTERM go too. A child that exits on its own is not signalled, and
neither are processes it leaves behind.

POSIX only: process groups and signals have no Windows equivalent here.
"""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager, suppress
from typing import Final

import anyio
from anyio.abc import Process

from mcp_core.wire import DEFAULT_LIMITS

from .errors import SEND_FAILED
from .stdio_streams import StdioStream, _Pipe

__all__ = ["DEFAULT_SHUTDOWN_TIMEOUT", "INHERITED_ENV_VARS", "StdioProcess", "open_stdio_process"]

DEFAULT_SHUTDOWN_TIMEOUT: Final = 2.0
"""Seconds each shutdown step waits for the child before escalating.

The spec asks for "a reasonable time" (2025-11-25 basic/lifecycle, "Shutdown"). Two seconds is
what the official Python SDK waits; a server that honours stdin EOF exits in milliseconds."""

INHERITED_ENV_VARS: Final = (
    "HOME",
    "LOGNAME",
    "PATH",
    "SHELL",
    "TERM",
    "USER",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "TMPDIR",
    "TZ",
)
"""Variables a launched server inherits from our environment, when set.

Enough to find programs, a home directory, a locale and a temp directory; nothing that tends
to hold a credential. The official SDKs inherit a similar list for the same reason."""


class StdioProcess:
    """A server launched by `open_stdio_process`: its message stream and its process."""

    def __init__(self, process: Process, stream: StdioStream) -> None:
        self._process = process
        #: Messages to and from the server (its stdin and stdout).
        self.stream = stream

    @property
    def pid(self) -> int:
        """The server's process id, which is also its process group id."""
        return self._process.pid

    @property
    def returncode(self) -> int | None:
        """The exit status, ``-signum`` if a signal ended it, or None while it runs."""
        return self._process.returncode

    async def wait(self) -> int:
        """Wait until the server exits and return its exit status."""
        return await self._process.wait()


def _child_environment(env: Mapping[str, str] | None) -> dict[str, str]:
    child = {name: os.environ[name] for name in INHERITED_ENV_VARS if name in os.environ}
    if env is not None:
        child.update(env)
    return child


@asynccontextmanager
async def open_stdio_process(
    argv: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
    stderr: Callable[[bytes], object] | int | None = None,
    max_line_bytes: int = DEFAULT_LIMITS.max_message_bytes,
    shutdown_timeout: float = DEFAULT_SHUTDOWN_TIMEOUT,
) -> AsyncIterator[StdioProcess]:
    """Launch a stdio MCP server and stop it on exit.

    Args:
        argv: The program and its arguments (no shell is involved).
        env: Variables laid over the inherited ones (`INHERITED_ENV_VARS`); pass
            ``os.environ`` to give the server our whole environment.
        cwd: The server's working directory; ours by default.
        stderr: Where the server's stderr goes. None: to our stderr (inherited). A callable:
            called with each line, without its ``\\n`` (or ``\\r\\n``), in a task of this
            context; a line longer than ``max_line_bytes`` arrives in pieces of that size,
            and an exception from the callable ends the context. An int: a descriptor or
            ``subprocess.DEVNULL``, given to the server as is.
        max_line_bytes: Largest accepted message from the server, terminator excluded.
        shutdown_timeout: Seconds each shutdown step waits before escalating.

    Yields:
        A `StdioProcess`. Its ``stream`` raises `anyio.EndOfStream` once the server has
        exited (or closed its stdout) and its last message was received.

    Raises:
        OSError: If the program cannot be started (``FileNotFoundError``,
            ``PermissionError``).
        TypeError: If ``argv`` is a string.
        ValueError: If ``stderr`` is ``subprocess.PIPE`` or ``subprocess.STDOUT``, or
            ``max_line_bytes`` is less than 1. Nothing was started.

    On exit, the server is shut down as the spec says (see the module docstring): stdin
    closed, then SIGTERM, then SIGKILL to its process group, ``shutdown_timeout`` apart. The
    shutdown runs shielded from cancellation and takes at most four timeouts (the last one
    waits for the stderr callback to see the server's final lines).
    """
    if isinstance(argv, (str, bytes)):
        raise TypeError("argv must be a sequence of arguments, not a string")
    if max_line_bytes < 1:
        raise ValueError("max_line_bytes must be at least 1")
    if isinstance(stderr, int) and stderr < 0 and stderr != subprocess.DEVNULL:
        # PIPE would fill up unread; STDOUT would put logs on the wire.
        raise ValueError("stderr must be None, a callable, DEVNULL or a file descriptor")
    child_env = _child_environment(env)
    stdin_r, stdin_w = os.pipe()
    stdout_r, stdout_w = os.pipe()
    stderr_r = stderr_w = -1
    child_stderr: int | None
    if callable(stderr):
        stderr_r, stderr_w = os.pipe()
        child_stderr = stderr_w
    else:
        child_stderr = stderr
    ours = [stdin_w, stdout_r] + ([stderr_r] if stderr_r >= 0 else [])
    try:
        process = await anyio.open_process(
            list(argv),
            stdin=stdin_r,
            stdout=stdout_w,
            stderr=child_stderr,
            cwd=cwd,
            env=child_env,
            start_new_session=True,
        )
    except BaseException:
        for fd in ours:
            os.close(fd)
        raise
    finally:
        for fd in (stdin_r, stdout_w, stderr_w):
            if fd >= 0:
                os.close(fd)

    stream = StdioStream(stdout_r, stdin_w, max_line_bytes=max_line_bytes)
    err = _Pipe(stderr_r) if stderr_r >= 0 else None
    err_done = anyio.Event()
    body_error: BaseException | None = None
    async with anyio.create_task_group() as tg:
        tg.start_soon(_watch_exit, process, stream, err)
        if err is not None and callable(stderr):
            tg.start_soon(_pump_stderr, err, stderr, max_line_bytes, err_done)
        else:
            err_done.set()
        try:
            yield StdioProcess(process, stream)
        except BaseException as exc:
            # Raised outside the task group below, so the caller gets it unwrapped.
            body_error = exc
        finally:
            with anyio.CancelScope(shield=True):
                await _shut_down(process, stream, shutdown_timeout, tg)
                with anyio.move_on_after(shutdown_timeout):
                    await err_done.wait()
                tg.cancel_scope.cancel()
    if body_error is not None:
        raise body_error


async def _watch_exit(process: Process, stream: StdioStream, err: _Pipe | None) -> None:
    # When the server exits, what it wrote is already in the pipes: read that, then stop,
    # even if a process it left behind holds the write ends open.
    await process.wait()
    stream._in.end_of_source()
    if err is not None:
        err.end_of_source()


async def _pump_stderr(
    err: _Pipe, callback: Callable[[bytes], object], cap: int, done: anyio.Event
) -> None:
    def deliver(line: bytes) -> None:
        if len(line) <= cap:
            callback(line)
        else:
            for start in range(0, len(line), cap):
                callback(line[start : start + cap])

    rest = b""
    try:
        while chunk := await err.read():
            *lines, rest = (rest + chunk).split(b"\n")
            for line in lines:
                deliver(line[:-1] if line[-1:] == b"\r" else line)
            if len(rest) > cap:
                # Hand on the whole pieces of an unfinished long line; keep 1..cap bytes.
                cut = (len(rest) - 1) // cap * cap
                deliver(rest[:cut])
                rest = rest[cut:]
        if rest:
            deliver(rest)
    except SEND_FAILED:
        pass
    finally:
        await err.release(close=True)
        done.set()


async def _drain(stream: StdioStream) -> None:
    # During shutdown, read and drop what the server still writes, so it can't block on a
    # full stdout pipe instead of noticing that its stdin closed.
    try:
        async for _ in stream:
            pass
    except (anyio.BusyResourceError, *SEND_FAILED):
        pass


def _signal_group(pgid: int, signum: int) -> None:
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signum)


async def _shut_down(
    process: Process, stream: StdioStream, timeout: float, tg: anyio.abc.TaskGroup
) -> None:
    # 2025-11-25 basic/lifecycle "Shutdown" / "stdio"; 2026-07-28 basic/transports/stdio
    # "Shutdown": close the input stream, wait, SIGTERM, wait, SIGKILL.
    await stream.send_eof()
    tg.start_soon(_drain, stream)
    with anyio.move_on_after(timeout):
        await process.wait()
    if process.returncode is None:
        # The child called setsid(), so its pid is its process group id. The SIGKILL goes
        # to the group even if the child has exited by now, for members that ignored
        # SIGTERM; while any member lives the kernel keeps the id from being reused, and if
        # none does, killpg fails with ESRCH.
        _signal_group(process.pid, signal.SIGTERM)
        with anyio.move_on_after(timeout):
            await process.wait()
        _signal_group(process.pid, signal.SIGKILL)
        with anyio.move_on_after(timeout):
            await process.wait()
    await stream.aclose()
