"""``mcp-core bench --plot FILE.png``: the figures of one run as pictures.

Three panels, each from figures of the same run:

* throughput by layer: every case with one call at a time and no size scaling,
  one bar per implementation, on a log scale (the layers span five decades);
* throughput against calls in flight (1, 16, 256), a panel per layer, one line
  per backend and main implementation;
* throughput against message size, when the run measured it, likewise;
* the curves of the ``curves`` layer (CPU per call against tools listed and
  against request size), when the run has them;
* the ``workers`` layer, when the run has it: calls/s and CPU per call (workers
  and Redis) against worker processes, a line per era on Redis and the
  one-worker in-memory case as a point.

One colour per implementation (mcp-core, the SDK, FastMCP, the floors); its
variants (eras, object mode, the SDK's servers) differ by hatch or marker, and
the backends by line style (asyncio solid, trio dashed).

matplotlib comes with the ``bench`` extra; `check` says early whether it is there,
so that a missing package fails the command before the runs, not after.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .harness import CaseResult
from .layers import LayerResult

__all__ = ["check", "plot"]

_MAIN = ("mcp-core", "mcp-core objects", "mcp SDK", "mcp SDK MCPServer", "FastMCP")
"""Implementations drawn against concurrency and size (one per family, and our
message-object mode, the like-for-like one with the SDK's in-memory transport)."""


def check() -> str | None:
    """Why plotting cannot work here, or None when it can."""
    try:
        import matplotlib  # noqa: F401
    except ImportError as exc:
        return f"--plot needs matplotlib ({exc}); install it with: pip install 'mcp-sansio[bench]'"
    return None


_FAMILIES = (
    # (label prefix, colour): one colour per implementation, whatever the variant.
    ("mcp-core", "#1f4e9c"),
    ("mcp SDK", "#e07b1a"),
    ("FastMCP", "#2e9a4f"),
    ("msgspec", "#6b6b6b"),
    ("line echo", "#333333"),
    ("h11 echo", "#333333"),
)
_HATCHES = ("", "//", "..", "xx", "\\\\", "++", "oo")
_MARKERS = ("o", "s", "^", "D", "v", "P", "X")


def _family(label: str) -> tuple[str, str]:
    """The implementation a label names and its colour."""
    for prefix, colour in _FAMILIES:
        if label.startswith(prefix):
            return prefix, colour
    return label, "#999999"


def _variant(label: str) -> str:
    """What sets a label apart within its implementation ("legacy, objects", ...)."""
    family, _ = _family(label)
    return label[len(family) :].strip(" ,()") or "default"


class _Styles:
    """Hands out a hatch or marker per variant, in the order variants appear, so
    the same variant looks the same in every panel."""

    def __init__(self, choices: tuple[str, ...]) -> None:
        self.choices = choices
        self.given: dict[str, str] = {}

    def __call__(self, variant: str) -> str:
        if variant not in self.given:
            self.given[variant] = self.choices[len(self.given) % len(self.choices)]
        return self.given[variant]


def _single_call_cases(layers: Sequence[LayerResult]) -> list[tuple[str, CaseResult]]:
    picked = []
    for layer in layers:
        for case in layer.cases:
            if case.case.concurrency == 1 and not (case.case.backend and case.case.payload_bytes):
                picked.append((f"{layer.name}: {case.case.name}", case))
    return picked


def _bars(axis: Any, cases: list[tuple[str, CaseResult]]) -> None:
    labels = sorted({label for _, case in cases for label in case.timings}, key=_order)
    hatch = _Styles(_HATCHES)
    for row, (_, case) in enumerate(cases):
        present = [label for label in labels if label in case.timings]
        height = 0.8 / max(1, len(present))
        for slot, label in enumerate(present):
            figure = case.timings[label].figure
            axis.barh(
                row + slot * height,
                figure.median,
                height=height,
                color=_family(label)[1],
                hatch=hatch(_variant(label)),
                edgecolor="white",
                label=label,
                xerr=[[figure.median - figure.min], [figure.max - figure.median]],
                error_kw={"elinewidth": 0.6},
            )
    axis.set_yticks([row + 0.3 for row in range(len(cases))])
    axis.set_yticklabels([name for name, _ in cases], fontsize=7)
    axis.invert_yaxis()
    axis.set_xscale("log")
    axis.set_xlabel("operations per second (median, min-max bars)")
    axis.set_title("Throughput by layer, one call at a time")
    handles, names = axis.get_legend_handles_labels()
    unique = dict(zip(names, handles, strict=True))
    axis.legend(
        unique.values(), unique.keys(), fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1)
    )


