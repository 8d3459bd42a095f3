"""The registry of benchmark layers that ``mcp-core bench`` runs.

A layer is a module with a function ``run(settings, progress) -> LayerResult``. It
is imported only when selected, so a layer may import optional competitors (the
MCP SDK, FastMCP) at its top and the rest of the command stays fast. Adding a
layer is one entry in LAYERS and one module; the layers run in the order listed,
the core without I/O first.
"""

from __future__ import annotations

import importlib
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    # Types only: every `mcp-core` command builds the bench parser from LAYERS,
    # and a server started per session should not load the timing harness.
    from .harness import CaseResult, Settings

__all__ = [
    "LAYERS",
    "Layer",
    "LayerResult",
    "Measurement",
    "Progress",
    "load",
    "not_importable",
    "optional_peers",
    "peer_client",
]

_T = TypeVar("_T")

Progress = Callable[[str], None]
"""Receives one human-readable progress line (the CLI prints it to stderr)."""


@dataclass(frozen=True)
class Measurement:
    """A figure that is not a rate: memory, mostly. Lower is better.

    Attributes:
        name: a short identifier, stable across versions.
        title: a one-line human description.
        unit: what the values count ("KiB per session").
        values: implementation label -> the figure.
        details: implementation label -> other figures of the same measurement.
        ratios: ratio label -> (numerator, denominator) labels; reported as
            numerator / denominator, so above 1 means the denominator uses less.
        ratio_note: how to read the ratios, printed above them.
    """

    name: str
    title: str
    unit: str
    values: dict[str, float]
    details: dict[str, dict[str, float]] = field(default_factory=dict)
    ratios: dict[str, tuple[str, str]] = field(default_factory=dict)
    ratio_note: str = "(above 1: mcp-core uses less)"

    def ratio_values(self) -> dict[str, float]:
        return {
            name: self.values[a] / self.values[b]
            for name, (a, b) in self.ratios.items()
            if a in self.values and b in self.values and self.values[b] > 0
        }

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "title": self.title,
            "unit": self.unit,
            "values": dict(self.values),
            "details": {label: dict(d) for label, d in self.details.items()},
            "ratios": self.ratio_values(),
        }


@dataclass
class LayerResult:
    """Everything a layer measured, and which implementations it had to leave out.

    Attributes:
        name: the layer's registry name.
        cases: one result per case, in the order they ran.
        measurements: figures that are not rates (memory).
        skipped: implementation label -> why it did not run (e.g. not installed).
    """

    name: str
    cases: list[CaseResult] = field(default_factory=list)
    measurements: list[Measurement] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "cases": [case.as_json() for case in self.cases],
            "measurements": [m.as_json() for m in self.measurements],
            "skipped": dict(self.skipped),
        }


class _LayerModule(Protocol):
    def run(self, settings: Settings, progress: Progress) -> LayerResult: ...


@dataclass(frozen=True)
class Layer:
    """A registry entry: the name ``--only`` takes, a summary, the module to import,
    whether a run without ``--only`` includes it (not when it repeats another layer's
    tables at more length), and, for a layer left out of ``--quick`` unless named, why."""

    name: str
    summary: str
    module: str
    by_default: bool = True
    not_quick: str = ""

    def run(self, settings: Settings, progress: Progress) -> LayerResult:
        module: _LayerModule = importlib.import_module(self.module)
        return module.run(settings, progress)


LAYERS: dict[str, Layer] = {
    layer.name: layer
    for layer in [
        Layer(
            name="codec",
            summary="JSON-RPC + MCP types, decode and encode round trips, no I/O",
            module="benchmarks.codec",
        ),
        Layer(
            name="session",
            summary="tools/call round trips through a client and a server session, no I/O",
            module="benchmarks.sessions",
        ),
        Layer(
            name="in-memory",
            summary="tools/call through the async runtime over in-memory pipes, asyncio and trio",
            module="benchmarks.inmemory",
        ),
        Layer(
            name="stdio",
            summary="tools/call to a server in a child process over stdio, asyncio and trio",
            module="benchmarks.stdio",
        ),
        Layer(
            name="http",
            summary="tools/call over loopback streamable HTTP, JSON and SSE answers, "
            "asyncio and trio",
            module="benchmarks.http",
        ),
        Layer(
            name="manager",
            summary="tools/call through a client manager and a gateway against a plain "
            "Client, in memory and stdio, asyncio and trio",
            module="benchmarks.manager",
        ),
        Layer(
            name="servers",
            summary="server only: one raw HTTP client drives each server in turn "
            "(ours both eras, h11 floor, the SDK, the TS SDK); server CPU per call",
            module="benchmarks.servers",
        ),
        Layer(
            name="servers-stdio",
            summary="server only, stdio alone: the servers layer's stdio tables in three "
            "times as many rounds, every server in turn each round (only with --only)",
            module="benchmarks.servers_stdio",
            by_default=False,
        ),
        Layer(
            name="curves",
            summary="how cost grows: tools/list by registry size, a call by message size "
            "(in memory, stdio, HTTP)",
            module="benchmarks.curves",
        ),
        Layer(
            name="memory",
            summary="resident memory of an HTTP server per idle legacy session (10,000 opened)",
            module="benchmarks.memory",
        ),
        Layer(
            name="workers",
            summary="tools/call through HAProxy to 1, 2 and 4 workers sharing state on "
            "Redis, against one worker in memory; CPU per call and Redis round trips",
            module="benchmarks.workers",
            not_quick="starts redis-server, HAProxy and up to 5 workers: measured in the "
            "full run (mcp-core bench) or by name (mcp-core bench --quick --only workers)",
        ),
    ]
}
"""Every layer by name, in the order ``mcp-core bench`` runs them."""


def load(name: str) -> Layer:
    """The layer called ``name``.

    Raises:
        KeyError: no such layer; the message lists the known ones.
    """
    try:
        return LAYERS[name]
    except KeyError:
        raise KeyError(f"unknown layer {name!r}; known: {', '.join(LAYERS)}") from None


def not_importable(exc: ImportError, package: str) -> str:
    """Why a peer is skipped: its package (from the ``bench`` extra) is missing."""
    name = exc.name or package
    return f"{name} is not importable ({exc}); install it with: pip install 'mcp-sansio[bench]'"


@asynccontextmanager
async def peer_client(
    client: AbstractAsyncContextManager[_T], label: str, progress: Progress
) -> AsyncIterator[_T]:
    """A competitor's connected client, whose failure to close once its runs are over
    is reported through ``progress`` and not raised: its figures stand, and the run
    goes on. (Under load, a peer's client may find its keep-alive connection closed
    by its server as it says goodbye: FastMCP's over HTTP, for one.) A failure while
    it is in use is raised as ever; ours are entered directly, so theirs is a bug."""
    entered = await client.__aenter__()
    try:
        yield entered
    except BaseException as exc:
        if not await client.__aexit__(type(exc), exc, exc.__traceback__):
            raise
        return
    try:
        await client.__aexit__(None, None, None)
    except Exception as exc:
        progress(f"{label}: its client did not close cleanly ({exc!r}); its figures stand")


def optional_peers(
    loaders: Iterable[tuple[str, Callable[[], Mapping[str, _T]], tuple[str, ...]]],
    skipped: dict[str, str],
) -> dict[str, _T]:
    """What each loader gives (``package``, ``loader``, the labels it gives), and in
    ``skipped`` why the labels of a loader whose package is missing are not there."""
    found: dict[str, _T] = {}
    for package, loader, labels in loaders:
        try:
            found.update(loader())
        except ImportError as exc:
            for label in labels:
                skipped[label] = not_importable(exc, package)
    return found
