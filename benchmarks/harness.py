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
5. Async cases may say more. CPU: every timed batch also reads this process's CPU
   clock and, where the case names one, the server process's, so the figures
   include CPU seconds per operation on each side. Latency: after the runs, each
   implementation with a latency operation runs it until ``latency_samples``
   single calls have been timed one by one, for p50/p90/p99 (under the same
   concurrency as the throughput figure: a call's latency includes its wait).

The garbage collector stays enabled, as in real use, but a collection runs before
every batch so that garbage from one implementation is not collected on another's
clock. What is alive when a case starts (the connected clients, the imported
peers: ~100,000 objects with FastMCP and the SDK loaded) is frozen for the case
(``gc.freeze``), so that collection looks only at what the case made: a full
collection over everything took 30-700 ms on a loaded 2-core machine, and ran
~15 times per implementation and case.
"""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, cast

__all__ = [
    "NOISE_THRESHOLD",
    "Case",
    "CpuClock",
    "Figure",
    "LatencyOperation",
    "Latency",
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
LatencyOperation = Callable[[list[int]], Awaitable[object]]
"""A burst of calls that appends each call's duration, in nanoseconds, to the list."""
CpuClock = Callable[[], float]
"""Cumulative CPU seconds (user + system) of a server process."""


@dataclass(frozen=True)
class Settings:
    """How long and how often to measure.

    Attributes:
        runs: timed batches per implementation (median and min-max are over these).
        target_batch_s: the calibrated duration of one batch.
        warmup_s: the upper bound on warm-up and calibration per implementation.
        iterations: a fixed batch size, skipping calibration, and the smallest
            bursts (`burst`): for tests.
        latency_samples: single calls timed per implementation for percentiles.
        backends: the event loops the async layers run on.
        scaling: also run what only the full run has: 256 in flight, message
            sizes, JSON answers over HTTP, 10,000 sessions for the memory layer.
    """

    runs: int
    target_batch_s: float
    warmup_s: float
    iterations: int | None = None
    latency_samples: int = 2000
    backends: tuple[str, ...] = ("asyncio", "trio")
    scaling: bool = True

    def burst(self, calls: int, in_flight: int = 1) -> int:
        """Calls in one timed burst of an async layer: ``calls``, its own figure; with
        fixed ``iterations`` (tests, whose figures mean nothing) the fewest that still
        keep ``in_flight`` calls in flight: one per task."""
        return calls if self.iterations is None else in_flight

    @classmethod
    def quick(cls) -> Settings:
        """5 runs of ~0.02 s batches, no scaling cases: the whole bench in well under
        a minute, figures within a few percent of the full run's on a quiet machine."""
        return cls(runs=5, target_batch_s=0.02, warmup_s=0.03, latency_samples=100, scaling=False)

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
        latency: label -> a latency operation (async cases only).
        server_cpu: label -> the CPU clock of the process serving it, where the
            server runs in a process of its own (async cases only).
        concurrency: calls in flight at once (for plots against concurrency).
        backend: the event loop it ran on ("" for synchronous cases).
    """

    name: str
    title: str
    payload_bytes: int
    implementations: Mapping[str, Operation]
    ratios: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    latency: Mapping[str, LatencyOperation] = field(default_factory=dict)
    server_cpu: Mapping[str, CpuClock] = field(default_factory=dict)
    concurrency: int = 1
    backend: str = ""


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

    def scaled(self, factor: float) -> Figure:
        """Every value multiplied by ``factor``."""
        return Figure(self.median * factor, self.min * factor, self.max * factor)

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
class Latency:
    """Percentiles of single-call durations, in microseconds."""

    samples: int
    p50: float
    p90: float
    p99: float

    @classmethod
    def of(cls, durations_ns: Sequence[int]) -> Latency:
        ordered = sorted(durations_ns)
        last = len(ordered) - 1

        def at(q: float) -> float:
            return ordered[min(last, round(q * last))] / 1000

        return cls(samples=len(ordered), p50=at(0.50), p90=at(0.90), p99=at(0.99))

    def as_json(self) -> dict[str, Any]:
        return {"samples": self.samples, "p50_us": self.p50, "p90_us": self.p90, "p99_us": self.p99}


@dataclass(frozen=True)
class Timing:
    """One implementation's measurements in one case.

    Attributes:
        implementation: its label.
        batch_size: operations per timed batch.
        ops_per_s: one figure per run.
        client_cpu_s: CPU seconds of this process per operation, per run (async
            cases; empty otherwise).
        server_cpu_s: CPU seconds of the server process per operation, per run
            (empty unless the case names the server's clock).
        latency: single-call percentiles, when the case measured them.
    """

    implementation: str
    batch_size: int
    ops_per_s: list[float]
    client_cpu_s: list[float] = field(default_factory=list)
    server_cpu_s: list[float] = field(default_factory=list)
    latency: Latency | None = None

    @property
    def figure(self) -> Figure:
        return summarise(self.ops_per_s)

    @property
    def cpu_us(self) -> tuple[float, float] | None:
        """Median CPU microseconds per operation, (client, server), when both are known."""
        if not self.client_cpu_s or not self.server_cpu_s:
            return None
        return (
            statistics.median(self.client_cpu_s) * 1e6,
            statistics.median(self.server_cpu_s) * 1e6,
        )

    def as_json(self) -> dict[str, Any]:
        document: dict[str, Any] = {
            "implementation": self.implementation,
            "batch_size": self.batch_size,
            "runs_ops_per_s": self.ops_per_s,
            "ops_per_s": self.figure.as_json(),
        }
        if self.client_cpu_s:
            document["client_cpu_us_per_op"] = summarise(self.client_cpu_s).scaled(1e6).as_json()
        if self.server_cpu_s:
            document["server_cpu_us_per_op"] = summarise(self.server_cpu_s).scaled(1e6).as_json()
        if self.latency is not None:
            document["latency"] = self.latency.as_json()
        return document


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
            "concurrency": self.case.concurrency,
            "backend": self.case.backend,
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


@contextmanager
def _frozen() -> Iterator[None]:
    # What is alive now is left out of every collection until the case ends.
    gc.collect()
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def run_case(case: Case, settings: Settings) -> CaseResult:
    """Time every implementation of ``case``, interleaved run by run."""
    with _frozen():
        return _run_case(case, settings)


def _run_case(case: Case, settings: Settings) -> CaseResult:
    batches = {label: _calibrate(op, settings) for label, op in case.implementations.items()}
    samples: dict[str, list[float]] = {label: [] for label in case.implementations}
    for _ in range(settings.runs):
        for label, op in case.implementations.items():
            n = batches[label]
            elapsed_ns = max(_time_batch(op, n), 1)
            samples[label].append(n * 1e9 / elapsed_ns)
    return _result(case, batches, samples)


def _result(
    case: Case,
    batches: dict[str, int],
    samples: dict[str, list[float]],
    cpu: dict[str, tuple[list[float], list[float]]] | None = None,
    latency: dict[str, Latency] | None = None,
) -> CaseResult:
    cpu = cpu or {}
    latency = latency or {}
    timings = {
        label: Timing(
            implementation=label,
            batch_size=batches[label],
            ops_per_s=samples[label],
            client_cpu_s=cpu[label][0] if label in cpu else [],
            server_cpu_s=cpu[label][1] if label in cpu else [],
            latency=latency.get(label),
        )
        for label in samples
    }
    return CaseResult(case=case, timings=timings, ratios=_ratios(case, timings))


def _ratios(case: Case, timings: Mapping[str, Timing]) -> dict[str, Figure]:
    return {
        name: ratio(timings[a], timings[b])
        for name, (a, b) in case.ratios.items()
        if a in timings and b in timings
    }


async def _time_batch_async(
    op: AsyncOperation, n: int, server_cpu: CpuClock | None = None
) -> tuple[int, float, float]:
    # _time_batch for coroutine functions, awaited one after another on the running
    # event loop: no thread hop, so short bursts cost what they cost in an app.
    # Also returns the CPU seconds this process and the server spent meanwhile.
    gc.collect()
    server_before = server_cpu() if server_cpu is not None else 0.0
    cpu_before = time.process_time()
    start = time.perf_counter_ns()
    for _ in range(n):
        await op()
    elapsed = time.perf_counter_ns() - start
    client = time.process_time() - cpu_before
    server = server_cpu() - server_before if server_cpu is not None else 0.0
    return elapsed, client, server


async def _calibrate_async(op: AsyncOperation, settings: Settings) -> int:
    # As _calibrate.
    if settings.iterations is not None:
        await op()
        return settings.iterations
    deadline = time.perf_counter_ns() + int(settings.warmup_s * 1e9)
    n = 1
    while True:
        elapsed, _, _ = await _time_batch_async(op, n)
        if elapsed >= settings.target_batch_s * 1e9 / 10 or n >= 1 << 30:
            break
        n *= 2
    per_op_ns = max(elapsed / n, 1.0)
    batch = max(1, round(settings.target_batch_s * 1e9 / per_op_ns))
    while time.perf_counter_ns() < deadline:
        await _time_batch_async(op, min(batch, n))
    return batch


_LATENCY_SECONDS = 5.0
"""The most time the latency pass of one implementation may take."""


async def _latency(op: LatencyOperation, settings: Settings) -> Latency:
    durations: list[int] = []
    deadline = time.perf_counter_ns() + int(_LATENCY_SECONDS * 1e9)
    while len(durations) < settings.latency_samples and time.perf_counter_ns() < deadline:
        await op(durations)
    return Latency.of(durations)


async def run_case_async(case: Case, settings: Settings) -> CaseResult:
    """`run_case` for a case whose implementations are coroutine functions.

    Runs on the current event loop; every implementation must be usable from it.
    Also takes CPU time per operation and, where the case has latency
    operations, single-call percentiles.
    """
    with _frozen():
        return await _run_case_async(case, settings)


async def _run_case_async(case: Case, settings: Settings) -> CaseResult:
    operations = cast("Mapping[str, AsyncOperation]", case.implementations)
    batches = {label: await _calibrate_async(op, settings) for label, op in operations.items()}
    samples: dict[str, list[float]] = {label: [] for label in operations}
    cpu: dict[str, tuple[list[float], list[float]]] = {label: ([], []) for label in operations}
    for _ in range(settings.runs):
        for label, op in operations.items():
            n = batches[label]
            server_clock = case.server_cpu.get(label)
            elapsed_ns, client_s, server_s = await _time_batch_async(op, n, server_clock)
            samples[label].append(n * 1e9 / max(elapsed_ns, 1))
            cpu[label][0].append(client_s / n)
            if server_clock is not None:
                cpu[label][1].append(server_s / n)
    latency = {label: await _latency(op, settings) for label, op in case.latency.items()}
    return _result(case, batches, samples, cpu, latency)


def scaled(result: CaseResult, factor: int) -> CaseResult:
    """``result`` with every figure turned from operations into calls.

    For operations that are bursts of ``factor`` identical calls: ops/s are
    multiplied by ``factor`` and CPU seconds per operation divided by it. Ratios
    are unchanged by the scaling, but taken again run by run from the scaled
    figures. Latencies are per call already.
    """
    timings = {
        label: Timing(
            implementation=label,
            batch_size=timing.batch_size * factor,
            ops_per_s=[ops * factor for ops in timing.ops_per_s],
            client_cpu_s=[s / factor for s in timing.client_cpu_s],
            server_cpu_s=[s / factor for s in timing.server_cpu_s],
            latency=timing.latency,
        )
        for label, timing in result.timings.items()
    }
    return CaseResult(case=result.case, timings=timings, ratios=_ratios(result.case, timings))
