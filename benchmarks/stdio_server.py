"""The servers the stdio layer spawns: ``python -m benchmarks.stdio_server KIND [BACKEND]``.

KIND is one of:

* ``ours``: mcp-core's decorator server with the echo tool, on `run_stdio`, in
  BACKEND ("asyncio", the default, or "trio"); it serves both eras.
* ``sdk``: the official SDK's ``MCPServer`` with the same tool, on its own stdio
  runner (``run("stdio")``, asyncio); it serves both eras as well.
* ``sdk-lowlevel``: the SDK's low-level ``Server`` with an ``on_call_tool``
  handler, on its ``stdio_server()`` streams (asyncio);
* ``fastmcp``: FastMCP with the same tool, on ``run("stdio")`` (asyncio);
* ``lines``: no MCP at all: every line read from stdin is written back at once,
  through the same non-blocking `StdioStream` our server uses. The floor under
  any stdio round trip in Python on this machine.

Every server exits when its stdin reaches end of input.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

import anyio

from .echo_servers import fastmcp_server, ours, sdk_decorated, sdk_lowlevel

__all__ = ["main"]


def _ours(backend: str) -> None:
    from transports.stdio import run_stdio

    from .otel_on import maybe_instrument

    maybe_instrument()
    run_stdio(ours(), backend=backend)


def _sdk_lowlevel() -> None:
    stdio: Any = importlib.import_module("mcp.server.stdio")
    server = sdk_lowlevel()

    async def serve() -> None:
        async with stdio.stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(serve)


async def _echo_lines() -> None:
    from transports.stdio_streams import stdio_server_stream

    async with stdio_server_stream() as stream:
        while True:
            try:
                lines = await stream.receive_batch()
            except anyio.EndOfStream:
                return
            await stream.send_batch([line for line in lines if isinstance(line, bytes)])


def main(argv: list[str]) -> int:
    """Run the server named by ``argv[0]``; returns the exit status."""
    kind = argv[0] if argv else ""
    backend = argv[1] if len(argv) > 1 else "asyncio"
    if kind == "ours":
        _ours(backend)
    elif kind == "sdk":
        sdk_decorated().run("stdio")
    elif kind == "sdk-lowlevel":
        _sdk_lowlevel()
    elif kind == "fastmcp":
        fastmcp_server().run("stdio", show_banner=False)
    elif kind == "lines":
        anyio.run(_echo_lines, backend=backend)
    else:
        kinds = "ours|sdk|sdk-lowlevel|fastmcp|lines"
        print(f"usage: python -m benchmarks.stdio_server {kinds} [asyncio|trio]")
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
