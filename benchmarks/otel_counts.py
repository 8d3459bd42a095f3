"""Instructions telemetry adds per request when on, counted by valgrind's callgrind.

The server observer (`transports.otel.spans.ServerSpans.serve`) around a handler
that returns at once, the client observer (`ClientSpans.request`) around a send
that returns at once, the two sides of a request the server sends its client
(``ServerSpans.ask`` around a send, ``ClientSpans.answer`` around a callback),
and a session's notification, sent (a progress
notification out of ``messages_to_send``) or heard (one with a traceparent, as
JSON, into ``receive_message``), on a stand-in session that `ServerSpans.observe`
wrapped, with the SDK as `benchmarks.otel_on` sets it up (a
batch span processor whose exporter drops the spans, metrics never collected),
run ``--base`` and ``--base + --extra`` times in a process of its own under
``valgrind --tool=callgrind``; the difference of the totals over ``--extra`` is
one request's cost. ``spans`` and ``metrics`` count each half alone (the other
provider a no-op one). No I/O, no loop beyond one coroutine driven by hand.

    PYTHONHASHSEED=0 python -m benchmarks.otel_counts [--base 200] [--extra 2000]
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
from collections.abc import Coroutine, Sequence
from typing import Any, Final

from .codec_counts import callgrind_total

_CASES: Final = (
    "server",
    "server spans",
    "server metrics",
    "client",
    "notification sent",
    "notification heard",
    "server asks",
    "client answers",
)


def _drive(coroutine: Coroutine[Any, Any, Any]) -> None:
    # Nothing in it waits: one send runs it to the end.
    try:
        coroutine.send(None)
    except StopIteration:
        return
    raise RuntimeError("the observed call waited")


def _child(case: str, count: int) -> None:
    import msgspec
    from opentelemetry.metrics import NoOpMeterProvider
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import (
        BatchSpanProcessor,
        SpanExporter,
        SpanExportResult,
    )
    from opentelemetry.trace import NoOpTracerProvider

    from mcp_core.session import RequestReceived
    from mcp_core.types import CallToolRequestParams
    from transports.otel.spans import ClientSpans, ServerSpans

    class Dropped(SpanExporter):
        def export(self, spans: Sequence[Any]) -> SpanExportResult:
            return SpanExportResult.SUCCESS

    tracer_provider: Any = TracerProvider()
    tracer_provider.add_span_processor(BatchSpanProcessor(Dropped()))
    meter_provider: Any = MeterProvider(metric_readers=[InMemoryMetricReader()])
    if case == "server metrics":
        tracer_provider = NoOpTracerProvider()
    elif case == "server spans":
        meter_provider = NoOpMeterProvider()
    tracer = tracer_provider.get_tracer("bench")
    meter = meter_provider.get_meter("bench")
    parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
    params = CallToolRequestParams(
        name="echo", arguments={"text": "x"}, meta={"traceparent": parent}
    )
    event = RequestReceived(id=1, method="tools/call", params=params, revision="2025-11-25")

    class Where:
        session_id: str | None = "9f1c2e"
        network_transport: str | None = "tcp"

    class Peer:
        revision = "2025-11-25"
        transport = None  # in memory: no address

    async def answered(*args: Any, **kwargs: Any) -> str:
        return "ok"

    if case.startswith("notification"):
        from mcp_core.types.base import ProgressNotificationParams
        from mcp_core.wire import Notification

        sent = Notification(
            method="notifications/progress",
            params=ProgressNotificationParams(progress_token=1, progress=0.5),
        )
        heard = Notification(
            method="notifications/progress",
            params=msgspec.Raw(
                b'{"progressToken":1,"progress":0.5,"_meta":{"traceparent":"%s"}}' % parent.encode()
            ),
        )

        class Config:
            revisions = ("2025-11-25",)

        class Session:
            revision = "2025-11-25"
            config = Config()

            def messages_to_send(self) -> list[Any]:
                return [sent]

            def receive_message(self, message: Any, now: float = 0.0) -> list[Any]:
                return []

        from transports.telemetry import hooks

        session = Session()
        hooks.server = observer = ServerSpans(tracer, meter)  # installed: it observes
        observer.observe(session, Where())
        for _ in range(count):
            if case == "notification sent":
                session.messages_to_send()
            else:
                session.receive_message(heard)
    elif case in ("server asks", "client answers"):
        # A request the server sends its client (a handler sampling): the
        # server's CLIENT span around the send, the client's SERVER span around
        # its callback, the request's params carrying a traceparent.
        from mcp_core.types import CreateMessageRequestParams, SamplingMessage, TextContent

        asked = CreateMessageRequestParams(
            messages=[SamplingMessage(role="user", content=TextContent(text="x"))],
            max_tokens=10,
        )
        if case == "server asks":
            server = ServerSpans(tracer, meter)
            where = Where()
            for _ in range(count):
                _drive(server.ask("sampling/createMessage", asked, answered, Peer(), where))
        else:
            client = ClientSpans(tracer, meter)
            heard_request = RequestReceived(
                id=1,
                method="sampling/createMessage",
                params=msgspec.structs.replace(asked, meta={"traceparent": parent}),
                revision="2025-11-25",
            )
            for _ in range(count):
                _drive(client.answer(Peer(), heard_request, answered()))
    elif case == "client":
        client = ClientSpans(tracer, meter)
        for _ in range(count):
            _drive(client.request(Peer(), "tools/call", params, answered))
    else:
        server = ServerSpans(tracer, meter)
        where = Where()
        for _ in range(count):
            _drive(server.serve(event, answered(), where))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=int, default=200)
    parser.add_argument("--extra", type=int, default=2000)
    parser.add_argument("--only", choices=_CASES, action="append")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(args.child[0], int(args.child[1]))
        return
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed")
    with tempfile.TemporaryDirectory() as scratch:
        for case in args.only or _CASES:
            runs = [
                callgrind_total("benchmarks.otel_counts", ["--child", case, str(n)], scratch)
                for n in (args.base, args.base + args.extra)
            ]
            per_call = (runs[1] - runs[0]) / args.extra
            print(f"{case:15} {per_call:10,.0f} instructions per request", flush=True)


if __name__ == "__main__":
    main()
