"""``mcp-core bench --plot FILE.png``: the figures of one run as pictures.

Panels, each from figures of the same run, in this order:

* one small panel per case with one call at a time (no size scaling), two side
  by side: a bar per row of the table, its label beside it and its median at its
  end, min-max whiskers, on a linear scale from 0;
* one per server-only measurement (the ``servers`` layers): server CPU per call,
  bars likewise (shorter is better);
* throughput against calls in flight (1, 16, 256), a panel per layer: a line
  per main implementation and backend (asyncio solid, trio dashed);
* throughput against message size, when the run measured it, likewise;
* the curves of the ``curves`` layer (CPU per call against tools listed, request
  size, idle sessions, open streams), when the run has them;
* the ``workers`` layer, when the run has it: calls/s and CPU per call (workers
  and Redis) against worker processes, a line per era and kind of tool on Redis,
  the one-worker in-memory case as a square.

Colour: one hue per library (mcp-core blue, the official SDK orange, FastMCP
green, the TypeScript SDK purple, msgspec and the floors grey), and within a panel
one shade of it per variant (its ``def`` row darker than its ``async def`` row,
its eras, its JSON or SSE answers...). Legends sit right of their panel, outside
the data. An axis is linear unless the panel's values span more than `LOG_SPAN`
times (then logarithmic, its ticks written as plain numbers).

matplotlib comes with the ``bench`` extra; `check` says early whether it is there,
so that a missing package fails the command before the runs, not after.

``python -m benchmarks.plot RUN.json OUT.png`` draws the figures of a run's
``--json`` file again.
"""

from __future__ import annotations

import json
import sys
import textwrap
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from .echo_servers import ASYNC, DEF, KINDS
from .layers import LayerResult

__all__ = ["LOG_SPAN", "check", "draw", "main", "plot"]

LOG_SPAN: Final = 30.0
"""An axis whose largest value is more than this many times its smallest is drawn
logarithmic; any other linear."""

_MAIN: Final = ("mcp-core", "mcp SDK", "mcp SDK MCPServer", "FastMCP")
"""Implementations drawn against concurrency and size, each with its kinds of tool."""

_FAMILIES: Final = (
    # (label prefix, matplotlib colour map): one hue per library, whatever the variant.
    ("mcp-core", "Blues"),
    ("ours", "Blues"),
    ("Client", "Blues"),
    ("Manager", "Blues"),
    ("gateway", "Blues"),
    ("memory", "Blues"),
    ("Redis", "Blues"),
    ("mcp SDK", "Oranges"),
    ("SDK", "Oranges"),
    ("FastMCP", "Greens"),
    ("TS SDK", "Purples"),
    ("msgspec", "Greys"),
    ("line", "Greys"),
    ("h11", "Greys"),
)

