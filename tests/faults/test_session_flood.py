"""A flood of initialize requests cannot take every session: half-open sessions make
room first, so a client that finished its handshake keeps its session and a new
one still gets in; with a quota per client address, one address cannot take
every session (h11 server, asyncio and trio)."""

from __future__ import annotations

import contextlib

import anyio
import pytest
from http_helpers import RawClient, open_session
from net_helpers import port_of, serving
from runtime_helpers import only_text

from mcp_core import Server
from transports import connect_http

pytestmark = pytest.mark.anyio

INITIALIZE = (
    b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",'
    b'"capabilities":{},"clientInfo":{"name":"flood","version":"1"}}}'
)
HEAD = (
    b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
    b"Accept: application/json, text/event-stream\r\nConnection: close\r\n"
    b"Content-Length: %d\r\n\r\n"
)


async def flood(port: int, count: int, source: str = "127.0.0.1") -> list[int]:
    # One connection each, from ``source``, closed by the server after its answer.
    statuses = []
    for _ in range(count):
        async with await anyio.connect_tcp("127.0.0.1", port, local_host=source) as sock:
            await sock.send(HEAD % len(INITIALIZE) + INITIALIZE)
            answer = b""
            while True:
                try:
                    answer += await sock.receive()
                except (anyio.EndOfStream, anyio.BrokenResourceError):
                    break
        statuses.append(int(answer.split(b" ", 2)[1]))
    return statuses


def make_server() -> Server:
    server = Server("flooded", "1")

    @server.tool
    async def hello() -> str:
        return "still here"

    return server


async def test_a_flood_leaves_room_for_a_client_that_finished_its_handshake(
    anyio_backend: str,
) -> None:
    async with (
        serving(make_server(), max_sessions=10) as (http, url),
        connect_http(url, revisions=("2025-11-25",)) as early,
    ):
        with anyio.fail_after(20):
            statuses = await flood(port_of(url), 40)
        assert set(statuses) == {200}  # every one got in, by ending a half-open one
        assert len(http.endpoint.sessions) <= 10
        assert only_text(await early.call_tool("hello", {})) == "still here"
        async with connect_http(url, revisions=("2025-11-25",)) as late:
            assert only_text(await late.call_tool("hello", {})) == "still here"


async def test_a_quota_per_address_leaves_room_for_other_addresses(anyio_backend: str) -> None:
    # Three sessions from 127.0.0.1, each busy (its GET stream open), so none can
    # be ended to make room: a fourth initialize from there gets 429, one from
    # 127.0.0.2 (another client) gets in.
    async with (
        serving(make_server(), max_sessions_per_address=3) as (http, url),
        contextlib.AsyncExitStack() as stack,
    ):
        port = port_of(url)
        for _ in range(3):
            client = await stack.enter_async_context(RawClient(port))
            session_id = await open_session(client)
            await client.send("GET", mcp_session_id=session_id)
            assert (await client.head()).status == 200
        with anyio.fail_after(20):
            assert await flood(port, 1) == [429]
            assert await flood(port, 1, source="127.0.0.2") == [200]
        assert len(http.endpoint.sessions) == 4
