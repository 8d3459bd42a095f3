"""``mcp-core list``, ``call`` and ``status`` with ``--config FILE``: many servers at once.

FILE is an ``mcpServers`` JSON file (`mcp_core.manager.parse_servers`), such as
``mcp-core config`` prints; a server command without a ``cwd`` runs in the file's
folder, so relative paths in it count from there. The servers are connected with a
`transports.manager.Manager`; tools and prompts are named ``server.tool``.

    mcp-core list --config servers.json [SERVER] [KIND]   the union, or one server's
    mcp-core call --config servers.json server.tool --arg k=v
    mcp-core status --config servers.json                 a table of connection states
    mcp-core gateway --config servers.json                the union as one server (stdio,
                                                          or --transport http)

``call`` connects only the server its tool's name starts with (all of them when
no server name fits). ``--trace`` prints every message sent and received, and what
happened to each connection, on stderr as it happens (headers with secrets
redacted). ``--timeout`` bounds each server's connection, and each request.

Exit statuses: 0 done; 1 a server could not be reached, or the tool failed;
2 the command line or the configuration file is wrong.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import anyio
import msgspec

from mcp_core import McpError
from mcp_core.manager import ConfigError, ServerConfig, TraceEntry, read_servers

from ..manager import Manager, ManagerError, ServerStatus
from .client import list_lines, parse_arguments, pretty, render_call
from .connect import UsageError, error
from .serve_auth import bearer_auth

__all__ = [
    "load_servers",
    "run_gateway",
    "run_many_call",
    "run_many_list",
    "run_status",
    "status_lines",
]

_T = TypeVar("_T")
_KINDS = ("tools", "resources", "prompts")


def load_servers(path: str, timeout: float | None = None) -> list[ServerConfig]:
    """The servers of an mcpServers file (``timeout``: their connect and request timeouts).

    Raises:
        UsageError: the file cannot be read, or is not a usable configuration.
    """
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        servers, warnings = read_servers(data)
    except ConfigError as exc:
        raise UsageError(f"{path}: {exc}") from None
    for warning in warnings:  # keys nothing reads: a typo, or another client's
        print(f"mcp-core: {path}: {warning}", file=sys.stderr, flush=True)
    if not servers:
        raise UsageError(f"{path}: no servers in it")
    # A server started without a cwd of its own starts in the file's folder, so that
    # relative paths in the file mean the same from wherever mcp-core runs.
    folder = str(Path(path).resolve().parent)
    servers = [
        s if s.cwd is not None or s.command is None else msgspec.structs.replace(s, cwd=folder)
        for s in servers
    ]
    if timeout is not None:
        servers = [
            msgspec.structs.replace(s, connect_timeout=timeout, request_timeout=timeout)
            for s in servers
        ]
    return servers


def _trace_line(entry: TraceEntry) -> None:
    print(entry.line(), file=sys.stderr, flush=True)


def _run(
    args: argparse.Namespace,
    servers: list[ServerConfig],
    work: Callable[[Manager], Awaitable[_T]],
    **manager_options: Any,
) -> _T:
    async def session() -> _T:
        options: dict[str, Any] = dict(manager_options)
        if getattr(args, "trace", False):
            options.update(trace=True, on_trace=_trace_line)
        # One attempt each: a command line reports, it does not wait for retries.
        once = [msgspec.structs.replace(s, auto_reconnect=False) for s in servers]
        async with Manager(once, **options) as manager:
            await manager.wait_ready()
            return await work(manager)

    return anyio.run(session)


def _unavailable(statuses: list[ServerStatus]) -> list[ServerStatus]:
    down = [status for status in statuses if status.state != "connected"]
    for status in down:
        why = f": {status.last_error}" if status.last_error else ""
        error(f"server {status.name!r} is not available{why}")
        for line in status.stderr[-5:]:
            print(f"    {status.name}: {line}", file=sys.stderr)
    return down


def _servers_for(args: argparse.Namespace) -> list[ServerConfig]:
    return load_servers(args.config, args.timeout)


def run_many_list(args: argparse.Namespace) -> int:
    """``mcp-core list --config FILE [SERVER] [KIND]``."""
    try:
        servers = _servers_for(args)
    except UsageError as exc:
        error(str(exc))
        return 2
    names = [server.name for server in servers]
    server: str | None = args.server
    kind: str = args.kind
    if server is not None and server not in names and server in _KINDS:
        kind = server  # `list --config FILE prompts`
        server = None
    if server is not None:
        if server not in names:
            error(f"{args.config} has no server {server!r} (it has: {', '.join(names)})")
            return 2
        servers = [s for s in servers if s.name == server]

    async def work(manager: Manager) -> tuple[list[ServerStatus], list[Any]]:
        if kind == "tools":
            entries = await manager.tool_entries()
        elif kind == "prompts":
            entries = await manager.prompt_entries()
        else:
            entries = await manager.resource_entries()
        return manager.status(), [entry.item for entry in entries]

    statuses, items = _run(args, servers, work)
    down = _unavailable(statuses)
    if args.json:
        print(pretty(items))
    elif kind == "resources":
        from mcp_core.types import Resource

        resources = [item for item in items if isinstance(item, Resource)]
        templates = [item for item in items if not isinstance(item, Resource)]
        lines = list_lines(kind, {"resources": resources, "resourceTemplates": templates})
        _print_lines(lines, kind)
    else:
        _print_lines(list_lines(kind, {kind: items}), kind)
    return 1 if down else 0


def _print_lines(lines: list[str], kind: str) -> None:
    if lines:
        print("\n".join(lines))
    else:
        print(f"(no {kind})", file=sys.stderr)


def _owners(name: str, servers: list[ServerConfig]) -> list[ServerConfig]:
    # The server a union name starts with: only it need be started.
    fits = [s for s in servers if name.startswith(s.name + ".")]
    if not fits:
        return servers
    longest = max(len(s.name) for s in fits)
    return [s for s in fits if len(s.name) == longest]


def run_many_call(args: argparse.Namespace) -> int:
    """``mcp-core call --config FILE server.tool [--arg k=v]``."""
    if args.tool is not None:
        error("with --config, name the tool as server.tool, in one word")
        return 2
    try:
        servers = _servers_for(args)
        arguments = parse_arguments(args.json_args or [], args.arg or [])
    except UsageError as exc:
        error(str(exc))
        return 2
    name: str = args.server

    async def work(manager: Manager) -> Any:
        try:
            return await manager.call_tool(name, arguments)
        except (ManagerError, McpError, TimeoutError) as exc:
            return exc

    result = _run(args, _owners(name, servers), work)
    if isinstance(result, McpError):
        print(f"error {result.code}: {result.message}", file=sys.stderr)
        return 1
    if isinstance(result, Exception):
        error(str(result) or "no answer in time")
        return 1
    failed = result.is_error is True
    if args.json:
        print(pretty(result))
    elif text := render_call(result):
        print(text, file=sys.stderr if failed else sys.stdout)
    return 1 if failed else 0


def status_lines(statuses: list[ServerStatus]) -> list[str]:
    """The table ``mcp-core status`` prints: a header, then a line per server."""
    rows = [("SERVER", "STATE", "TRANSPORT", "REVISION", "NAME", "LAST ERROR")]
    for status in statuses:
        info = status.server_info
        rows.append(
            (
                status.name,
                status.state,
                status.transport or "-",
                status.revision or "-",
                f"{info.name} {info.version}" if info is not None else "-",
                status.last_error or "",
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    return [
        "  ".join(
            [*(cell.ljust(width) for cell, width in zip(row, widths, strict=False)), row[-1]]
        ).rstrip()
        for row in rows
    ]


def run_status(args: argparse.Namespace) -> int:
    """``mcp-core status --config FILE``: connect to every server, show how it went."""
    try:
        servers = _servers_for(args)
    except UsageError as exc:
        error(str(exc))
        return 2

    async def work(manager: Manager) -> list[ServerStatus]:
        return manager.status()

    statuses = _run(args, servers, work)
    if args.json:
        print(pretty([_plain(status) for status in statuses]))
    else:
        print("\n".join(status_lines(statuses)))
    return 0 if all(status.state == "connected" for status in statuses) else 1


def _plain(status: ServerStatus) -> dict[str, Any]:
    return {
        "name": status.name,
        "state": status.state,
        "transport": status.transport,
        "revision": status.revision,
        "serverInfo": status.server_info,
        "capabilities": status.capabilities,
        "lastError": status.last_error,
        "lastConnected": status.last_connected,
        "attempts": status.attempts,
    }


def run_gateway(args: argparse.Namespace) -> int:
    """``mcp-core gateway --config FILE``: serve the servers' union as one server."""
    try:
        servers = load_servers(args.config, args.timeout)
        # Whoever reaches the gateway uses the upstreams' credentials: over HTTP it
        # takes the same resource-server options as `serve` (serve_auth.py).
        authenticate: Any = None
        if args.transport == "http":
            authenticate = bearer_auth(args, args.host, args.port, args.path)
        elif args.auth_jwks is not None:
            raise UsageError("--auth-jwks only applies to --transport http")
    except (UsageError, ValueError) as exc:
        error(str(exc))
        return 2
    from ..http.server import serve_http
    from ..manager import gateway_server
    from ..stdio import serve_stdio

    async def serve() -> None:
        options: dict[str, Any] = {}
        if args.trace:
            options.update(trace=True, on_trace=_trace_line)
        manager = Manager(servers, **options)
        # Before connecting: the upstreams are told the capabilities its relays give.
        gateway = gateway_server(manager, parked_ttl=args.parked_ttl, max_parked=args.max_parked)
        async with manager:
            await manager.wait_ready()
            _unavailable(manager.status())
            if args.transport == "stdio":
                await serve_stdio(gateway)
                return
            async with anyio.create_task_group() as tg:
                serving = partial(serve_http, authenticate=authenticate)
                port = await tg.start(serving, gateway, args.host, args.port, args.path)
                url = f"http://{args.host}:{port}{args.path}"
                print(f"mcp-core: gateway serving on {url}", file=sys.stderr, flush=True)

    try:
        anyio.run(serve, backend=args.backend)
    except OSError as exc:
        error(f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}")
        return 1
    return 0
