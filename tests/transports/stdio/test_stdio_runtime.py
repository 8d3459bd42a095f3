"""MCP over real stdio subprocesses: serve_stdio / connect_stdio on both backends.

Raw-bytes checks speak to the server's stdin and read its stdout directly
(2025-11-25 basic/transports.mdx "stdio": one JSON-RPC message per line, nothing
else on stdout).
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial
from typing import Any

import anyio
import anyio.lowlevel
import anyio.to_thread
import paths
import pytest
from runtime_helpers import ERAS, LIMIT, only_text

from mcp_core import McpError, SessionState
from transports import Client, ConnectionClosed, Driver, pump
from transports.stdio import connect_stdio
from transports.stdio_streams import StdioStream

SERVER = str(paths.SERVERS / "stdio_echo.py")
ROOT = str(paths.ROOT)


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
@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_requests_over_the_cap_are_refused_at_once(anyio_backend: str, era: str) -> None:
    # The server takes two requests in flight (argv); a third is refused with -32603
    # before it reaches a handler, and the connection goes on.
    with anyio.fail_after(LIMIT * 2):
        async with connect_stdio(
            [*argv(anyio_backend), "2"], env=ENV, stderr=lambda line: None, revisions=ERAS[era]
        ) as client:
            async with anyio.create_task_group() as tg:
                for _ in range(2):
                    tg.start_soon(client.call_tool, "slow", {"seconds": 60})
                while client.session.pending_requests < 2:  # both written, in order
                    await anyio.lowlevel.checkpoint()
                with pytest.raises(McpError) as refused:
                    await client.call_tool("echo", {"text": "one too many"})
                assert refused.value.code == -32603
                assert "too many requests in flight (the limit is 2)" in refused.value.message
                tg.cancel_scope.cancel()  # notifications/cancelled frees both places
            assert only_text(await client.call_tool("echo", {"text": "room"})) == "room"


@pytest.mark.anyio
async def test_an_answer_larger_than_a_request_may_be_arrives(anyio_backend: str) -> None:
    # A server of ours writes answers up to Limits.max_message_bytes (16 MiB); the
    # client read lines up to 4 MiB only, so a bigger answer was dropped and its call
    # waited forever. The client's default cap is now the server's message cap.
    size = 10 * 1024 * 1024
    with anyio.fail_after(LIMIT * 4):
        async with connect_stdio(argv(anyio_backend), env=ENV, stderr=lambda line: None) as client:
            text = only_text(await client.call_tool("big", {"size": size}))
    assert len(text) == size


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


@pytest.mark.anyio
@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_messages_larger_than_a_pipe_go_both_ways(anyio_backend: str, era: str) -> None:
    # Past 64 KiB a direct write from the sink is partial: the writer task finishes
    # it, and whatever comes meanwhile queues behind it, in order.
    big = "x" * (300 * 1024)
    results: list[str] = []
    with anyio.fail_after(LIMIT * 2):
        async with connect_stdio(
            argv(anyio_backend), env=ENV, stderr=lambda line: None, revisions=ERAS[era]
        ) as client:

            async def one(i: int) -> None:
                results.append(only_text(await client.call_tool("echo", {"text": f"{i}{big}"})))

            async with anyio.create_task_group() as tg:
                for i in range(8):
                    tg.start_soon(one, i)
    assert sorted(results) == [f"{i}{big}" for i in range(8)]


@pytest.mark.anyio
async def test_a_write_to_a_reader_that_left_fails_the_call(anyio_backend: str) -> None:
    # The sink writes straight to the pipe; when that fails, it leaves the messages
    # to the writer task, which meets the same error and closes the connection.
    our_r, peer_w = os.pipe()
    peer_r, our_w = os.pipe()
    stream = StdioStream(our_r, our_w)

    @asynccontextmanager
    async def over_pipes(driver: Driver) -> AsyncIterator[None]:
        async with anyio.create_task_group() as tg:
            await tg.start(pump, driver, stream)
            yield
            tg.cancel_scope.cancel()

    def discover() -> None:
        request = json.loads(os.read(peer_r, 1 << 16))
        assert request["method"] == "server/discover"
        result = {
            "resultType": "complete",
            "supportedVersions": ["2026-07-28"],
            "capabilities": {"tools": {}},
            "ttlMs": 0,
            "cacheScope": "private",
        }
        reply = {"jsonrpc": "2.0", "id": request["id"], "result": result}
        os.write(peer_w, json.dumps(reply).encode() + b"\n")

    try:
        with anyio.fail_after(LIMIT):
            async with anyio.create_task_group() as tg:
                tg.start_soon(partial(anyio.to_thread.run_sync, discover, abandon_on_cancel=True))
                async with Client(over_pipes, revisions=ERAS["modern"]) as client:
                    os.close(peer_r)
                    with pytest.raises(ConnectionClosed):
                        await client.call_tool("echo", {"text": "nobody reads this"})
                    # A failed write is a broken channel: the session is in ERROR.
                    assert client.session.state is SessionState.ERROR
    finally:
        os.close(peer_w)


def test_native_cancellation_leaves_no_exception_context_loop() -> None:
    # A Ctrl-C under asyncio cancels the main task natively. contextlib's exit stacks
    # then made the CancelledError its own __context__, and the next exit stack up
    # spun on the chain forever, leaving the server running.
    async def main() -> BaseException:
        started = asyncio.Event()
        caught: list[BaseException] = []

        async def body() -> None:
            try:
                async with connect_stdio(argv("asyncio"), env=ENV, stderr=lambda line: None):
                    started.set()
                    await asyncio.sleep(LIMIT * 10)
            except BaseException as exc:
                caught.append(exc)
                raise

        task = asyncio.ensure_future(body())
        await asyncio.wait_for(started.wait(), LIMIT)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(task, LIMIT * 2)
        return caught[0]

    exc: BaseException | None = asyncio.run(main())
    seen: set[int] = set()
    while exc is not None:
        assert id(exc) not in seen, "the exception's __context__ chain loops"
        seen.add(id(exc))
        exc = exc.__context__
