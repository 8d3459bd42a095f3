"""A server's lifespan: entered once when serving starts, on any transport, its
value in every handler's Context, left when serving ends; a failing one stops the
server before it serves."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from asgi_helpers import uvicorn_serving
from net_helpers import serving
from runtime_helpers import BOTH_ERAS, connected, only_text

from mcp_core import Context, Server
from mcp_core.server import LifespanError
from transports import asgi_app, connect_http, serve_http

pytestmark = pytest.mark.anyio


def make_server(events: list[str], *, fail: bool = False) -> Server:
    @asynccontextmanager
    async def lifespan(server: Server) -> AsyncIterator[dict[str, Any]]:
        events.append("enter")
        if fail:
            raise ConnectionRefusedError("no database")
        try:
            yield {"db": f"pool of {server.info.name}"}
        finally:
            events.append("exit")

    server = Server("life", "1", lifespan=lifespan)

    @server.tool
    async def which_db(ctx: Context) -> str:
        return str(ctx.lifespan["db"])

    return server


@BOTH_ERAS
async def test_in_memory_connections_share_one_lifespan(anyio_backend: str, era: str) -> None:
    events: list[str] = []
    server = make_server(events)
    async with server.running():
        async with connected(server, era) as first, connected(server, era) as second:
            assert only_text(await first.call_tool("which_db", {})) == "pool of life"
            assert only_text(await second.call_tool("which_db", {})) == "pool of life"
        assert events == ["enter"]
    assert events == ["enter", "exit"]


async def test_one_connection_alone_enters_and_leaves_it(anyio_backend: str) -> None:
    events: list[str] = []
    async with connected(make_server(events), "modern") as client:
        assert only_text(await client.call_tool("which_db", {})) == "pool of life"
    assert events == ["enter", "exit"]


async def test_the_http_server_enters_it_once_for_all_clients(anyio_backend: str) -> None:
    events: list[str] = []
    async with serving(make_server(events)) as (_, url):
        for _ in range(2):
            async with connect_http(url) as client:
                assert only_text(await client.call_tool("which_db", {})) == "pool of life"
        assert events == ["enter"]
    assert events == ["enter", "exit"]


async def test_a_failing_lifespan_stops_the_server(anyio_backend: str) -> None:
    events: list[str] = []
    server = make_server(events, fail=True)
    with pytest.raises(LifespanError, match="no database") as caught:
        await serve_http(server, port=0)  # returns only by failing to start
    assert "'life' failed to start" in str(caught.value)
    with pytest.raises(LifespanError):
        async with server.running():
            raise AssertionError("not reached")
    assert events == ["enter", "enter"]


@pytest.mark.parametrize("anyio_backend", ["asyncio"])  # uvicorn runs on asyncio only
async def test_the_asgi_app_enters_it_at_lifespan_startup(anyio_backend: str) -> None:
    events: list[str] = []
    async with uvicorn_serving(asgi_app(make_server(events))) as port:
        async with connect_http(f"http://127.0.0.1:{port}/mcp") as client:
            assert only_text(await client.call_tool("which_db", {})) == "pool of life"
        assert events == ["enter"]
    assert events == ["enter", "exit"]
