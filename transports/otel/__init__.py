"""OpenTelemetry traces and metrics for mcp-core (the ``otel`` extra).

    from transports.otel import instrument
    instrument()            # the global providers (opentelemetry-sdk, or a distro)

From then on every server this process runs makes a span per request and every
`Client` a span per request, with the trace context carried in ``params._meta``,
as OpenTelemetry's semantic conventions for MCP say (tests/spec/otel-mcp.md),
and the four duration metrics beside metrics of our own (`transports.otel.meters`).
`uninstrument` stops it. Until `instrument` is called the runtime does nothing
more than read one attribute per request (`transports.telemetry.hooks`).

`configure` sets up the SDK from the standard ``OTEL_*`` variables (exporters to
OTLP or the console, a Prometheus scrape endpoint): what ``mcp-core serve --otel``
and ``--metrics`` do.
"""

from __future__ import annotations

from opentelemetry import metrics, trace
from opentelemetry.metrics import MeterProvider
from opentelemetry.propagators.textmap import TextMapPropagator
from opentelemetry.trace import TracerProvider

from mcp_core import __version__

from ..telemetry import hooks
from .gauges import watch_gauges
from .meters import OwnMeters
from .spans import ClientSpans, ServerSpans

__all__ = ["instrument", "uninstrument"]

SCOPE = "mcp-core"
"""The instrumentation scope of every span and metric."""


def instrument(
    *,
    tracer_provider: TracerProvider | None = None,
    meter_provider: MeterProvider | None = None,
    propagator: TextMapPropagator | None = None,
    record_arguments: int | None = None,
) -> None:
    """Trace and measure every server and client of this process from now on.

    Args:
        tracer_provider: where spans go; by default the global one.
        meter_provider: where metrics go; by default the global one.
        propagator: how trace context is put in and read from ``params._meta``;
            by default the global one (W3C trace context and baggage, unless
            ``OTEL_PROPAGATORS`` says otherwise).
        record_arguments: put each tool call's arguments on its spans, as JSON
            cut to this many bytes (``gen_ai.tool.call.arguments``, Opt-In in
            the conventions: arguments may hold what must not leave the
            process); None, the default, records none.

    Raises:
        ValueError: ``record_arguments`` is negative.
    """
    if record_arguments is not None and record_arguments < 0:
        raise ValueError(f"record_arguments={record_arguments}: a number of bytes, 0 or more")
    tracer = trace.get_tracer(SCOPE, __version__, tracer_provider=tracer_provider)
    meter = metrics.get_meter(SCOPE, __version__, meter_provider=meter_provider)
    own = OwnMeters(meter)
    watch_gauges(own)
    hooks.server = ServerSpans(tracer, meter, propagator, record_arguments)
    hooks.client = ClientSpans(tracer, meter, propagator, record_arguments)
    hooks.meters = own


def uninstrument() -> None:
    """Stop: the runtime goes back to doing nothing for telemetry."""
    hooks.server = None
    hooks.client = None
    hooks.meters = None
