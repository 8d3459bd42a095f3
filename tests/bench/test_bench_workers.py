"""The workers layer, run for real through the command line with tiny settings: a
real redis-server, HAProxy and workers (installed by the fixture when missing, as
tests/transports/shared does). Also what it counts on Redis, and when it runs."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from bench_helpers import assert_kinds_in_pairs, bench_layer
from debian_helpers import debian_program

from benchmarks import deployment, workers
from benchmarks.runner import plan

TIMEOUT_S = 300
FIGURES = {
    "workers",
    "calls/s",
    "worker CPU us",
    "Redis CPU us",
    "HAProxy CPU us",
    "Redis round trips",
    "Redis commands",
}


@pytest.fixture(scope="module", autouse=True)
def programs() -> None:
    for name, package in deployment.PROGRAMS.items():
        debian_program(name, package)


def test_bench_workers_writes_json_and_plot(tmp_path: Path) -> None:
    picture = tmp_path / "workers.png"
    done, layer = bench_layer(
        tmp_path,
        "workers",
        *("--runs", "1", "--iterations", "2", "--plot", str(picture)),
        timeout=TIMEOUT_S,
    )
    assert layer["skipped"] == {}
    redis = [workers.label(n) for n in workers.COUNTS]
    by_era = {m["name"]: m for m in layer["measurements"]}
    assert list(by_era) == [f"workers_{era}" for era in workers.ERAS]
    kinds = ("def", "async def")
    for measurement in by_era.values():
        # Each case with the def tool and the async def tool, the def row first.
        assert_kinds_in_pairs(measurement["values"])
        assert list(measurement["values"]) == [
            f"{name} ({kind})" for name in (workers.MEMORY, *redis) for kind in kinds
        ]
        details = measurement["details"]
        assert [d["workers"] for d in details.values()] == [
            n for n in (1, *workers.COUNTS) for _ in kinds
        ]
        for name, figures in details.items():
            assert set(figures) == FIGURES, name
            assert figures["calls/s"] > 0 and figures["worker CPU us"] > 0, name
            assert figures["HAProxy CPU us"] > 0, name
            # The main figure is the workers' CPU and Redis's.
            total = figures["worker CPU us"] + figures["Redis CPU us"]
            assert measurement["values"][name] == pytest.approx(total)
        for kind in kinds:
            memory = details[f"{workers.MEMORY} ({kind})"]
            assert memory["Redis CPU us"] == memory["Redis round trips"] == 0
        assert set(measurement["ratios"]) == {
            f"{name} / memory ({kind})" for name in redis for kind in kinds
        } | {f"def cost, {name}" for name in (workers.MEMORY, *redis)}
        assert f"{measurement['name']}:" in done.stdout
    # A 2026-07-28 call needs no shared state (a worker renews its key's
    # fingerprint now and then: one script); a legacy call goes to the session
    # registry on Redis at least.
    for figures in list(by_era["workers_2026-07-28"]["details"].values())[2:]:
        assert figures["Redis round trips"] < 0.5 and figures["Redis commands"] < 0.5
    for figures in list(by_era["workers_2025-11-25"]["details"].values())[2:]:
        assert figures["Redis round trips"] > 0
        assert figures["Redis commands"] >= figures["Redis round trips"]
    assert "(above 1: Redis costs more; def cost:" in done.stdout
    assert picture.read_bytes().startswith(b"\x89PNG")


def test_quick_leaves_the_layer_out_unless_named() -> None:
    reasons = {layer.name: why for layer, why in plan((), quick=True)}
    assert "--only workers" in reasons["workers"]
    assert [name for name, why in reasons.items() if why] == ["workers"]
    assert plan(("workers",), quick=True)[0][1] == ""
    assert all(why == "" for _, why in plan((), quick=False))


def test_missing_programs_are_named_with_their_package(tmp_path: Path) -> None:
    assert deployment.missing() == {}
    assert deployment.missing(path=str(tmp_path)) == {
        "haproxy": "haproxy is not installed (Debian: apt-get install haproxy)",
        "redis-server": "redis-server is not installed (Debian: apt-get install redis-server)",
    }


def _set_and_script(port: int) -> None:
    # One SET, then one script that runs two commands.
    script = b"redis.call('SET', 'b', '2'); return redis.call('GET', 'b')"
    with socket.create_connection(("127.0.0.1", port), timeout=10) as client:
        client.sendall(b"SET a 1\r\n")
        assert client.recv(100) == b"+OK\r\n"
        client.sendall(b'EVAL "' + script + b'" 0\r\n')
        assert client.recv(100) == b"$1\r\n2\r\n"


def test_redis_counts_round_trips_and_the_commands_of_scripts() -> None:
    # Two round trips (MONITOR), four commands (INFO, its own queries left out).
    with deployment.redis_server() as (_, port):
        monitor = deployment.RedisMonitor(port)
        _set_and_script(port)
        assert monitor.stop() == 2
        counters = deployment.RedisCounters(port)
        before = counters.commands()
        assert counters.commands() == before
        _set_and_script(port)
        assert counters.commands() - before == 4
        counters.close()
