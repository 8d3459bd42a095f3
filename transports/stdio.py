"""MCP over stdio: serve a Server on this process's stdin/stdout, or connect a
Client to a server command it spawns.

The byte layer (non-blocking pipes, the guarded stdout, the shutdown ladder) is
`transports.stdio_streams`; this module puts the runtime on it:

    serve_stdio(server)          serve until stdin reaches EOF (the client left)
    run_stdio(server)            the same, as the whole program (``anyio.run``)
    connect_stdio(argv, ...)     a Client talking to a spawned server command

A line longer than the cap is answered with -32700 (id null) and the stream goes
on; a server that exits mid-request fails the pending calls with
ConnectionClosed (2025-11-25 basic/transports.mdx "stdio";
2026-07-28 basic/transports/stdio.mdx).
"""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from functools import partial
from typing import TYPE_CHECKING, Any, Final

import anyio

from mcp_core import REVISIONS, Limits, Server
from mcp_core.wire import DEFAULT_LIMITS, DEFAULT_MAX_LINE_BYTES

from .driver import DEFAULT_MAX_CONCURRENCY, Driver
from .pump import DEFAULT_MAX_OUTBOX_BYTES, pump
from .server_connection import serve_stream
from .stdio_process import DEFAULT_SHUTDOWN_TIMEOUT, StdioProcess, open_stdio_process
from .stdio_streams import stdio_server_stream

if TYPE_CHECKING:
    # The client side loads on first use: a stdio server never needs it.
    from .client import Client, Connector

__all__ = ["PYTHON_NAMES", "connect_stdio", "run_stdio", "serve_stdio", "stdio_connector"]

PYTHON_NAMES: Final = frozenset({"python", "python3"})
"""Programs of a server command that mean the interpreter running this code
(``sys.executable``), not whichever is first on PATH: outside an activated
virtual environment, ``python`` on PATH has none of its packages."""


async def serve_stdio(
    server: Server,
    *,
    revisions: tuple[str, ...] = REVISIONS,
    limits: Limits = DEFAULT_LIMITS,
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
    max_concurrency: int = DEFAULT_MAX_CONCURRENCY,
    max_outbox_bytes: int = DEFAULT_MAX_OUTBOX_BYTES,
) -> None:
    """Serve ``server`` on stdin/stdout until the client closes stdin.

    While serving, ``print`` and anything else written to stdout goes to stderr.
    While more than ``max_outbox_bytes`` of answers wait for the client to read
    them, stdin is not read (the client's writes block), so a client that never
    reads cannot grow the server's memory.
    """
    async with stdio_server_stream(max_line_bytes=max_line_bytes) as stream:
        await serve_stream(
            server,
            stream,
            revisions=revisions,
            limits=limits,
            max_concurrency=max_concurrency,
            max_outbox_bytes=max_outbox_bytes,
            network_transport="pipe",
        )


def run_stdio(server: Server, *, backend: str = "asyncio", **options: Any) -> None:
    """Run ``server`` on stdio as the whole program; returns when the client leaves.

    Args:
        server: the application.
        backend: "asyncio" or "trio".
        options: anything `serve_stdio` takes.
    """
    anyio.run(lambda: serve_stdio(server, **options), backend=backend)


def stdio_connector(
    argv: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
    stderr: Callable[[bytes], object] | int | None = None,
    max_line_bytes: int = DEFAULT_LIMITS.max_message_bytes,
    shutdown_timeout: float = DEFAULT_SHUTDOWN_TIMEOUT,
    max_outbox_bytes: int = DEFAULT_MAX_OUTBOX_BYTES,
) -> Connector:
    """A connector for `Client` that spawns ``argv`` and speaks MCP on its stdio.

    See `transports.stdio_process.open_stdio_process` for ``env`` (laid over a short safe
    list of our variables), ``stderr`` and the shutdown on exit. ``max_line_bytes``
    is by default the largest message a server may send (16 MiB,
    ``Limits.max_message_bytes``), so that every answer of a server of ours arrives;
    the server's own cap on what it reads stays 4 MiB (`DEFAULT_MAX_LINE_BYTES`).
    While more than ``max_outbox_bytes`` wait for the server to read them, its
    stdout is not read (see `transports.pump.pump`). A program named ``python``
    or ``python3`` is this interpreter (`PYTHON_NAMES`).
    """
    if not isinstance(argv, (str, bytes)) and argv and argv[0] in PYTHON_NAMES:
        argv = [sys.executable, *argv[1:]]

    @asynccontextmanager
    async def connect(driver: Driver) -> AsyncIterator[StdioProcess]:
        async with (
            open_stdio_process(
                argv,
                env=env,
                cwd=cwd,
                stderr=stderr,
                max_line_bytes=max_line_bytes,
                shutdown_timeout=shutdown_timeout,
            ) as process,
            anyio.create_task_group() as tg,
        ):
            await tg.start(partial(pump, driver, process.stream, max_outbox_bytes=max_outbox_bytes))
            try:
                yield process
            finally:
                driver.close("the client was closed")
                tg.cancel_scope.cancel()

    return connect


def connect_stdio(
    argv: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
    stderr: Callable[[bytes], object] | int | None = None,
    **client_options: Any,
) -> Client:
    """A `Client` for the server command ``argv``; use it with ``async with``.

    Args:
        argv: the command and its arguments, e.g. ``["python", "server.py"]``;
            ``python`` and ``python3`` mean this interpreter (`PYTHON_NAMES`).
        env: extra environment variables for the server.
        cwd: its working directory.
        stderr: a per-line callback for its stderr, or a file descriptor
            (``subprocess.DEVNULL``); by default it shares ours.
        client_options: anything `Client` takes.
    """
    from .client import Client

    return Client(stdio_connector(argv, env=env, cwd=cwd, stderr=stderr), **client_options)
