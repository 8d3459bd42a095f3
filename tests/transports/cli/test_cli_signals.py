"""The command line under signals, on real processes: Ctrl-C on ``serve``, SIGTERM on
``call``. Every wait is bounded; a process a test started is killed if it outlives it."""

from __future__ import annotations

import json
import signal
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import paths
import pytest
from anyio.abc import Process
from runtime_helpers import LIMIT

ROOT = paths.ROOT
EXAMPLES = paths.EXAMPLES

INITIALIZE = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"},
        },
    }
).encode()


@asynccontextmanager
async def cli(*args: str, **options: Any) -> AsyncIterator[Process]:
    """``mcp-core ARGS`` in a process of its own; killed on the way out if still running."""
    process = await anyio.open_process([sys.executable, "-m", "transports", *args], **options)
    try:
        yield process
    finally:
        if process.returncode is None:
            process.kill()
        with anyio.CancelScope(shield=True):
            await process.wait()
            await process.aclose()


async def read_until(stream: Any, marker: bytes) -> bytes:
    """What ``stream`` gives until ``marker`` has been seen."""
    seen = b""
    while marker not in seen:
        seen += await stream.receive()
    return seen


async def read_rest(stream: Any) -> bytes:
    rest = b""
    try:
        while True:
            rest += await stream.receive()
    except (anyio.EndOfStream, anyio.ClosedResourceError):
        return rest


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
@pytest.mark.parametrize("backend", ["asyncio", "trio"])
@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_ctrl_c_on_serve_exits_130_quietly(
    anyio_backend: str, backend: str, transport: str
) -> None:
    args = ["serve", str(EXAMPLES / "hello.py"), "--backend", backend]
    if transport == "http":
        args += ["--transport", "http", "--port", "0"]
    async with cli(*args, cwd=ROOT) as process:
        assert process.stdin is not None and process.stdout is not None
        assert process.stderr is not None
        with anyio.fail_after(LIMIT * 2):
            if transport == "stdio":
                # Serving for sure once it has answered.
                await process.stdin.send(INITIALIZE + b"\n")
                await read_until(process.stdout, b"\n")
                before = b""
            else:
                before = await read_until(process.stderr, b"\n")
            process.send_signal(signal.SIGINT)
            await process.wait()
            err = before + await read_rest(process.stderr)
    assert process.returncode == 130, err
    assert b"Traceback" not in err and b"KeyboardInterrupt" not in err, err
