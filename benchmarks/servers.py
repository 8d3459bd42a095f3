"""Server against server: one cheap raw client drives each HTTP server in turn.

The ``http`` layer compares stacks (a client and its server); there the SDK's client
costs more than its server, so the stack ratio says little about the servers. Here
the client is the same for every server (`benchmarks.raw_client`: plain sockets, a
minimal HTTP/1.1 parser, no JSON decoding), and the figure is the **server's** CPU
time per ``tools/call`` of the echo tool, read from ``/proc`` around each run:

* ``ours 2026-07-28`` / ``ours 2025-11-25``: mcp-core's h11 server, each era, on
  each backend (a 2026-07-28 request carries its ``_meta`` and headers; a
  2025-11-25 one its session);
* ``h11 floor``: the raw h11 echo server (`benchmarks.h11_echo`): no MCP, the
  floor of any server written on h11 and anyio;
* ``SDK (uvicorn)``: the official Python SDK's streamable HTTP app under uvicorn,
  2025-11-25 session;
* ``TS SDK (node)``: the official TypeScript SDK's server on ``node:http``
  (`benchmarks/ts/server.mjs`), 2025-11-25 session, installed by npm into a cache
  directory on first use; skipped, with the reason, without node and npm.

Each server runs in its own process, one at a time, all in the same run; each
table is one answer mode (JSON or SSE) and one load (1 or 16 connections, each
with one call in flight). Figures are medians over the runs, in microseconds of
server CPU per call; ratios are taken from those medians, the other server's over
ours (above 1: ours uses less CPU per call), as the report's other measurements.

Every Python MCP server has the echo tool twice, a plain ``def`` and an ``async
def`` (`benchmarks.echo_servers`), and each gives two rows, "(def)" first, each
measured on its own (HTTP: in turn on the same server; stdio: a child each). The
TypeScript SDK has one kind of function: one row, compared with both of ours. A
ratio "def cost" is the CPU of a call of the ``def`` tool over that of the ``async
def`` one, on the same server.

stdio alike: one raw line writer (`benchmarks.raw_client.RawLineClient`) drives
ours (both eras), the line echo floor (`benchmarks.stdio_server lines`), the SDK's
stdio server and the TypeScript SDK's (`benchmarks/ts/stdio.mjs`), 1 and 16 lines
in flight.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any, Final

from .echo_servers import ASYNC, DEF, TOOLS, ratios_by_kind, row, rows
from .harness import Settings
from .http_servers import free_port, listening, spawn
from .layers import LayerResult, Measurement, Progress
from .raw_client import RawHttpClient, RawLineClient, post, server_cpu_seconds
from .stdio import server_argv

__all__ = ["StdioJob", "run", "run_stdio", "stdio_jobs", "ts_server"]

LOADS: Final = (1, 16)
ANSWERS: Final = ("json", "sse")
FLOOR: Final = "h11 floor"
SDK: Final = "SDK (uvicorn)"
SDK_STDIO: Final = "SDK (stdio)"
LINE_FLOOR: Final = "line floor"
TS: Final = "TS SDK (node)"
TS_PACKAGE: Final = "@modelcontextprotocol/sdk@1"
_ROOT: Final = str(Path(__file__).resolve().parent.parent)
LEGACY: Final = "2025-11-25"
MODERN: Final = "2026-07-28"

_ACCEPT: Final = [
    ("content-type", "application/json"),
    ("accept", "application/json, text/event-stream"),
]
_MODERN_META: Final = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"},
}
ECHO: Final = TOOLS[ASYNC]
"""The tool a server with one kind of function (the TypeScript SDK's) is called by."""
RATIO_NOTE: Final = "(other / ours: above 1, ours uses less; def cost: CPU of def / async def)"


def _call(tool: str) -> str:
    # A tools/call's members after its id, up to the params' closing brace.
    return f'"method":"tools/call","params":{{"name":"{tool}","arguments":{{"text":"hello"}}'


Requester = Callable[[int], bytes]


def _body(message: dict[str, Any]) -> bytes:
    return json.dumps({"jsonrpc": "2.0", **message}).encode()


def _legacy(client: RawHttpClient, host: str, *, tool: str = ECHO) -> Requester:
    # initialize, then initialized, on the first connection; every call then
    # carries the session.
    params = {
        "protocolVersion": LEGACY,
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "1"},
    }
    first = client.sockets[0]
    answer = client.exchange(
        first,
        post("/mcp", host, _ACCEPT, _body({"id": 0, "method": "initialize", "params": params})),
    )
    if answer.status != 200 or "mcp-session-id" not in answer.headers:
        raise RuntimeError(f"initialize answered {answer.status}: {answer.body[:200]!r}")
    text = answer.body.decode()
    version = (
        LEGACY
        if LEGACY in text
        else json.loads(text.split("data: ")[-1])["result"]["protocolVersion"]
    )
    fields = [
        *_ACCEPT,
        ("mcp-session-id", answer.headers["mcp-session-id"]),
        ("mcp-protocol-version", version),
    ]
    done = client.exchange(
        first, post("/mcp", host, fields, _body({"method": "notifications/initialized"}))
    )
    if done.status not in (200, 202):
        raise RuntimeError(f"initialized answered {done.status}")
    head = post("/mcp", host, fields, b"").rsplit(b"content-length: 0", 1)
    return _requester(head, "}", tool)


