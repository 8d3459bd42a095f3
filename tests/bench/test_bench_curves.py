"""The curves layer's servers: registries of any size, and messages above the
default 4 MiB stdio line and HTTP body limits."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import anyio
import pytest

from benchmarks import curves, listeners
from benchmarks.harness import Settings
from benchmarks.http_servers import free_port, listening
from benchmarks.layers import LayerResult, Measurement
from benchmarks.plot import _curves, plot
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


def test_listeners_give_memory_and_fan_out_by_count() -> None:
    lines: list[str] = []
    found = listeners.fan_out(Settings.quick(), lines.append, counts=(4, 8))
    assert [m.name for m in found] == [
        "listeners_memory_get",
        "listeners_fan_out_get",
        "listeners_memory_listen",
        "listeners_fan_out_listen",
    ]
    for measurement in found:
        assert list(measurement.values) == ["4 streams", "8 streams"]
        assert [d["x"] for d in measurement.details.values()] == [4, 8]
    assert lines == [
        "curves: 4 standalone GET streams",
        "curves: 8 standalone GET streams",
        "curves: 4 subscriptions/listen streams",
        "curves: 8 subscriptions/listen streams",
    ]


def test_curves_are_drawn_one_panel_per_family(tmp_path: Path) -> None:
    x = {"1 streams": {"x": 1.0}, "2 streams": {"x": 2.0}}
    layer = LayerResult(name="curves")
    for name in ("listeners_fan_out_get", "listeners_fan_out_listen", "listeners_memory_get"):
        layer.measurements.append(
            Measurement(name, "t", "u", values={"1 streams": 3.0, "2 streams": 4.0}, details=x)
        )
    panels = {panel.title: panel for panel in _curves([layer])}
    assert set(panels) == {
        "curves: one list_changed fanned out to N streams",
        "curves: memory per open SSE stream",
    }
    fan_out = panels["curves: one list_changed fanned out to N streams"]
    assert (fan_out.x_label, fan_out.y_label) == ("open streams", "us of server CPU per listener")
    assert fan_out.series == {"get": [(1.0, 3.0), (2.0, 4.0)], "listen": [(1.0, 3.0), (2.0, 4.0)]}
    plot([layer], tmp_path / "curves.png", title="curves")
    assert (tmp_path / "curves.png").stat().st_size > 0
