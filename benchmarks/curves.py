"""How cost grows (issue 20, target 5): ``tools/list`` by registry size, and a call by
message size in memory, on stdio and on HTTP.

* ``tools/list`` with 10 / 100 / 1,000 / 10,000 tools, listed whole and paginated
  (``page_size=100``, the first page), in memory (client and server in this process):
  microseconds of this process's CPU per call.
* idle 2025-11-25 sessions on our h11 server, 1,000 / 10,000 (and 50,000 in the
  full run): resident memory per session, and the server's CPU per call (raw
  client of `benchmarks.servers`) of one more session while they sit idle: the
  cost of a request as sessions grow.
* open SSE streams, 100 / 1,000 (and 5,000 in the full run) standalone GET streams
  and as many 2026-07-28 ``subscriptions/listen`` streams: memory per stream and
  the server's CPU per listener to fan one ``tools/list_changed`` out
  (`benchmarks.listeners`).

Each figure's ``details`` hold its x (tools, bytes) for the plot's curves.

* a ``tools/call`` whose argument is a 100 B / 10 KiB / 1 MiB / 8 MiB string, to a
  tool that answers its length (so the request carries the size, not the answer), in
  memory, over stdio and over HTTP (a 2026-07-28 request, our h11 server): the CPU
  of both processes per call. The stdio and HTTP servers here take messages up to
  16 MiB (the codec's limit; by default a stdio line and an HTTP body stop at 4 MiB).

``python -m benchmarks.curves serve-stdio`` / ``serve-http PORT [BACKEND]`` run those
servers.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Final

import anyio

from mcp_core import HttpServerConfig, Server

from .harness import Settings
from .http_servers import free_port, listening, spawn
from .layers import LayerResult, Measurement, Progress
from .raw_client import server_cpu_seconds

__all__ = ["idle_sessions", "main", "run", "size_server", "tools_server"]

TOOL_COUNTS: Final = (10, 100, 1_000, 10_000)
SIZES: Final = (100, 10 * 1024, 1 << 20, 8 << 20)
IDLE_SESSIONS: Final = (1_000, 10_000)
IDLE_SESSIONS_FULL: Final = (*IDLE_SESSIONS, 50_000)
"""The full run (without --quick) adds 50,000 idle sessions."""
LIMIT: Final = 16 * 1024 * 1024
_ROOT: Final = str(Path(__file__).resolve().parent.parent)


async def echo(text: str) -> str:
    """Say the text back."""
    return text


async def size(text: str) -> int:
    """The length of the text."""
    return len(text)


def tools_server(count: int, page_size: int | None) -> Server:
    """A server with ``count`` tools (one function under ``count`` names)."""
    server = Server("curves", "1", page_size=page_size)
    for i in range(count):
        server.add_tool(echo, name=f"tool_{i:05d}", description=f"Tool number {i}.")
    return server


def size_server() -> Server:
    """A server with the ``size`` tool."""
    server = Server("curves", "1")
    server.tool(size)
    return server


def _label(count: int) -> str:
    return (
        f"{count:,} B"
        if count < 1024
        else f"{count // 1024:,} KiB"
        if count < 1 << 20
        else f"{count >> 20} MiB"
    )


async def _timed(call: Callable[[], Awaitable[Any]], calls: int, runs: int) -> float:
    # Microseconds of this process's CPU per call, the median of ``runs``.
    await call()
    per_call = []
    for _ in range(runs):
        started = time.process_time()
        for _ in range(calls):
            await call()
        per_call.append((time.process_time() - started) / calls * 1e6)
    return statistics.median(per_call)


async def _tools_list(settings: Settings, progress: Progress) -> list[Measurement]:
    from transports import connect_in_memory

    measurements = []
    for page_size, how in ((None, "whole"), (100, "first page of 100")):
        values: dict[str, float] = {}
        xs: dict[str, dict[str, float]] = {}
        for count in TOOL_COUNTS:
            xs[f"{count:,} tools"] = {"x": count}
            progress(f"curves: tools/list, {count:,} tools, {how}")
            async with connect_in_memory(tools_server(count, page_size)) as client:
                calls = max(3, 20_000 // count)
                values[f"{count:,} tools"] = await _timed(
                    client.list_tools, calls, max(3, settings.runs)
                )
        measurements.append(
            Measurement(
                name=f"tools_list_{'paged' if page_size else 'whole'}",
                title=f"tools/list by registry size, {how}, in memory: CPU per call",
                unit="us of CPU per call (client + server)",
                values=values,
                details=xs,
            )
        )
    return measurements


async def _sized_calls(
    client: Any, runs: int, label: str, progress: Progress, pid: int | None
) -> dict[str, float]:
    values: dict[str, float] = {}
    for count in SIZES:
        progress(f"curves: message size, {label}, {_label(count)}")
        text = "x" * count
        calls = max(3, min(2_000, (64 << 20) // count // 8))

        async def call(text: str = text, count: int = count) -> None:
            result = await client.call_tool("size", {"text": text})
            if result.structured_content != {"result": count}:
                raise AssertionError(f"size answered {result.structured_content!r}")

        server_before = server_cpu_seconds(pid) if pid is not None else 0.0
        ours = await _timed(call, calls, runs)
        if pid is not None:
            # The server's CPU over the same calls (warm-up included), per call.
            server = (server_cpu_seconds(pid) - server_before) / (calls * runs + 1) * 1e6
            ours += server
        values[_label(count)] = ours
    return values


async def _message_sizes(settings: Settings, progress: Progress) -> list[Measurement]:
    from transports import Client, connect_in_memory
    from transports.http.client import http_connector
    from transports.stdio import connect_stdio

    runs = max(3, settings.runs)
    results: dict[str, dict[str, float]] = {}
    async with connect_in_memory(size_server()) as client:
        results["in memory"] = await _sized_calls(client, runs, "in memory", progress, None)
    argv = [sys.executable, "-m", "benchmarks.curves", "serve-stdio"]
    async with connect_stdio(argv, env={**os.environ, "PYTHONPATH": _ROOT}) as client:
        pid = _child_pid("serve-stdio")
        results["stdio"] = await _sized_calls(client, runs, "stdio", progress, pid)
    port = free_port()
    http_argv = [sys.executable, "-m", "benchmarks.curves", "serve-http", str(port)]
    with listening(http_argv, port, "the curves HTTP server") as process:
        url = f"http://127.0.0.1:{port}/mcp"
        async with Client(http_connector(url)) as client:
            results["HTTP"] = await _sized_calls(client, runs, "HTTP", progress, process.pid)
    return [
        Measurement(
            name=f"message_size_{where.lower().replace(' ', '_')}",
            title=f"tools/call by request size, {where}: CPU per call (client + server)",
            unit="us of CPU per call",
            values=values,
            details={_label(count): {"x": count} for count in SIZES},
        )
        for where, values in results.items()
    ]


def _child_pid(marker: str) -> int | None:
    # Our child process whose command line holds ``marker`` (the stdio client does
    # not say which process it started).
    me = str(os.getpid())
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as file:
                parent = file.read().rsplit(b")", 1)[1].split()[1].decode()
            with open(f"/proc/{entry}/cmdline", "rb") as file:
                command = file.read()
        except OSError:
            continue
        if parent == me and marker.encode() in command:
            return int(entry)
    return None


def idle_sessions(
    settings: Settings, progress: Progress, counts: tuple[int, ...] | None = None
) -> list[Measurement]:
    # Our h11 server with N idle 2025-11-25 sessions open: resident memory per
    # session, and the server's CPU per call of one more session (raw client).
    from .memory import WARM_UP_SESSIONS, open_sessions, resident_kib
    from .servers import _legacy, _measure

    if counts is None:
        counts = IDLE_SESSIONS_FULL if settings.scaling else IDLE_SESSIONS
    memory: dict[str, float] = {}
    costs: dict[int, dict[str, float]] = {1: {}, 16: {}}
    xs: dict[str, dict[str, float]] = {}
    for count in counts:
        label = f"{count:,} sessions"
        xs[label] = {"x": count}
        progress(f"curves: {label} idle")
        with spawn("ours", answers="json") as (process, url):
            anyio.run(open_sessions, url, WARM_UP_SESSIONS)
            time.sleep(0.5)
            before, _ = resident_kib(process.pid)
            anyio.run(open_sessions, url, count - WARM_UP_SESSIONS)
            time.sleep(0.5)
            after, _ = resident_kib(process.pid)
            memory[label] = (after - before) / (count - WARM_UP_SESSIONS)
            port = int(url.rsplit(":", 1)[1].split("/")[0])
            for load, figure in _measure(process.pid, port, _legacy, settings).items():
                costs[load][label] = figure
    measurements = [
        Measurement(
            name="idle_sessions_memory",
            title="idle 2025-11-25 HTTP sessions open on our server: memory per session",
            unit="KiB per session",
            values=memory,
            details=xs,
        )
    ]
    for load, values in costs.items():
        measurements.append(
            Measurement(
                name=f"idle_sessions_call_{load}",
                title=(
                    f"a call of one more session while N sit idle, {load} connection(s): "
                    "server CPU per call"
                ),
                unit="us of server CPU per call",
                values=values,
                details=xs,
            )
        )
    return measurements


def run(settings: Settings, progress: Progress) -> LayerResult:
    """The curves, on asyncio."""
    from .listeners import fan_out

    result = LayerResult(name="curves")
    result.measurements.extend(idle_sessions(settings, progress))
    result.measurements.extend(fan_out(settings, progress))

    async def measure() -> None:
        result.measurements.extend(await _tools_list(settings, progress))
        result.measurements.extend(await _message_sizes(settings, progress))

    anyio.run(measure)
    return result


def main(argv: list[str]) -> int:
    if argv[:1] == ["serve-stdio"]:
        from transports.stdio import run_stdio

        run_stdio(size_server(), max_line_bytes=LIMIT)
        return 0
    if argv[:1] == ["serve-http"] and len(argv) >= 2:
        from transports.http.server import run_http

        backend = argv[2] if len(argv) > 2 else "asyncio"
        config = HttpServerConfig(max_body_bytes=LIMIT, response_mode="json")
        run_http(size_server(), backend=backend, port=int(argv[1]), config=config)
        return 0
    print("usage: python -m benchmarks.curves serve-stdio | serve-http PORT [BACKEND]")
    return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
