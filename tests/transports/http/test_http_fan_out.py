"""A notification fanned out to open SSE streams of the h11 server, from the wire,
on asyncio and trio: a stream's events are written by the publisher when the
socket takes them (`HttpConnection.try_send`), and by the stream's own writer
task when it does not; either way every stream gets each event once, in order,
and a client that stops reading holds up nobody else.

Every wait is bounded by LIMIT; nothing sleeps to synchronise (one test lets
sse_ping periods go by, on a clock of its own for the quiet they measure).
"""

from __future__ import annotations

import json
import re
import socket
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest
from anyio.abc import SocketAttribute
from http_helpers import META, RawClient, modern_headers, open_session, reply_of, running

from mcp_core import Server
from mcp_core.wire import ServerSentEvent
from transports.http import streams as streams_module
from transports.http.connection import HttpConnection
from transports.http.server import HttpTimeouts

pytestmark = pytest.mark.anyio

CHANGED = "notifications/tools/list_changed"
UPDATED = "notifications/resources/updated"
BIG_URI = "note://big/" + "x" * (64 * 1024)
"""Its resources/updated events fill the socket of a client that does not read
(its receive buffer made small) within ROUNDS."""
ROUNDS = 100


def fan_server() -> Server:
    server = Server("fan-out", "1.0", subscribe=True)
    server.add_resource(lambda: "big", BIG_URI)
    server.add_tool(lambda: "", name="first")  # sessions then hear of tool changes
    return server


def add_tool(server: Server, number: int) -> None:
    server.add_tool(lambda: "", name=f"added_{number}")


class Tally:
    """How often `try_send` answered True, False and None."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.answers: dict[bool | None, int] = {True: 0, False: 0, None: 0}
        real = HttpConnection.try_send

        def counted(connection: HttpConnection, data: bytes) -> bool | None:
            answer = real(connection, data)
            self.answers[answer] += 1
            return answer

        monkeypatch.setattr(HttpConnection, "try_send", counted)


class Listener:
    """One SSE stream read from the wire: its events, and their messages' methods."""

    def __init__(self, raw: RawClient) -> None:
        self.raw = raw
        self.events: list[ServerSentEvent] = []
        self.methods: list[str] = []

    async def until(self, done: Callable[[Listener], bool]) -> None:
        while not done(self):
            got = await self.raw.events(until=bool)
            assert got, "the stream ended"
            self.events += got
            for event in got:
                if event.data:
                    message: dict[str, Any] = json.loads(event.data)
                    self.methods.append(message.get("method", ""))

    def numbers(self) -> list[int]:
        """The store's numbers of a legacy stream's events, in the order they came."""
        numbers = []
        for event in self.events:
            if event.data:
                match = re.search(r"(\d+)$", event.id or "")
                assert match is not None, event.id
                numbers.append(int(match.group(1)))
        return numbers


def heard(method: str, count: int) -> Callable[[Listener], bool]:
    return lambda listener: listener.methods.count(method) >= count


@asynccontextmanager
async def legacy_stream(port: int, small_buffer: bool = False) -> AsyncIterator[Listener]:
    """A 2025-11-25 session subscribed to BIG_URI, and its standalone GET stream."""
    async with RawClient(port) as client, RawClient(port) as raw:
        session_id = await open_session(client, "2025-11-25")
        params = {"uri": BIG_URI}
        subscribe = {"jsonrpc": "2.0", "id": 2, "method": "resources/subscribe", "params": params}
        await client.send("POST", subscribe, mcp_session_id=session_id)
        assert (await reply_of(client))["result"] == {}
        if small_buffer:
            sock = raw.sock.extra(SocketAttribute.raw_socket)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 64 * 1024)
        await raw.send("GET", mcp_session_id=session_id, mcp_protocol_version="2025-11-25")
        assert (await raw.head()).status == 200
        listener = Listener(raw)
        await listener.until(lambda one: bool(one.events))  # the priming event
        yield listener


@asynccontextmanager
async def listen_stream(port: int) -> AsyncIterator[Listener]:
    """A 2026-07-28 subscriptions/listen stream for tool list changes."""
    async with RawClient(port) as raw:
        params = {"notifications": {"toolsListChanged": True}, "_meta": META}
        request = {"jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen", "params": params}
        await raw.send("POST", request, **modern_headers("subscriptions/listen"))
        assert (await raw.head()).status == 200
        listener = Listener(raw)
        await listener.until(lambda one: bool(one.methods))  # the acknowledgement
        yield listener


