"""The h11 server's cap on open connections: the connection idle the longest makes
room for a new one, and when every connection is busy a new one is answered 503."""

from __future__ import annotations

import anyio
import pytest
from anyio.abc import SocketStream
from limits import HANG
from net_helpers import port_of, serving
from runtime_helpers import only_text

from mcp_core import Server
from transports import connect_http

pytestmark = pytest.mark.anyio
LIMIT = HANG


def hello() -> Server:
    server = Server("cap", "1")

    @server.tool
    def echo(text: str) -> str:
        return text

    return server


async def read_all(sock: SocketStream) -> bytes:
    data = b""
    with anyio.fail_after(LIMIT):
        while True:
            try:
                data += await sock.receive()
            except (anyio.EndOfStream, anyio.BrokenResourceError):
                return data


async def test_the_longest_idle_connection_makes_room(anyio_backend: str) -> None:
    async with serving(hello(), max_connections=2) as (http, url):
        first = await anyio.connect_tcp("127.0.0.1", port_of(url))
        second = await anyio.connect_tcp("127.0.0.1", port_of(url))
        with anyio.fail_after(LIMIT):
            while len(http.idle) < 2:
                await anyio.sleep(0.01)
        async with connect_http(url) as client:
            assert only_text(await client.call_tool("echo", {"text": "in"})) == "in"
        assert await read_all(first) == b""  # closed to make room, without a word
        await first.aclose()
        await second.aclose()


async def test_a_new_connection_is_refused_when_every_one_is_busy(anyio_backend: str) -> None:
    async with serving(hello(), max_connections=2) as (http, url):
        busy = []
        for _ in range(2):
            sock = await anyio.connect_tcp("127.0.0.1", port_of(url))
            await sock.send(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # a head, half sent
            busy.append(sock)
        with anyio.fail_after(LIMIT):
            while len(http.connections) < 2 or http.idle:
                await anyio.sleep(0.01)
        third = await anyio.connect_tcp("127.0.0.1", port_of(url))
        answer = await read_all(third)
        assert answer.startswith(b"HTTP/1.1 503 ")
        assert b"retry-after: 1\r\n" in answer.lower()
        assert b"connection: close\r\n" in answer.lower()
        for sock in [*busy, third]:
            await sock.aclose()
        with anyio.fail_after(LIMIT):
            while http.connections:
                await anyio.sleep(0.01)
        async with connect_http(url) as client:
            assert only_text(await client.call_tool("echo", {"text": "after"})) == "after"
