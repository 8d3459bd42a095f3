"""The server driver's handler tasks and cancellation, message by message.

A `ServerConnection` is fed JSON-RPC bytes directly (as a transport's reader
would, several at once where the test needs no task to run in between) and
what it sends is collected. Workers (the reused handler tasks) serve their
requests in one cancel scope each, which a cancellation cancels; these tests
pin what that must never do: run a request cancelled before it started, cancel
the next request of a worker whose scope was cancelled, or lose a request
handed to a worker while a cancellation hits it.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest
from runtime_helpers import LIMIT

from mcp_core import Server
from mcp_core.wire import Message, encode_message
from transports.server_connection import ServerConnection

pytestmark = pytest.mark.anyio


class Gate:
    def __init__(self) -> None:
        self.started = anyio.Event()
        self.release = anyio.Event()
        self.finished = anyio.Event()


def make_server(ran: list[int], gate: Gate) -> Server:
    server = Server("workers", "1")

    @server.tool
    def record(n: int) -> int:
        ran.append(n)
        return n

    @server.tool
    async def shielded() -> str:
        # Finishes whatever happens: a cancellation reaches only what comes after.
        with anyio.CancelScope(shield=True):
            gate.started.set()
            await gate.release.wait()
        gate.finished.set()
        return "done"

    return server


def request(id: int, name: str, **arguments: Any) -> bytes:
    params = {"name": name, "arguments": arguments}
    return json.dumps(
        {"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}
    ).encode()


def cancelled(id: int) -> bytes:
    params = {"requestId": id, "reason": "enough"}
    return json.dumps(
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": params}
    ).encode()


class Peer:
    """The client side, by hand: feeds bytes, keeps the answers by id."""

    def __init__(self, connection: ServerConnection) -> None:
        self.driver = connection.driver
        self.answers: dict[Any, dict[str, Any]] = {}
        self.arrived = anyio.Event()
        self.driver.attach(self._sink)

    def _sink(self, messages: list[Message], related: Any) -> None:
        for message in messages:
            answer = json.loads(encode_message(message))
            if "id" in answer:
                self.answers[answer["id"]] = answer
        self.arrived.set()

    def feed(self, *items: bytes) -> None:
        for item in items:
            self.driver.feed(item)

    async def answer(self, id: int) -> dict[str, Any]:
        while id not in self.answers:
            self.arrived = anyio.Event()
            await self.arrived.wait()
        return self.answers[id]


@asynccontextmanager
async def opened(server: Server) -> AsyncIterator[Peer]:
    with anyio.fail_after(LIMIT):
        async with anyio.create_task_group() as tg:
            connection = ServerConnection(server, tg, revisions=("2025-11-25",))
            peer = Peer(connection)
            initialize = {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            }
            peer.feed(
                json.dumps(
                    {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": initialize}
                ).encode()
            )
            assert "result" in await peer.answer(0)
            peer.feed(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
            try:
                yield peer
            finally:
                connection.close()


def value(answer: dict[str, Any]) -> Any:
    return answer["result"]["structuredContent"]["result"]


async def test_a_request_cancelled_before_it_started_is_neither_run_nor_answered() -> None:
    ran: list[int] = []
    async with opened(make_server(ran, Gate())) as peer:
        # No task runs between these: request 1 is handed to a worker, then
        # cancelled before the worker takes it up.
        peer.feed(request(1, "record", n=1), cancelled(1), request(2, "record", n=2))
        assert value(await peer.answer(2)) == 2
        peer.feed(request(3, "record", n=3))
        assert value(await peer.answer(3)) == 3
        assert ran == [2, 3]
        assert 1 not in peer.answers


async def test_a_worker_whose_request_was_cancelled_serves_the_next_one_whole() -> None:
    ran: list[int] = []
    gate = Gate()
    async with opened(make_server(ran, gate)) as peer:
        peer.feed(request(1, "shielded"))
        await gate.started.wait()
        peer.feed(cancelled(1))  # cancels the scope of the worker serving it
        gate.release.set()
        await gate.finished.wait()  # the shielded part ran to its end
        for n in range(2, 6):
            peer.feed(request(n, "record", n=n))
            assert value(await peer.answer(n)) == n
        assert ran == [2, 3, 4, 5]


@pytest.mark.parametrize("turns", range(6))
async def test_a_request_handed_over_as_a_cancellation_lands_is_served(turns: int) -> None:
    # The worker's scope is cancelled while its request is shielded; the request
    # finishes, the worker parks, and the next request is fed after ``turns``
    # scheduler turns: before, while or after the cancellation reaches the parked
    # worker. Whichever comes first, the next request is answered, not dropped
    # and not cancelled.
    ran: list[int] = []
    gate = Gate()
    async with opened(make_server(ran, gate)) as peer:
        peer.feed(request(1, "shielded"))
        await gate.started.wait()
        peer.feed(cancelled(1))
        gate.release.set()
        for _ in range(turns):
            await anyio.lowlevel.checkpoint()
        peer.feed(request(2, "record", n=2))
        assert value(await peer.answer(2)) == 2
        assert ran == [2]


async def test_waiting_for_requests_in_flight_counts_one_cancelled_before_it_started() -> None:
    # A transport whose peer stopped sending waits for what is in flight
    # (finish_serving); a request skipped as cancelled is no longer in flight.
    ran: list[int] = []
    async with opened(make_server(ran, Gate())) as peer:
        peer.feed(request(1, "record", n=1), cancelled(1))
        with anyio.fail_after(1):
            await peer.driver.finish_serving(LIMIT * 2)
        assert ran == [] and 1 not in peer.answers
