"""The stdio benchmark layer, run for real through the command line with tiny settings."""

from __future__ import annotations

from pathlib import Path

import pytest
from bench_helpers import bench_layer
from limits import HANG

from benchmarks import stdio
from benchmarks.layers import LAYERS

TIMEOUT_S = 5 * HANG  # a whole benchmark run on a loaded machine


def test_stdio_layer_is_registered() -> None:
    assert LAYERS["stdio"].module == "benchmarks.stdio"


def test_bench_stdio_writes_json(tmp_path: Path) -> None:
    _, layer = bench_layer(tmp_path, "stdio", "--runs", "2", "--iterations", "1", timeout=TIMEOUT_S)
    names = [case["name"] for case in layer["cases"]]
    assert names == [f"call_tool_{b}_{n}" for b in stdio.BACKENDS for n in stdio.IN_FLIGHT]
    for case in layer["cases"]:
        backend, in_flight = case["name"].split("_")[2:]
        calls = stdio.CALLS_PER_OP[int(in_flight)]
        results = {result["implementation"]: result for result in case["results"]}
        ours = {stdio.CORE, stdio.CORE_LEGACY, stdio.LINES}
        # The SDK is in the test extra, so it runs wherever its pair is measured.
        sdk = (
            {stdio.SDK, stdio.SDK_LEGACY, stdio.SDK_LOWLEVEL, stdio.FASTMCP}
            if backend == "asyncio"
            else set()
        )
        assert set(results) == ours | sdk
        for result in results.values():
            # Figures are per call: a batch of 1 operation is one burst of calls.
            assert result["batch_size"] == calls
            assert len(result["runs_ops_per_s"]) == 2
            assert result["ops_per_s"]["median"] > 0
            # Separate processes: CPU per call on both sides.
            assert result["server_cpu_us_per_op"]["median"] > 0
            assert result["client_cpu_us_per_op"]["median"] > 0
        expected = {"mcp-core / line echo"}
        if sdk:
            expected |= {
                "mcp-core / SDK",
                "mcp-core legacy / SDK legacy",
                "mcp-core / SDK low-level",
                "mcp-core / FastMCP",
            }
        assert set(case["ratios"]) == expected
    others = (stdio.SDK, stdio.SDK_LEGACY, stdio.SDK_LOWLEVEL, stdio.FASTMCP)
    assert set(layer["skipped"]) == {f"{label} on trio" for label in others}


def test_quick_leaves_the_extra_peers_to_the_full_run(tmp_path: Path) -> None:
    # --quick keeps the table short: ours, the SDK's default client and the floor;
    # the other peers are named as skipped, with where to find them.
    done, layer = bench_layer(
        tmp_path,
        "stdio",
        "--quick",
        "--backend",
        "asyncio",
        "--runs",
        "1",
        "--iterations",
        "1",
        timeout=TIMEOUT_S,
    )
    for case in layer["cases"]:
        labels = {result["implementation"] for result in case["results"]}
        assert labels == {stdio.CORE, stdio.CORE_LEGACY, stdio.SDK, stdio.LINES}
    for label in (stdio.SDK_LEGACY, stdio.SDK_LOWLEVEL, stdio.FASTMCP):
        assert "full run" in layer["skipped"][label]
    assert "skipped FastMCP: measured in the full run only" in done.stdout


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
def test_the_waiting_handlers_harness(backend: str) -> None:
    # benchmarks.stdio_waits: both tools over stdio to a child process, both ways.
    from benchmarks.stdio_waits import measure

    figures = measure(32, backend)
    assert list(figures) == [
        "echo, one at a time",
        "echo, 16 in flight",
        "waits, one at a time",
        "waits, 16 in flight",
    ]
    assert all(rate > 0 for rate in figures.values())
