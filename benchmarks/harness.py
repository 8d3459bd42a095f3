"""How every benchmark in this package is timed and summarised.

Theory of operation. A *case* is one workload (say, a ``tools/call`` request round
trip) run by several *implementations* side by side. Timing goes like this:

1. Warm-up: each implementation runs for ``warmup_s`` so that caches, allocator
   arenas and lazily built validators are in place, and the same loop calibrates
   the batch size ``n`` so that one batch takes about ``target_batch_s``. A fixed
   ``iterations`` skips calibration and warm-up but one call (tests use it).
2. Runs: ``runs`` times (5 with ``--quick``, 15 by default), every implementation
   times one batch of ``n`` calls with ``time.perf_counter_ns``. The
   implementations take turns inside each run, so a slow drift of the machine
   (thermal throttling, a noisy neighbour) hits all of them alike.
3. Summary: ops/s per run; the median, and the min and max across runs. When
   ``(max - min) / median`` exceeds ``NOISE_THRESHOLD`` the figure is flagged.
4. Ratios are taken run by run (implementation A's ops/s in run i over B's in
   run i) and then summarised the same way, never from two medians that may come
   from different moments of the machine's life.

The garbage collector stays enabled, as in real use, but a collection runs before
every batch so that garbage from one implementation is not collected on another's
clock.
"""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

__all__ = [
    "NOISE_THRESHOLD",
    "Case",
    "Figure",
    "Settings",
    "CaseResult",
    "Timing",
    "run_case",
    "run_case_async",
    "ratio",
    "scaled",
    "summarise",
]

NOISE_THRESHOLD = 0.25
"""A spread ``(max - min) / median`` above this flags a figure as noisy."""

Operation = Callable[[], object]
AsyncOperation = Callable[[], Awaitable[object]]


@dataclass(frozen=True)
class Settings:
    """How long and how often to measure.

    Attributes:
        runs: timed batches per implementation (median and min-max are over these).
        target_batch_s: the calibrated duration of one batch.
        warmup_s: the upper bound on warm-up and calibration per implementation.
        iterations: a fixed batch size, skipping calibration (for tests).
    """

    runs: int
    target_batch_s: float
    warmup_s: float
    iterations: int | None = None

    @classmethod
    def quick(cls) -> Settings:
        """5 runs of ~0.1 s batches: a few seconds per case of four implementations."""
        return cls(runs=5, target_batch_s=0.1, warmup_s=0.15)

    @classmethod
    def full(cls) -> Settings:
        """15 runs of ~0.2 s batches."""
        return cls(runs=15, target_batch_s=0.2, warmup_s=0.5)


@dataclass(frozen=True)
class Case:
    """One workload and the implementations that run it.

    Attributes:
        name: a short identifier, stable across versions (used in JSON output).
        title: a one-line human description.
        payload_bytes: the size of the input message, for the table header.
        implementations: label -> a zero-argument callable doing one operation.
        ratios: ratio label -> (numerator, denominator) implementation labels;
            a ratio is reported only when both implementations ran.
    """

    name: str
    title: str
    payload_bytes: int
    implementations: Mapping[str, Operation]
    ratios: Mapping[str, tuple[str, str]] = field(default_factory=dict)


@dataclass(frozen=True)
class Figure:
    """A median with its min-max spread across runs."""

    median: float
    min: float
    max: float

    @property
    def spread(self) -> float:
        """``(max - min) / median``; 0 when the median is 0."""
        return (self.max - self.min) / self.median if self.median else 0.0

    @property
    def noisy(self) -> bool:
        """Whether the spread exceeds NOISE_THRESHOLD."""
        return self.spread > NOISE_THRESHOLD

    def as_json(self) -> dict[str, Any]:
        return {
            "median": self.median,
            "min": self.min,
            "max": self.max,
            "spread": self.spread,
            "noisy": self.noisy,
        }


def summarise(values: Sequence[float]) -> Figure:
    """The median, min and max of one figure's per-run values."""
    if not values:
        raise ValueError("no values to summarise")
    return Figure(median=statistics.median(values), min=min(values), max=max(values))


@dataclass(frozen=True)
class Timing:
    """One implementation's measurements in one case."""

    implementation: str
    batch_size: int
    ops_per_s: list[float]

    @property
    def figure(self) -> Figure:
        return summarise(self.ops_per_s)

    def as_json(self) -> dict[str, Any]:
        return {
            "implementation": self.implementation,
            "batch_size": self.batch_size,
            "runs_ops_per_s": self.ops_per_s,
            "ops_per_s": self.figure.as_json(),
        }


def ratio(numerator: Timing, denominator: Timing) -> Figure:
    """``numerator / denominator`` in ops/s, run by run, summarised.

    Run i of one is only ever divided by run i of the other: both were measured
    in the same pass over the implementations.
    """
    if len(numerator.ops_per_s) != len(denominator.ops_per_s):
        raise ValueError("ratios need the same runs on both sides")
    return summarise(
        [a / b for a, b in zip(numerator.ops_per_s, denominator.ops_per_s, strict=True)]
    )