def _order(label: str) -> tuple[int, str]:
    return (0 if label.startswith("mcp-core") else 1, label)


Series = dict[str, list[tuple[float, float]]]


def _series(layers: Sequence[LayerResult], x_of: str) -> dict[str, Series]:
    # Median ops/s by x, per layer: for each backend and main implementation; only
    # series with two points or more make a line.
    panels: dict[str, Series] = {}
    for layer in layers:
        series = panels.setdefault(layer.name, {})
        for result in layer.cases:
            case = result.case
            if not case.backend:
                continue
            sized = bool(case.payload_bytes)
            if (x_of == "size") != sized:
                continue
            x = float(case.payload_bytes if sized else case.concurrency)
            for label, timing in result.timings.items():
                if label in _MAIN:
                    key = f"{label} ({case.backend})"
                    series.setdefault(key, []).append((x, timing.figure.median))
    kept = {
        name: {key: sorted(points) for key, points in series.items() if len(points) > 1}
        for name, series in panels.items()
    }
    return {name: series for name, series in kept.items() if series}


def _lines(axis: Any, series: Series, x_of: str, title: str, marker: _Styles) -> None:
    # Colour: the implementation; marker: its variant; solid asyncio, dashed trio.
    for key, points in sorted(series.items(), key=lambda item: _order(item[0])):
        label, _, backend = key.rpartition(" (")
        axis.plot(
            [x for x, _ in points],
            [y for _, y in points],
            "--" if backend.startswith("trio") else "-",
            marker=marker(_variant(label)),
            color=_family(label)[1],
            label=key,
        )
    axis.set_xscale("log")
    axis.set_yscale("log")
    axis.set_xlabel("calls in flight" if x_of == "concurrency" else "text size, bytes")
    axis.set_ylabel("calls per second")
    axis.set_title(title, fontsize=9)
    axis.legend(fontsize=6, loc="upper left", bbox_to_anchor=(1.01, 1))
    axis.grid(True, which="both", alpha=0.3)


_CURVES = {
    "tools_list": ("tools/list by registry size", "tools", "us of CPU per call"),
    "message_size": ("a call by message size", "request size, bytes", "us of CPU per call"),
    "idle_sessions_call": (
        "a call while N sessions sit idle",
        "idle sessions",
        "us of CPU per call",
    ),
    "idle_sessions_memory": ("memory per idle session", "idle sessions", "KiB per session"),
    "listeners_memory": ("memory per open SSE stream", "open streams", "KiB per stream"),
    "listeners_fan_out": (
        "one list_changed fanned out to N streams",
        "open streams",
        "us of server CPU per listener",
    ),
}
"""Panels of the curves layer: measurement-name prefix -> title, x label, y label."""


def _curves(layers: Sequence[LayerResult]) -> list[tuple[tuple[str, str, str], Series]]:
    # One panel per family of measurements whose figures carry an x in details.
    panels: dict[tuple[str, str, str], Series] = {}
    for layer in layers:
        for measurement in layer.measurements:
            for prefix, title in _CURVES.items():
                if not measurement.name.startswith(prefix):
                    continue
                line = measurement.name[len(prefix) :].strip("_").replace("_", " ")
                points = [
                    (measurement.details[label]["x"], value)
                    for label, value in measurement.values.items()
                    if "x" in measurement.details.get(label, {})
                ]
                if len(points) > 1:
                    panels.setdefault(title, {})[line] = sorted(points)
    return list(panels.items())


