"""Reaching the SERVER a command names, and running one session with it.

``call``, ``list``, ``read``, ``prompt`` and ``inspect`` take a SERVER, which is one of:

    http://host:8000/mcp     the MCP endpoint of a running server (https too)
    app.py, app.py:server,   a TARGET, as ``serve`` takes it: spawned as
    package.module:server    ``sys.executable -m transports serve TARGET``
    "python app.py --flag"   a command line, split the way a POSIX shell would; a
                             program ``python`` or ``python3`` is the interpreter
                             running mcp-core, not whichever is first on PATH

A spawned server gets our whole environment and working directory. Its stderr is
kept, not shown: if it exits before the work is done we say so, with its exit
status and what it wrote there; a tool's traceback on its stderr stays out of the
caller's terminal. ``--verbose`` shows its stderr as it comes (and a TARGET's load
failure with its traceback). ``--header "Name: value"`` adds a header to every HTTP
request.

Every way out of a session shuts a spawned server down with the stdio shutdown
ladder (stdin closed, then SIGTERM, then SIGKILL to its process group, a grace
apart; `transports.stdio_streams`): the work finishing, an error, and SIGINT,
SIGTERM or SIGHUP sent to us. Left to their defaults, SIGTERM and SIGHUP end this
process on the spot and leave the server running, so while a session runs they
are caught, cancel the work, and become exit status 128 + the signal's number once
the server is down.
"""

from __future__ import annotations

import argparse
import os
import shlex
import signal
import sys
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from http import HTTPStatus
from pathlib import Path
from typing import Any, Final, TypeVar
from urllib.parse import urlsplit, urlunsplit

import anyio

from mcp_core import McpError

from ..client import Client, Connector
from ..driver import ConnectionClosed, Driver
from ..http.client import HttpError, HttpStatusError, connect_http
from ..http.oauth_cli import cli_oauth
from ..stdio import PYTHON_NAMES, stdio_connector
from ..stdio_process import StdioProcess
from .targets import is_target, target_file

__all__ = [
    "STOP_SIGNALS",
    "Spawned",
    "UsageError",
    "first_failure",
    "is_url",
    "parse_headers",
    "report",
    "run_session",
    "server_argv",
]

_T = TypeVar("_T")

_URL_SCHEMES: Final = ("http://", "https://")

STOP_SIGNALS: Final = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
"""Signals that end a session cleanly (the server shut down first)."""

KEPT_STDERR_LINES: Final = 200
"""The last lines of a spawned server's stderr kept to show if it exits early."""


_OUR_ERROR: Final = "mcp-core: error: "


class UsageError(Exception):
    """The command line is wrong; exit status 2."""


def error(message: str) -> None:
    """Say what went wrong, on stderr."""
    print(f"{_OUR_ERROR}{message}", file=sys.stderr)


def is_url(server: str) -> bool:
    """Whether SERVER names an HTTP(S) endpoint rather than a command."""
    return server.lower().startswith(_URL_SCHEMES)


def server_argv(server: str, *, verbose: bool = False) -> list[str]:
    """The argv that starts the server SERVER names (a TARGET or a command line);
    ``verbose`` asks a TARGET's ``serve`` for tracebacks.

    Raises:
        UsageError: an empty or badly quoted command, or a target file that does
            not exist.
    """
    if is_target(server):
        path = target_file(server)
        if path is not None and not Path(path).is_file():
            raise UsageError(f"{path}: no such file")
        return [sys.executable, "-m", "transports", "serve", server] + (
            ["--verbose"] if verbose else []
        )
    try:
        argv = shlex.split(server)
    except ValueError as exc:
        raise UsageError(f"cannot split the server command {server!r}: {exc}") from None
    if not argv:
        raise UsageError("the server command is empty")
    if argv[0] in PYTHON_NAMES:
        argv[0] = sys.executable
    return argv


