"""Reaching the SERVER a command names, and running one session with it.

``call``, ``list``, ``read``, ``prompt`` and ``inspect`` take a SERVER, which is one of:

    http://host:8000/mcp     the MCP endpoint of a running server (https too)
    app.py, app.py:server,   a TARGET, as ``serve`` takes it: spawned as
    package.module:server    ``sys.executable -m transports serve TARGET``
    "python app.py --flag"   a command line, split the way a POSIX shell would; a
                             program ``python`` or ``python3`` is the interpreter
                             running mcp-core, not whichever is first on PATH

A spawned server gets our whole environment and working directory, and its stderr
is ours. ``--header "Name: value"`` adds a header to every HTTP request.

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
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any, Final, TypeVar

import anyio

from mcp_core import McpError

from ..client import Client
from ..driver import ConnectionClosed
from ..http.client import HttpError, HttpStatusError, connect_http
from ..http.oauth_cli import cli_oauth
from ..stdio import connect_stdio
from .targets import is_target, target_file

__all__ = [
    "STOP_SIGNALS",
    "UsageError",
    "is_url",
    "parse_headers",
    "run_session",
    "server_argv",
]

_T = TypeVar("_T")

_URL_SCHEMES: Final = ("http://", "https://")

PYTHON_NAMES: Final = frozenset({"python", "python3"})
"""Programs of a server command that mean the interpreter running mcp-core."""

STOP_SIGNALS: Final = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
"""Signals that end a session cleanly (the server shut down first)."""


class UsageError(Exception):
    """The command line is wrong; exit status 2."""


def error(message: str) -> None:
    """Say what went wrong, on stderr."""
    print(f"mcp-core: error: {message}", file=sys.stderr)


def is_url(server: str) -> bool:
    """Whether SERVER names an HTTP(S) endpoint rather than a command."""
    return server.lower().startswith(_URL_SCHEMES)


def server_argv(server: str) -> list[str]:
    """The argv that starts the server SERVER names (a TARGET or a command line).

    Raises:
        UsageError: an empty or badly quoted command, or a target file that does
            not exist.
    """
    if is_target(server):
        path = target_file(server)
        if path is not None and not Path(path).is_file():
            raise UsageError(f"{path}: no such file")
        return [sys.executable, "-m", "transports", "serve", server]
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


def _client(args: argparse.Namespace, options: dict[str, Any]) -> Client:
    """The client SERVER names.

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
            return connect_http(server, headers=headers, timeout=args.timeout, **options)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    if headers:
        raise UsageError("--header only applies to an http:// or https:// SERVER")
    if auth is not None:
        raise UsageError("--auth only applies to an http:// or https:// SERVER")
    return connect_stdio(server_argv(server), env=os.environ, timeout=args.timeout, **options)


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
        client = _client(args, options)
    except UsageError as exc:
        error(str(exc))
        return 2, None

    server: str = args.server
    try:
        return anyio.run(_session, client, work)
    except McpError as exc:
        print(f"error {exc.code}: {exc.message}", file=sys.stderr)
    except TimeoutError as exc:  # before OSError, its base class
        error(f"no answer in time ({exc})" if str(exc) else "no answer in time")
    except (FileNotFoundError, PermissionError) as exc:
        error(f"cannot start the server {server!r}: {exc.strerror or exc}")
    except HttpStatusError as exc:
        error(f"the server refused: {exc}")
    except HttpError as exc:
        error(f"cannot talk to {server}: {exc}")
    except ConnectionClosed as exc:
        where = "" if is_url(server) else "; see its messages above"
        error(f"the server went away ({exc}){where}")
    except OSError as exc:
        error(f"talking to the server failed: {exc}")
    return 1, None