_CURVES: Final = {
    "tools_list": ("tools/list by registry size", "tools", "us of CPU per call"),
    "message_size": ("a call by message size", "request size", "us of CPU per call"),
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

_TITLE_WIDTH: Final = 62
"""Characters per line of a small panel's title."""


def check() -> str | None:
    """Why plotting cannot work here, or None when it can."""
    try:
        import matplotlib  # noqa: F401
    except ImportError as exc:
        return f"--plot needs matplotlib ({exc}); install it with: pip install 'mcp-sansio[bench]'"
    return None


# --- colours and axes -----------------------------------------------------------------------------


def _family(label: str) -> str:
    """The colour map of the library ``label`` names."""
    for prefix, colours in _FAMILIES:
        if label.startswith(prefix):
            return colours
    return "Greys"


def _kind(label: str) -> str:
    """The kind of tool a row calls ("def", "async def"), or "" for a row of one kind."""
    for kind in KINDS:
        if label.endswith(f" ({kind})") or label.endswith(f", {kind}"):
            return kind
    return ""


def _shades(labels: Iterable[str]) -> dict[str, Any]:
    """A colour per label: its library's hue, one shade per label of that library.
    Where a library has rows of both kinds of tool, its ``def`` rows take the dark
    shades and its ``async def`` rows the light ones (rows of one kind between), in
    the order given; otherwise its rows go from dark to light in that order."""
    from matplotlib import colormaps

    by_family: dict[str, list[str]] = {}
    for label in labels:
        members = by_family.setdefault(_family(label), [])
        if label not in members:
            members.append(label)
    colours: dict[str, Any] = {}
    for family, members in by_family.items():
        groups = {kind: [m for m in members if _kind(m) == kind] for kind in (DEF, "", ASYNC)}
        if groups[DEF] or groups[ASYNC]:
            bands = [(groups[DEF], 0.95, 0.72), (groups[""], 0.68, 0.6), (groups[ASYNC], 0.52, 0.3)]
        else:
            bands = [(members, 0.85, 0.45)]
        for group, darkest, lightest in bands:
            step = (darkest - lightest) / max(1, len(group) - 1)
            for index, label in enumerate(group):
                shade = darkest - index * step if len(group) > 1 else (darkest + lightest) / 2
                colours[label] = colormaps[family](shade)
    return colours


def _short(value: float) -> str:
    """A figure as a person reads it: 27.9k, 200k, 1.2M, 2,091, 48.5, 16."""
    if value >= 1e6:
        return f"{value / 1e6:.1f}".removesuffix(".0") + "M"
    if value >= 1e4:
        return f"{value / 1e3:.1f}".removesuffix(".0") + "k"
    if value >= 100 or float(value).is_integer():
        return f"{value:,.0f}"
    return f"{value:.1f}" if value >= 1 else f"{value:.2f}"


def _tick(value: float) -> str:
    """An axis tick: 0, 5, 500, 1k, 2.5k, 10k, 1.5M."""
    if value >= 1e6:
        return f"{value / 1e6:.1f}".removesuffix(".0") + "M"
    if value >= 1e3:
        return f"{value / 1e3:.1f}".removesuffix(".0") + "k"
    return f"{value:g}"


def _bytes(value: float) -> str:
    """A size as a person reads it: 100 B, 10 KiB, 1 MiB."""
    for unit, size in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if value >= size:
            return f"{value / size:.0f} {unit}"
    return f"{value:.0f} B"


def _scale(axis: Any, which: str, values: Sequence[float], *, zero: bool = True) -> None:
    """Linear (from 0 when ``zero``) unless ``values`` span more than LOG_SPAN times;
    tick labels as plain numbers either way, no minor labels."""
    from matplotlib import ticker

    positive = [v for v in values if v > 0]
    wide = bool(positive) and max(positive) > LOG_SPAN * min(positive)
    target = axis.xaxis if which == "x" else axis.yaxis
    if wide:
        (axis.set_xscale if which == "x" else axis.set_yscale)("log")
        target.set_minor_formatter(ticker.NullFormatter())
    elif zero:
        (axis.set_xlim if which == "x" else axis.set_ylim)(0, max(positive, default=1) * 1.08)
    target.set_major_formatter(ticker.FuncFormatter(lambda v, _: _tick(v)))


def _points(axis: Any, positions: Sequence[float], sizes: bool) -> None:
    """x ticks at exactly the measured positions (1, 16, 256 calls; 100 B...1 MiB),
    on a log axis."""
    from matplotlib import ticker

    axis.set_xscale("log")
    axis.xaxis.set_major_locator(ticker.FixedLocator(sorted(set(positions))))
    name = _bytes if sizes else _tick
    axis.xaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: name(v)))
    axis.xaxis.set_minor_locator(ticker.NullLocator())


def _legend(axis: Any, title: str = "") -> None:
    # Right of the panel, outside its data.
    axis.legend(
        fontsize=7,
        title=title or None,
        title_fontsize=7,
        loc="upper left",
        bbox_to_anchor=(1.01, 1.0),
        borderaxespad=0.0,
        frameon=False,
    )


# --- panels ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Bars:
    """A small panel: a bar per row, (label, median, min, max)."""

    title: str
    unit: str
    rows: list[tuple[str, float, float, float]]

    def draw(self, axis: Any) -> None:
        labels = [label for label, *_ in self.rows]
        colours = _shades(labels)
        medians = [median for _, median, _, _ in self.rows]
        low = [median - least for _, median, least, _ in self.rows]
        high = [most - median for _, median, _, most in self.rows]
        positions = list(range(len(self.rows)))
        axis.barh(
            positions,
            medians,
            height=0.72,
            color=[colours[label] for label in labels],
            xerr=[low, high],
            error_kw={"elinewidth": 0.7, "ecolor": "#555555", "capsize": 0},
        )
        axis.set_yticks(positions, labels, fontsize=7)
        axis.invert_yaxis()
        ends = [median + up for median, up in zip(medians, high, strict=True)]
        axis.set_xlim(0, max(ends, default=1) * 1.22)
        for position, median, end in zip(positions, medians, ends, strict=True):
            axis.annotate(
                _short(median),
                (end, position),
                xytext=(3, 0),
                textcoords="offset points",
                va="center",
                fontsize=6.5,
            )
        axis.xaxis.set_major_formatter(_plain())
        axis.tick_params(axis="x", labelsize=7)
        axis.set_xlabel(self.unit, fontsize=7)
        axis.set_title(textwrap.fill(self.title, _TITLE_WIDTH), fontsize=8, loc="left")
        axis.grid(True, axis="x", alpha=0.3)
        axis.set_axisbelow(True)

    @property
    def height(self) -> float:
        return 0.75 + 0.2 * len(self.rows) + 0.17 * self.title.count("\n")


def _plain() -> Any:
    from matplotlib import ticker

    return ticker.FuncFormatter(lambda v, _: _tick(v))


