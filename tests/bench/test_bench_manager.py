"""The manager benchmark layer, run for real through the command line with tiny settings."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from bench_helpers import bench_layer
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
        results = {result["implementation"]: result for result in case["results"]}
        # Every way was connected and checked (its first call echoed), then timed.
        assert set(results) == {manager.CLIENT, manager.MANAGER, manager.GATEWAY}
        for result in results.values():
            assert result["batch_size"] == manager.CALLS_PER_OP[in_flight]
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
    rows = [line.split() for line in done.stdout.splitlines()]
    assert [row[:3] for row in rows] == [
        [backend, upstream, label]
        for backend in BACKENDS
        for upstream in manager.UPSTREAMS
        for label in (manager.CLIENT, manager.MANAGER, manager.GATEWAY)
    ]
    for row in rows:
        assert float(row[3]) > 0 and row[4] == "us"
    assert {row[5] for row in rows if row[2] == manager.CLIENT} == {"1.000x"}
