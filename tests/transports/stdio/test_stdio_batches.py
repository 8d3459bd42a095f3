"""Many messages in one read: taken as one batch, answered in one write.

The server side runs on a SOCK_SEQPACKET socket pair, whose reads and writes keep
their boundaries: what the test sends in one packet arrives in one read, and each
packet the test receives is one write of the server. That makes both halves
visible from the wire: the lines of one read come back in one write, and an
answer held for that write is not kept waiting by a request of the same read
that waits.
"""

from __future__ import annotations

import json
import os
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest
from runtime_helpers import INITIALIZE, INITIALIZED, LIMIT

from mcp_core import Server
from mcp_core.types import CallToolResult
from mcp_core.wire import LineTooLong
from transports import serve_stream
from transports.stdio_streams import StdioStream

pytestmark = pytest.mark.anyio


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def make_server(gate: anyio.Event) -> Server:
    server = Server("batches", "1")

    @server.tool
    async def echo(text: str) -> str:
        return text

    @server.tool
    async def later(text: str) -> str:
        """Answers once the test opens the gate."""
        await gate.wait()
        return text

    @server.tool
    async def opaque(text: str = "") -> CallToolResult:
        # Passed through as returned: nothing checks it before it is encoded. Async,
        # so that it answers at once, in its turn (a plain function runs in a thread).
        return CallToolResult(content=[], structured_content={"handle": object()})

    return server


def call(id: int, name: str, text: str) -> bytes:
    params = {"name": name, "arguments": {"text": text}}
    message = {"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}
    return json.dumps(message).encode()


class Peer:
    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock

    async def send(self, *lines: bytes) -> None:
        """One packet: one read of the server."""
        self.sock.sendall(b"".join(line + b"\n" for line in lines))

    async def packet(self) -> list[dict[str, Any]]:
        """The messages of the server's next write."""
        await anyio.wait_readable(self.sock)
        data = self.sock.recv(1 << 20)
        assert data.endswith(b"\n")
        return [json.loads(line) for line in data.splitlines()]


@asynccontextmanager
async def serving(server: Server) -> AsyncIterator[Peer]:
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    with ours, theirs:
        theirs.setblocking(False)
        stream = StdioStream(ours.fileno(), ours.fileno(), close_fds=False)
        peer = Peer(theirs)
        with anyio.fail_after(LIMIT):
            async with anyio.create_task_group() as tg:
                tg.start_soon(serve_stream, server, stream)
                await peer.send(INITIALIZE)
                assert "result" in (await peer.packet())[0]
                await peer.send(INITIALIZED)
                yield peer
                theirs.shutdown(socket.SHUT_WR)


def text_of(answer: dict[str, Any]) -> str:
    return str(answer["result"]["content"][0]["text"])


async def test_a_read_of_many_requests_is_answered_in_one_write(anyio_backend: str) -> None:
    async with serving(make_server(anyio.Event())) as peer:
        await peer.send(*[call(i, "echo", f"t{i}") for i in range(1, 17)])
        answers = await peer.packet()
        assert [answer["id"] for answer in answers] == list(range(1, 17))
        assert [text_of(answer) for answer in answers] == [f"t{i}" for i in range(1, 17)]
        # One request in a read is answered alone, as before.
        await peer.send(call(17, "echo", "alone"))
        assert [text_of(answer) for answer in await peer.packet()] == ["alone"]


async def test_held_answers_go_out_when_a_request_of_the_read_waits(anyio_backend: str) -> None:
    gate = anyio.Event()
    async with serving(make_server(gate)) as peer:
        await peer.send(
            call(1, "echo", "first"),
            call(2, "later", "gated"),
            call(3, "echo", "third"),
        )
        seen: dict[int, str] = {}
        while len(seen) < 2:  # the gate is shut: these must come without it
            seen.update({answer["id"]: text_of(answer) for answer in await peer.packet()})
        assert seen == {1: "first", 3: "third"}
        gate.set()
        assert [(a["id"], text_of(a)) for a in await peer.packet()] == [(2, "gated")]


async def test_lines_of_one_read_are_one_batch_and_a_torn_line_waits(
    anyio_backend: str,
) -> None:
    our_r, peer_w = os.pipe()
    peer_r, our_w = os.pipe()
    stream = StdioStream(our_r, our_w)
    try:
        with anyio.fail_after(LIMIT):
            os.write(peer_w, b'{"a":1}\n{"b":2}\r\n\n{"c":3}\n{"d":')
            batch: list[bytes | LineTooLong] = await stream.receive_batch()
            assert batch == [b'{"a":1}', b'{"b":2}', b'{"c":3}']
            assert stream.buffered_bytes == len(b'{"d":')
            os.write(peer_w, b"4}\n")
            assert await stream.receive_batch() == [b'{"d":4}']
    finally:
        await stream.aclose()  # closes our ends
        os.close(peer_w)
        os.close(peer_r)


async def test_a_result_json_cannot_carry_fails_only_its_request(anyio_backend: str) -> None:
    # The sink's own write (one request in a read) and a held batch (three).
    async with serving(make_server(anyio.Event())) as peer:
        await peer.send(call(1, "opaque", ""))
        [failed] = await peer.packet()
        assert failed["id"] == 1 and failed["error"]["code"] == -32603
        assert "cannot be encoded" in failed["error"]["message"]
        await peer.send(call(2, "echo", "a"), call(3, "opaque", ""), call(4, "echo", "b"))
        answers: list[dict[str, Any]] = []
        while len(answers) < 3:
            answers += await peer.packet()
        assert [answer["id"] for answer in answers] == [2, 3, 4]
        assert (text_of(answers[0]), answers[1]["error"]["code"], text_of(answers[2])) == (
            "a",
            -32603,
            "b",
        )
