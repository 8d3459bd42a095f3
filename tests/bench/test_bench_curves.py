"""The curves layer's servers: registries of any size, and messages above the
default 4 MiB stdio line and HTTP body limits."""

from __future__ import annotations

import os
import sys

import anyio
import pytest

from benchmarks import curves
from benchmarks.harness import Settings
from benchmarks.http_servers import free_port, listening
from transports import Client, connect_in_memory
from transports.http.client import http_connector
from transports.stdio import connect_stdio

BIG = 5 * 1024 * 1024  # over the default limits of 4 MiB


@pytest.mark.anyio
async def test_tools_are_listed_whole_and_by_page() -> None:
    with anyio.fail_after(60):
        async with connect_in_memory(curves.tools_server(250, None)) as client:
            assert len((await client.list_tools()).tools) == 250
        async with connect_in_memory(curves.tools_server(250, 100)) as client:
            first = await client.list_tools()
            assert len(first.tools) == 100 and first.next_cursor


@pytest.mark.anyio
async def test_a_big_request_reaches_the_stdio_server() -> None:
    argv = [sys.executable, "-m", "benchmarks.curves", "serve-stdio"]
    with anyio.fail_after(60):
        async with connect_stdio(argv, env={**os.environ, "PYTHONPATH": curves._ROOT}) as client:
            assert curves._child_pid("serve-stdio") is not None
            result = await client.call_tool("size", {"text": "x" * BIG})
            assert result.structured_content == {"result": BIG}


@pytest.mark.anyio
async def test_a_big_request_reaches_the_http_server() -> None:
    port = free_port()
    argv = [sys.executable, "-m", "benchmarks.curves", "serve-http", str(port)]
    with listening(argv, port, "curves server"):
        with anyio.fail_after(60):
            async with Client(http_connector(f"http://127.0.0.1:{port}/mcp")) as client:
                result = await client.call_tool("size", {"text": "x" * BIG})
                assert result.structured_content == {"result": BIG}


def test_idle_sessions_give_memory_and_call_cost_by_count() -> None:
    lines: list[str] = []
    found = curves.idle_sessions(Settings.quick(), lines.append, counts=(60, 90))
    names = [m.name for m in found]
    assert names == ["idle_sessions_memory", "idle_sessions_call_1", "idle_sessions_call_16"]
    for measurement in found:
        assert list(measurement.values) == ["60 sessions", "90 sessions"]
        assert [d["x"] for d in measurement.details.values()] == [60, 90]
    for measurement in found[1:]:
        assert all(value > 0 for value in measurement.values.values())
    assert lines == ["curves: 60 sessions idle", "curves: 90 sessions idle"]
