"""What a plain ``def`` tool costs over the same tool written ``async def``: server CPU
per call, measured from outside, in the same run.

    python -m benchmarks.handoff [--rounds R] [--calls N] [--backends asyncio,trio]
                                 [--transports stdio,http] [--eras legacy,modern]

One server process per (transport, backend, era) serves four tools: ``echo`` (a
``def``, which the runtime runs in a worker thread), ``echo_pool`` (an ``async def``
that runs the same body in the same pool, always waiting the asynchronous way: the
reference path of the brief wait, see transports/threads.py), ``echo_anyio`` (the
same with ``anyio.to_thread.run_sync``, as def tools ran before
transports/threads.py) and ``echo_async`` (the same body, ``async def``). Figures
are CPU microseconds per call. A raw client (`benchmarks.raw_client`: a line writer on stdio, plain
keep-alive sockets on HTTP) makes N calls of one, then N of the other, one at a
time and then 16 in flight, and reads the server's CPU time (all threads, from
/proc) before and after each run: the figure is CPU seconds per call, so the load
of other processes on the machine moves it little. Each round measures every case
in turn; the table gives the medians over the rounds and the ratios to ``async def``.

``--per-thread`` splits the CPU of the stdio server (legacy era) between the event
loop's thread and the others, with context switches per call: where a thread hop
costs. ``--syscalls`` counts, the same way, the server's system calls per call
(Linux ``perf stat`` on its process: futex, epoll_wait, reads, writes, the
self-pipe's sendto/recvfrom, context switches), which the machine's load moves
far less than CPU time. ``--floor`` times the least a hop can cost in Python (two
threads handing two locks back and forth). ``python -m benchmarks.handoff serve stdio|http BACKEND
[PORT]`` is the server.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from contextlib import ExitStack
from typing import Final

import anyio
import anyio.to_thread

from .http_servers import free_port, listening
from .raw_client import RawHttpClient, RawLineClient, post, server_cpu_seconds
from .servers import _ACCEPT, _MODERN_META, _ROOT, LEGACY, MODERN

__all__ = ["main"]

TOOLS: Final = ("echo", "echo_pool", "echo_anyio", "echo_async")
LOADS: Final = (1, 16)

Requester = Callable[[int], bytes]


def _server() -> object:
    from mcp_core import Server

    server = Server("handoff", "1")

    @server.tool
    def echo(text: str) -> str:
        """Say the text back (a plain function: a worker thread runs it)."""
        return text

    @server.tool
    async def echo_pool(text: str) -> str:
        """Say the text back from the runtime's pool, waiting through the event
        loop (no brief wait): how a def tool ran before the brief wait."""
        from transports import threads

        return await threads.run_sync(lambda: text)

    @server.tool
    async def echo_anyio(text: str) -> str:
        """Say the text back from one of anyio's worker threads: how a def tool
        ran before transports/threads.py."""
        return await anyio.to_thread.run_sync(lambda: text, abandon_on_cancel=True)

    @server.tool
    async def echo_async(text: str) -> str:
        """Say the text back."""
        return text

    return server


def _serve(transport: str, backend: str, port: int) -> None:
    server = _server()
    if transport == "stdio":
        from transports.stdio import run_stdio

        run_stdio(server, backend=backend)  # type: ignore[arg-type]
    else:
        from mcp_core import HttpServerConfig
        from transports.http.server import run_http

        config = HttpServerConfig(max_sessions=1000, session_idle_timeout=3600.0)
        run_http(server, backend=backend, port=port, config=config)  # type: ignore[arg-type]


def _call(request_id: int, tool: str, era: str) -> bytes:
    params: dict[str, object] = {"name": tool, "arguments": {"text": "hello"}}
    if era == "modern":
        params["_meta"] = _MODERN_META
    message = {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}
    return json.dumps(message, separators=(",", ":")).encode()


def _counter() -> Callable[[], int]:
    ids = iter(range(1, 1 << 62))
    return lambda: next(ids)


_INITIALIZE: Final = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": LEGACY,
            "capabilities": {},
            "clientInfo": {"name": "bench", "version": "1"},
        },
    }
).encode()
_INITIALIZED: Final = b'{"jsonrpc":"2.0","method":"notifications/initialized"}'


def _stdio_requesters(client: RawLineClient, era: str) -> dict[str, Requester]:
    if era == "legacy":
        client.exchange(_INITIALIZE)
        client.exchange(_INITIALIZED, answers=0)
    next_id = _counter()

    def requester(tool: str) -> Requester:
        return lambda _: _call(next_id(), tool, era)

    return {tool: requester(tool) for tool in TOOLS}


def _http_requesters(client: RawHttpClient, host: str, era: str) -> dict[str, Requester]:
    fields = list(_ACCEPT)
    if era == "legacy":
        answer = client.exchange(client.sockets[0], post("/mcp", host, fields, _INITIALIZE))
        fields += [
            ("mcp-session-id", answer.headers["mcp-session-id"]),
            ("mcp-protocol-version", LEGACY),
        ]
        client.exchange(client.sockets[0], post("/mcp", host, fields, _INITIALIZED))
    else:
        fields += [("mcp-protocol-version", MODERN), ("mcp-method", "tools/call")]
    next_id = _counter()

    def requester(tool: str) -> Requester:
        named = [*fields, ("mcp-name", tool)] if era == "modern" else fields
        return lambda _: post("/mcp", host, named, _call(next_id(), tool, era))

    return {tool: requester(tool) for tool in TOOLS}


def _argv(transport: str, backend: str, port: int = 0) -> list[str]:
    return [sys.executable, "-m", "benchmarks.handoff", "serve", transport, backend, str(port)]


Runner = Callable[[int, str], None]


class _Case:
    """One server and load: whose CPU to read, and ``open``, which connects a
    client (an HTTP server closes keep-alive connections left idle while other
    cases run) and returns how to make N calls of a tool with it."""

    def __init__(
        self, key: tuple[str, str, str, int], pid: int, open: Callable[[ExitStack], Runner]
    ) -> None:
        self.key = key
        self.pid = pid
        self.open = open


def _stdio_case(backend: str, era: str, env: dict[str, str], closers: ExitStack) -> list[_Case]:
    client = RawLineClient(_argv("stdio", backend), env=env)
    closers.callback(client.close)
    requesters = _stdio_requesters(client, era)

    def opener(load: int) -> Callable[[ExitStack], Runner]:
        return lambda _: lambda n, tool: client.run(n, load, requesters[tool])

    return [_Case(("stdio", backend, era, load), client.pid, opener(load)) for load in LOADS]


def _http_case(backend: str, era: str, env: dict[str, str], closers: ExitStack) -> list[_Case]:
    port = free_port()
    process = closers.enter_context(
        listening(_argv("http", backend, port), port, f"handoff http {backend}", env)
    )

    def opener(load: int) -> Callable[[ExitStack], Runner]:
        def open_client(stack: ExitStack) -> Runner:
            client = RawHttpClient("127.0.0.1", port, load)
            stack.callback(client.close)
            requesters = _http_requesters(client, f"127.0.0.1:{port}", era)
            return lambda n, tool: client.run(n, requesters[tool])

        return open_client

    return [_Case(("http", backend, era, load), process.pid, opener(load)) for load in LOADS]


def measure(
    transports: list[str], backends: list[str], eras: list[str], rounds: int, calls: int
) -> dict[tuple[str, str, str, int, str], list[float]]:
    """CPU microseconds per call, per (transport, backend, era, load, tool), a
    figure per round."""
    env = {**os.environ, "PYTHONPATH": _ROOT}
    figures: dict[tuple[str, str, str, int, str], list[float]] = {}
    with ExitStack() as closers:
        cases: list[_Case] = []
        for transport in transports:
            make = _stdio_case if transport == "stdio" else _http_case
            for backend in backends:
                for era in eras:
                    cases += make(backend, era, env, closers)
        for _ in range(rounds):
            for case in cases:
                with ExitStack() as stack:
                    run = case.open(stack)
                    for tool in TOOLS:
                        run(calls // 10, tool)  # warm
                        before = server_cpu_seconds(case.pid)
                        run(calls, tool)
                        spent = server_cpu_seconds(case.pid) - before
                        figures.setdefault((*case.key, tool), []).append(spent / calls * 1e6)
    return figures


def _threads(pid: int) -> dict[str, tuple[int, int, int]]:
    # Per thread of ``pid``: CPU nanoseconds, voluntary and involuntary switches.
    found = {}
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/schedstat") as file:
            cpu = int(file.read().split()[0])
        with open(f"/proc/{pid}/task/{task}/status") as file:
            counts = [int(line.split()[1]) for line in file if "ctxt_switches" in line]
        found[task] = (cpu, counts[0], counts[1])
    return found


def per_thread(backends: list[str], calls: int) -> None:
    """Where the CPU goes, stdio legacy: the event loop's thread against the
    others (workers, watchdog), with context switches per call."""
    env = {**os.environ, "PYTHONPATH": _ROOT}
    print(
        "| backend | in flight | tool | loop thread us | other threads us"
        " | loop switches vol/invol | other switches |"
    )
    print("|---|---:|---|---:|---:|---:|---:|")
    with ExitStack() as closers:
        for backend in backends:
            for case in _stdio_case(backend, "legacy", env, closers):
                run = case.open(closers)
                for tool in TOOLS:
                    run(calls // 10, tool)
                    before = _threads(case.pid)
                    run(calls, tool)
                    after = _threads(case.pid)
                    loop = str(case.pid)
                    sums = [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
                    for task, now in after.items():
                        then = before.get(task, (0, 0, 0))
                        row = sums[0 if task == loop else 1]
                        for i in range(3):
                            row[i] += (now[i] - then[i]) / calls
                    (lcpu, lvol, linv), (ocpu, ovol, oinv) = sums
                    print(
                        f"| {backend} | {case.key[3]} | {tool} | {lcpu / 1e3:.1f} |"
                        f" {ocpu / 1e3:.1f} | {lvol:.2f} / {linv:.2f} | {ovol + oinv:.2f} |"
                    )


_SYSCALLS: Final = (
    "futex",
    "epoll_wait",
    "read",
    "write",
    "sendto",
    "recvfrom",
)


def syscalls(backends: list[str], calls: int) -> None:
    """System calls and context switches per call of the stdio server (legacy
    era), counted by ``perf stat`` attached to its process during each run."""
    events = ",".join([*(f"syscalls:sys_enter_{name}" for name in _SYSCALLS), "context-switches"])
    env = {**os.environ, "PYTHONPATH": _ROOT}
    print(f"| backend | in flight | tool | {' | '.join(_SYSCALLS)} | switches |")
    print(f"|---|---:|---|{'---:|' * (len(_SYSCALLS) + 1)}")
    with ExitStack() as closers:
        for backend in backends:
            for case in _stdio_case(backend, "legacy", env, closers):
                run = case.open(closers)
                for tool in TOOLS:
                    run(calls // 10, tool)
                    perf = subprocess.Popen(
                        ["perf", "stat", "-x", ",", "-e", events, "-p", str(case.pid)],
                        stderr=subprocess.PIPE,
                        text=True,
                    )
                    time.sleep(0.5)  # attached
                    run(calls, tool)
                    perf.send_signal(signal.SIGINT)
                    _, report = perf.communicate()
                    counts: dict[str, float] = {}
                    for line in report.splitlines():
                        fields = line.split(",")
                        if len(fields) > 2 and fields[0].isdigit():
                            name = fields[2].removeprefix("syscalls:sys_enter_")
                            counts[name] = int(fields[0]) / calls
                    shown = [*_SYSCALLS, "context-switches"]
                    print(
                        f"| {backend} | {case.key[3]} | {tool} | "
                        + " | ".join(f"{counts.get(name, float('nan')):.2f}" for name in shown)
                        + " |"
                    )


def floor(calls: int) -> None:
    """The least a hop to a thread and back can cost in Python: two threads
    handing two locks back and forth, CPU per round trip and switches."""
    import resource
    import threading

    there, back = threading.Lock(), threading.Lock()
    there.acquire()
    back.acquire()

    def other() -> None:
        for _ in range(calls):
            there.acquire()
            back.release()

    thread = threading.Thread(target=other)
    thread.start()
    before = resource.getrusage(resource.RUSAGE_SELF)
    for _ in range(calls):
        there.release()
        back.acquire()
    after = resource.getrusage(resource.RUSAGE_SELF)
    thread.join()
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    voluntary = (after.ru_nvcsw - before.ru_nvcsw) / calls
    involuntary = (after.ru_nivcsw - before.ru_nivcsw) / calls
    print(
        f"two-lock ping-pong between two threads: {cpu / calls * 1e6:.1f} us of CPU per"
        f" round trip, {voluntary:.2f} voluntary and {involuntary:.2f} involuntary switches"
    )


def main(argv: list[str]) -> int:
    if argv and argv[0] == "serve":
        _serve(argv[1], argv[2], int(argv[3]) if len(argv) > 3 else 0)
        return 0
    parser = argparse.ArgumentParser(prog="python -m benchmarks.handoff")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--backends", default="asyncio,trio")
    parser.add_argument("--transports", default="stdio,http")
    parser.add_argument("--eras", default="legacy,modern")
    parser.add_argument(
        "--per-thread", action="store_true", help="split stdio's CPU by thread instead"
    )
    parser.add_argument(
        "--syscalls", action="store_true", help="count stdio's system calls per call instead"
    )
    parser.add_argument(
        "--floor", action="store_true", help="time a bare two-thread lock ping-pong instead"
    )
    args = parser.parse_args(argv)
    if args.floor:
        floor(args.calls * 10)
        return 0
    if args.syscalls:
        syscalls(args.backends.split(","), args.calls)
        return 0
    if args.per_thread:
        per_thread(args.backends.split(","), args.calls)
        return 0
    figures = measure(
        args.transports.split(","),
        args.backends.split(","),
        args.eras.split(","),
        args.rounds,
        args.calls,
    )
    print(
        "| transport | backend | era | in flight | def | def, pool, no brief wait"
        " | def via anyio.to_thread | async def | def/async | no brief/async | anyio/async |"
    )
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    cases = sorted({key[:4] for key in figures})
    for case in cases:
        plain, pool, anyio_thread, coro = (statistics.median(figures[(*case, t)]) for t in TOOLS)
        # Ratios run by run (each round measures every tool back to back), then
        # the median: the load of the machine moves a round's figures together.
        ratios = [
            statistics.median(
                a / b for a, b in zip(figures[(*case, t)], figures[(*case, TOOLS[-1])], strict=True)
            )
            for t in TOOLS[:-1]
        ]
        transport, backend, era, load = case
        print(
            f"| {transport} | {backend} | {era} | {load} | {plain:.1f} | {pool:.1f}"
            f" | {anyio_thread:.1f} | {coro:.1f} | "
            + " | ".join(f"{ratio:.2f}x" for ratio in ratios)
            + " |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
