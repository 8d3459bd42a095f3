"""The workers layer: ``tools/call`` through HAProxy to 1, 2 and 4 worker processes,
their shared state on Redis, against one worker with its state in memory.

The deployment is the README recipe's (`benchmarks.deployment`): HAProxy in round
robin before ``mcp-core serve examples/redis/app.py`` workers, each request balanced
on its own. One raw client (`benchmarks.raw_client.RawHttpClient`, the ``servers``
layer's) keeps ``CONNECTIONS`` keep-alive connections to HAProxy, each with one
call of the ``worker`` tool in flight. 2026-07-28 calls carry their ``_meta`` and
need no shared state; 2025-11-25 calls go on one session per connection, opened
on whichever worker took the ``initialize``, which every worker then takes up from
the registry on Redis (their answers are SSE streams whose events go to Redis).

Per case, medians over the runs: calls/s; CPU per call (``/proc``, all threads)
of the workers (summed), of Redis and of HAProxy, and the commands Redis ran per
call (those inside scripts too, from ``INFO stats``); and from the warm-up before
the runs (a quarter of a run's calls), the round trips to Redis per call: the
commands the workers sent, counted with ``MONITOR``, which tells them from those
scripts run (a script is one round trip) but slows Redis down. The main figure is
the CPU of the workers and Redis together; the ratio Redis / memory of it is the
backend's overhead per call. HAProxy costs the same with either backend and is
reported beside it. HAProxy's health checks (a GET of /readyz and one
of /healthz to each worker every 0.5 s; with Redis, each /readyz is one Redis
GET) are in the workers' and Redis's figures, a few per thousand calls.

It starts redis-server, HAProxy and up to 5 workers, so it runs in the full run
(or by name: ``mcp-core bench --quick --only workers``), not in ``--quick``; it is
skipped, with the reason, without haproxy (both backends) or redis-server or the
``redis`` extra (the Redis cases).
"""

from __future__ import annotations

import importlib
import itertools
import json
import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from typing import Final

from . import deployment
from .harness import Settings
from .layers import LayerResult, Measurement, Progress, not_importable
from .raw_client import RawHttpClient, post, server_cpu_seconds

__all__ = ["CONNECTIONS", "COUNTS", "ERAS", "MEMORY", "label", "run"]

CONNECTIONS: Final = 8
COUNTS: Final = (1, 2, 4)
MODERN: Final = "2026-07-28"
LEGACY: Final = "2025-11-25"
ERAS: Final = (MODERN, LEGACY)
MEMORY: Final = "memory, 1 worker"
_META: Final = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
}
_CALL: Final = '"method":"tools/call","params":{"name":"worker","arguments":{}'
_ACCEPT: Final = "content-type: application/json\r\naccept: application/json, text/event-stream"

Requester = Callable[[int], bytes]


def label(workers: int) -> str:
    """The label of the Redis case with ``workers`` workers."""
    return f"Redis, {workers} worker{'s' if workers > 1 else ''}"


def _head(host: str, headers: dict[str, str]) -> bytes:
    # A POST's head up to its Content-Length value.
    lines = ["POST /mcp HTTP/1.1", f"host: {host}", _ACCEPT]
    lines += [f"{name}: {value}" for name, value in headers.items()]
    return ("\r\n".join(lines) + "\r\ncontent-length: ").encode("latin-1")


def _requester(heads: list[bytes], tail: str) -> Requester:
    # Connection i sends with heads[i]; every call has an id of its own.
    counter = itertools.count(1)

    def request_for(index: int) -> bytes:
        body = f'{{"jsonrpc":"2.0","id":{next(counter)},{_CALL}{tail}}}'.encode()
        return heads[index] + str(len(body)).encode() + b"\r\n\r\n" + body

    return request_for


