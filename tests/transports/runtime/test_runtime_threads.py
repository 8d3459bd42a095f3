"""Plain-function handlers run in worker threads: one that blocks does not stall
another session of the same server (asyncio and trio, both eras)."""

from __future__ import annotations

import threading
import time

import anyio
import pytest
from runtime_helpers import BOTH_ERAS, connected, only_text

from mcp_core import Server

pytestmark = pytest.mark.anyio

BLOCK = 1.0


def make_server() -> Server:
    server = Server("threads", "1")
    started = threading.Event()

    @server.tool
    def slow() -> str:
        started.set()
        time.sleep(BLOCK)  # a blocking call, as a database driver or a file would make
        return "slow"

    @server.tool
    async def fast() -> str:
        return "fast"

    @server.tool
    async def wait_for_slow() -> str:
        await anyio.to_thread.run_sync(started.wait, 5.0)
        return "ready"

    @server.tool(threaded=False)
    def inline() -> str:
        return str(threading.get_ident())

    @server.tool
    def threaded() -> str:
        return str(threading.get_ident())

    @server.tool
    def grow() -> str:
        # A registry change from a worker thread reaches every session.
        server.add_tool(lambda: "new", name="new_tool")
        return "grown"

    return server


@BOTH_ERAS
async def test_a_blocking_tool_does_not_delay_another_session(anyio_backend: str, era: str) -> None:
    server = make_server()
    async with connected(server, era) as first, connected(server, era) as second:
        answered: dict[str, float] = {}
        start = time.monotonic()

        async def call(client: object, name: str) -> None:
            result = await client.call_tool(name, {})  # type: ignore[attr-defined]
            answered[only_text(result)] = time.monotonic() - start

        async with anyio.create_task_group() as tg:
            tg.start_soon(call, first, "slow")
            assert only_text(await second.call_tool("wait_for_slow", {})) == "ready"
            fast_start = time.monotonic()
            assert only_text(await second.call_tool("fast", {})) == "fast"
            fast_took = time.monotonic() - fast_start
        assert fast_took < BLOCK / 2, fast_took
        assert answered["slow"] >= BLOCK


@BOTH_ERAS
async def test_a_quick_function_can_run_inline(anyio_backend: str, era: str) -> None:
    async with connected(make_server(), era) as client:
        here = str(threading.get_ident())
        assert only_text(await client.call_tool("inline", {})) == here
        assert only_text(await client.call_tool("threaded", {})) != here


async def test_a_registry_change_from_a_thread_is_published(anyio_backend: str) -> None:
    server = make_server()
    async with connected(server, "legacy") as client:
        assert only_text(await client.call_tool("grow", {})) == "grown"
        names = [tool.name for tool in (await client.list_tools()).tools]
        assert "new_tool" in names


async def test_a_server_can_run_plain_functions_inline(anyio_backend: str) -> None:
    server = Server("inline", "1", threaded=False)

    @server.tool
    def where() -> str:
        return str(threading.get_ident())

    @server.tool(threaded=True)
    def away() -> str:
        return str(threading.get_ident())

    async with connected(server, "modern") as client:
        here = str(threading.get_ident())
        assert only_text(await client.call_tool("where", {})) == here
        assert only_text(await client.call_tool("away", {})) != here