def _curve(axis: Any, panel: tuple[str, str, str], series: Series) -> None:
    title, x_label, y_label = panel
    for line, points in sorted(series.items()):
        axis.plot([x for x, _ in points], [y for _, y in points], "-o", label=line or "mcp-core")
    axis.set_xscale("log")
    axis.set_yscale("log")
    axis.set_xlabel(x_label)
    axis.set_ylabel(y_label)
    axis.set_title(title, fontsize=9)
    axis.legend(fontsize=6, loc="upper left", bbox_to_anchor=(1.01, 1))
    axis.grid(True, which="both", alpha=0.3)


def _workers(layers: Sequence[LayerResult]) -> list[tuple[str, str, Series]]:
    # (title, y label, series): calls/s and CPU per call by worker processes.
    rates: Series = {}
    cpu: Series = {}
    for layer in layers:
        for measurement in layer.measurements:
            if not measurement.name.startswith("workers_"):
                continue
            era = measurement.name.removeprefix("workers_")
            for label, value in measurement.values.items():
                details = measurement.details.get(label, {})
                if "workers" not in details:
                    continue
                key = f"{era}, {'memory' if label.startswith('memory') else 'Redis'}"
                rates.setdefault(key, []).append((details["workers"], details["calls/s"]))
                cpu.setdefault(key, []).append((details["workers"], value))
    if not rates:
        return []
    return [
        ("workers: calls/s through HAProxy", "calls per second", rates),
        ("workers: CPU per call, workers and Redis", "us of CPU per call", cpu),
    ]


def _by_workers(axis: Any, title: str, unit: str, series: Series) -> None:
    # A colour per era; Redis a line of dots, memory (one worker) a square.
    eras = sorted({key.split(", ")[0] for key in series})
    for key, points in sorted(series.items()):
        era, _, backend = key.partition(", ")
        axis.plot(
            [x for x, _ in sorted(points)],
            [y for _, y in sorted(points)],
            "s" if backend == "memory" else "-o",
            color=f"C{eras.index(era)}",
            label=key,
        )
    axis.set_xticks(sorted({x for points in series.values() for x, _ in points}))
    axis.set_xlabel("worker processes")
    axis.set_ylabel(unit)
    axis.set_ylim(bottom=0)
    axis.set_title(title, fontsize=9)
    axis.legend(fontsize=6, loc="upper left", bbox_to_anchor=(1.01, 1))
    axis.grid(True, alpha=0.3)


def plot(layers: Sequence[LayerResult], path: Path, *, title: str) -> None:
    """Draw the figures of ``layers`` into the PNG file ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    cases = _single_call_cases(layers)
    lines = [
        (x_of, f"{name}: {layer}", series)
        for x_of, name in [
            ("concurrency", "Throughput against calls in flight"),
            ("size", "Throughput against message size, one at a time"),
        ]
        for layer, series in _series(layers, x_of).items()
    ]
    marker = _Styles(_MARKERS)
    curves = _curves(layers)
    workers = _workers(layers)
    # The bars when the run has cases, or nothing else to draw (a run of the
    # workers layer alone has only its own panels).
    others = len(lines) + len(curves) + len(workers)
    bars = [1.5 + 0.35 * len(cases)] if cases or not others else []
    heights = bars + [4.0] * others
    figure, axes = pyplot.subplots(
        len(heights),
        1,
        figsize=(12, sum(heights)),
        squeeze=False,
        gridspec_kw={"height_ratios": heights},
    )
    if bars:
        _bars(axes[0][0], cases)
    at = len(bars)
    for (x_of, name, series), row in zip(lines, axes[at : at + len(lines)], strict=True):
        _lines(row[0], series, x_of, name, marker)
    at += len(lines)
    for (panel, series), row in zip(curves, axes[at : at + len(curves)], strict=True):
        _curve(row[0], panel, series)
    for (name, unit, series), row in zip(workers, axes[at + len(curves) :], strict=True):
        _by_workers(row[0], name, unit, series)
    figure.suptitle(f"$ {title}", fontsize=9)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    pyplot.close(figure)
