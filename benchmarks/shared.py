"""Many processes: ``tools/call`` through HAProxy to 1, 2 or 4 workers, with the
shared state in memory (one worker, no Redis) or on Redis.

    python -m benchmarks.shared [--seconds 2] [--workers 1,2] [--connections 8]

Each case starts its own deployment (as the README recipe: ``mcp-core serve
--workers N --redis URL`` behind HAProxy, round robin), runs ``connections``
clients for ``seconds``, each a keep-alive connection to HAProxy doing one call at
a time, then reports calls/s, the workers' CPU per call (from /proc, summed over
the workers), HAProxy's CPU per call, and the Redis round trips per call (the
commands clients sent, from ``INFO commandstats``: a Lua script is one).
2026-07-28 calls need no shared state; legacy (2025-11-25) calls go on one
session per connection, which any worker takes up from the registry.

Needs redis-server and haproxy on the PATH. Not part of ``mcp-core bench``: it
starts processes of its own and wants a quiet machine.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import anyio
import h11

ROOT: Final = Path(__file__).resolve().parent.parent
APP: Final = ROOT / "examples" / "redis" / "app.py"
MODERN: Final = "2026-07-28"
LEGACY: Final = "2025-11-25"
META: Final = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
}
TICKS: Final = os.sysconf("SC_CLK_TCK")


@dataclass
class Result:
    era: str
    backend: str
    workers: int
    calls: int
    seconds: float
    worker_cpu: float
    haproxy_cpu: float
    redis_commands: int

    def row(self) -> dict[str, Any]:
        rate = self.calls / self.seconds
        return {
            "era": self.era,
            "backend": self.backend,
            "workers": self.workers,
            "calls/s": round(rate),
            "worker CPU us/call": round(self.worker_cpu / self.calls * 1e6, 1),
            "haproxy CPU us/call": round(self.haproxy_cpu / self.calls * 1e6, 1),
            "redis round trips/call": round(self.redis_commands / self.calls, 2),
        }


def _port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait(port: int, limit: float = 20.0) -> None:
    deadline = time.monotonic() + limit
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise RuntimeError(f"nothing listens on {port}") from None
            time.sleep(0.05)


def _cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


# Commands the backends run only inside their Lua scripts: not round trips.
_IN_SCRIPTS: Final = frozenset({"xadd", "pexpire", "zadd", "zrange", "zrank", "zrem", "hset"})


def _redis_round_trips(port: int) -> int:
    """Commands clients sent (each a round trip), from ``INFO commandstats``."""
    with socket.create_connection(("127.0.0.1", port), timeout=2) as sock:
        sock.sendall(b"INFO commandstats\r\n")
        data = b""
        while not data.endswith(b"\r\n\r\n") and not data.rstrip().endswith(b"\r\n"):
            data += sock.recv(65536)
            if data.count(b"\r\n") > 1 and data.endswith(b"\r\n"):
                head, _, _ = data.partition(b"\r\n")
                if len(data) >= int(head[1:]) + len(head) + 2:
                    break
    total = 0
    for line in data.decode().splitlines():
        if line.startswith("cmdstat_"):
            name, _, stats = line[len("cmdstat_") :].partition(":")
            calls = int(stats.split(",", 1)[0].split("=", 1)[1])
            if name not in _IN_SCRIPTS and name not in ("info", "hello", "ping"):
                total += calls
    return total


@contextmanager
def deployment(workers: int, redis: bool) -> Iterator[tuple[int, list[int], int, int | None]]:
    """(balancer port, worker pids, haproxy pid, redis port or None)."""
    folder = Path(tempfile.mkdtemp(prefix="mcp-bench-"))
    processes: list[subprocess.Popen[bytes]] = []
    try:
        redis_port = None
        arguments = [sys.executable, "-m", "transports", "serve", str(APP), "--transport", "http"]
        if redis:
            redis_port = _port()
            command = ["redis-server", "--port", str(redis_port), "--bind", "127.0.0.1"]
            command += ["--save", "", "--appendonly", "no", "--dir", str(folder)]
            processes.append(subprocess.Popen(command, stdout=subprocess.DEVNULL))
            _wait(redis_port)
            arguments += ["--redis", f"redis://127.0.0.1:{redis_port}/0"]
        ports = [_port() for _ in range(workers)]
        env = dict(os.environ, PYTHONPATH=str(ROOT), MCP_CORE_STATE_KEY="cd" * 32)
        served = [
            subprocess.Popen([*arguments, "--port", str(port)], env=env, stderr=subprocess.DEVNULL)
            for port in ports
        ]
        processes += served
        for port in ports:
            _wait(port)
        balancer = _port()
        config = (ROOT / "examples" / "redis" / "haproxy.cfg").read_text()
        head, _, _ = config.partition("    server w1")
        lines = [f'    server w{n} 127.0.0.1:"${{MCP_WORKER_{n}}}"' for n in range(1, workers + 1)]
        (folder / "haproxy.cfg").write_text(head + "\n".join(lines) + "\n")
        env.update(MCP_LB_PORT=str(balancer))
        env.update({f"MCP_WORKER_{n}": str(port) for n, port in enumerate(ports, 1)})
        haproxy = subprocess.Popen(
            ["haproxy", "-f", str(folder / "haproxy.cfg"), "-db"],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        processes.append(haproxy)
        _wait(balancer)
        yield balancer, [p.pid for p in served], haproxy.pid, redis_port
    finally:
        for process in reversed(processes):
            process.send_signal(signal.SIGTERM)
        for process in processes:
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
        shutil.rmtree(folder, ignore_errors=True)


class Connection:
    """One keep-alive HTTP/1.1 connection with h11."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.h11 = h11.Connection(h11.CLIENT)
        self.stream: Any = None

    async def post(self, body: bytes, headers: dict[str, str]) -> tuple[dict[str, str], bytes]:
        if self.stream is None or self.h11.our_state is h11.MUST_CLOSE:
            self.stream = await anyio.connect_tcp("127.0.0.1", self.port)
            self.h11 = h11.Connection(h11.CLIENT)
        elif self.h11.our_state is h11.DONE:
            self.h11.start_next_cycle()
        pairs = {
            "host": f"127.0.0.1:{self.port}",
            "content-type": "application/json",
            "accept": "application/json, text/event-stream",
            "content-length": str(len(body)),
            **headers,
        }
        out = self.h11.send(h11.Request(method="POST", target="/mcp", headers=list(pairs.items())))
        out += self.h11.send(h11.Data(data=body)) + self.h11.send(h11.EndOfMessage())
        await self.stream.send(out)
        answer: dict[str, str] = {}
        chunks: list[bytes] = []
        while True:
            event = self.h11.next_event()
            if event is h11.NEED_DATA:
                self.h11.receive_data(await self.stream.receive())
            elif isinstance(event, h11.Response):
                answer = {k.decode(): v.decode() for k, v in event.headers}
            elif isinstance(event, h11.Data):
                chunks.append(bytes(event.data))
            elif isinstance(event, h11.EndOfMessage):
                if self.h11.our_state is h11.MUST_CLOSE:
                    await self.stream.aclose()
                    self.stream = None
                return answer, b"".join(chunks)


