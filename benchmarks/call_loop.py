"""``python -m benchmarks.call_loop [asyncio|trio]``: the plainest figure there is.

One client, one server, in memory, ``await client.call_tool("echo", ...)`` in a loop:
6,000 calls, five times, the best rate printed. No harness, no other peer: a quick
check of a change to the runtime's per-call cost, run alternately on two trees
(``PYTHONPATH=<tree> python -m benchmarks.call_loop``); the layers of ``mcp-core bench``
are the figures to publish.
"""

from __future__ import annotations

import sys
import time

import anyio

from mcp_core import Server
from transports import connect_in_memory

CALLS = 6000
ROUNDS = 5


async def best_rate() -> float:
    server = Server("loop", "1")

    @server.tool
    async def echo(text: str) -> str:
        return text

    best = 0.0
    async with connect_in_memory(server) as client:
        for _ in range(ROUNDS):
            started = time.perf_counter()
            for _ in range(CALLS):
                await client.call_tool("echo", {"text": "hi"})
            best = max(best, CALLS / (time.perf_counter() - started))
    return best


def main(argv: list[str]) -> int:
    backend = argv[0] if argv else "asyncio"
    print(f"{anyio.run(best_rate, backend=backend):,.0f} calls/s (best of {ROUNDS} x {CALLS})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