def _case_title(layer: str, title: str) -> str:
    # The case's own title without how it was timed.
    return f"{layer}: {title.split(' (timed in')[0]}"


def _case_bars(layers: Sequence[LayerResult]) -> list[_Bars]:
    panels = []
    for layer in layers:
        for result in layer.cases:
            case = result.case
            if case.concurrency != 1 or (case.backend and case.payload_bytes):
                continue
            rows = [
                (label, timing.figure.median, timing.figure.min, timing.figure.max)
                for label, timing in result.timings.items()
            ]
            unit = "calls per second" if case.backend else "operations per second"
            title = _case_title(layer.name, case.title)
            panels.append(_Bars(title, f"{unit} (median; whiskers: min-max)", rows))
    return panels


def _server_bars(layers: Sequence[LayerResult]) -> list[_Bars]:
    # The servers layers' measurements: server CPU per call, lower is better.
    panels = []
    for layer in layers:
        for measurement in layer.measurements:
            if not measurement.name.startswith("server_cpu_"):
                continue
            rows = []
            for label, value in measurement.values.items():
                details = measurement.details.get(label, {})
                rows.append((label, value, details.get("min", value), details.get("max", value)))
            unit = f"{measurement.unit} (median; shorter is better)"
            panels.append(_Bars(f"{layer.name}: {measurement.title}", unit, rows))
    return panels


Series = dict[str, list[tuple[float, float]]]


def _base(label: str) -> str:
    """A row label without its kind of tool: "mcp-core (def)" -> "mcp-core"."""
    for kind in (" (def)", " (async def)"):
        if label.endswith(kind):
            return label[: -len(kind)]
    return label


def _series(layers: Sequence[LayerResult], x_of: str) -> dict[str, Series]:
    # Median ops/s by x, per layer: for each main implementation's rows and
    # backend; only series with two points or more make a line.
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
                if _base(label) in _MAIN:
                    key = f"{label}, {case.backend}"
                    series.setdefault(key, []).append((x, timing.figure.median))
    kept = {
        name: {key: sorted(points) for key, points in series.items() if len(points) > 1}
        for name, series in panels.items()
    }
    return {name: series for name, series in kept.items() if series}


@dataclass(frozen=True)
class _Lines:
    """A wide panel: a line per series, its legend right of it."""

    title: str
    x_label: str
    y_label: str
    series: Series
    zero: bool = True
    """Whether a linear y axis starts at 0."""
    at_points: bool = True
    """Whether x is logarithmic (else linear); its ticks sit at the measured positions."""
    sizes: bool = False
    """Whether x is a size in bytes."""
    styles: dict[str, str] | None = None
    """Series -> matplotlib format ("-o", "--o", "s"); by default "-o", or "--o"
    for a series on trio."""
    colour_keys: dict[str, str] | None = None
    """Series -> the label its colour is taken for; by default its own label
    without its backend."""

    height: float = 3.0

    def draw(self, axis: Any) -> None:
        keys = list(self.series)
        named = {key: (self.colour_keys or {}).get(key, _colour_key(key)) for key in keys}
        colours = _shades(named.values())
        for key in keys:
            points = self.series[key]
            style = (self.styles or {}).get(key, "--o" if key.endswith(", trio") else "-o")
            axis.plot(
                [x for x, _ in points],
                [y for _, y in points],
                style,
                color=colours[named[key]],
                label=key,
                markersize=4,
                linewidth=1.4,
            )
        xs = [x for points in self.series.values() for x, _ in points]
        ys = [y for points in self.series.values() for _, y in points]
        if self.at_points:
            _points(axis, xs, self.sizes)
        else:  # a few small counts (worker processes): linear, ticked where measured
            from matplotlib import ticker

            axis.xaxis.set_major_locator(ticker.FixedLocator(sorted(set(xs))))
        _scale(axis, "y", ys, zero=self.zero)
        axis.tick_params(labelsize=7)
        axis.set_xlabel(self.x_label, fontsize=8)
        axis.set_ylabel(self.y_label, fontsize=8)
        axis.set_title(self.title, fontsize=9, loc="left")
        axis.grid(True, alpha=0.3)
        _legend(axis)


def _colour_key(key: str) -> str:
    # A series' colour follows its row label, not its backend (that is the dash).
    return key.removesuffix(", asyncio").removesuffix(", trio")