@dataclass
class CaseResult:
    """What run_case measured."""

    case: Case
    timings: dict[str, Timing]
    ratios: dict[str, Figure] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.case.name,
            "title": self.case.title,
            "payload_bytes": self.case.payload_bytes,
            "results": [t.as_json() for t in self.timings.values()],
            "ratios": {name: fig.as_json() for name, fig in self.ratios.items()},
        }


def _time_batch(op: Operation, n: int) -> int:
    # The loop is the same for every implementation, so its overhead (a few tens of
    # nanoseconds per call) biases every figure alike.
    gc.collect()
    start = time.perf_counter_ns()
    for _ in range(n):
        op()
    return time.perf_counter_ns() - start


def _calibrate(op: Operation, settings: Settings) -> int:
    # Doubles the batch until it takes a tenth of the target, then scales up to the
    # target; every batch along the way doubles as warm-up. Keeps warming up until
    # warmup_s has passed so lazily compiled paths are hot before the first run.
    if settings.iterations is not None:
        op()
        return settings.iterations
    deadline = time.perf_counter_ns() + int(settings.warmup_s * 1e9)
    n = 1
    while True:
        elapsed = _time_batch(op, n)
        if elapsed >= settings.target_batch_s * 1e9 / 10 or n >= 1 << 30:
            break
        n *= 2
    per_op_ns = max(elapsed / n, 1.0)
    batch = max(1, round(settings.target_batch_s * 1e9 / per_op_ns))
    while time.perf_counter_ns() < deadline:
        _time_batch(op, min(batch, n))
    return batch


def run_case(case: Case, settings: Settings) -> CaseResult:
    """Time every implementation of ``case``, interleaved run by run."""
    batches = {label: _calibrate(op, settings) for label, op in case.implementations.items()}
    samples: dict[str, list[float]] = {label: [] for label in case.implementations}
    for _ in range(settings.runs):
        for label, op in case.implementations.items():
            n = batches[label]
            elapsed_ns = max(_time_batch(op, n), 1)
            samples[label].append(n * 1e9 / elapsed_ns)
    return _result(case, batches, samples)


def _result(case: Case, batches: dict[str, int], samples: dict[str, list[float]]) -> CaseResult:
    timings = {
        label: Timing(implementation=label, batch_size=batches[label], ops_per_s=samples[label])
        for label in samples
    }
    ratios = {
        name: ratio(timings[a], timings[b])
        for name, (a, b) in case.ratios.items()
        if a in timings and b in timings
    }
    return CaseResult(case=case, timings=timings, ratios=ratios)


async def _time_batch_async(op: AsyncOperation, n: int) -> int:
    # _time_batch for coroutine functions, awaited one after another on the running
    # event loop: no thread hop, so short bursts cost what they cost in an app.
    gc.collect()
    start = time.perf_counter_ns()
    for _ in range(n):
        await op()
    return time.perf_counter_ns() - start


async def _calibrate_async(op: AsyncOperation, settings: Settings) -> int:
    # As _calibrate.
    if settings.iterations is not None:
        await op()
        return settings.iterations
    deadline = time.perf_counter_ns() + int(settings.warmup_s * 1e9)
    n = 1
    while True:
        elapsed = await _time_batch_async(op, n)
        if elapsed >= settings.target_batch_s * 1e9 / 10 or n >= 1 << 30:
            break
        n *= 2
    per_op_ns = max(elapsed / n, 1.0)
    batch = max(1, round(settings.target_batch_s * 1e9 / per_op_ns))
    while time.perf_counter_ns() < deadline:
        await _time_batch_async(op, min(batch, n))
    return batch


async def run_case_async(case: Case, settings: Settings) -> CaseResult:
    """`run_case` for a case whose implementations are coroutine functions.

    Runs on the current event loop; every implementation must be usable from it.
    """
    operations = cast("Mapping[str, AsyncOperation]", case.implementations)
    batches = {label: await _calibrate_async(op, settings) for label, op in operations.items()}
    samples: dict[str, list[float]] = {label: [] for label in operations}
    for _ in range(settings.runs):
        for label, op in operations.items():
            n = batches[label]
            elapsed_ns = max(await _time_batch_async(op, n), 1)
            samples[label].append(n * 1e9 / elapsed_ns)
    return _result(case, batches, samples)


def scaled(result: CaseResult, factor: int) -> CaseResult:
    """``result`` with every figure multiplied by ``factor``.

    For operations that are bursts of ``factor`` identical calls: the figures
    become calls per second. Ratios are unchanged by the scaling, but taken again
    run by run from the scaled figures.
    """
    timings = {
        label: Timing(
            implementation=label,
            batch_size=timing.batch_size * factor,
            ops_per_s=[ops * factor for ops in timing.ops_per_s],
        )
        for label, timing in result.timings.items()
    }
    ratios = {
        name: ratio(timings[a], timings[b])
        for name, (a, b) in result.case.ratios.items()
        if a in timings and b in timings
    }
    return CaseResult(case=result.case, timings=timings, ratios=ratios)
