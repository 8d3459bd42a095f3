"""The ``mcp-core`` command line, run as a real process (``python -m transports``)."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest
from limits import HANG

import mcp_core
from benchmarks import codec, inmemory, sessions
from benchmarks.harness import Case, Settings, Timing, ratio, run_case, summarise
from benchmarks.layers import LAYERS

TIMEOUT_S = 5 * HANG  # a whole benchmark run on a loaded machine


def run_cli(
    *args: str, cwd: Path | None = None, timeout: float = TIMEOUT_S
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "transports", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd,
    )


def test_version() -> None:
    done = run_cli("--version")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"mcp-core {mcp_core.__version__}"


def test_no_command_prints_help_and_fails() -> None:
    done = run_cli()
    assert done.returncode == 2
    assert "bench" in done.stderr


def test_unknown_layer_is_a_usage_error() -> None:
    done = run_cli("bench", "--only", "no-such-layer")
    assert done.returncode == 2
    assert "no-such-layer" in done.stderr


def test_bench_codec_writes_json(tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    done = run_cli(
        "bench", "--only", "codec", "--runs", "2", "--iterations", "2", "--json", str(out)
    )
    assert done.returncode == 0, done.stderr
    # A progress line per case on stderr, a table per case on stdout.
    for name in codec.CASES:
        assert f"codec: {name}:" in done.stderr
        assert f"{name}:" in done.stdout
    assert "mcp-core / msgspec typed" in done.stdout

    document = json.loads(out.read_text(encoding="utf-8"))
    assert {"schema", "command", "quick", "runs", "machine", "versions", "layers"} <= set(document)
    assert document["runs"] == 2
    assert document["command"].startswith("mcp-core bench --only codec")
    assert {"platform", "python", "cpu_count"} <= set(document["machine"])
    assert document["versions"]["mcp-core"] == mcp_core.__version__
    assert "msgspec" in document["versions"]
    assert "mcp" in document["versions"]

    layer = document["layers"]["codec"]
    assert [case["name"] for case in layer["cases"]] == list(codec.CASES)
    sdk_ran = document["versions"]["mcp-types"] is not None
    for case in layer["cases"]:
        labels = [result["implementation"] for result in case["results"]]
        assert labels[:3] == [codec.MCP_CORE, codec.MSGSPEC_UNTYPED, codec.MSGSPEC_TYPED]
        assert (codec.SDK in labels) == sdk_ran
        for result in case["results"]:
            assert result["batch_size"] == 2
            assert len(result["runs_ops_per_s"]) == 2
            assert {"median", "min", "max", "spread", "noisy"} <= set(result["ops_per_s"])
        assert "mcp-core / msgspec typed" in case["ratios"]
        assert ("mcp-core / SDK" in case["ratios"]) == sdk_ran
    if not sdk_ran:
        assert "mcp-sansio[bench]" in layer["skipped"][codec.SDK]


def test_bench_session_writes_json(tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    done = run_cli(
        "bench", "--only", "session", "--runs", "2", "--iterations", "2", "--json", str(out)
    )
    assert done.returncode == 0, done.stderr
    assert "session: call_tool_round_trip:" in done.stderr
    assert "call_tool_round_trip:" in done.stdout

    layer = json.loads(out.read_text(encoding="utf-8"))["layers"]["session"]
    (case,) = layer["cases"]
    labels = [result["implementation"] for result in case["results"]]
    core = [sessions.LEGACY, sessions.MODERN, sessions.LEGACY_OBJECTS, sessions.MODERN_OBJECTS]
    assert labels[:4] == core
    sdk_ran = sessions.SDK in labels
    for result in case["results"]:
        # Figures are per round trip: a batch of 2 operations is 2 bursts.
        assert result["batch_size"] == 2 * sessions.ROUND_TRIPS_PER_OP
        assert len(result["runs_ops_per_s"]) == 2
    assert ("mcp-core legacy / SDK" in case["ratios"]) == sdk_ran
    assert ("mcp-core modern / SDK" in case["ratios"]) == sdk_ran
    if not sdk_ran:
        assert "mcp-sansio[bench]" in layer["skipped"][sessions.SDK]


def test_bench_in_memory_writes_json(tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    # Every implementation twice (a def tool and an async def tool), 256 calls in
    # flight and 1 MiB texts: one run, and three times the bound of the other
    # commands. --iterations also makes each burst the fewest calls that keep its
    # concurrency: one per task (the def rows of the SDK and FastMCP at 256 in
    # flight are their slowest).
    done = run_cli(
        *("bench", "--only", "in-memory", "--runs", "1", "--iterations", "1", "--json", str(out)),
        timeout=3 * TIMEOUT_S,
    )
    assert done.returncode == 0, done.stderr
    layer = json.loads(out.read_text(encoding="utf-8"))["layers"]["in-memory"]
    names = [case["name"] for case in layer["cases"]]
    # Every concurrency on both loops, then the message sizes on asyncio.
    assert names == [
        *(f"call_tool_asyncio_{n}" for n in inmemory.IN_FLIGHT),
        *(f"call_tool_asyncio_{size}b" for size in inmemory.SIZES),
        *(f"call_tool_trio_{n}" for n in inmemory.IN_FLIGHT),
    ]
    for case in layer["cases"]:
        tail = case["name"].rsplit("_", 1)[1]
        sized = tail.endswith("b")
        # Bursts of one call per task in flight (`Settings.burst` with --iterations).
        calls = 1 if sized else int(tail)
        assert case["concurrency"] == (1 if sized else int(tail))
        assert case["payload_bytes"] == (int(tail[:-1]) if sized else 0)
        results = {result["implementation"]: result for result in case["results"]}
        # Ours with a def tool and an async def tool, the def row first.
        labels = [label for label in results if label.startswith("mcp-core")]
        assert labels == [
            f"{label} ({kind})"
            for label in (inmemory.CORE, inmemory.CORE_LEGACY, inmemory.CORE_OBJECTS)
            for kind in ("def", "async def")
        ]
        for label in labels:
            # Figures are per call: a batch of 1 operation is one burst of calls.
            assert results[label]["batch_size"] == calls
            assert len(results[label]["runs_ops_per_s"]) == 1
            latency = results[label]["latency"]
            assert latency["samples"] >= 1
            assert 0 < latency["p50_us"] <= latency["p90_us"] <= latency["p99_us"]
            # One process: no server clock of its own.
            assert "server_cpu_us_per_op" not in results[label]
        sdk_ran = f"{inmemory.SDK_DECORATOR} (def)" in results
        assert ("mcp-core / SDK MCPServer (def)" in case["ratios"]) == sdk_ran
        assert ("mcp-core / SDK MCPServer (async def)" in case["ratios"]) == sdk_ran
        assert "mcp-core: def / async def" in case["ratios"]
    if inmemory.SDK_DECORATOR in layer["skipped"]:
        assert "mcp-sansio[bench]" in layer["skipped"][inmemory.SDK_DECORATOR]


def test_bench_backend_quick_and_plot(tmp_path: Path) -> None:
    # --backend picks the loop; --quick leaves the scaling cases out; --plot draws.
    out, picture = tmp_path / "bench.json", tmp_path / "bench.png"
    done = run_cli(
        *("bench", "--quick", "--only", "in-memory", "--backend", "trio"),
        *("--runs", "2", "--iterations", "1", "--json", str(out), "--plot", str(picture)),
    )
    assert done.returncode == 0, done.stderr
    layer = json.loads(out.read_text(encoding="utf-8"))["layers"]["in-memory"]
    assert [case["name"] for case in layer["cases"]] == ["call_tool_trio_1", "call_tool_trio_16"]
    assert all(case["backend"] == "trio" for case in layer["cases"])
    assert picture.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    assert "latency µs p50/p90/p99" in done.stdout


def test_latency_and_cpu_figures() -> None:
    # Per-call percentiles from the latency pass; CPU per call from the clocks,
    # divided back by the burst size like the ops/s are multiplied.
    import anyio

    from benchmarks.harness import Latency, run_case_async, scaled

    server_seconds = [0.0]

    async def burst() -> None:
        server_seconds[0] += 0.004  # the "server" spends 4 ms per burst of 4 calls

    async def timed(durations: list[int]) -> None:
        durations.extend([1000, 2000, 3000, 4000])

    case = Case(
        name="fake",
        title="a fake async case",
        payload_bytes=0,
        implementations={"a": burst},
        latency={"a": timed},
        server_cpu={"a": lambda: server_seconds[0]},
    )
    settings = Settings(runs=3, target_batch_s=0.0, warmup_s=0.0, iterations=5, latency_samples=8)
    result = scaled(anyio.run(run_case_async, case, settings), 4)
    timing = result.timings["a"]
    assert timing.latency == Latency(samples=8, p50=3.0, p90=4.0, p99=4.0)
    assert timing.server_cpu_s == pytest.approx([0.001] * 3)
    assert timing.cpu_us is not None and timing.cpu_us[1] == pytest.approx(1000.0)
    assert Latency.of([5000]).p99 == 5.0


@pytest.mark.parametrize("legacy", [True, False])
@pytest.mark.parametrize("wire", [True, False])
def test_session_pairs_round_trip(legacy: bool, wire: bool) -> None:
    pair = sessions.CorePair(legacy=legacy, wire=wire)
    assert pair.client.era == ("legacy" if legacy else "modern")
    pair.check()
    pair.operation()()
    assert pair.client.pending_requests == 0
    assert pair.server.requests_in_flight == 0


def test_bursts_are_the_layers_own_and_in_tests_one_call_per_task() -> None:
    full = Settings.full()
    assert (full.burst(1024, 256), full.burst(64)) == (1024, 64)
    tests = dataclasses.replace(full, iterations=1)
    assert (tests.burst(1024, 256), tests.burst(64)) == (256, 1)


def test_layers_are_registered_with_their_modules() -> None:
    assert "codec" in LAYERS
    assert LAYERS["codec"].module == "benchmarks.codec"
    assert LAYERS["session"].module == "benchmarks.sessions"
    assert LAYERS["in-memory"].module == "benchmarks.inmemory"


def test_summary_and_noise() -> None:
    figure = summarise([100.0, 90.0, 130.0])
    assert (figure.median, figure.min, figure.max) == (100.0, 90.0, 130.0)
    assert figure.noisy  # (130 - 90) / 100 = 0.4
    assert not summarise([100.0, 95.0, 110.0]).noisy
    with pytest.raises(ValueError):
        summarise([])


def test_ratios_pair_runs_not_medians() -> None:
    fast = Timing("a", 1, [200.0, 100.0, 300.0])
    slow = Timing("b", 1, [100.0, 100.0, 100.0])
    figure = ratio(fast, slow)
    assert (figure.median, figure.min, figure.max) == (2.0, 1.0, 3.0)
    with pytest.raises(ValueError):
        ratio(fast, Timing("c", 1, [1.0]))


def test_run_case_interleaves_and_counts() -> None:
    calls: list[str] = []
    case = Case(
        name="toy",
        title="toy",
        payload_bytes=0,
        implementations={"a": lambda: calls.append("a"), "b": lambda: calls.append("b")},
        ratios={"a / b": ("a", "b"), "a / missing": ("a", "missing")},
    )
    result = run_case(case, Settings(runs=3, target_batch_s=0.0, warmup_s=0.0, iterations=2))
    # One warm-up call each, then per run a batch of 2 of a, then 2 of b.
    assert calls == ["a", "b"] + ["a", "a", "b", "b"] * 3
    assert list(result.ratios) == ["a / b"]
    assert all(len(t.ops_per_s) == 3 for t in result.timings.values())


def test_codec_cases_check_their_round_trips() -> None:
    # Building a case runs every implementation once and compares output to input.
    names = []
    for name, factory in codec.build_cases(None):
        case = factory()
        names.append(name)
        assert case.name == name
        assert list(case.implementations) == [
            codec.MCP_CORE,
            codec.MSGSPEC_UNTYPED,
            codec.MSGSPEC_TYPED,
        ]
    assert names == list(codec.CASES)
    assert len(json.loads(codec.list_tools_response(100))["result"]["tools"]) == 100
    content = json.loads(codec.large_call_request(1000))["params"]["arguments"]["content"]
    assert len(content) == 1000