def _curves(layers: Sequence[LayerResult]) -> list[_Lines]:
    # One panel per family of measurements whose figures carry an x in details.
    panels: dict[tuple[str, str, str], Series] = {}
    for layer in layers:
        for measurement in layer.measurements:
            for prefix, panel in _CURVES.items():
                if not measurement.name.startswith(prefix):
                    continue
                line = measurement.name[len(prefix) :].strip("_").replace("_", " ")
                points = [
                    (measurement.details[label]["x"], value)
                    for label, value in measurement.values.items()
                    if "x" in measurement.details.get(label, {})
                ]
                if len(points) > 1:
                    panels.setdefault(panel, {})[line or "mcp-core"] = sorted(points)
    # Every curve is ours: one hue, a shade per curve.
    return [
        _Lines(
            f"curves: {title}",
            x_label,
            y_label,
            series,
            sizes=x_label.endswith("size"),
            colour_keys={line: f"mcp-core {line}" for line in series},
        )
        for (title, x_label, y_label), series in panels.items()
    ]


def _workers(layers: Sequence[LayerResult]) -> list[_Lines]:
    # Calls/s and CPU per call by worker processes: a line per era and kind of
    # tool on Redis (2025-11-25 dashed), the one in-memory worker a square; the
    # def rows dark, the async def ones light.
    rates: Series = {}
    cpu: Series = {}
    styles: dict[str, str] = {}
    colour_keys: dict[str, str] = {}
    for layer in layers:
        for measurement in layer.measurements:
            if not measurement.name.startswith("workers_"):
                continue
            era = measurement.name.removeprefix("workers_")
            for label, value in measurement.values.items():
                details = measurement.details.get(label, {})
                if "workers" not in details:
                    continue
                where = "memory" if label.startswith("memory") else "Redis"
                kind = label[len(_base(label)) :].strip(" ()")
                key = f"{where}, {era}" + (f", {kind}" if kind else "")
                dash = "--" if era == "2025-11-25" else "-"
                styles[key] = ("D" if dash == "--" else "s") if where == "memory" else dash + "o"
                colour_keys[key] = f"mcp-core ({kind})" if kind else "mcp-core"
                rates.setdefault(key, []).append((details["workers"], details["calls/s"]))
                cpu.setdefault(key, []).append((details["workers"], value))
    if not rates:
        return []
    sort = {key: sorted(points) for key, points in rates.items()}
    return [
        _Lines(
            "workers: calls/s through HAProxy",
            "worker processes",
            "calls per second",
            sort,
            at_points=False,
            styles=styles,
            colour_keys=colour_keys,
        ),
        _Lines(
            "workers: CPU per call, workers and Redis",
            "worker processes",
            "us of CPU per call",
            {key: sorted(points) for key, points in cpu.items()},
            at_points=False,
            styles=styles,
            colour_keys=colour_keys,
        ),
    ]


# --- the figure -----------------------------------------------------------------------------------


def plot(layers: Sequence[LayerResult], path: Path, *, title: str) -> None:
    """Draw the figures of ``layers`` into the PNG file ``path``."""
    from matplotlib import pyplot

    figure = draw(layers, title=title)
    try:
        figure.savefig(path, dpi=100)
    finally:
        pyplot.close(figure)


def draw(layers: Sequence[LayerResult], *, title: str) -> Any:
    """The matplotlib figure of ``layers`` (`plot` saves it), under the command line
    ``title``; the caller closes it."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    small = _case_bars(layers) + _server_bars(layers)
    wide: list[_Lines] = [
        _Lines(f"{name}: throughput against calls in flight", "calls in flight", "calls/s", s)
        for name, s in _series(layers, "concurrency").items()
    ]
    wide += [
        _Lines(
            f"{name}: throughput against message size, one at a time",
            "text size",
            "calls/s",
            s,
            sizes=True,
        )
        for name, s in _series(layers, "size").items()
    ]
    wide += _curves(layers) + _workers(layers)
    pairs = [small[i : i + 2] for i in range(0, len(small), 2)]
    heights = [max(panel.height for panel in pair) for pair in pairs]
    heights += [panel.height for panel in wide]
    if not heights:
        heights = [1.0]
    figure = pyplot.figure(figsize=(13, sum(heights) + 0.6), layout="constrained")
    grid = figure.add_gridspec(len(heights), 2, height_ratios=heights)
    for row, pair in enumerate(pairs):
        for column, panel in enumerate(pair):
            panel.draw(figure.add_subplot(grid[row, column]))
    for row, lines in enumerate(wide, len(pairs)):
        lines.draw(figure.add_subplot(grid[row, :]))
    if not small and not wide:
        figure.text(0.5, 0.5, "nothing to draw in this run", ha="center")
    figure.suptitle(f"$ {title}", fontsize=10, x=0.01, ha="left")
    return figure


def main(argv: list[str]) -> int:
    """``python -m benchmarks.plot RUN.json OUT.png``: draw a run's JSON again."""
    if len(argv) != 2:
        print("usage: python -m benchmarks.plot RUN.json OUT.png", file=sys.stderr)
        return 2
    from .report import from_json

    document = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
    plot(from_json(document), Path(argv[1]), title=document.get("command", argv[0]))
    print(f"wrote {argv[1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
