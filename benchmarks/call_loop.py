"""``python -m benchmarks.call_loop [asyncio|trio] [CONCURRENCY]``: the plainest figure.

One client, one server, in memory, ``await client.call_tool("echo", ...)`` in a loop
(or in CONCURRENCY tasks at once): 6,000 calls, five times, the best rate printed.
No harness, no other peer: a quick check of a change to the runtime's per-call
cost, run alternately on two trees (``PYTHONPATH=<tree> python -m
benchmarks.call_loop``); the layers of ``mcp-core bench`` are the figures to publish.
"""

from __future__ import annotations

import sys
import time

import anyio

from mcp_core import Server
from transports import connect_in_memory

CALLS = 6000
ROUNDS = 5


async def best_rate(concurrency: int = 1) -> float:
    server = Server("loop", "1")

    @server.tool
    async def echo(text: str) -> str:
        return text

    best = 0.0
    async with connect_in_memory(server) as client:

        async def calls(count: int) -> None:
            for _ in range(count):
                await client.call_tool("echo", {"text": "hi"})

        for _ in range(ROUNDS):
            started = time.perf_counter()
            async with anyio.create_task_group() as tg:
                for _ in range(concurrency):
                    tg.start_soon(calls, CALLS // concurrency)
            done = CALLS // concurrency * concurrency
            best = max(best, done / (time.perf_counter() - started))
    return best


def main(argv: list[str]) -> int:
    backend = argv[0] if argv else "asyncio"
    concurrency = int(argv[1]) if len(argv) > 1 else 1
    rate = anyio.run(best_rate, concurrency, backend=backend)
    print(f"{rate:,.0f} calls/s (best of {ROUNDS} x {CALLS}, {concurrency} at a time)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
