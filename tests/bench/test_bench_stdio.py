"""The stdio benchmark layer, run for real through the command line with tiny settings."""

from __future__ import annotations

from pathlib import Path

import pytest
from bench_helpers import assert_kinds_in_pairs, bench_layer
from limits import HANG

from benchmarks import stdio
from benchmarks.layers import LAYERS

TIMEOUT_S = 5 * HANG
"""A whole benchmark run on a loaded machine: every implementation runs twice (a def
tool and an async def tool), in its own child."""


def test_stdio_layer_is_registered() -> None:
    assert LAYERS["stdio"].module == "benchmarks.stdio"


def _rows(*labels: str) -> set[str]:
    return {f"{label} ({kind})" for label in labels for kind in ("def", "async def")}


def test_bench_stdio_writes_json(tmp_path: Path) -> None:
    _, layer = bench_layer(tmp_path, "stdio", "--runs", "2", "--iterations", "1", timeout=TIMEOUT_S)
    names = [case["name"] for case in layer["cases"]]
    assert names == [f"call_tool_{b}_{n}" for b in stdio.BACKENDS for n in stdio.IN_FLIGHT]
    for case in layer["cases"]:
        backend, in_flight = case["name"].split("_")[2:]
        calls = int(in_flight)  # with --iterations, one call per task in flight
        labels = [result["implementation"] for result in case["results"]]
        results = {result["implementation"]: result for result in case["results"]}
        # Every implementation with a decorator server calls a def tool and an
        # async def tool, the def row first; the floor and the hand-written
        # low-level handler have one row.
        assert_kinds_in_pairs(labels, stdio.PLAIN)
        ours = _rows(stdio.CORE, stdio.CORE_LEGACY) | {stdio.LINES}
        # The SDK is in the test extra, so it runs wherever its pair is measured.
        sdk = (
            _rows(stdio.SDK, stdio.SDK_LEGACY, stdio.FASTMCP) | {stdio.SDK_LOWLEVEL}
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
        expected = {
            "mcp-core / line echo (def)",
            "mcp-core / line echo (async def)",
            "mcp-core: def / async def",
            "mcp-core legacy: def / async def",
        }
        if sdk:
            expected |= {
                f"{name} ({kind})"
                for name in (
                    "mcp-core / SDK",
                    "mcp-core legacy / SDK legacy",
                    "mcp-core / SDK low-level",
                    "mcp-core / FastMCP",
                )
                for kind in ("def", "async def")
            }
        assert set(case["ratios"]) == expected
    others = (stdio.SDK, stdio.SDK_LEGACY, stdio.SDK_LOWLEVEL, stdio.FASTMCP)
    assert set(layer["skipped"]) == {f"{label} on trio" for label in others}


def test_quick_leaves_the_extra_peers_to_the_full_run(tmp_path: Path) -> None:
    # --quick keeps ours, the SDK's default client, FastMCP and the floor, each
    # with both kinds of tool; the other peers are named as skipped, with where to
    # find them. It draws its picture where it runs, and says where.
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
        labels = [result["implementation"] for result in case["results"]]
        assert_kinds_in_pairs(labels, stdio.PLAIN)
        assert set(labels) == _rows(stdio.CORE, stdio.CORE_LEGACY, stdio.SDK, stdio.FASTMCP) | {
            stdio.LINES
        }
    for label in (stdio.SDK_LEGACY, stdio.SDK_LOWLEVEL):
        assert "full run" in layer["skipped"][label]
    assert "skipped mcp SDK low-level: measured in the full run only" in done.stdout
    picture = tmp_path / "mcp-core-bench.png"
    assert picture.read_bytes().startswith(b"\x89PNG")
    assert f"picture of these figures: {picture.resolve()}" in done.stdout


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
