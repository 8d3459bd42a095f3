"""OpenTelemetry's SDK with in-memory exporters, installed for one test.

`Recorded` instruments the runtime (`transports.otel.instrument`) with a tracer
provider whose spans go to an `InMemorySpanExporter` and a meter provider read by
an `InMemoryMetricReader`, neither of them global; `uninstrument` on the way out.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

pytest.importorskip("opentelemetry.sdk")

from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import (
    InMemorySpanExporter,
)

from transports.otel import instrument, uninstrument


class Recorded:
    """What the runtime reported while instrumented."""

    def __init__(self) -> None:
        self.exporter = InMemorySpanExporter()
        self.tracer_provider = TracerProvider()
        self.tracer_provider.add_span_processor(SimpleSpanProcessor(self.exporter))
        self.reader = InMemoryMetricReader()
        self.meter_provider = MeterProvider(metric_readers=[self.reader])

    def spans(self) -> list[ReadableSpan]:
        return list(self.exporter.get_finished_spans())

    def named(self, name: str) -> list[ReadableSpan]:
        return [span for span in self.spans() if span.name == name]

    def metrics(self) -> dict[str, list[Any]]:
        """Metric name -> its data points, as collected now."""
        data = self.reader.get_metrics_data()
        found: dict[str, list[Any]] = {}
        if data is None:
            return found
        for resource in data.resource_metrics:
            for scope in resource.scope_metrics:
                for metric in scope.metrics:
                    found.setdefault(metric.name, []).extend(metric.data.data_points)
        return found


@contextmanager
def recorded(propagator: Any = None) -> Iterator[Recorded]:
    record = Recorded()
    instrument(
        tracer_provider=record.tracer_provider,
        meter_provider=record.meter_provider,
        propagator=propagator,
    )
    try:
        yield record
    finally:
        uninstrument()
        record.tracer_provider.shutdown()


def one_trace(spans: list[ReadableSpan]) -> int:
    """The trace id all ``spans`` share (asserted)."""
    ids = {span.context.trace_id for span in spans}
    assert len(ids) == 1, [(span.name, hex(span.context.trace_id)) for span in spans]
    return ids.pop()


def parent_of(span: ReadableSpan, spans: list[ReadableSpan]) -> ReadableSpan:
    assert span.parent is not None, span.name
    (found,) = [each for each in spans if each.context.span_id == span.parent.span_id]
    return found
