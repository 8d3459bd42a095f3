"""The ways around anyio (`transports.backend`) and their plain-anyio fallbacks.

Each way is checked on both backends, natively and with `backend.native` set to
False (the `native` fixture), which must give the plain-anyio answer; what goes over
a pipe or a socket must be the same either way. That trio is imported only when trio runs is checked
in a fresh interpreter.
"""

from __future__ import annotations

import os
import subprocess
import sys

import anyio
import pytest
from anyio.abc import SocketAttribute, SocketListener
from paths import EXAMPLES

from transports import backend
from transports.cli import commands
from transports.stdio_streams import StdioStream

pytestmark = pytest.mark.anyio

LIMIT = 15


async def test_the_resolved_clock_is_anyios_clock(native: bool) -> None:
    clock = backend.loop_clock()
    assert (clock is anyio.current_time) is not native
    for _ in range(3):
        before = clock()
        now = anyio.current_time()
        after = clock()
        assert before <= now <= after
        await anyio.sleep(0.01)
    assert clock() - before >= 0.01


async def test_a_kept_reader_only_natively_on_asyncio(native: bool, anyio_backend: str) -> None:
    read_fd, write_fd = os.pipe()
    try:
        reader = backend.kept_reader(read_fd)
        assert (reader is not None) is (native and anyio_backend == "asyncio")
    finally:
        os.close(read_fd)
        os.close(write_fd)


async def test_a_pipe_carries_the_same_lines_either_way(native: bool) -> None:
    # Lines that arrive while a receive waits, lines that wait for a receive, and a
    # wait ended by close.
    read_fd, write_fd = os.pipe()
    stream = StdioStream(read_fd, write_fd)
    got: list[bytes] = []
    closed: list[BaseException] = []

    async def receive(count: int) -> None:
        for _ in range(count):
            line = await stream.receive()
            assert isinstance(line, bytes)
            got.append(line)

    async def receive_until_closed() -> None:
        try:
            await stream.receive()
        except anyio.ClosedResourceError as exc:
            closed.append(exc)

    with anyio.fail_after(LIMIT):
        async with anyio.create_task_group() as tg:
            tg.start_soon(receive, 2)
            await anyio.wait_all_tasks_blocked()
            os.write(write_fd, b"one\ntwo\n")
        os.write(write_fd, b"three\n")
        await receive(1)
        async with anyio.create_task_group() as tg:
            tg.start_soon(receive_until_closed)
            await anyio.wait_all_tasks_blocked()
            await stream.aclose()
    assert got == [b"one", b"two", b"three"]
    assert len(closed) == 1


async def test_a_direct_writer_natively_on_a_plain_tcp_stream(native: bool) -> None:
    # The writer's bytes arrive in order with the stream's own sends.
    async with await anyio.create_tcp_listener(local_host="127.0.0.1") as listener:
        port = listener.extra(SocketAttribute.local_port)
        with anyio.fail_after(LIMIT):
            async with await anyio.connect_tcp("127.0.0.1", port) as client:
                (inner,) = listener.listeners
                assert isinstance(inner, SocketListener)
                server = await inner.accept()
                async with server:
                    writer = backend.direct_writer(server)
                    assert (writer is not None) is native
                    await server.send(b"first ")
                    if writer is not None:
                        assert writer.ready()
                        assert writer.write(b"second ") == len(b"second ")
                    await server.send(b"last")
                    expected = b"first second last" if native else b"first last"
                    received = b""
                    while len(received) < len(expected):
                        received += await client.receive()
                    assert received == expected


def test_no_direct_writer_is_never_ready() -> None:
    assert backend.NO_WAY.ready() is False
    assert backend.NO_WAY.write(b"x") is None


def test_the_runtime_imports_no_trio() -> None:
    # An asyncio user needs no trio: importing the package and the modules a server
    # and a client run on, and serving a call in memory on asyncio, import none of it.
    program = """
import sys, anyio
import transports, transports.backend, transports.stdio, transports.http.server
import transports.http.client, transports.http.asgi, transports.manager, transports.cli
from mcp_core import Server
from transports.memory import connect_in_memory

server = Server("no-trio", "1.0")
server.add_tool(lambda: "hi", name="hello")

async def main():
    async with connect_in_memory(server) as client:
        result = await client.call_tool("hello")
        assert result.content[0].text == "hi", result

anyio.run(main)
print(sorted(name for name in sys.modules if name == "trio" or name.startswith("trio.")))
"""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=60, env=env
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_the_command_line_says_trio_is_an_extra(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(commands, "available", lambda name: name == "asyncio")
    assert commands.main(["serve", str(EXAMPLES / "hello.py"), "--backend", "trio"]) == 2
    err = capsys.readouterr().err
    assert err == "mcp-core: error: --backend trio needs trio: pip install trio\n"
    assert backend.available("asyncio")
