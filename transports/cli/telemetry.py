"""``--otel`` and ``--metrics`` of ``mcp-core serve`` and ``gateway``.

``--otel`` traces and measures the server with OpenTelemetry, exporting as the
standard ``OTEL_*`` variables say (OTLP by default, or the console: see
`transports.otel.setup`); ``--metrics [HOST:]PORT`` serves the metrics for a
Prometheus scrape at ``http://HOST:PORT/metrics`` (HOST 127.0.0.1 by default),
on a port of its own. Either needs the ``otel`` extra. With ``--workers N``,
worker n serves its scrape on PORT+n, as it serves MCP on the MCP port plus n.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Iterator
from typing import Any

__all__ = ["add_telemetry_arguments", "metrics_address", "start_telemetry", "telemetry"]


def metrics_address(text: str) -> tuple[str, int]:
    """``[HOST:]PORT`` -> (host, port); 127.0.0.1 when no host is given."""
    host, _, port = text.rpartition(":")
    number = int(port)
    if not 0 <= number <= 65535:
        raise ValueError(f"port {number} is out of range")
    return (host.strip("[]") or "127.0.0.1", number)


DEFAULT_ARGUMENT_BYTES = 1024
"""Bytes ``--otel-record-arguments`` records when it names none: enough for most
calls' arguments, too few to ship a document."""


def argument_bytes(text: str) -> int:
    """``BYTES`` of ``--otel-record-arguments``: 0 or more."""
    number = int(text)
    if number < 0:
        raise ValueError(f"{number} bytes")
    return number


def add_telemetry_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--otel",
        action="store_true",
        help="trace and measure with OpenTelemetry (the otel extra), exporting as the "
        "OTEL_* variables say: OTEL_TRACES_EXPORTER / OTEL_METRICS_EXPORTER = otlp "
        "(default; OTEL_EXPORTER_OTLP_ENDPOINT) | console (to stderr) | none",
    )
    parser.add_argument(
        "--metrics",
        metavar="[HOST:]PORT",
        type=metrics_address,
        help="serve the metrics for a Prometheus scrape at http://HOST:PORT/metrics "
        "(HOST 127.0.0.1 by default), on a port of its own (the otel extra)",
    )
    parser.add_argument(
        "--otel-record-arguments",
        metavar="BYTES",
        nargs="?",
        const=DEFAULT_ARGUMENT_BYTES,
        type=argument_bytes,
        help="with --otel, put each tool call's arguments on its span "
        "(gen_ai.tool.call.arguments), as JSON cut to BYTES "
        f"(default {DEFAULT_ARGUMENT_BYTES}); off unless given: arguments may be secrets",
    )


def start_telemetry(args: argparse.Namespace, service_name: str) -> Any:
    """Set up what ``--otel`` and ``--metrics`` ask for; returns what to shut
    down on the way out (None when neither was given).

    Raises:
        SystemExit: the extra is missing, a variable is wrong, or the scrape
            endpoint cannot listen (said on stderr, status 2).
    """
    if not args.otel and args.metrics is None:
        return None
    try:
        from ..otel.setup import configure
    except ImportError as exc:
        print(
            f"mcp-core: error: --otel and --metrics need the otel extra "
            f"(pip install 'mcp-sansio[otel]'): {exc}",
            file=sys.stderr,
        )
        raise SystemExit(2) from None
    try:
        telemetry = configure(
            traces=args.otel,
            metrics=args.otel,
            scrape=args.metrics,
            service_name=service_name,
            record_arguments=getattr(args, "otel_record_arguments", None),
        )
    except (ValueError, OSError) as exc:
        print(f"mcp-core: error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    if telemetry.scrape is not None:
        host, port = telemetry.scrape
        print(f"mcp-core: metrics on http://{host}:{port}/metrics", file=sys.stderr, flush=True)
    return telemetry


@contextlib.contextmanager
def telemetry(args: argparse.Namespace, service_name: str) -> Iterator[None]:
    """`start_telemetry` around serving; flushed and shut down after."""
    running = start_telemetry(args, service_name)
    try:
        yield
    finally:
        if running is not None:
            running.shutdown()
