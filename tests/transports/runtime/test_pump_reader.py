"""The pump's reader serves what it reads in its own task until a handler waits.

A server runs on a pair of memory object streams carrying JSON-RPC bytes
(`serve_stream`, the path of stdio and of any byte transport); the test is the
client, by hand. What must hold whatever task a request is served in: a handler
that waits does not stop the reading, its cancellation reaches it, a reader
task that kept a cancelled request reads again afterwards, and the end of the
input waits for what is in flight.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest
from anyio.streams.stapled import StapledObjectStream
from runtime_helpers import INITIALIZE, INITIALIZED, LIMIT, Hang

from mcp_core import Server
from transports import serve_stream

pytestmark = pytest.mark.anyio


def make_server(hang: Hang, gate: anyio.Event) -> Server:
    server = Server("reader", "1")

    @server.tool
    def echo(text: str) -> str:
        return text

    @server.tool
    async def later(text: str) -> str:
        """Answers once the test opens the gate."""
        await gate.wait()
        return text

    @server.tool
    async def stall() -> str:
        await hang()
        return "never"

    @server.tool
    async def checkpoint(text: str) -> str:
        await anyio.lowlevel.checkpoint()
        return text

    return server


def request(id: int, name: str, **arguments: Any) -> bytes:
    params = {"name": name, "arguments": arguments}
    message = {"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}
    return json.dumps(message).encode()


def cancelled(id: int) -> bytes:
    params = {"requestId": id}
    message = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": params}
    return json.dumps(message).encode()


class Peer:
    def __init__(self, send: Any, receive: Any) -> None:
        self.send = send
        self.receive = receive

    async def answer(self) -> dict[str, Any]:
        return dict(json.loads(await self.receive.receive()))

    async def text_of(self) -> tuple[Any, str]:
        answer = await self.answer()
        return answer["id"], answer["result"]["content"][0]["text"]


@asynccontextmanager
async def serving(server: Server) -> AsyncIterator[Peer]:
    to_server, server_in = anyio.create_memory_object_stream[bytes](64)
    server_out, from_server = anyio.create_memory_object_stream[bytes](64)
    with anyio.fail_after(LIMIT):
        async with anyio.create_task_group() as tg:
            tg.start_soon(serve_stream, server, StapledObjectStream(server_out, server_in))
            peer = Peer(to_server, from_server)
            await to_server.send(INITIALIZE)
            assert "result" in await peer.answer()
            await to_server.send(INITIALIZED)
            yield peer
            await to_server.aclose()


async def test_a_handler_that_waits_does_not_stop_the_reading() -> None:
    gate = anyio.Event()
    async with serving(make_server(Hang(), gate)) as peer:
        await peer.send.send(request(1, "later", text="first"))
        await peer.send.send(request(2, "echo", text="second"))
        assert await peer.text_of() == (2, "second")
        gate.set()
        assert await peer.text_of() == (1, "first")


async def test_a_waiting_handler_is_cancelled_and_its_task_reads_again() -> None:
    hang = Hang()
    async with serving(make_server(hang, anyio.Event())) as peer:
        # Twice: the second time, the reader task that kept the cancelled
        # request may be the one reading (it parked again after the cancellation).
        for id in (1, 3):
            hang.ended = anyio.Event()
            await peer.send.send(request(id, "stall"))
            await hang.started.wait()
            await peer.send.send(cancelled(id))
            await hang.ended.wait()
            assert hang.cancelled
            hang.started = anyio.Event()
            hang.cancelled = False
            await peer.send.send(request(id + 1, "echo", text=f"after {id}"))
            assert await peer.text_of() == (id + 1, f"after {id}")


async def test_handlers_that_wait_one_after_another() -> None:
    # Each waits once: the reading passes on each time, to a parked reader task
    # from the second call on.
    async with serving(make_server(Hang(), anyio.Event())) as peer:
        for id in range(1, 51):
            await peer.send.send(request(id, "checkpoint", text=str(id)))
            assert await peer.text_of() == (id, str(id))


async def test_many_at_once_mixing_handlers_that_wait_and_that_do_not() -> None:
    async with serving(make_server(Hang(), anyio.Event())) as peer:
        for id in range(1, 101):
            tool = "checkpoint" if id % 3 else "echo"
            await peer.send.send(request(id, tool, text=str(id)))
        answers = dict([await peer.text_of() for _ in range(100)])
        assert answers == {id: str(id) for id in range(1, 101)}


async def test_the_end_of_the_input_waits_for_a_handler_that_waits() -> None:
    gate = anyio.Event()
    async with serving(make_server(Hang(), gate)) as peer:
        await peer.send.send(request(1, "later", text="last"))
        await anyio.wait_all_tasks_blocked()
        await peer.send.aclose()  # the client stops sending
        gate.set()
        assert await peer.text_of() == (1, "last")