def _modern(client: RawHttpClient, host: str) -> Requester:
    # 2026-07-28: no session; the request says its version, method and tool.
    headers = {"mcp-protocol-version": MODERN, "mcp-method": "tools/call", "mcp-name": "worker"}
    tail = ',"_meta":' + json.dumps(_META, separators=(",", ":")) + "}"
    return _requester([_head(host, headers)] * len(client.sockets), tail)


def _legacy(client: RawHttpClient, host: str) -> Requester:
    # 2025-11-25: a session per connection, initialize and initialized on it.
    params = {
        "protocolVersion": LEGACY,
        "capabilities": {},
        "clientInfo": {"name": "bench-workers", "version": "1"},
    }
    hello = json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params})
    done = json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"})
    heads = []
    for sock in client.sockets:
        fields = [("content-type", "application/json")]
        fields.append(("accept", "application/json, text/event-stream"))
        answer = client.exchange(sock, post("/mcp", host, fields, hello.encode()))
        session = answer.headers.get("mcp-session-id")
        if answer.status != 200 or session is None:
            raise RuntimeError(f"initialize answered {answer.status}: {answer.body[:200]!r}")
        headers = {"mcp-protocol-version": LEGACY, "mcp-session-id": session}
        fields += list(headers.items())
        answer = client.exchange(sock, post("/mcp", host, fields, done.encode()))
        if answer.status != 202:
            raise RuntimeError(f"notifications/initialized answered {answer.status}")
        heads.append(_head(host, headers))
    return _requester(heads, "}")


_SETUPS: Final = {MODERN: _modern, LEGACY: _legacy}


@dataclass(frozen=True)
class _Processes:
    """What one case measures: the workers behind HAProxy, HAProxy, Redis
    (its pid and port) and Redis's command counter."""

    workers: list[int]
    haproxy: int
    redis: tuple[int, int] | None
    counters: deployment.RedisCounters | None

    def read(self) -> tuple[float, float, float, int]:
        """CPU seconds of the workers, Redis and HAProxy; Redis's commands."""
        workers = sum(server_cpu_seconds(pid) for pid in self.workers)
        redis = server_cpu_seconds(self.redis[0]) if self.redis is not None else 0.0
        commands = self.counters.commands() if self.counters is not None else 0
        return workers, redis, server_cpu_seconds(self.haproxy), commands

    def monitor(self) -> deployment.RedisMonitor | None:
        return deployment.RedisMonitor(self.redis[1]) if self.redis is not None else None


_FIGURES: Final = ("worker CPU us", "Redis CPU us", "HAProxy CPU us", "Redis commands")
"""Per call, in the order `_Processes.read` gives them (CPU in microseconds)."""


def _warm_up(
    client: RawHttpClient, request_for: Requester, processes: _Processes, calls: int
) -> float:
    # ``calls`` calls to warm up, and the round trips to Redis per call meanwhile
    # (counted with MONITOR, which would slow the timed runs down).
    monitor = processes.monitor()
    try:
        client.run(calls, request_for)
    finally:
        sent = monitor.stop() if monitor is not None else 0
    return sent / calls


