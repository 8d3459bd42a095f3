"""Running out of file descriptors does not end the h11 server (issue: 1,030 idle
connections killed `mcp-core serve --transport http` with `Too many open files`).

The server runs in a subprocess whose soft RLIMIT_NOFILE is 64; the test opens 100
idle connections to it, then calls a tool through a new connection. With the default
connection cap (below the limit) the oldest idle connections are closed to make room;
with a cap above the limit accept() fails with EMFILE, and the server says so once on
stderr, closes idle connections and goes on.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
import paths
import pytest
from anyio.abc import Process, SocketStream
from limits import HANG
from runtime_helpers import only_text

from transports import connect_http

pytestmark = pytest.mark.anyio

NOFILE = 64
IDLE = 100
LIMIT = HANG


@asynccontextmanager
async def limited_server(backend: str, cap: int | None) -> AsyncIterator[tuple[str, Process]]:
    argv = [sys.executable, str(paths.SERVERS / "fd_limited_http.py"), str(NOFILE), backend]
    if cap is not None:
        argv.append(str(cap))
    async with await anyio.open_process(argv) as process:
        try:
            assert process.stdout is not None
            with anyio.fail_after(LIMIT):
                line = b""
                while not line.endswith(b"\n"):
                    line += await process.stdout.receive(1)
            yield line.decode().strip(), process
        finally:
            with contextlib.suppress(ProcessLookupError):
                process.terminate()
            with anyio.move_on_after(5):
                await process.wait()
            if process.returncode is None:
                process.kill()


async def open_idle(url: str, count: int) -> list[SocketStream]:
    port = int(url.split(":")[2].split("/")[0])
    return [await anyio.connect_tcp("127.0.0.1", port) for _ in range(count)]


async def greet(url: str) -> str:
    async with connect_http(url) as client:
        result = await client.call_tool("HelloTool", {"value": "fd"})
    return only_text(result)


async def stderr_of(process: Process) -> str:
    assert process.stderr is not None
    with contextlib.suppress(ProcessLookupError):
        process.terminate()
    chunks = []
    with anyio.move_on_after(5):
        async for chunk in process.stderr:
            chunks.append(chunk)
    return b"".join(chunks).decode(errors="replace")


@pytest.mark.parametrize("cap", [None, 10_000], ids=["default-cap", "cap-above-limit"])
async def test_idle_connections_past_the_fd_limit_do_not_end_the_server(
    anyio_backend: str, cap: int | None
) -> None:
    async with limited_server(anyio_backend, cap) as (url, process):
        idle = await open_idle(url, IDLE)
        try:
            with anyio.fail_after(LIMIT):
                assert "fd" in await greet(url)
            assert process.returncode is None
        finally:
            for sock in idle:
                await sock.aclose()
        with anyio.fail_after(LIMIT):
            assert "fd" in await greet(url)
        assert process.returncode is None
        log = await stderr_of(process)
    if cap is None:
        assert "accept() failed" not in log
    else:
        assert log.count("accept() failed") == 1, log
    assert "Traceback" not in log, log
