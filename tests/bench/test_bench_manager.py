"""The manager benchmark layer, run for real through the command line with tiny settings."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from bench_helpers import assert_kinds_in_pairs, bench_layer
from limits import HANG

from benchmarks import manager
from benchmarks.layers import LAYERS

TIMEOUT_S = 5 * HANG  # a whole benchmark run on a loaded machine
BACKENDS = ("asyncio", "trio")


def test_manager_layer_is_registered() -> None:
    assert LAYERS["manager"].module == "benchmarks.manager"


def test_bench_manager_writes_json(tmp_path: Path) -> None:
    _, layer = bench_layer(
        tmp_path, "manager", "--runs", "2", "--iterations", "1", timeout=TIMEOUT_S
    )
    names = [case["name"] for case in layer["cases"]]
    assert names == [
        f"manager_{upstream}_{backend}_{n}"
        for backend in BACKENDS
        for upstream in manager.UPSTREAMS
        for n in manager.IN_FLIGHT
    ]
    assert layer["skipped"] == {}
    for case in layer["cases"]:
        in_flight = int(case["name"].rsplit("_", 1)[1])
        labels = [result["implementation"] for result in case["results"]]
        results = {result["implementation"]: result for result in case["results"]}
        # Every way was connected and checked (its first call echoed), then timed,
        # calling the def tool and the async def tool, the def row first.
        assert_kinds_in_pairs(labels)
        assert [label.rsplit(" (", 1)[0] for label in labels[::2]] == list(manager.WAYS)
        for result in results.values():
            # A burst of one call per task in flight (with --iterations).
            assert result["batch_size"] == in_flight
            assert len(result["runs_ops_per_s"]) == 2
            assert result["ops_per_s"]["median"] > 0
        assert set(case["ratios"]) == set(manager.RATIOS)
        for figure in case["ratios"].values():
            assert figure["median"] > 0


def test_the_ways_timed_in_turn() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.manager", "1"],
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
    )
    assert done.returncode == 0, done.stderr
    # backend, upstream, way, kind ("def" or "async def": two words), us, ratio.
    rows = [line.replace("async def", "async-def").split() for line in done.stdout.splitlines()]
    assert [row[:4] for row in rows] == [
        [backend, upstream, way, kind]
        for backend in BACKENDS
        for upstream in manager.UPSTREAMS
        for kind in ("def", "async-def")
        for way in manager.WAYS
    ]
    for row in rows:
        assert float(row[4]) > 0 and row[5] == "us"
    assert {row[6] for row in rows if row[2] == manager.CLIENT} == {"1.000x"}
