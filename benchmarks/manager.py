"""The manager layer: what a client manager and a gateway add to a ``tools/call``.

Three ways to the same upstream server (mcp-core's echo server), side by side in
the same runs, on asyncio and on trio:

* ``Client``: a plain `transports.Client` connected to it;
* ``Manager``: a `transports.manager.Manager` with that one server, called by
  the tool's union name (``up.echo``): the name lookup, the link's checks and
  its error handling over the same kind of `Client`;
* ``gateway``: a `Client` connected in memory to a gateway
  (`transports.manager.gateway_server`) whose manager has the server: the same
  call, one more client and server hop.

The upstream has the echo tool twice, a plain ``def`` and an ``async def``
(`benchmarks.echo_servers`): each way gives two rows, "(def)" first.

The upstream is served in memory (every message encoded and decoded, the default
bytes mode) and, in a second set of cases, in a child process over stdio
(``python -m benchmarks.stdio_server ours``), reached by all three alike; the
gateway itself always sits in memory in this process.

``python -m benchmarks.manager [ROUNDS]`` times the same three ways differently, for
differences of a few percent on a busy machine: blocks of 100 calls of each way in
turn, ROUNDS times (100 by default), in one process; it prints the median
microseconds per call of each way and kind of tool, and the ratio to the plain
Client calling the same kind.

The targets (issue 17): a call through the Manager costs at most 10% more than
the same call on a plain Client (``Manager cost`` <= 1.10), and a call through the
gateway at most one extra in-memory hop over a direct call (``gateway cost``
about 2 or less in memory, where the direct call is that one hop; over stdio,
1 plus what an in-memory hop costs against a stdio round trip).
"""

from __future__ import annotations

import statistics
import sys
import time
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any, Final

import anyio

from mcp_core.manager import ServerConfig

from .bursts import Call, burst, latency_burst
from .echo_servers import KINDS, echo_call, ours, ratios_by_kind, row, rows
from .harness import Case, Settings, run_case_async, scaled
from .layers import LayerResult, Progress

__all__ = ["CLIENT", "GATEWAY", "MANAGER", "RATIOS", "WAYS", "run"]

CLIENT: Final = "Client"
MANAGER: Final = "Manager"
GATEWAY: Final = "gateway"
WAYS: Final = (CLIENT, MANAGER, GATEWAY)

RATIOS: Final = ratios_by_kind(
    {
        "Manager cost (Client / Manager)": (CLIENT, MANAGER),
        "gateway cost (Client / gateway)": (CLIENT, GATEWAY),
    }
)
"""Rates divided: how many times longer a call takes than on the plain Client,
for each kind of tool; and the Client's ``def`` row over its ``async def`` row."""

UPSTREAMS: Final = ("memory", "stdio")
IN_FLIGHT: Final = (1, 16)
CALLS_PER_OP: Final = {1: 32, 16: 128}
TEXT: Final = "hello"
SERVER: Final = "up"

_ROOT: Final = str(Path(__file__).resolve().parent.parent)
_ENV: Final = {"PYTHONPATH": _ROOT}
"""The stdio child imports this checkout, installed or not."""


class _Prefixed:
    """A manager, or a gateway's client, called by union names (``up.echo``) as
    `echo_call` calls a client by the tool's own name."""

    def __init__(self, target: Any) -> None:
        self._target = target
        self._prefix = SERVER + "."

    async def call_tool(self, name: str, arguments: Any) -> Any:
        return await self._target.call_tool(self._prefix + name, arguments)


