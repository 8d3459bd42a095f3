"""Tables for people and JSON for machines, from LayerResults."""

from __future__ import annotations

import datetime
import os
import platform
import sys
from collections.abc import Sequence
from importlib import metadata
from typing import Any

from .harness import NOISE_THRESHOLD, Case, CaseResult, Figure, Timing
from .layers import LayerResult, Measurement

__all__ = [
    "JSON_SCHEMA_VERSION",
    "format_layer",
    "from_json",
    "machine_info",
    "package_versions",
    "to_json",
]

JSON_SCHEMA_VERSION = 2
"""Bumped whenever a key of the ``--json`` output changes meaning or goes away. 2: the
rows of the layers that run a tool are "X (def)" and "X (async def)" where they were
"X", and so are the ratios between them."""

_PACKAGES = ("msgspec", "mcp", "mcp-types", "pydantic", "pydantic-core", "fastmcp")


def machine_info() -> dict[str, Any]:
    """Where the figures were taken."""
    return {
        "platform": platform.platform(),
        "machine": platform.machine(),
        "processor": platform.processor(),
        "python": sys.version.split()[0],
        "python_implementation": platform.python_implementation(),
        "cpu_count": os.cpu_count(),
    }


def package_versions() -> dict[str, str | None]:
    """Versions of mcp-core and of every package a layer may compare against (None: absent)."""
    import mcp_core

    versions: dict[str, str | None] = {"mcp-core": mcp_core.__version__}
    for name in _PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def to_json(
    layers: Sequence[LayerResult], *, command: str, runs: int, quick: bool
) -> dict[str, Any]:
    """All figures, plus how and where they were taken."""
    return {
        "schema": JSON_SCHEMA_VERSION,
        "command": command,
        "quick": quick,
        "runs": runs,
        "noise_threshold": NOISE_THRESHOLD,
        "finished": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "machine": machine_info(),
        "versions": package_versions(),
        "layers": {layer.name: layer.as_json() for layer in layers},
    }


def from_json(document: dict[str, Any]) -> list[LayerResult]:
    """The layers of a `to_json` document, with what the plots read: each case's
    per-run figures and each measurement's values and details (not its ratios'
    pairs, nor the operations that were timed)."""
    layers = []
    for name, layer in document["layers"].items():
        result = LayerResult(name=name, skipped=dict(layer.get("skipped", {})))
        for case in layer.get("cases", []):
            shape = Case(
                name=case["name"],
                title=case["title"],
                payload_bytes=case["payload_bytes"],
                implementations={},
                concurrency=case.get("concurrency", 1),
                backend=case.get("backend", ""),
            )
            timings = {
                each["implementation"]: Timing(
                    implementation=each["implementation"],
                    batch_size=each["batch_size"],
                    ops_per_s=list(each["runs_ops_per_s"]),
                )
                for each in case["results"]
            }
            result.cases.append(CaseResult(case=shape, timings=timings))
        for measurement in layer.get("measurements", []):
            result.measurements.append(
                Measurement(
                    name=measurement["name"],
                    title=measurement["title"],
                    unit=measurement["unit"],
                    values=dict(measurement["values"]),
                    details={k: dict(v) for k, v in measurement.get("details", {}).items()},
                )
            )
        layers.append(result)
    return layers


def _ops(value: float) -> str:
    return f"{value:,.0f}" if value >= 100 else f"{value:,.1f}"


def _ratio(value: float) -> str:
    return f"{value:.2f}x"


def _row(label: str, figure: Figure, fmt: Any, width: int, extra: str = "") -> str:
    spread = f"[{fmt(figure.min)} - {fmt(figure.max)}]"
    line = f"  {label:<{width}}  {fmt(figure.median):>12}  {spread:<26}{extra}"
    if figure.noisy:
        line += f"  noisy: spread {figure.spread:.0%}"
    return line.rstrip()


def _us(value: float) -> str:
    return f"{value:,.0f}" if value >= 100 else f"{value:.1f}"


