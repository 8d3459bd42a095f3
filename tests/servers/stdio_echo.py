"""A stdio server for the transport tests: echo, a slow tool, a tool that exits.

Arguments: the anyio backend (default asyncio), then optionally the cap on
requests in flight (Limits.max_requests_in_flight).
"""

from __future__ import annotations

import os
import sys

import anyio

from mcp_core import Limits, Server
from transports.stdio import run_stdio

server = Server("stdio-echo", "1.0")


@server.tool
def echo(text: str) -> str:
    """Say it back; a stray print must not reach the wire."""
    print("stray print from a tool")
    return text


@server.tool
async def slow(seconds: float) -> str:
    """Sleep, then answer."""
    await anyio.sleep(seconds)
    return "done"


@server.tool
async def big(size: int) -> str:
    """An answer of ``size`` characters, from a request of a few bytes."""
    return "x" * size


@server.tool
def die() -> str:
    """Exit the whole server process mid-request."""
    os._exit(7)


if __name__ == "__main__":
    limits = Limits(max_requests_in_flight=int(sys.argv[2])) if len(sys.argv) > 2 else Limits()
    run_stdio(server, backend=sys.argv[1] if len(sys.argv) > 1 else "asyncio", limits=limits)