def _measure(processes: _Processes, port: int, era: str, calls: int, runs: int) -> dict[str, float]:
    # Every figure of one case: median over the runs, per call.
    host = f"127.0.0.1:{port}"
    client = RawHttpClient("127.0.0.1", port, CONNECTIONS)
    try:
        request_for = _SETUPS[era](client, host)
        for index, sock in enumerate(client.sockets):
            answer = client.exchange(sock, request_for(index))
            if b'"result"' not in answer.body:
                raise RuntimeError(f"a {era} call failed: {answer.body[:300]!r}")
        round_trips = _warm_up(client, request_for, processes, max(calls // 4, CONNECTIONS))
        samples: dict[str, list[float]] = {name: [] for name in ("calls/s", *_FIGURES)}
        for _ in range(runs):
            before = processes.read()
            started = time.perf_counter()
            client.run(calls, request_for)
            elapsed = time.perf_counter() - started
            after = processes.read()
            samples["calls/s"].append(calls / elapsed)
            for index, name in enumerate(_FIGURES):
                scale = 1e6 if name.endswith("us") else 1.0
                samples[name].append((after[index] - before[index]) / calls * scale)
    finally:
        client.close()
    figures = {name: statistics.median(values) for name, values in samples.items()}
    commands = figures.pop("Redis commands")
    return {**figures, "Redis round trips": round_trips, "Redis commands": commands}


@contextmanager
def _behind_balancer(
    workers: list[tuple[int, int]], redis: tuple[int, int] | None
) -> Iterator[tuple[_Processes, int]]:
    # HAProxy before ``workers`` (pid, port), and what to read around each run.
    with deployment.balancer([port for _, port in workers]) as (haproxy, port):
        pids = [pid for pid, _ in workers]
        if redis is None:
            yield _Processes(pids, haproxy, None, None), port
            return
        counters = deployment.RedisCounters(redis[1])
        try:
            yield _Processes(pids, haproxy, redis, counters), port
        finally:
            counters.close()


def _sizes(settings: Settings) -> tuple[int, int]:
    """(calls per run, runs): tests fix the calls with ``iterations``."""
    if settings.iterations is not None:
        return settings.iterations * CONNECTIONS, settings.runs
    return (500, 3) if not settings.scaling else (2000, 5)


def _redis_problem() -> str | None:
    reason = deployment.missing().get("redis-server")
    if reason is not None:
        return reason
    try:
        importlib.import_module("coredis")
    except ImportError as exc:
        return not_importable(exc, "coredis").replace("[bench]", "[redis]")
    return None


def run(settings: Settings, progress: Progress) -> LayerResult:
    """Memory with one worker, then Redis with 1, 2 and 4, both eras each."""
    result = LayerResult(name="workers")
    absent = deployment.missing().get("haproxy")
    if absent is not None:
        result.skipped["workers"] = absent
        return result
    calls, runs = _sizes(settings)
    figures: dict[str, dict[str, dict[str, float]]] = {era: {} for era in ERAS}

    def measure(name: str, processes: _Processes, port: int) -> None:
        for era in ERAS:
            progress(f"workers: {name}, {era}: {runs} runs of {calls:,} calls")
            found = _measure(processes, port, era, calls, runs)
            figures[era][name] = {"workers": len(processes.workers), **found}

    with deployment.worker(None) as one, _behind_balancer([one], None) as (processes, port):
        measure(MEMORY, processes, port)
    problem = _redis_problem()
    if problem is not None:
        result.skipped["Redis"] = problem
    else:
        with ExitStack() as stack:
            redis = stack.enter_context(deployment.redis_server())
            workers: list[tuple[int, int]] = []
            for count in COUNTS:
                while len(workers) < count:
                    workers.append(stack.enter_context(deployment.worker(redis[1])))
                with _behind_balancer(workers, redis) as (processes, port):
                    measure(label(count), processes, port)
    sizes = f"medians of {runs} runs of {calls:,} calls"
    result.measurements.extend(_measurement(era, figures[era], sizes) for era in ERAS)
    return result


def _measurement(era: str, cases: dict[str, dict[str, float]], sizes: str) -> Measurement:
    values: dict[str, float] = {}
    details: dict[str, dict[str, float]] = {}
    for name, figures in cases.items():
        values[name] = figures["worker CPU us"] + figures["Redis CPU us"]
        details[name] = figures
    return Measurement(
        name=f"workers_{era}",
        title=(
            f"tools/call through HAProxy, {era}, {CONNECTIONS} connections, {sizes}: "
            "CPU per call of the workers and Redis"
        ),
        unit="us CPU per call",
        values=values,
        details=details,
        ratios={f"{label(n)} / memory": (label(n), MEMORY) for n in COUNTS},
        ratio_note="(above 1: Redis costs more)",
    )
