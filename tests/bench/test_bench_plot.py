"""The picture of a run: every kind of panel drawn into a file, def rows darker than
async def rows, legends outside their data, no text over other text, linear axes
on narrow ranges, and a run's JSON drawn again."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from bench_helpers import ROOT

from benchmarks.harness import Case, CaseResult, Timing
from benchmarks.layers import LayerResult, Measurement
from benchmarks.plot import LOG_SPAN, _shades, draw, plot
from benchmarks.report import to_json

pytest.importorskip("matplotlib")

KINDS = ("def", "async def")


def _case(layer: str, backend: str, in_flight: int, rows: dict[str, float]) -> CaseResult:
    case = Case(
        name=f"call_tool_{backend}_{in_flight}",
        title=f"tools/call round trips on {backend}, {in_flight} (timed in bursts of 8)",
        payload_bytes=0,
        implementations={},
        concurrency=in_flight,
        backend=backend,
    )
    timings = {label: Timing(label, 8, [v * 0.9, v, v * 1.1]) for label, v in rows.items()}
    return CaseResult(case=case, timings=timings)


def _run() -> list[LayerResult]:
    # A run with every kind of panel: cases by concurrency, server measurements,
    # curves and workers, the tool-running rows in def / async def pairs.
    rows = {
        **{f"mcp-core ({kind})": rate for kind, rate in zip(KINDS, (7e3, 27e3), strict=True)},
        **{f"FastMCP ({kind})": rate for kind, rate in zip(KINDS, (700, 830), strict=True)},
        "mcp SDK low-level": 3500.0,
    }
    memory = LayerResult(
        "in-memory",
        cases=[_case("in-memory", "asyncio", n, rows) for n in (1, 16)],
    )
    cpu = {"ours 2025-11-25 asyncio (def)": 300.0, "ours 2025-11-25 asyncio (async def)": 140.0}
    servers = LayerResult(
        "servers",
        measurements=[
            Measurement("server_cpu_json_1", "server CPU", "us per call", {**cpu, "TS SDK": 2e2})
        ],
    )
    counts = {f"{n} tools": {"x": float(n)} for n in (10, 100, 1000)}
    curves = LayerResult(
        "curves",
        measurements=[
            Measurement(
                "tools_list_whole",
                "t",
                "us",
                {f"{n} tools": 4.8 + n / 1e4 for n in (10, 100, 1000)},
                details=counts,
            )
        ],
    )
    by_workers: dict[str, float] = {}
    details: dict[str, dict[str, float]] = {}
    for name, n in (("memory, 1 worker", 1), ("Redis, 1 worker", 1), ("Redis, 2 workers", 2)):
        for kind in KINDS:
            by_workers[f"{name} ({kind})"] = 100.0 * n
            details[f"{name} ({kind})"] = {"workers": n, "calls/s": 1000.0 * n}
    workers = LayerResult(
        "workers", measurements=[Measurement("workers_2026-07-28", "t", "us", by_workers, details)]
    )
    return [memory, servers, curves, workers]


def _luminance(colour: Any) -> float:
    red, green, blue, _ = colour
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def test_a_def_row_is_darker_than_its_async_def_row_in_one_hue() -> None:
    labels = [
        "mcp-core (def)",
        "mcp-core (async def)",
        "mcp-core legacy (def)",
        "mcp-core legacy (async def)",
        "FastMCP (def)",
        "FastMCP (async def)",
    ]
    colours = _shades(labels)
    for base in ("mcp-core", "mcp-core legacy", "FastMCP"):
        assert _luminance(colours[f"{base} (def)"]) < _luminance(colours[f"{base} (async def)"])
    # Every def row of a library is darker than every async def row of it.
    assert _luminance(colours["mcp-core legacy (def)"]) < _luminance(
        colours["mcp-core (async def)"]
    )
    # One hue per library: blue for ours, green for FastMCP.
    for label in labels:
        red, green, blue, _ = colours[label]
        assert (blue > red) if label.startswith("mcp-core") else (green > red and green > blue)
    assert len({colours[label] for label in labels}) == len(labels)


def test_the_picture_keeps_its_text_apart_and_its_legends_outside() -> None:
    figure = draw(_run(), title="mcp-core bench --quick --only curves --plot x.png")
    try:
        figure.canvas.draw()
        renderer = figure.canvas.get_renderer()
        texts = [figure._suptitle.get_window_extent(renderer)]
        for axis in figure.axes:
            texts.append(axis._left_title.get_window_extent(renderer))  # loc="left"
            legend = axis.get_legend()
            if legend is not None:
                # Right of the panel's data, not over it.
                assert legend.get_window_extent(renderer).x0 >= axis.get_window_extent().x1
        for index, box in enumerate(texts):
            for other in texts[index + 1 :]:
                assert not box.overlaps(other), (box, other)
        scales = {axis.get_title("left"): axis.get_yscale() for axis in figure.axes}
        # 4.8 to 4.9 us: linear; 700 to 27,000 calls/s: more than LOG_SPAN, log.
        assert scales["curves: tools/list by registry size"] == "linear"
        assert LOG_SPAN < 27e3 / 700
        assert scales["in-memory: throughput against calls in flight"] == "log"
    finally:
        from matplotlib import pyplot

        pyplot.close(figure)


def test_a_run_and_its_json_are_drawn_into_files(tmp_path: Path) -> None:
    layers = _run()
    plot(layers, tmp_path / "run.png", title="mcp-core bench")
    assert (tmp_path / "run.png").read_bytes().startswith(b"\x89PNG")
    document = to_json(layers, command="mcp-core bench --quick", runs=3, quick=True)
    (tmp_path / "run.json").write_text(json.dumps(document), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.plot", str(tmp_path / "run.json"), "again.png"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "again.png").read_bytes().startswith(b"\x89PNG")