async def test_every_stream_gets_each_change_once_and_in_order(
    monkeypatch: pytest.MonkeyPatch, native: bool
) -> None:
    tally = Tally(monkeypatch)
    server = fan_server()
    async with (
        running(server) as port,
        legacy_stream(port) as first,
        legacy_stream(port) as second,
        listen_stream(port) as third,
    ):
        listeners = (first, second, third)
        for number in range(20):
            add_tool(server, number)
            if number % 5 == 4:
                # Some changes come while the streams are read, some before.
                for listener in listeners:
                    await listener.until(heard(CHANGED, number + 1))
        for listener in listeners:
            assert listener.methods.count(CHANGED) == 20
        for listener in (first, second):
            numbers = listener.numbers()
            assert numbers == sorted(set(numbers))
    # Mostly written by the publisher, not by a writer task woken for each (a
    # writer not back at its wait yet, after the head, writes its own); on plain
    # anyio, all by the writers.
    if native:
        assert tally.answers[True] >= 40, tally.answers
    else:
        assert tally.answers[True] == tally.answers[False] == 0, tally.answers


async def test_a_full_socket_holds_up_no_other_stream_and_loses_nothing(
    monkeypatch: pytest.MonkeyPatch, native: bool
) -> None:
    # The slow client reads nothing until the end: its socket fills and its events
    # go back to its writer (awaited writes after direct ones), while the others
    # get each change as it comes. Then it reads: all of them, once, in order; a
    # change after that is written directly again.
    tally = Tally(monkeypatch)
    server = fan_server()
    async with (
        running(server, HttpTimeouts(write=30.0)) as port,
        legacy_stream(port, small_buffer=True) as slow,
        legacy_stream(port) as fast,
        listen_stream(port) as modern,
    ):
        for number in range(ROUNDS):
            server.resource_updated(BIG_URI)
            add_tool(server, number)
            await fast.until(heard(CHANGED, number + 1))
            await modern.until(heard(CHANGED, number + 1))
            assert fast.methods.count(UPDATED) == number + 1
        # The slow stream's socket was full: some of its events waited.
        assert tally.answers[None] + tally.answers[False] > 0, tally.answers
        await slow.until(heard(CHANGED, ROUNDS))
        assert slow.methods == [UPDATED, CHANGED] * ROUNDS
        numbers = slow.numbers()
        assert numbers == sorted(set(numbers)) and len(numbers) == 2 * ROUNDS
        before = tally.answers[True]
        add_tool(server, ROUNDS)
        for listener in (slow, fast, modern):
            await listener.until(heard(CHANGED, ROUNDS + 1))
            assert listener.methods.count(CHANGED) == ROUNDS + 1
        assert (tally.answers[True] > before) is native


async def test_a_stream_whose_client_left_is_dropped_and_the_rest_go_on() -> None:
    server = fan_server()
    async with (
        running(server) as port,
        legacy_stream(port) as staying,
        listen_stream(port) as also,
    ):
        async with legacy_stream(port) as leaving:
            add_tool(server, 0)
            await leaving.until(heard(CHANGED, 1))
        # Its client closed the socket: a write to it fails, or is dropped, and
        # the publisher goes on to the others.
        for number in range(1, 6):
            add_tool(server, number)
        for listener in (staying, also):
            await listener.until(heard(CHANGED, 6))
            assert listener.methods.count(CHANGED) == 6


async def test_keep_alive_comments_still_come_between_direct_writes() -> None:
    server = fan_server()
    timeouts = HttpTimeouts(sse_ping=0.05)
    async with running(server, timeouts) as port, legacy_stream(port) as listener:
        add_tool(server, 0)
        await listener.until(heard(CHANGED, 1))
        body = b""
        while body.count(b":\n\n") < 2:
            event = await listener.raw._event()
            body += bytes(event.data)
        add_tool(server, 1)
        await listener.until(heard(CHANGED, 2))


async def test_no_keep_alive_comment_while_events_are_written_directly(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The stream's writer task sleeps through direct writes, and its timer still
    # fires every sse_ping: the comment is due only after sse_ping of quiet
    # since the last event. The streams' clock is the test's: it stands still
    # (no quiet at all since the event), then jumps (quiet long enough).
    clock = [1000.0]
    monkeypatch.setattr(streams_module, "_monotonic", lambda: clock[0])
    server = fan_server()
    timeouts = HttpTimeouts(sse_ping=0.02)
    async with running(server, timeouts) as port, legacy_stream(port) as listener:
        raw = listener.raw

        async def read_until(marker: bytes, count: int) -> bytes:
            body = b""
            while body.count(marker) < count:
                event = await raw._event()
                body += bytes(event.data)
            return body

        add_tool(server, 0)
        await read_until(CHANGED.encode(), 1)
        await anyio.sleep(0.2)  # ten sse_ping periods, all "quiet" for 0 s
        add_tool(server, 1)
        assert b":\n\n" not in await read_until(CHANGED.encode(), 1)
        clock[0] += 1.0
        await read_until(b":\n\n", 1)
