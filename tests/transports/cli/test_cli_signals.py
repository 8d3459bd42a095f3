"""The command line under signals and restarts, on real processes: Ctrl-C on
``serve``, SIGTERM on ``call``, ``serve --reload``. Every wait is bounded; a process
a test started is stopped if it outlives it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import paths
import pytest
from anyio.abc import Process
from limits import HANG
from runtime_helpers import LIMIT

from benchmarks.http_servers import free_port

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


IGNORING_SIGINT = (
    "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_IGN); "
    "os.execv(sys.executable, [sys.executable, '-m', 'transports', *sys.argv[1:]])"
)
"""Starts ``mcp-core`` with SIGINT ignored, as a shell without job control starts a
background job (an ignored signal stays ignored across ``exec``)."""


@asynccontextmanager
async def cli(*args: str, sigint_ignored: bool = False, **options: Any) -> AsyncIterator[Process]:
    """``mcp-core ARGS`` in a process of its own; stopped on the way out if still running.
    With ``sigint_ignored``, it starts with SIGINT ignored."""
    start = ["-c", IGNORING_SIGINT] if sigint_ignored else ["-m", "transports"]
    process = await anyio.open_process([sys.executable, *start, *args], **options)
    try:
        yield process
    finally:
        with anyio.CancelScope(shield=True):
            if process.returncode is None:
                process.terminate()  # a reloading parent stops its child first
                with anyio.move_on_after(LIMIT * 2):
                    await process.wait()
            if process.returncode is None:
                process.kill()
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
@pytest.mark.parametrize("sigint", ["default", "ignored"])
async def test_ctrl_c_on_serve_exits_130_quietly(
    anyio_backend: str, backend: str, transport: str, sigint: str
) -> None:
    # Also when started with SIGINT ignored (a background job of a script).
    args = ["serve", str(EXAMPLES / "hello.py"), "--backend", backend]
    if transport == "http":
        args += ["--transport", "http", "--port", "0"]
    async with cli(*args, cwd=ROOT, sigint_ignored=sigint == "ignored") as process:
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


STUBBORN = '''
import os, signal, time
from pathlib import Path

from mcp_core import Server

signal.signal(signal.SIGTERM, signal.SIG_IGN)
server = Server("stubborn", "1")


@server.tool
async def hang() -> str:
    """Say where we are, then block the event loop: stdin is never read again."""
    Path("pid").write_text(str(os.getpid()))
    time.sleep(3600)
    return "never"
'''


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_sigterm_on_call_stops_a_server_that_ignores_stdin_and_sigterm(
    anyio_backend: str, tmp_path: Path
) -> None:
    server = tmp_path / "stubborn.py"
    server.write_text(STUBBORN, encoding="utf-8")
    pid_file = tmp_path / "pid"  # the server writes it in its working directory, ours
    async with cli("call", str(server), "hang", cwd=tmp_path) as process:
        with anyio.fail_after(LIMIT * 2):
            while not pid_file.exists() or not pid_file.read_text():
                await anyio.sleep(0.05)
        server_pid = int(pid_file.read_text())
        try:
            assert alive(server_pid)
            process.send_signal(signal.SIGTERM)
            # The ladder: stdin closed, 2 s, SIGTERM (ignored), 2 s, SIGKILL.
            with anyio.fail_after(LIMIT * 3):
                await process.wait()
                while alive(server_pid):
                    await anyio.sleep(0.05)
        finally:
            if alive(server_pid):  # the test failed; do not leave it behind
                os.kill(server_pid, signal.SIGKILL)
    assert process.returncode == 128 + signal.SIGTERM


# --- serve --reload -----------------------------------------------------------------------

ONE_TOOL = """
from mcp_core import Server

server = Server("growing", "1")


@server.tool
def first() -> str:
    return "1"
"""

TWO_TOOLS = (
    ONE_TOOL
    + """

@server.tool
def second() -> str:
    return "2"
"""
)


async def tool_names(url: str) -> list[str]:
    done = await anyio.run_process(
        [sys.executable, "-m", "transports", "list", url, "--json", "--timeout", "10"],
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return [tool["name"] for tool in json.loads(done.stdout)["tools"]]


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_reload_restarts_the_server_when_its_file_changes(
    anyio_backend: str, tmp_path: Path
) -> None:
    server = tmp_path / "growing.py"
    server.write_text(ONE_TOOL, encoding="utf-8")
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    args = ["serve", str(server), "--transport", "http", "--port", str(port), "--reload"]
    async with cli(*args, cwd=tmp_path, stdin=subprocess.DEVNULL) as process:
        assert process.stderr is not None
        with anyio.fail_after(LIMIT * 4):
            seen = await read_until(process.stderr, b"mcp-core: serving growing")
            assert b"watching " in seen
            assert await tool_names(url) == ["first"]
            server.write_text(TWO_TOOLS, encoding="utf-8")
            later = os.stat(server).st_mtime_ns + 2_000_000_000  # a coarse clock sees it too
            os.utime(server, ns=(later, later))
            seen = await read_until(process.stderr, b"mcp-core: serving growing")
            assert b"growing.py changed; restarting" in seen
            assert await tool_names(url) == ["first", "second"]
            process.send_signal(signal.SIGINT)
            await process.wait()
            rest = await read_rest(process.stderr)
    assert process.returncode == 130, rest
    assert b"Traceback" not in rest


def test_reload_needs_http(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "transports", "serve", str(EXAMPLES / "hello.py"), "--reload"],
        capture_output=True,
        text=True,
        timeout=HANG,
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert "--reload only applies to --transport http" in done.stderr
