"""Handlers that wait, over stdio: ``python -m benchmarks.stdio_waits [N] [--backend B]``.

`mcp-core bench` times a tool that answers at once. This times, over stdio to a
server in a child process, that tool (``echo``) beside one that waits once
before answering (``waits``: one ``anyio.lowlevel.checkpoint()``), one call at a
time and 16 in flight, N calls each (best of three): a handler that waits is
where the server's reading passes from task to task (`transports.pump._Reader`).
The server is this module run with ``--serve``.
"""

from __future__ import annotations

import argparse
import sys
import time

import anyio

from mcp_core import Server

from .echo_servers import ours

__all__ = ["main", "measure", "server"]

IN_FLIGHT = 16


def server() -> Server:
    """The echo server every layer times, with a tool that waits beside its echo."""
    app = ours()

    @app.tool
    async def waits(text: str) -> str:
        """Wait once, then say the text back."""
        await anyio.lowlevel.checkpoint()
        return text

    return app


async def _measure(calls: int) -> dict[str, float]:
    from transports.stdio import connect_stdio

    figures: dict[str, float] = {}
    command = [sys.executable, "-m", "benchmarks.stdio_waits", "--serve"]
    async with connect_stdio(command) as client:
        for tool in ("echo", "waits"):

            async def calls_of(n: int, tool: str = tool) -> None:
                for _ in range(n):
                    await client.call_tool(tool, {"text": "hi"})

            await calls_of(min(calls, 200))
            for label, tasks in (("one at a time", 1), (f"{IN_FLIGHT} in flight", IN_FLIGHT)):
                best = 0.0
                for _ in range(3):
                    started = time.perf_counter()
                    async with anyio.create_task_group() as tg:
                        for _ in range(tasks):
                            tg.start_soon(calls_of, calls // tasks)
                    done = calls // tasks * tasks
                    best = max(best, done / (time.perf_counter() - started))
                figures[f"{tool}, {label}"] = best
    return figures


def measure(calls: int = 5_000, backend: str = "asyncio") -> dict[str, float]:
    """Calls per second, by tool and concurrency."""
    return anyio.run(_measure, calls, backend=backend)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.stdio_waits")
    parser.add_argument("calls", nargs="?", type=int, default=5_000)
    parser.add_argument("--backend", choices=("asyncio", "trio"), default="asyncio")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        from transports.stdio import run_stdio

        run_stdio(server())
        return
    for label, rate in measure(args.calls, args.backend).items():
        print(f"{label:<24} {rate:9,.0f} calls/s")


if __name__ == "__main__":
    main()
