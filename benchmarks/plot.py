"""``mcp-core bench --plot FILE.png``: the figures of one run as pictures.

Three panels, each from figures of the same run:

* throughput by layer: every case with one call at a time and no size scaling,
  one bar per implementation, on a log scale (the layers span five decades);
* throughput against calls in flight (1, 16, 256), one line per layer, backend
  and implementation, for the main implementations of each family;
* throughput against message size, when the run measured it.

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
        return f"--plot needs matplotlib ({exc}); install it with: pip install 'mcp-core[bench]'"
    return None


_COLOURS = {
    # Blues for mcp-core, oranges and browns for the SDK, green for FastMCP,
    # greys for the floors: one family a hue, one implementation a shade.
    "mcp-core": "#1f4e9c",
    "mcp-core modern": "#1f4e9c",
    "mcp-core legacy": "#5b8ad6",
    "mcp-core objects": "#17becf",
    "mcp-core modern, objects": "#17becf",
    "mcp-core legacy, objects": "#9ed9e6",
    "mcp SDK": "#e07b1a",
    "mcp SDK (pydantic)": "#e07b1a",
    "mcp SDK (DirectDispatcher)": "#e07b1a",
    "mcp SDK MCPServer": "#e07b1a",
    "mcp SDK legacy": "#a0522d",
    "mcp SDK low-level": "#f2b36b",
    "FastMCP": "#2e9a4f",
    "msgspec typed": "#6b6b6b",
    "msgspec untyped": "#b5b5b5",
    "line echo": "#333333",
    "h11 echo": "#333333",
}

_MARKERS = {"in-memory": "o", "stdio": "s", "http": "^"}


def _colour(label: str) -> str:
    return _COLOURS.get(label, "#999999")


def _single_call_cases(layers: Sequence[LayerResult]) -> list[tuple[str, CaseResult]]:
    picked = []
    for layer in layers:
        for case in layer.cases:
            if case.case.concurrency == 1 and not (case.case.backend and case.case.payload_bytes):
                picked.append((f"{layer.name}: {case.case.name}", case))
    return picked


def _bars(axis: Any, cases: list[tuple[str, CaseResult]]) -> None:
    labels = sorted({label for _, case in cases for label in case.timings}, key=_order)
    for row, (_, case) in enumerate(cases):
        present = [label for label in labels if label in case.timings]
        height = 0.8 / max(1, len(present))
        for slot, label in enumerate(present):
            figure = case.timings[label].figure
            axis.barh(
                row + slot * height,
                figure.median,
                height=height,
                color=_colour(label),
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
    axis.legend(unique.values(), unique.keys(), fontsize=7, loc="lower right")


def _order(label: str) -> tuple[int, str]:
    return (0 if label.startswith("mcp-core") else 1, label)


Series = dict[str, list[tuple[float, float]]]


def _series(layers: Sequence[LayerResult], x_of: str) -> Series:
    # Median ops/s by x, for each layer, backend and main implementation; only
    # series with two points or more make a line.
    series: Series = {}
    for layer in layers:
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
                    key = f"{layer.name} {case.backend}: {label}"
                    series.setdefault(key, []).append((x, timing.figure.median))
    return {key: sorted(points) for key, points in series.items() if len(points) > 1}


def _lines(axis: Any, series: Series, x_of: str, title: str) -> None:
    for key, points in sorted(series.items()):
        label = key.split(": ", 1)[1]
        style = "-" if "asyncio" in key else "--"
        axis.plot(
            [x for x, _ in points],
            [y for _, y in points],
            style,
            marker=_MARKERS.get(key.split(" ", 1)[0], "o"),
            color=_colour(label),
            label=key,
        )
    axis.set_xscale("log")
    axis.set_yscale("log")
    axis.set_xlabel("calls in flight" if x_of == "concurrency" else "text size, bytes")
    axis.set_ylabel("calls per second")
    axis.set_title(title)
    axis.legend(fontsize=6)
    axis.grid(True, which="both", alpha=0.3)


def plot(layers: Sequence[LayerResult], path: Path, *, title: str) -> None:
    """Draw the figures of ``layers`` into the PNG file ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    cases = _single_call_cases(layers)
    lines = [
        (x_of, name, series)
        for x_of, name in [
            ("concurrency", "Throughput against calls in flight"),
            ("size", "Throughput against message size, one at a time"),
        ]
        if (series := _series(layers, x_of))
    ]
    heights = [1.5 + 0.35 * len(cases)] + [4.0] * len(lines)
    figure, axes = pyplot.subplots(
        len(heights),
        1,
        figsize=(10, sum(heights)),
        squeeze=False,
        gridspec_kw={"height_ratios": heights},
    )
    _bars(axes[0][0], cases)
    for (x_of, name, series), row in zip(lines, axes[1:], strict=True):
        _lines(row[0], series, x_of, name)
    figure.suptitle(f"$ {title}", fontsize=9)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    pyplot.close(figure)