def parse_headers(lines: Sequence[str]) -> dict[str, str]:
    """``--header "Name: value"`` options as a mapping.

    Raises:
        UsageError: a header without a name, or without ``:``.
    """
    headers: dict[str, str] = {}
    for line in lines:
        name, colon, value = line.partition(":")
        name = name.strip()
        if not colon or not name or any(c in name for c in " \t\r\n"):
            raise UsageError(f"--header takes 'Name: value', not {line!r}")
        if "\r" in value or "\n" in value:
            raise UsageError(f"the value of --header {name} must be one line")
        headers[name] = value.strip()
    return headers


class Spawned:
    """A server this command started: its process, once up, and its stderr, shown
    as it comes (``verbose``) or kept to show if it exits early."""

    def __init__(self, argv: list[str], *, verbose: bool, ours: bool = False) -> None:
        self.argv = argv
        self.verbose = verbose
        #: Our own ``serve`` (a TARGET): its error lines already speak for it.
        self.ours = ours
        self.process: StdioProcess | None = None
        self.kept: deque[str] = deque(maxlen=KEPT_STDERR_LINES)

    def stderr(self, line: bytes) -> None:
        text = line.decode("utf-8", "replace")
        if self.verbose:
            print(text, file=sys.stderr, flush=True)
        else:
            self.kept.append(text)

    def connector(self) -> Connector:
        inner = stdio_connector(self.argv, env=os.environ, stderr=self.stderr)

        @asynccontextmanager
        async def connect(driver: Driver) -> AsyncIterator[StdioProcess]:
            async with inner(driver) as process:
                self.process = process
                yield process

        return connect

    def exit_report(self) -> str:
        """How the server ended, and what it wrote on stderr (unless already shown)."""
        code = None if self.process is None else self.process.returncode
        if code is None:
            said = "the server closed its output"
        elif code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            said = f"the server was ended by {name}"
        else:
            said = f"the server exited with status {code}"
        if self.verbose or not self.kept:
            return said + ("" if self.verbose else ", and wrote nothing on stderr")
        if self.ours and any(line.startswith(_OUR_ERROR) for line in self.kept):
            return "\n".join(self.kept).removeprefix(_OUR_ERROR)
        return said + "; its stderr:\n" + "\n".join(f"  {line}" for line in self.kept)


def _client(args: argparse.Namespace, options: dict[str, Any]) -> tuple[Client, Spawned | None]:
    """The client SERVER names, and the server it starts, if any.

    Raises:
        UsageError: a bad URL, command or header.
    """
    server: str = args.server
    headers = parse_headers(args.header or [])
    if args.timeout is not None:
        # --timeout bounds the opening as well as each request.
        options.setdefault("handshake_timeout", args.timeout)
        options.setdefault("probe_timeout", min(args.timeout, 10.0))
    auth = getattr(args, "auth", None)
    if is_url(server):
        if auth is not None:
            options["auth"] = cli_oauth(server, auth)
        try:
            return connect_http(server, headers=headers, timeout=args.timeout, **options), None
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    if headers:
        raise UsageError("--header only applies to an http:// or https:// SERVER")
    if auth is not None:
        raise UsageError("--auth only applies to an http:// or https:// SERVER")
    verbose = bool(getattr(args, "verbose", False))
    argv = server_argv(server, verbose=verbose)
    spawned = Spawned(argv, verbose=verbose, ours=is_target(server))
    return Client(spawned.connector(), timeout=args.timeout, **options), spawned


def first_failure(exc: BaseException) -> BaseException:
    """The exception to report for ``exc``: itself, or for an exception group (task
    groups wrap what their tasks raise) its first leaf that is not a cancellation,
    so that no message shows a group's repr."""
    while isinstance(exc, BaseExceptionGroup):
        # Cancellations (asyncio's and trio's) are BaseExceptions, not failures.
        members: list[BaseException] = list(exc.exceptions)
        leaves = [e for e in members if isinstance(e, Exception)]
        exc = (leaves or members)[0]
    return exc


