"""Metrics of our own, beside the conventions' four (issue 29, item 2).

Each is named ``mcp_core.*`` and counted where it happens through
``transports.telemetry.hooks.meters`` (`Meters.add`), or read when collected
(`Meters.watch`: a gauge over live objects, such as the worker threads' queue).
The names are in `transports.telemetry`; their kinds, units and meanings here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Final

from opentelemetry.metrics import CallbackOptions, Meter, Observation

from .. import telemetry as names

__all__ = ["INSTRUMENTS", "OwnMeters"]

INSTRUMENTS: Final = {
    names.SSE_STREAMS: (
        "up_down",
        "{stream}",
        "SSE streams open, by stream: get (a session's GET stream), http+sse (a "
        "2024-11-05 HTTP+SSE session).",
    ),
    names.SESSIONS_ENDED: (
        "counter",
        "{session}",
        "HTTP sessions ended, by reason: deleted (by the client), expired (idle), "
        "evicted (to make room at the cap), closed (the server stopped).",
    ),
    names.REDIS_ROUND_TRIPS: (
        "counter",
        "{round_trip}",
        "Round trips to Redis by the shared state, by outcome (ok, failed).",
    ),
}
"""Name -> (kind, unit, description) of each counted metric."""


class OwnMeters:
    """`transports.telemetry.Meters` on an OpenTelemetry meter."""

    def __init__(self, meter: Meter) -> None:
        self._meter = meter
        self._instruments: dict[str, Any] = {}
        for name, (kind, unit, description) in INSTRUMENTS.items():
            make = meter.create_up_down_counter if kind == "up_down" else meter.create_counter
            self._instruments[name] = make(name, unit=unit, description=description)

    def add(self, name: str, value: int, attributes: dict[str, str] | None = None) -> None:
        self._instruments[name].add(value, attributes)

    def watch(
        self,
        name: str,
        unit: str,
        description: str,
        read: Callable[[], Iterable[tuple[int | float, dict[str, str]]]],
    ) -> None:
        """A gauge of ``name``: ``read()`` gives (value, attributes) pairs each
        time the metrics are collected."""

        def observe(options: CallbackOptions) -> Iterable[Observation]:
            return [Observation(value, attributes) for value, attributes in read()]

        self._meter.create_observable_gauge(
            name, callbacks=[observe], unit=unit, description=description
        )
