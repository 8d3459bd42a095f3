"""MCP over real stdio subprocesses: serve_stdio / connect_stdio on both backends.

Raw-bytes checks speak to the server's stdin and read its stdout directly
(2025-11-25 basic/transports.mdx "stdio": one JSON-RPC message per line, nothing
else on stdout).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from runtime_helpers import ERAS, LIMIT, only_text

from transports import ConnectionClosed
from transports.stdio_connect import connect_stdio

SERVER = str(Path(__file__).parent / "servers" / "stdio_echo.py")
ROOT = str(Path(__file__).parent.parent)


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def argv(backend: str) -> list[str]:
    return [sys.executable, SERVER, backend]


ENV = {"PYTHONPATH": ROOT}


@pytest.mark.anyio
@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_calls_in_both_eras(anyio_backend: str, era: str) -> None:
    stderr: list[bytes] = []
    with anyio.fail_after(LIMIT * 2):
        async with connect_stdio(
            argv(anyio_backend), env=ENV, stderr=stderr.append, revisions=ERAS[era]
        ) as client:
            assert client.era == era
            assert only_text(await client.call_tool("echo", {"text": "hi"})) == "hi"
            results: list[str] = []

            async def one(i: int) -> None:
                results.append(only_text(await client.call_tool("echo", {"text": str(i)})))

            async with anyio.create_task_group() as tg:
                for i in range(50):
                    tg.start_soon(one, i)
            assert sorted(results, key=int) == [str(i) for i in range(50)]
    assert any(b"stray print from a tool" in line for line in stderr)


@pytest.mark.anyio
async def test_a_server_dying_mid_request_fails_the_call(anyio_backend: str) -> None:
    with anyio.fail_after(LIMIT * 2):
        async with connect_stdio(argv(anyio_backend), env=ENV, stderr=lambda line: None) as client:
            with pytest.raises(ConnectionClosed):
                await client.call_tool("die")
            with pytest.raises(ConnectionClosed):
                await client.call_tool("echo", {"text": "after"})


@pytest.mark.anyio
async def test_a_server_that_exits_at_once_fails_the_handshake(anyio_backend: str) -> None:
    code = "import sys; sys.stdin.readline(); sys.exit(3)"
    with anyio.fail_after(LIMIT), pytest.raises(ConnectionClosed, match="handshake"):
        async with connect_stdio([sys.executable, "-c", code]):
            pass


def _exchange(lines: list[bytes], backend: str = "asyncio") -> list[dict[str, Any]]:
    done = subprocess.run(
        argv(backend),
        input=b"".join(lines),
        capture_output=True,
        timeout=LIMIT * 2,
        env={"PYTHONPATH": ROOT, "PATH": "/usr/bin:/bin"},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    # Every line on stdout is one JSON-RPC message, and nothing else is there.
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_raw_bytes_garbage_gets_a_parse_error_and_the_stream_goes_on() -> None:
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"},
        },
    }
    call = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "echo", "arguments": {"text": "still here"}},
    }
    replies = _exchange(
        [
            json.dumps(init).encode() + b"\n",
            b'{"jsonrpc":"2.0","method":"notifications/initialized"}\r\n',
            b"this is not json\n",
            b"\n",
            b"[" * (5 * 1024 * 1024) + b"\n",  # over the 4 MiB line cap: dropped unread
            json.dumps(call).encode() + b"\n",
        ]
    )
    assert [reply.get("id") for reply in replies] == [1, None, None, 2]
    assert replies[0]["result"]["protocolVersion"] == "2025-11-25"
    assert replies[1]["error"]["code"] == -32700
    assert replies[2]["error"]["code"] == -32700
    assert "longer than" in replies[2]["error"]["message"]
    assert replies[3]["result"]["content"] == [{"type": "text", "text": "still here"}]


def test_raw_bytes_modern_request_without_handshake() -> None:
    call = {
        "jsonrpc": "2.0",
        "id": "a",
        "method": "tools/call",
        "params": {
            "name": "echo",
            "arguments": {"text": "stateless"},
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
            },
        },
    }
    (reply,) = _exchange([json.dumps(call).encode() + b"\n"], backend="trio")
    assert reply["id"] == "a"
    assert reply["result"]["resultType"] == "complete"
    assert reply["result"]["content"] == [{"type": "text", "text": "stateless"}]