def _http_refusal(exc: HttpStatusError) -> str:
    try:
        phrase = HTTPStatus(exc.status).phrase
    except ValueError:
        phrase = ""
    said = f"{exc.url} answered HTTP {exc.status} {phrase}".rstrip()
    detail = exc.body[:200].decode("utf-8", "replace").strip()
    if detail and detail.lower() != phrase.lower():
        said += f": {detail}"
    path = urlsplit(exc.url).path
    if exc.status == 404 and path != "/mcp":
        # Servers of ours, the SDKs' and FastMCP's answer at /mcp by default.
        mcp = urlunsplit(urlsplit(exc.url)._replace(path="/mcp", query="", fragment=""))
        said += f"; MCP endpoints are usually at /mcp: try {mcp}"
    return said


def _http_failure(exc: HttpError) -> str:
    # The text starts with "METHOD URL: "; the URL is said once, here.
    reason = str(exc).removeprefix(f"{exc.method} {exc.url}: ")
    return f"cannot reach {exc.url}: {reason}"


def report(exc: Exception, server: str, spawned: Spawned | None) -> None:
    """Say on stderr why a session failed: one message, one URL, no group reprs."""
    if isinstance(exc, McpError):
        print(f"error {exc.code}: {exc.message}", file=sys.stderr)
    elif isinstance(exc, TimeoutError):  # before OSError, its base class
        error(f"no answer in time ({exc})" if str(exc) else "no answer in time")
    elif isinstance(exc, (FileNotFoundError, PermissionError)):
        error(f"cannot start the server {server!r}: {exc.strerror or exc}")
    elif isinstance(exc, HttpStatusError):
        error(_http_refusal(exc))
    elif isinstance(exc, HttpError):
        error(_http_failure(exc))
    elif isinstance(exc, ConnectionClosed):
        error(f"the server went away ({exc})" if spawned is None else spawned.exit_report())
    elif isinstance(exc, OSError):
        error(f"talking to the server failed: {exc}")
    else:
        raise exc


async def _session(
    client: Client, work: Callable[[Client], Awaitable[_T]]
) -> tuple[int, _T | None]:
    caught: list[int] = []
    failure: Exception | None = None
    result: _T | None = None
    with anyio.open_signal_receiver(*STOP_SIGNALS) as signals:
        async with anyio.create_task_group() as tg:
            work_scope = anyio.CancelScope()

            async def watch() -> None:
                # The first signal stops the work; later ones wait for the shutdown.
                async for signum in signals:
                    if not caught:
                        caught.append(signum)
                        work_scope.cancel()

            tg.start_soon(watch)
            try:
                with work_scope:
                    async with client:
                        result = await work(client)
            except Exception as exc:  # raised below, outside the task group
                failure = exc
            finally:
                tg.cancel_scope.cancel()
    if caught:
        return 128 + caught[0], None
    if failure is not None:
        raise failure
    return 0, result


def run_session(
    args: argparse.Namespace, work: Callable[[Client], Awaitable[_T]], **options: Any
) -> tuple[int, _T | None]:
    """Connect to ``args.server``, run ``work`` with the client, and disconnect.

    Args:
        args: the command line (``server``, ``header``, ``timeout``).
        work: what to do with the client.
        options: anything `Client` takes (``on_log``...).

    Returns:
        (0, what ``work`` returned), or (exit status, None) once the failure has
        been reported on stderr: 1 the server failed or could not be reached, 2 a
        usage error, 128 + N signal N arrived.
    """
    try:
        client, spawned = _client(args, options)
    except UsageError as exc:
        error(str(exc))
        return 2, None

    try:
        return anyio.run(_session, client, work)
    except Exception as exc:
        failure = first_failure(exc)
        if not isinstance(failure, Exception):
            raise failure from None  # KeyboardInterrupt, SystemExit: not a failure to report
        report(failure, args.server, spawned)
    return 1, None
