"""``mcp-core bench``: run the selected layers, print tables, optionally write JSON."""

from __future__ import annotations

import dataclasses
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from .echo_servers import quiet_peers
from .harness import Settings
from .layers import LAYERS, Layer, LayerResult, load
from .report import format_header, format_layer, to_json

__all__ = ["QUICK_PICTURE", "plan", "run_bench", "selected_layers"]

QUICK_PICTURE = Path("mcp-core-bench.png")
"""Where ``--quick`` draws its figures without ``--plot`` (in the current directory)."""


def plan(only: Sequence[str], quick: bool) -> list[tuple[Layer, str]]:
    """The layers to run (`selected_layers`), each with why it is left out ("" when
    it runs): with ``--quick`` and no names, the layers too long for it.

    Raises:
        KeyError: an unknown layer name.
    """
    return [
        (layer, layer.not_quick if quick and not only else "") for layer in selected_layers(only)
    ]


def run_bench(
    *,
    only: Sequence[str] = (),
    quick: bool = False,
    json_path: Path | None = None,
    plot_path: Path | None = None,
    picture: bool = False,
    backends: Sequence[str] = (),
    runs: int | None = None,
    iterations: int | None = None,
    command: str = "mcp-core bench",
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    """Run the layers named in ``only`` (all when empty) and report.

    Args:
        only: layer names, in any order; they run in registry order. Empty:
            every layer that runs by default.
        quick: 5 runs of short batches instead of 15 of longer ones.
        json_path: where to write every figure as JSON, if anywhere.
        plot_path: where to draw the figures as a PNG, if anywhere (matplotlib).
        picture: without ``plot_path``, draw them into `QUICK_PICTURE` when
            matplotlib is there (else say it is not, and go on without).
        backends: the event loops of the async layers (default: asyncio and trio).
        runs: overrides the number of runs (tests).
        iterations: fixes the batch size and skips calibration (tests).
        command: the command line to print and record, so figures name it.
        out: where the tables go (stdout by default).
        err: where progress lines go (stderr by default).

    Returns:
        The process exit status: 0 on success.

    Raises:
        KeyError: an unknown layer name.
    """
    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr
    layers = plan(only, quick)

    if plot_path is not None or picture:
        from .plot import check

        problem = check()
        if problem is not None and plot_path is not None:
            print(f"mcp-core bench: {problem}", file=err)
            return 2
        if problem is not None:
            print(f"mcp-core bench: no picture: {problem}", file=err)
        elif plot_path is None:
            plot_path = QUICK_PICTURE
    settings = Settings.quick() if quick else Settings.full()
    if backends:
        settings = dataclasses.replace(settings, backends=tuple(backends))
    if runs is not None or iterations is not None:
        settings = dataclasses.replace(
            settings,
            runs=runs if runs is not None else settings.runs,
            iterations=iterations,
            # Tests: one latency burst is enough to show the column.
            latency_samples=1 if iterations is not None else settings.latency_samples,
        )

    quiet_peers()
    started = time.monotonic()
    where = ""

    def progress(line: str) -> None:
        # Every line says how far the whole run is: which layer of how many, and
        # the time since the start.
        print(f"[{where}, {time.monotonic() - started:.0f} s] {line}", file=err, flush=True)

    print("\n".join(format_header(command=command, runs=settings.runs)), file=out, flush=True)
    results: list[LayerResult] = []
    for number, (layer, left_out) in enumerate(layers, 1):
        where = f"layer {number}/{len(layers)}"
        if left_out:
            result = LayerResult(name=layer.name, skipped={layer.name: left_out})
        else:
            result = layer.run(settings, progress)
        results.append(result)
        print("\n".join(format_layer(result)), file=out, flush=True)
    where = "done"

    if json_path is not None:
        document = to_json(results, command=command, runs=settings.runs, quick=quick)
        json_path.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
        progress(f"wrote {json_path}")
    if plot_path is not None:
        from .plot import plot

        plot(results, plot_path, title=command)
        print(f"picture of these figures: {plot_path.resolve()}", file=out, flush=True)
    return 0


def selected_layers(only: Sequence[str]) -> list[Layer]:
    """The layers named in ``only`` in registry order, or without names every layer
    that runs by default.

    Raises:
        KeyError: an unknown layer name.
    """
    selected = [load(name) for name in only]
    return [
        layer
        for layer in LAYERS.values()
        if layer in selected or (not selected and layer.by_default)
    ]
