"""Telemetry on, for the instruction counts: ``MCP_CORE_BENCH_OTEL=1``.

`benchmarks.http_servers` and `benchmarks.stdio_server` call `maybe_instrument`
before serving: with the variable set, the runtime is instrumented
(`transports.otel.instrument`) with the SDK as a deployment would have it, a
tracer provider with a batch span processor and a meter provider, except that
the spans go to an exporter that drops them and the metrics are never
collected: what is counted is what each call costs the serving process (spans
made, attributes, propagation, histograms), not an exporter's encoding or I/O.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

__all__ = ["VARIABLE", "maybe_instrument"]

VARIABLE = "MCP_CORE_BENCH_OTEL"


def maybe_instrument() -> None:
    """Instrument this process when ``MCP_CORE_BENCH_OTEL`` is ``1``."""
    if os.environ.get(VARIABLE) != "1":
        return
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult

    from transports.otel import instrument

    class Dropped(SpanExporter):
        def export(self, spans: Sequence[Any]) -> SpanExportResult:
            return SpanExportResult.SUCCESS

    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(BatchSpanProcessor(Dropped()))
    meter_provider = MeterProvider(metric_readers=[InMemoryMetricReader()])
    instrument(tracer_provider=tracer_provider, meter_provider=meter_provider)
