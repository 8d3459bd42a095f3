"""A flood of initialize requests cannot take every session: half-open sessions make
room first, so a client that finished its handshake keeps its session and a new
one still gets in; with a quota per client address, one address cannot take
every session; at the cap, a flood from one address ends its own sessions, and
newcomers do not end each other mid-handshake (h11 server, asyncio and trio)."""

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
INITIALIZED = b'{"jsonrpc":"2.0","method":"notifications/initialized"}'
PING = b'{"jsonrpc":"2.0","id":2,"method":"ping"}'
HEAD = (
    b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
    b"Accept: application/json, text/event-stream\r\nConnection: close\r\n"
    b"Content-Length: %d\r\n\r\n"
)


async def post(port: int, body: bytes, source: str = "127.0.0.1", session: str = "") -> bytes:
    # One connection, from ``source``, closed by the server after its answer.
    head = HEAD % len(body)
    if session:
        head = head.replace(b"\r\n\r\n", b"\r\nMcp-Session-Id: %s\r\n\r\n" % session.encode())
    async with await anyio.connect_tcp("127.0.0.1", port, local_host=source) as sock:
        await sock.send(head + body)
        answer = b""
        while True:
            try:
                answer += await sock.receive()
            except (anyio.EndOfStream, anyio.BrokenResourceError):
                return answer


def status(answer: bytes) -> int:
    return int(answer.split(b" ", 2)[1])


def session_of(answer: bytes) -> str:
    for line in answer.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.lower() == b"mcp-session-id":
            return value.strip().decode()
    raise AssertionError(f"no session id in {answer[:200]!r}")


async def flood(port: int, count: int, source: str = "127.0.0.1") -> list[int]:
    return [status(await post(port, INITIALIZE, source)) for _ in range(count)]


async def full_session(port: int, source: str = "127.0.0.1") -> str:
    session = session_of(await post(port, INITIALIZE, source))
    assert status(await post(port, INITIALIZED, source, session)) == 202
    return session


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


async def test_at_the_cap_newcomers_do_not_end_each_other_mid_handshake(
    anyio_backend: str,
) -> None:
    # The table is full of finished, idle sessions; a second newcomer arriving
    # while the first is between initialize and notifications/initialized ends
    # an idle session, not the first newcomer's (which would get 404).
    async with serving(make_server(), max_sessions=3) as (http, url):
        port = port_of(url)
        with anyio.fail_after(20):
            for _ in range(3):
                await full_session(port)
            first = session_of(await post(port, INITIALIZE))
            second = session_of(await post(port, INITIALIZE))
            assert status(await post(port, INITIALIZED, session=first)) == 202
            assert status(await post(port, INITIALIZED, session=second)) == 202
        assert {first, second} <= set(http.endpoint.sessions)


async def test_a_flood_of_full_sessions_from_one_address_spares_the_others(
    anyio_backend: str,
) -> None:
    # Three times the cap of full sessions from 127.0.0.1 (no quota configured):
    # the flood ends its own sessions, and the idle session of a client at
    # 127.0.0.2, idle longest of all, still answers.
    async with serving(make_server(), max_sessions=5) as (http, url):
        port = port_of(url)
        with anyio.fail_after(30):
            victim = await full_session(port, source="127.0.0.2")
            for _ in range(15):
                await full_session(port)
            assert status(await post(port, PING, "127.0.0.2", victim)) == 200
        assert len(http.endpoint.sessions) == 5