def _modern(host: str, *, tool: str = ECHO) -> Requester:
    fields = [
        *_ACCEPT,
        ("mcp-protocol-version", MODERN),
        ("mcp-method", "tools/call"),
        ("mcp-name", tool),
    ]
    head = post("/mcp", host, fields, b"").rsplit(b"content-length: 0", 1)
    meta = json.dumps(_MODERN_META, separators=(",", ":"))
    return _requester(head, ',"_meta":' + meta + "}", tool)


def _requester(head: list[bytes], tail: str, tool: str = ECHO) -> Requester:
    # Every call its own id: calls in flight on one session must not share one.
    before, after = head
    counter = iter(range(1, 1 << 62))
    call = _call(tool)

    def request_for(_: int) -> bytes:
        body = f'{{"jsonrpc":"2.0","id":{next(counter)},{call}{tail}}}'.encode()
        return before + b"content-length: " + str(len(body)).encode() + after + body

    return request_for


def _floor(host: str) -> Requester:
    head = post("/mcp", host, _ACCEPT, b"").rsplit(b"content-length: 0", 1)
    return _requester(head, "}")


def _measure(
    pid: int, port: int, setup: Callable[[RawHttpClient, str], Requester], settings: Settings
) -> dict[int, float]:
    host = f"127.0.0.1:{port}"
    calls, runs = _sizes(settings, quick=(400, 3), full=(2000, settings.runs))
    figures: dict[int, float] = {}
    for connections in LOADS:
        client = RawHttpClient("127.0.0.1", port, connections)
        try:
            request_for = setup(client, host)
            client.run(calls // 4, request_for)  # warm up
            per_call = []
            for _ in range(runs):
                before = server_cpu_seconds(pid)
                client.run(calls, request_for)
                per_call.append((server_cpu_seconds(pid) - before) / calls * 1e6)
            figures[connections] = statistics.median(per_call)
        finally:
            client.close()
    return figures


def _sizes(settings: Settings, *, quick: tuple[int, int], full: tuple[int, int]) -> tuple[int, int]:
    # (calls per run, runs): --quick has twice as many rows since each Python
    # server has a def and an async def tool, so each is measured shorter.
    calls, runs = quick if settings.runs <= 5 else full
    return calls, max(3, runs)


def _cache_dir() -> Path:
    root = os.environ.get("XDG_CACHE_HOME") or os.path.join(Path.home(), ".cache")
    return Path(root) / "mcp-core" / "bench-ts"


def ts_server() -> tuple[list[str] | None, str]:
    """The command that starts the TypeScript SDK's server (PORT and the answer mode
    appended), installing the SDK into the cache on first use; or None and why not."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        return None, "node and npm are needed for the TypeScript SDK's server"
    cache = _cache_dir()
    script = cache / "server.mjs"
    if not (cache / "node_modules" / "@modelcontextprotocol" / "sdk").is_dir():
        cache.mkdir(parents=True, exist_ok=True)
        (cache / "package.json").write_text('{"private": true, "type": "module"}\n')
        done = subprocess.run(
            [npm, "install", "--no-audit", "--no-fund", "--silent", TS_PACKAGE],
            cwd=cache,
            capture_output=True,
            timeout=600,
        )
        if done.returncode != 0:
            return None, f"npm install {TS_PACKAGE} failed: {done.stderr.decode()[-300:]}"
    for name in ("server.mjs", "stdio.mjs"):
        shutil.copyfile(Path(__file__).parent / "ts" / name, cache / name)
    return [node, str(script)], ""


@contextmanager
def _spawn_ts(command: list[str], answers: str) -> Iterator[tuple[int, int]]:
    port = free_port()
    with listening([*command, str(port), answers], port, "the TypeScript server") as process:
        yield process.pid, port


@contextmanager
def _spawn_py(kind: str, backend: str, answers: str) -> Iterator[tuple[int, int]]:
    with spawn(kind, backend=backend, answers=answers) as (process, url):
        yield process.pid, int(url.rsplit(":", 1)[1].split("/")[0])


# --- stdio ------------------------------------------------------------------------------------


def _line_requester(tail: str, tool: str = ECHO) -> Callable[[int], bytes]:
    counter = iter(range(1, 1 << 62))
    call = _call(tool)

    def request_for(_: int) -> bytes:
        return f'{{"jsonrpc":"2.0","id":{next(counter)},{call}{tail}}}'.encode()

    return request_for


def _line_legacy(client: RawLineClient, *, tool: str = ECHO) -> Callable[[int], bytes]:
    params = {
        "protocolVersion": LEGACY,
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "1"},
    }
    client.exchange(_body({"id": 0, "method": "initialize", "params": params}))
    client.exchange(_body({"method": "notifications/initialized"}), answers=0)
    return _line_requester("}", tool)


def _line_modern(client: RawLineClient, *, tool: str = ECHO) -> Callable[[int], bytes]:
    meta = json.dumps(_MODERN_META, separators=(",", ":"))
    return _line_requester(',"_meta":' + meta + "}", tool)


StdioJob = tuple[str, list[str], Callable[[RawLineClient], Callable[[int], bytes]]]
"""A stdio server to measure: its label, its command, and how to open its session."""


def stdio_jobs(settings: Settings, ts_command: list[str] | None) -> list[StdioJob]:
    """The stdio servers of the tables: ours (both eras, each kind of tool) and the
    line floor on each backend, the SDK's (each kind), and the TS SDK's when
    ``ts_command`` is there. Every job has a child of its own."""
    jobs: list[StdioJob] = []
    for backend in settings.backends:
        ours = server_argv("ours", backend)
        eras = {f"ours {MODERN} {backend}": _line_modern, f"ours {LEGACY} {backend}": _line_legacy}
        jobs.extend(
            (label, ours, partial(setup, tool=tool)) for label, (setup, tool) in rows(eras).items()
        )
        floor = server_argv("lines", backend)
        jobs.append((f"{LINE_FLOOR} {backend}", floor, lambda c: _line_requester("}")))
    jobs.extend(
        (label, server_argv("sdk"), partial(_line_legacy, tool=tool))
        for label, (_, tool) in rows({SDK_STDIO: None}).items()
    )
    if ts_command is not None:
        node, script = ts_command
        jobs.append((TS, [node, str(Path(script).with_name("stdio.mjs"))], _line_legacy))
    return jobs


def _measure_lines_in_turn(
    jobs: list[StdioJob], rounds: int, calls: int, progress: Progress
) -> dict[int, dict[str, list[float]]]:
    # Every server runs at once (an idle one costs nothing), and each round drives
    # them one after the other: a change in the machine's load reaches every server
    # of a round alike, rather than whichever one ran while it lasted.
    clients: dict[str, tuple[RawLineClient, Callable[[int], bytes]]] = {}
    figures: dict[int, dict[str, list[float]]] = {load: {} for load in LOADS}
    try:
        for label, argv, setup in jobs:
            progress(f"servers: stdio: starting {label}")
            client = RawLineClient(argv, env={**os.environ, "PYTHONPATH": _ROOT})
            try:
                clients[label] = (client, setup(client))
            except BaseException:
                client.close()
                raise
        for load in LOADS:
            progress(f"servers: stdio: {load} in flight, {rounds} rounds of {calls} calls")
            for client, request_for in clients.values():
                client.run(calls // 4, load, request_for)  # warm up
            for _ in range(rounds):
                for label, (client, request_for) in clients.items():
                    before = server_cpu_seconds(client.pid)
                    client.run(calls, load, request_for)
                    spent = server_cpu_seconds(client.pid) - before
                    figures[load].setdefault(label, []).append(spent / calls * 1e6)
    finally:
        for client, _ in clients.values():
            client.close()
    return figures


def run_stdio(
    settings: Settings,
    progress: Progress,
    ts_command: list[str] | None,
    result: LayerResult,
    *,
    rounds: int,
    calls: int,
) -> None:
    """The stdio tables (1 and 16 lines in flight) into ``result``: server CPU per
    call, the median of ``rounds`` rounds of ``calls`` calls per server, with the
    fastest and slowest round in the details."""
    figures = _measure_lines_in_turn(stdio_jobs(settings, ts_command), rounds, calls, progress)
    for load in LOADS:
        per_call = figures[load]
        result.measurements.append(
            Measurement(
                name=f"server_cpu_stdio_{load}",
                title=(
                    f"server only, one raw line writer, stdio, {load} in flight: "
                    f"server CPU per tools/call ({rounds} rounds, servers in turn)"
                ),
                unit="us of server CPU per call",
                values={label: statistics.median(each) for label, each in per_call.items()},
                details={
                    label: {"min": min(each), "max": max(each)} for label, each in per_call.items()
                },
                ratios=_ratios(settings, LINE_FLOOR, SDK_STDIO, ts_command is not None),
                ratio_note=RATIO_NOTE,
            )
        )


def _ratios(settings: Settings, floor: str, sdk: str, ts: bool) -> dict[str, tuple[str, str]]:
    # The other server over ours, per backend and kind of tool: above 1, ours uses
    # less. Then each of ours: its def tool's CPU over its async def one's.
    others: dict[str, tuple[str, str]] = {}
    plain = [TS]
    for backend in settings.backends:
        for era in (MODERN, LEGACY):
            ours = f"ours {era} {backend}"
            plain.append(f"{floor} {backend}")
            others[f"floor / {ours}"] = (f"{floor} {backend}", ours)
        legacy = f"ours {LEGACY} {backend}"
        others[f"SDK / {legacy}"] = (sdk, legacy)
        if ts:
            others[f"TS / {legacy}"] = (TS, legacy)
    ratios = {
        name: pair for name, pair in ratios_by_kind(others, plain).items() if ": def /" not in name
    }
    for backend in settings.backends:
        for era in (MODERN, LEGACY):
            ours = f"ours {era} {backend}"
            ratios[f"def cost, {ours}"] = (row(ours, DEF), row(ours, ASYNC))
    ratios[f"def cost, {sdk}"] = (row(sdk, DEF), row(sdk, ASYNC))
    return ratios


HttpSetup = Callable[[RawHttpClient, str], Requester]


def _http_jobs(
    settings: Settings, ts: bool
) -> list[tuple[str, tuple[str, str], dict[str, HttpSetup]]]:
    # (server label, (kind, backend), row label -> how to open its session).
    jobs: list[tuple[str, tuple[str, str], dict[str, HttpSetup]]] = []
    for backend in settings.backends:
        modern, legacy = f"ours {MODERN} {backend}", f"ours {LEGACY} {backend}"
        jobs.append((modern, ("ours", backend), _by_kind(modern, _modern_setup)))
        jobs.append((legacy, ("ours", backend), _by_kind(legacy, _legacy)))
        jobs.append((f"{FLOOR} {backend}", ("h11", backend), {f"{FLOOR} {backend}": _floor_setup}))
    jobs.append((SDK, ("sdk", "asyncio"), _by_kind(SDK, _legacy)))
    if ts:
        jobs.append((TS, ("ts", ""), {TS: _legacy}))
    return jobs


def _by_kind(label: str, setup: Callable[..., Requester]) -> dict[str, HttpSetup]:
    # The server's rows, one per kind of tool: each opens its session for that tool.
    found: dict[str, HttpSetup] = {}
    for name, (_, tool) in rows({label: None}).items():
        found[name] = partial(setup, tool=tool)
    return found


def _modern_setup(client: RawHttpClient, host: str, *, tool: str = ECHO) -> Requester:
    return _modern(host, tool=tool)


def _floor_setup(client: RawHttpClient, host: str) -> Requester:
    return _floor(host)


def run(settings: Settings, progress: Progress) -> LayerResult:
    """Every server, one at a time, by answer mode, load and backend."""
    result = LayerResult(name="servers")
    ts_command, reason = ts_server()
    if ts_command is None:
        result.skipped[TS] = reason
    for answers in ANSWERS:
        values: dict[int, dict[str, float]] = {load: {} for load in LOADS}
        for label, (kind, backend), setups in _http_jobs(settings, ts_command is not None):
            progress(f"servers: {answers} answers: {label}")
            server = (
                _spawn_ts(ts_command, answers)  # type: ignore[arg-type]
                if kind == "ts"
                else _spawn_py(kind, backend, answers)
            )
            with server as (pid, port):
                # Each row in turn on the same server (the def tool first).
                for name, setup in setups.items():
                    for load, figure in _measure(pid, port, setup, settings).items():
                        values[load][name] = figure
        for load in LOADS:
            ratios = _ratios(settings, FLOOR, SDK, ts_command is not None)
            result.measurements.append(
                Measurement(
                    name=f"server_cpu_{answers}_{load}",
                    title=(
                        f"server only, one raw HTTP client, {answers.upper()} answers, "
                        f"{load} connection{'s' if load > 1 else ''}: server CPU per tools/call"
                    ),
                    unit="us of server CPU per call",
                    values=values[load],
                    ratios=ratios,
                    ratio_note=RATIO_NOTE,
                )
            )
    calls, rounds = _sizes(settings, quick=(600, 3), full=(4000, settings.runs))
    run_stdio(settings, progress, ts_command, result, rounds=rounds, calls=calls)
    return result
