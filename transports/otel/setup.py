"""OpenTelemetry's SDK set up from the standard ``OTEL_*`` variables, and the
Prometheus scrape endpoint: what ``mcp-core serve --otel --metrics`` does.

The variables are OpenTelemetry's own, with their meanings in the SDK and its
exporters (the same the ``opentelemetry-instrument`` distro reads):

- ``OTEL_TRACES_EXPORTER``: ``otlp`` (the default), ``console`` or ``none``;
- ``OTEL_METRICS_EXPORTER``: ``otlp`` (the default), ``console``, ``prometheus``
  (the scrape endpoint alone) or ``none``;
- ``OTEL_EXPORTER_OTLP_ENDPOINT``, ``OTEL_EXPORTER_OTLP_HEADERS``,
  ``OTEL_EXPORTER_OTLP_PROTOCOL`` (``http/protobuf``, the exporter shipped with
  the extra; ``grpc`` needs ``opentelemetry-exporter-otlp-proto-grpc``) and the
  per-signal forms: read by the OTLP exporters themselves;
- ``OTEL_SERVICE_NAME``, ``OTEL_RESOURCE_ATTRIBUTES``: the resource;
- ``OTEL_PROPAGATORS``, ``OTEL_METRIC_EXPORT_INTERVAL``, ``OTEL_BSP_*``: read by
  the SDK.

The console exporters write to stderr: a stdio server's stdout is its protocol.

The scrape endpoint is OpenTelemetry's Prometheus exporter
(``opentelemetry-exporter-prometheus``): the same instruments feed OTLP and the
scrape, and the text format and the HTTP endpoint are the official Prometheus
client's (``prometheus_client``, which the exporter builds on), served on a port
of its own so that the MCP port never answers with metrics.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable
from typing import Any

from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import MetricReader, PeriodicExportingMetricReader
from opentelemetry.sdk.resources import SERVICE_NAME, Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter
from opentelemetry.trace import NoOpTracerProvider

from . import instrument

__all__ = ["Telemetry", "configure"]


class Telemetry:
    """What `configure` set up: the providers and the scrape endpoint."""

    def __init__(
        self,
        tracer_provider: TracerProvider | None,
        meter_provider: MeterProvider,
        scrape: tuple[str, int] | None,
        stop_scrape: Callable[[], None] | None,
    ) -> None:
        self.tracer_provider = tracer_provider
        self.meter_provider = meter_provider
        #: The address the scrape endpoint listens on (its port when 0 was asked).
        self.scrape = scrape
        self._stop_scrape = stop_scrape

    def shutdown(self) -> None:
        """Flush and stop the exporters, close the scrape endpoint."""
        if self._stop_scrape is not None:
            self._stop_scrape()
        if self.tracer_provider is not None:
            self.tracer_provider.shutdown()
        self.meter_provider.shutdown()


def _choice(variable: str, allowed: tuple[str, ...]) -> str:
    value = os.environ.get(variable, "otlp").strip().lower() or "otlp"
    if value not in allowed:
        raise ValueError(f"{variable}={value!r}: expected one of {', '.join(allowed)}")
    return value


def _grpc() -> bool:
    for variable in ("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"):
        if variable in os.environ:
            return os.environ[variable].strip() == "grpc"
    return False


def _otlp(signal: str) -> Any:
    # The OTLP exporter of OTEL_EXPORTER_OTLP_PROTOCOL: http/protobuf (the extra's)
    # or grpc (opentelemetry-exporter-otlp-proto-grpc, installed by the user).
    protocol = "grpc" if _grpc() else "http"
    module = importlib.import_module(
        f"opentelemetry.exporter.otlp.proto.{protocol}.{signal}_exporter"
    )
    return getattr(module, "OTLPSpanExporter" if signal == "trace" else "OTLPMetricExporter")()


def _span_exporter(kind: str) -> SpanExporter:
    if kind == "console":
        from opentelemetry.sdk.trace.export import ConsoleSpanExporter

        return ConsoleSpanExporter(out=sys.stderr)
    exporter: SpanExporter = _otlp("trace")
    return exporter


def _metric_reader(kind: str) -> MetricReader:
    if kind == "console":
        from opentelemetry.sdk.metrics.export import ConsoleMetricExporter

        return PeriodicExportingMetricReader(ConsoleMetricExporter(out=sys.stderr))
    return PeriodicExportingMetricReader(_otlp("metric"))


def _serve_scrape(
    readers: list[MetricReader], host: str, port: int
) -> tuple[tuple[str, int], Callable[[], None]]:
    from opentelemetry.exporter.prometheus import PrometheusMetricReader
    from prometheus_client import CollectorRegistry, start_http_server

    registry = CollectorRegistry()
    readers.append(PrometheusMetricReader(registry=registry))
    server, thread = start_http_server(port, addr=host, registry=registry)
    bound = server.server_address

    def stop() -> None:
        server.shutdown()
        server.server_close()
        thread.join(5)

    return (str(bound[0]), int(bound[1])), stop


def configure(
    *,
    traces: bool = True,
    metrics: bool = True,
    scrape: tuple[str, int] | None = None,
    service_name: str = "mcp-core",
    record_arguments: int | None = None,
) -> Telemetry:
    """Set up the SDK from the ``OTEL_*`` variables and `instrument` with it.

    Args:
        traces: export spans (``OTEL_TRACES_EXPORTER``); False makes none.
        metrics: export metrics (``OTEL_METRICS_EXPORTER``) besides the scrape.
        scrape: (host, port) of a Prometheus scrape endpoint (``/metrics``; port
            0 picks one), or None.
        service_name: ``service.name`` unless ``OTEL_SERVICE_NAME`` or
            ``OTEL_RESOURCE_ATTRIBUTES`` say otherwise.
        record_arguments: see `instrument` (off by default).

    Raises:
        ValueError: an exporter variable names an exporter we do not have, or
            ``record_arguments`` is negative.
        OSError: the scrape endpoint cannot listen.
    """
    if record_arguments is not None and record_arguments < 0:
        raise ValueError(f"record_arguments={record_arguments}: a number of bytes, 0 or more")
    resource = Resource.create({SERVICE_NAME: service_name}) if service_name else Resource.create()
    if "OTEL_SERVICE_NAME" in os.environ or "service.name=" in os.environ.get(
        "OTEL_RESOURCE_ATTRIBUTES", ""
    ):
        resource = Resource.create()
    tracer_provider: TracerProvider | None = None
    if traces:
        kind = _choice("OTEL_TRACES_EXPORTER", ("otlp", "console", "none"))
        if kind != "none":
            tracer_provider = TracerProvider(resource=resource)
            tracer_provider.add_span_processor(BatchSpanProcessor(_span_exporter(kind)))
    readers: list[MetricReader] = []
    if metrics:
        kind = _choice("OTEL_METRICS_EXPORTER", ("otlp", "console", "prometheus", "none"))
        if kind in ("otlp", "console"):
            readers.append(_metric_reader(kind))
    bound: tuple[str, int] | None = None
    stop: Callable[[], None] | None = None
    if scrape is not None:
        bound, stop = _serve_scrape(readers, *scrape)
    meter_provider = MeterProvider(resource=resource, metric_readers=readers)
    instrument(
        tracer_provider=tracer_provider or NoOpTracerProvider(),
        meter_provider=meter_provider,
        record_arguments=record_arguments,
    )
    return Telemetry(tracer_provider, meter_provider, bound, stop)