def _call(n: int, meta: dict[str, Any] | None) -> bytes:
    params: dict[str, Any] = {"name": "worker", "arguments": {}}
    if meta is not None:
        params["_meta"] = meta
    return json.dumps(
        {"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": params}
    ).encode()


async def _client(port: int, era: str, until: float, counts: list[int]) -> None:
    connection = Connection(port)
    headers = {"mcp-protocol-version": era}
    meta: dict[str, Any] | None = META
    if era == LEGACY:
        meta = None
        client = {"name": "bench", "version": "1"}
        params = {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": client}
        hello = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params}
        answer, _ = await connection.post(json.dumps(hello).encode(), headers)
        headers["mcp-session-id"] = answer["mcp-session-id"]
        done = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        await connection.post(json.dumps(done).encode(), headers)
    else:
        headers.update({"mcp-method": "tools/call", "mcp-name": "worker"})
    n = 0
    while time.monotonic() < until:
        n += 1
        _, body = await connection.post(_call(n, meta), headers)
        if b'"result"' not in body:
            raise RuntimeError(f"call failed: {body[:200]!r}")
        counts[0] += 1


def run_case(era: str, workers: int, redis: bool, seconds: float, connections: int) -> Result:
    with deployment(workers, redis) as (port, pids, haproxy, redis_port):

        async def drive(until: float, counts: list[int]) -> None:
            async with anyio.create_task_group() as tg:
                for _ in range(connections):
                    tg.start_soon(_client, port, era, until, counts)

        # A short warm-up (sessions taken up, connections made), then the run.
        anyio.run(drive, time.monotonic() + min(0.5, seconds / 4), [0])
        cpu_before = sum(_cpu(pid) for pid in pids)
        haproxy_before = _cpu(haproxy)
        commands_before = _redis_round_trips(redis_port) if redis_port else 0
        counts = [0]
        started = time.monotonic()
        anyio.run(drive, started + seconds, counts)
        elapsed = time.monotonic() - started
        return Result(
            era,
            "redis" if redis else "memory",
            workers,
            counts[0],
            elapsed,
            sum(_cpu(pid) for pid in pids) - cpu_before,
            _cpu(haproxy) - haproxy_before,
            (_redis_round_trips(redis_port) - commands_before) if redis_port else 0,
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.shared", description=__doc__)
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--workers", default="1,2")
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--json", type=Path, help="also write the rows here")
    args = parser.parse_args(argv)
    counts = [int(n) for n in args.workers.split(",")]
    rows = []
    for era in (MODERN, LEGACY):
        cases = [(1, False)] + [(n, True) for n in counts]
        for workers, redis in cases:
            result = run_case(era, workers, redis, args.seconds, args.connections)
            rows.append(result.row())
            print(json.dumps(rows[-1]), flush=True)
    if args.json is not None:
        args.json.write_text(json.dumps(rows, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