async def _connect(upstream: str, backend: str, stack: AsyncExitStack) -> dict[str, Call]:
    """The three ways to one upstream each (its own server or child), checked once."""
    from transports import Client, connect_in_memory
    from transports.manager import Manager, gateway_server
    from transports.memory import pipe
    from transports.stdio import stdio_connector

    argv = [sys.executable, "-m", "benchmarks.stdio_server", "ours", backend]

    def connector() -> Any:
        if upstream == "memory":
            return pipe(ours())
        return stdio_connector(argv, env=_ENV)

    async def manager() -> Any:
        # The config's command is what a stdio upstream runs; in memory, the
        # connector stands in for it.
        config = ServerConfig(name=SERVER, command=argv[0], args=argv[1:], env=_ENV)
        managed = await stack.enter_async_context(Manager())
        managed.add(config, connector=connector() if upstream == "memory" else None)
        await managed.wait_for(SERVER, "connected", timeout=30)
        return managed

    client = await stack.enter_async_context(Client(connector()))
    gateway = gateway_server(await manager())
    front = await stack.enter_async_context(connect_in_memory(gateway))
    ways = dict(zip(WAYS, (client, _Prefixed(await manager()), _Prefixed(front)), strict=True))
    return {name: await echo_call(way, TEXT, tool) for name, (way, tool) in rows(ways).items()}


def build_case(
    upstream: str, backend: str, calls: dict[str, Call], in_flight: int, per_op: int
) -> Case:
    """One upstream, backend and concurrency, the three ways in it, in bursts of
    ``per_op`` calls."""
    how = "one at a time" if in_flight == 1 else f"{in_flight} in flight"
    where = "in memory" if upstream == "memory" else "in a child process over stdio"
    return Case(
        name=f"manager_{upstream}_{backend}_{in_flight}",
        title=(
            f"tools/call to an upstream {where} on {backend}: plain Client, Manager, "
            f"gateway; {how} (timed in bursts of {per_op})"
        ),
        payload_bytes=0,
        implementations={label: burst(call, in_flight, per_op) for label, call in calls.items()},
        ratios=RATIOS,
        latency={label: latency_burst(call, in_flight, per_op) for label, call in calls.items()},
        concurrency=in_flight,
        backend=backend,
    )


async def _run_backend(
    name: str, settings: Settings, progress: Progress, result: LayerResult
) -> None:
    for upstream in UPSTREAMS:
        async with AsyncExitStack() as stack:
            calls = await _connect(upstream, name, stack)
            for in_flight in IN_FLIGHT:
                per_op = settings.burst(CALLS_PER_OP[in_flight], in_flight)
                case = build_case(upstream, name, calls, in_flight, per_op)
                progress(f"manager: {case.name}: {case.title}")
                measured = await run_case_async(case, settings)
                result.cases.append(scaled(measured, per_op))


def run(settings: Settings, progress: Progress) -> LayerResult:
    """Every backend, upstream and concurrency level, each backend in its own loop."""
    result = LayerResult(name="manager")
    for name in settings.backends:
        anyio.run(_run_backend, name, settings, progress, result, backend=name)
    return result


async def _in_turn(backend: str, rounds: int) -> None:
    async with AsyncExitStack() as stack:
        for upstream in UPSTREAMS:
            calls = await _connect(upstream, backend, stack)
            times: dict[str, list[float]] = {label: [] for label in calls}
            for _ in range(rounds):
                for label, call in calls.items():
                    start = time.perf_counter()
                    for _ in range(100):
                        await call()
                    times[label].append((time.perf_counter() - start) * 1e4)
            for kind in KINDS:
                # Each way over the plain Client with the same kind of tool.
                base = statistics.median(times[row(CLIENT, kind)])
                for way in WAYS:
                    median = statistics.median(times[row(way, kind)])
                    print(
                        f"{backend:8} {upstream:7} {way:8} {kind:9} {median:8.1f} us"
                        f"  {median / base:.3f}x"
                    )


def main(argv: list[str]) -> int:
    """Time the three ways in turn (see the module doc); returns the exit status."""
    rounds = int(argv[0]) if argv else 100
    for backend in ("asyncio", "trio"):
        anyio.run(_in_turn, backend, rounds, backend=backend)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
