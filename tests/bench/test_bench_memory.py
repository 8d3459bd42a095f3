"""The memory layer, run for real through the command line with tiny settings."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from bench_helpers import bench_layer

from benchmarks import memory
from benchmarks.http_servers import spawn

TIMEOUT_S = 180


def test_bench_memory_writes_json(tmp_path: Path) -> None:
    done, layer = bench_layer(
        tmp_path, "memory", "--runs", "1", "--iterations", "1", timeout=TIMEOUT_S
    )
    (measurement,) = layer["measurements"]
    assert measurement["unit"] == "KiB per session"
    # The SDK and FastMCP come with the test extra: all three are measured.
    assert set(measurement["values"]) == {memory.CORE, memory.SDK, memory.FASTMCP}
    for label, details in measurement["details"].items():
        assert details["MiB after"] >= details["MiB before"] > 0, label
    assert set(measurement["ratios"]) == {"SDK / mcp-core", "FastMCP / mcp-core"}
    assert "idle_legacy_sessions:" in done.stdout


def test_sessions_are_opened_and_kept() -> None:
    # The opener really opens sessions: the server's memory peak grows, and a
    # server that refuses initialize makes it fail loudly.
    with spawn("ours") as (process, url):
        anyio.run(memory.open_sessions, url, 40, 4)
        rss, peak = memory.resident_kib(process.pid)
        assert 0 < rss <= peak
        with pytest.raises(ExceptionGroup) as caught:
            anyio.run(memory.open_sessions, url.replace("/mcp", "/nowhere"), 1, 1)
        assert "initialize got 404" in str(caught.value.exceptions[0])