def _extra(timing: Timing, latency: bool, cpu: bool) -> str:
    # The latency and CPU columns, blank where this implementation has none.
    text = ""
    if latency:
        lat = timing.latency
        cell = f"{_us(lat.p50)} / {_us(lat.p90)} / {_us(lat.p99)}" if lat else ""
        text += f"  {cell:<22}"
    if cpu:
        pair = timing.cpu_us
        text += f"  {f'{_us(pair[0])} + {_us(pair[1])}' if pair else '':<16}"
    return text


def format_case(result: CaseResult) -> list[str]:
    """One case as a small table: ops/s per implementation, then the ratios."""
    case = result.case
    labels = list(result.timings) + list(result.ratios)
    width = max(len(label) for label in [*labels, "implementation"])
    latency = any(t.latency is not None for t in result.timings.values())
    cpu = any(t.cpu_us is not None for t in result.timings.values())
    header = f"  {'implementation':<{width}}  {'ops/s median':>12}  {'[min - max]':<26}"
    if latency:
        header += f"  {'latency µs p50/p90/p99':<22}"
    if cpu:
        header += f"  {'CPU µs/call c+s':<16}"
    size = f" ({case.payload_bytes:,} bytes)" if case.payload_bytes else ""
    lines = [f"{case.name}: {case.title}{size}", header.rstrip()]
    for label, timing in result.timings.items():
        lines.append(_row(label, timing.figure, _ops, width, _extra(timing, latency, cpu)))
    if result.ratios:
        lines.append(f"  {'ratio of ops/s':<{width}}  {'median':>12}  [min - max], run by run")
        for label, figure in result.ratios.items():
            lines.append(_row(label, figure, _ratio, width))
    return lines


def _amount(value: float) -> str:
    # Counts as they are; small figures (round trips per call) with two decimals.
    if float(value).is_integer():
        return f"{value:,.0f}"
    return f"{value:,.1f}" if abs(value) >= 10 else f"{value:.2f}"


def format_measurement(measurement: Measurement) -> list[str]:
    """One measurement: a figure per implementation, its details, the ratios."""
    labels = [*measurement.values, *measurement.ratios]
    width = max(len(label) for label in [*labels, "implementation"])
    lines = [
        f"{measurement.name}: {measurement.title}",
        f"  {'implementation':<{width}}  {measurement.unit:>18}",
    ]
    for label, value in measurement.values.items():
        details = measurement.details.get(label, {})
        extra = ", ".join(f"{name} {_amount(amount)}" for name, amount in details.items())
        lines.append(f"  {label:<{width}}  {value:>18,.2f}  {extra}".rstrip())
    ratios = measurement.ratio_values()
    if ratios:
        lines.append(f"  {'ratio':<{width}}  {measurement.ratio_note:>18}")
        for label, value in ratios.items():
            lines.append(f"  {label:<{width}}  {_ratio(value):>18}")
    return lines


def format_layer(layer: LayerResult) -> list[str]:
    """Every case of a layer, then what was skipped and why."""
    lines = [f"== layer {layer.name} =="]
    for case in layer.cases:
        lines.extend(format_case(case))
        lines.append("")
    for measurement in layer.measurements:
        lines.extend(format_measurement(measurement))
        lines.append("")
    for label, reason in layer.skipped.items():
        lines.append(f"skipped {label}: {reason}")
    if any(
        figure.noisy
        for case in layer.cases
        for figure in [*(t.figure for t in case.timings.values()), *case.ratios.values()]
    ):
        lines.append(
            f"figures marked noisy varied by more than {NOISE_THRESHOLD:.0%} across runs: "
            "rerun on an idle machine"
        )
    return lines


def format_header(*, command: str, runs: int) -> list[str]:
    """What was run, where, and how to read the tables."""
    m = machine_info()
    v = package_versions()
    others = ", ".join(f"{name} {version}" for name, version in v.items() if version)
    return [
        f"$ {command}",
        f"{m['python_implementation']} {m['python']} on {m['platform']}, {m['cpu_count']} CPUs",
        others,
        f"{runs} runs per figure; ops/s is the median, [min - max] across runs; "
        "ratios above 1 mean mcp-core is faster",
        "latency: single calls timed one by one at the case's concurrency; "
        "CPU: per call, c = this process (the clients), s = the server's process",
        "",
    ]
