"""Only the stdio tables of `benchmarks.servers`, in three times as many rounds.

    mcp-core bench --quick --only servers-stdio

The same servers and the same raw line writer as the ``servers`` layer's stdio
tables (ours in both eras and the line echo floor on each backend, the SDK's stdio
server, the TypeScript SDK's when node and npm are there), all started at once and
driven in turn, round after round, 1 and then 16 lines in flight: server CPU per
``tools/call``, the median of the rounds, with the fastest and slowest round
beside it. Shorter rounds, more of them: a change in the machine's load then
reaches every server alike, and one slow round moves no median.
"""

from __future__ import annotations

from typing import Final

from .harness import Settings
from .layers import LayerResult, Progress
from .servers import TS, run_stdio, ts_server

__all__ = ["run"]

ROUNDS_PER_RUN: Final = 3
"""Rounds per run of the settings (5 runs quick, 15 full)."""


def run(settings: Settings, progress: Progress) -> LayerResult:
    """Every stdio server, in rounds, at 1 and 16 lines in flight."""
    result = LayerResult(name="servers-stdio")
    ts_command, reason = ts_server()
    if ts_command is None:
        result.skipped[TS] = reason
    calls = 400 if settings.runs <= 5 else 1600
    rounds = ROUNDS_PER_RUN * max(3, settings.runs)
    run_stdio(settings, progress, ts_command, result, rounds=rounds, calls=calls)
    return result
