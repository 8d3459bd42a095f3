"""The registry of benchmark layers that ``mcp-core bench`` runs.

A layer is a module with a function ``run(settings, progress) -> LayerResult``. It
is imported only when selected, so a layer may import optional competitors (the
MCP SDK, FastMCP) at its top and the rest of the command stays fast. Adding a
layer is one entry in LAYERS and one module; the layers run in the order listed,
the core without I/O first (STYLE.md section 10).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from .harness import CaseResult, Settings

__all__ = ["LAYERS", "Layer", "LayerResult", "Progress", "load"]

Progress = Callable[[str], None]
"""Receives one human-readable progress line (the CLI prints it to stderr)."""


@dataclass
class LayerResult:
    """Everything a layer measured, and which implementations it had to leave out.

    Attributes:
        name: the layer's registry name.
        cases: one result per case, in the order they ran.
        skipped: implementation label -> why it did not run (e.g. not installed).
    """

    name: str
    cases: list[CaseResult] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "cases": [case.as_json() for case in self.cases],
            "skipped": dict(self.skipped),
        }


class _LayerModule(Protocol):
    def run(self, settings: Settings, progress: Progress) -> LayerResult: ...


@dataclass(frozen=True)
class Layer:
    """A registry entry: the name ``--only`` takes, a summary, the module to import."""

    name: str
    summary: str
    module: str

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
