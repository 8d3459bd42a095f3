"""Server and client spans and the four duration metrics of the MCP conventions.

OpenTelemetry's semantic conventions for MCP (tests/spec/otel-mcp.md):

- a server span (kind SERVER) around the application answering each request, its
  parent the context the client put in ``params._meta`` ("Context propagation":
  the receiver extracts it and uses it as the remote parent), linked to the
  ambient context (an HTTP framework's span) when there is one;
- a client span (kind CLIENT) around each request a `Client` sends, whose context
  goes into that request's ``params._meta`` with the configured propagators;
- ``mcp.server.operation.duration`` / ``mcp.client.operation.duration`` per
  operation and ``mcp.server.session.duration`` / ``mcp.client.session.duration``
  per session, histograms in seconds with the advised bucket boundaries.

- a span per notification, sent (CLIENT) and received (SERVER), made by
  `transports.otel.notifications` on the sessions `observe` is given;
- the same pair, roles swapped, for a request the server sends its client
  (handshake era: ``sampling/createMessage``, ``elicitation/create``,
  ``roots/list``): the conventions' client span "is reported ... by the MCP
  server when server initiates the operation", the server span "by the MCP
  client when server initiates the operation", and each duration metric is
  named for the side that reports it, as observed on the sender
  (``mcp.client.operation.duration``) or on the receiver
  (``mcp.server.operation.duration``), whichever peer that is.

What the spans say comes from `mcp_core.session.telemetry` (method, target, request
id, revision) and the transport (session id, ``network.transport``, and on HTTP
the request's ``client.address`` and ``client.port``: `CLIENT_PEER`). No argument,
result, error message or credential goes on a span or a metric: an error is its
JSON-RPC code (``error.type`` and ``rpc.response.status_code``), or the class name
of what ended a client's request (``TimeoutError``, ``ConnectionClosed``). The one
exception is asked for: ``arguments=N`` puts a tool call's arguments on its spans
(``gen_ai.tool.call.arguments``, Opt-In in the conventions), JSON cut to N bytes.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any, Final

from opentelemetry import context as otel_context
from opentelemetry import propagate, trace
from opentelemetry.metrics import Histogram, Meter
from opentelemetry.propagators.textmap import TextMapPropagator
from opentelemetry.trace import Link, SpanKind, Status, StatusCode, Tracer

from mcp_core import McpError
from mcp_core.http.client import HttpClientEndpoint
from mcp_core.session import RequestReceived
from mcp_core.session.requests import with_meta
from mcp_core.session.telemetry import (
    ARGUMENTS,
    ERROR_TYPE,
    METRIC_KEYS,
    REQUEST_ID,
    STATUS_CODE,
    operation,
    result_error,
    tool_arguments,
    trace_carrier,
)
from mcp_core.types import LEGACY_REVISIONS
from mcp_core.wire import INTERNAL_ERROR, RequestId

from ..stdio_process import StdioProcess
from ..telemetry import CLIENT_PEER, Served, hooks
from .notifications import NotificationSpans

__all__ = ["ClientSpans", "ServerSpans"]

BUCKETS: Final = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300)
"""The advised ``ExplicitBucketBoundaries`` of all four duration metrics."""

SESSION_ID: Final = "mcp.session.id"
NETWORK_TRANSPORT: Final = "network.transport"
SERVER_ADDRESS: Final = "server.address"
SERVER_PORT: Final = "server.port"
CLIENT_ADDRESS: Final = "client.address"
CLIENT_PORT: Final = "client.port"
PROTOCOL_VERSION: Final = "mcp.protocol.version"
CANCELLED: Final = "cancelled"

_clock = time.perf_counter


def _histogram(meter: Meter, name: str, description: str) -> Histogram:
    return meter.create_histogram(
        name, unit="s", description=description, explicit_bucket_boundaries_advisory=BUCKETS
    )


def _metric_attributes(attributes: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in attributes.items() if key in METRIC_KEYS}


def _failed(span: trace.Span, attributes: dict[str, Any], error: str, code: int | None) -> None:
    attributes[ERROR_TYPE] = error
    if code is not None:
        attributes[STATUS_CODE] = str(code)
    # No description: an error's message may repeat an argument.
    span.set_status(Status(StatusCode.ERROR))


async def _observed(
    span: trace.Span,
    metric: dict[str, Any],
    token: object,
    durations: Histogram,
    call: Awaitable[Any],
    *,
    server: bool,
) -> Any:
    """Await ``call`` in ``span`` (made current by ``token``), then end the span
    and record the duration with the outcome: an MCP error is its code; another
    exception is -32603 on the server (what the client is told), its class name
    on the client; a cancellation is ``cancelled``."""
    started = _clock()
    try:
        result = await call
    except McpError as exc:
        _failed(span, metric, str(exc.code), exc.code)
        raise
    except BaseException as exc:
        if not isinstance(exc, Exception):  # cancelled: no answer goes out
            _failed(span, metric, CANCELLED, None)
        elif server:
            _failed(span, metric, str(INTERNAL_ERROR), INTERNAL_ERROR)
        else:
            _failed(span, metric, type(exc).__qualname__, None)
        raise
    else:
        error = result_error(result)
        if error is not None:
            _failed(span, metric, error, None)
        return result
    finally:
        elapsed = _clock() - started
        otel_context.detach(token)  # type: ignore[arg-type]
        for key in (ERROR_TYPE, STATUS_CODE):
            if key in metric:
                span.set_attribute(key, metric[key])
        span.end()
        durations.record(elapsed, metric)


class _Propagation:
    __slots__ = ("_propagator",)

    def __init__(self, propagator: TextMapPropagator | None) -> None:
        self._propagator = propagator

    def extract(self, carrier: dict[str, str]) -> otel_context.Context:
        if self._propagator is None:
            return propagate.extract(carrier)
        return self._propagator.extract(carrier)

    def inject(self, carrier: dict[str, str], ctx: otel_context.Context) -> None:
        if self._propagator is None:
            propagate.inject(carrier, context=ctx)
        else:
            self._propagator.inject(carrier, context=ctx)

    def remote(
        self, carrier: dict[str, str] | None
    ) -> tuple[otel_context.Context | None, list[Link] | None]:
        """The parent of a receiver's span: the context ``carrier`` (read from
        ``params._meta``) holds, with the ambient context (a transport's span)
        linked; without a carrier, the ambient context as the parent."""
        if carrier is None:
            return None, None
        ambient = trace.get_current_span().get_span_context()
        # The transport's context, linked (the conventions, "Context propagation").
        return self.extract(carrier), [Link(ambient)] if ambient.is_valid else None


_DESCRIPTIONS: Final = {
    "mcp.server.operation.duration": "MCP request duration as observed on the receiver, "
    "from the time it was received until the result is sent.",
    "mcp.server.session.duration": "The duration of the MCP session as observed on the MCP server.",
    "mcp.client.operation.duration": "The duration of the MCP request as observed on the "
    "sender, from the time it was sent until the response is received.",
    "mcp.client.session.duration": "The duration of the MCP session as observed on the MCP client.",
}


class _Spans:
    role = ""

    def __init__(
        self,
        tracer: Tracer,
        meter: Meter,
        propagator: TextMapPropagator | None = None,
        arguments: int | None = None,
    ) -> None:
        self._tracer = tracer
        self._propagation = _Propagation(propagator)
        #: Bytes of a tool call's arguments put on its span; None: none.
        self.arguments = arguments
        operations, sessions = (
            f"mcp.{self.role}.{what}.duration" for what in ("operation", "session")
        )
        self._operations = _histogram(meter, operations, _DESCRIPTIONS[operations])
        self._sessions = _histogram(meter, sessions, _DESCRIPTIONS[sessions])
        self._notifications = NotificationSpans(tracer, self._propagation)
        # The operations of the other role (a request the server sends, one the
        # client answers): the meter hands back the same instrument as the other
        # observer's, name and description alike.
        other = "client" if self.role == "server" else "server"
        swapped = f"mcp.{other}.operation.duration"
        self._swapped = _histogram(meter, swapped, _DESCRIPTIONS[swapped])

    async def _answer(
        self,
        name: str,
        attributes: dict[str, Any],
        params: Any,
        call: Awaitable[Any],
        durations: Histogram,
    ) -> Any:
        """Await ``call`` (answering a request whose ``params`` were received)
        in a span of kind SERVER, its parent the context in ``params._meta``."""
        parent, links = self._propagation.remote(trace_carrier(params))
        span = self._tracer.start_span(
            name, context=parent, kind=SpanKind.SERVER, attributes=attributes, links=links
        )
        token = otel_context.attach(trace.set_span_in_context(span, parent))
        metric = _metric_attributes(attributes)
        if NETWORK_TRANSPORT in attributes:
            metric[NETWORK_TRANSPORT] = attributes[NETWORK_TRANSPORT]
        return await _observed(span, metric, token, durations, call, server=True)

    async def _send(
        self,
        name: str,
        attributes: dict[str, Any],
        params: Any,
        send: Callable[..., Awaitable[Any]],
        durations: Histogram,
    ) -> Any:
        """Send a request with ``send(params, sent=fn)`` in a span of kind
        CLIENT (a child of the current context), its context put in the
        params' ``_meta``, until the answer comes."""
        span = self._tracer.start_span(name, kind=SpanKind.CLIENT, attributes=attributes)
        ctx = trace.set_span_in_context(span)
        carrier: dict[str, str] = {}
        self._propagation.inject(carrier, ctx)
        if carrier:  # replacing what relayed params carried from an earlier hop
            params = with_meta(params, carrier, override=True)

        def sent(request_id: RequestId) -> None:
            span.set_attribute(REQUEST_ID, str(request_id))

        metric = _metric_attributes(attributes)
        if NETWORK_TRANSPORT in attributes:
            metric[NETWORK_TRANSPORT] = attributes[NETWORK_TRANSPORT]
        token = otel_context.attach(ctx)
        return await _observed(
            span, metric, token, durations, send(params, sent=sent), server=False
        )


class ServerSpans(_Spans):
    """The server side: `transports.telemetry.ServerObserver` on OpenTelemetry."""

    role = "server"

    def __init__(
        self,
        tracer: Tracer,
        meter: Meter,
        propagator: TextMapPropagator | None = None,
        arguments: int | None = None,
    ) -> None:
        super().__init__(tracer, meter, propagator, arguments)
        self._open = meter.create_up_down_counter(
            "mcp_core.server.sessions", unit="{session}", description="Sessions open."
        )
        self._active = meter.create_up_down_counter(
            "mcp_core.server.requests.active",
            unit="{request}",
            description="Requests being served (handlers running).",
        )

    async def serve(self, event: RequestReceived, call: Awaitable[Any], where: Served) -> Any:
        name, attributes = operation(event.method, event.params, event.id, event.revision)
        if where.session_id is not None:
            attributes[SESSION_ID] = where.session_id
        if where.network_transport is not None:
            attributes[NETWORK_TRANSPORT] = where.network_transport
        if self.arguments is not None:
            _record_arguments(attributes, event.method, event.params, self.arguments)
        attributes.update(_from(where))
        # In flight: one series (labels would double the cost of a request's metrics).
        self._active.add(1)
        try:
            return await self._answer(name, attributes, event.params, call, self._operations)
        finally:
            self._active.add(-1)

    async def ask(
        self,
        method: str,
        params: Any,
        send: Callable[..., Awaitable[Any]],
        session: Any,
        where: Served,
    ) -> Any:
        name, attributes = operation(method, params, None, session.revision)
        attributes.update(_transport(where))
        if where.session_id is not None:
            attributes[SESSION_ID] = where.session_id
        return await self._send(name, attributes, params, send, self._swapped)

    def observe(self, session: Any, where: Served) -> None:
        # A session serving 2026-07-28 requests has no revision of its own (each
        # request carries one): its notifications are of the newest it serves.
        modern = [r for r in session.config.revisions if r not in LEGACY_REVISIONS]

        def facts(sending: bool) -> dict[str, Any]:
            found = _transport(where)
            revision = session.revision or (modern[-1] if modern else None)
            if revision is not None:
                found[PROTOCOL_VERSION] = revision
            if where.session_id is not None:
                found[SESSION_ID] = where.session_id
            if not sending:  # the span of the receiver, the conventions' server span
                found.update(_from(where))
            return found

        self._notifications.observe(session, facts, lambda: hooks.server is self, self._operations)

    def session_started(self, where: Served) -> Callable[[str | None], None]:
        started = _clock()
        # No attributes: the transport names itself only after the session began.
        self._open.add(1)

        def ended(error: str | None) -> None:
            self._open.add(-1)
            attributes = _transport(where)
            revision = getattr(getattr(where, "session", None), "revision", None)
            if revision:
                attributes[PROTOCOL_VERSION] = revision
            if error is not None:
                attributes[ERROR_TYPE] = error
            self._sessions.record(_clock() - started, attributes)

        return ended


def _record_arguments(attributes: dict[str, Any], method: str, params: Any, cap: int) -> None:
    value = tool_arguments(method, params, cap)
    if value is not None:
        attributes[ARGUMENTS] = value


def _peer(transport: Any) -> dict[str, Any]:
    # Where a Client talks to, by what its connector gave (Client.transport):
    # the HTTP endpoint (the server's address and port from its URL, and the
    # session's id once the server gave one) or the stdio child (a pipe).
    if isinstance(transport, HttpClientEndpoint):
        _, host, port = transport.origin
        found: dict[str, Any] = {NETWORK_TRANSPORT: "tcp", SERVER_ADDRESS: host, SERVER_PORT: port}
        if transport.session_id is not None:
            found[SESSION_ID] = transport.session_id
        return found
    if isinstance(transport, StdioProcess):
        return {NETWORK_TRANSPORT: "pipe"}
    return {}


def _from(where: Served) -> dict[str, Any]:
    # Where an HTTP request comes from (`CLIENT_PEER`, set by the HTTP service):
    # only on HTTP, so that a server in memory called from a handler of an HTTP
    # request (a gateway's upstream) does not take that request's client for its own.
    if where.network_transport != "tcp":
        return {}
    peer = CLIENT_PEER.get()
    if peer is None:
        return {}
    address, port = peer
    found: dict[str, Any] = {CLIENT_ADDRESS: address}
    if port is not None:
        found[CLIENT_PORT] = port
    return found


def _transport(where: Served) -> dict[str, Any]:
    transport = where.network_transport
    return {} if transport is None else {NETWORK_TRANSPORT: transport}


class ClientSpans(_Spans):
    """The client side: `transports.telemetry.ClientObserver` on OpenTelemetry."""

    role = "client"

    async def request(
        self, client: Any, method: str, params: Any, send: Callable[..., Awaitable[Any]]
    ) -> Any:
        name, attributes = operation(method, params, None, client.revision)
        attributes.update(_peer(client.transport))
        if self.arguments is not None:
            _record_arguments(attributes, method, params, self.arguments)
        return await self._send(name, attributes, params, send, self._operations)

    async def answer(self, client: Any, event: RequestReceived, call: Awaitable[Any]) -> Any:
        name, attributes = operation(event.method, event.params, event.id, client.revision)
        attributes.update(_peer(client.transport))
        # The receiver's span: the server's address is not where this came from.
        attributes.pop(SERVER_ADDRESS, None)
        attributes.pop(SERVER_PORT, None)
        return await self._answer(name, attributes, event.params, call, self._swapped)

    def observe(self, client: Any) -> None:
        def facts(sending: bool) -> dict[str, Any]:
            found = _peer(client.transport)
            if client.revision:
                found[PROTOCOL_VERSION] = client.revision
            if not sending:  # the receiver's span says nothing of a server's address
                found.pop(SERVER_ADDRESS, None)
                found.pop(SERVER_PORT, None)
            return found

        self._notifications.observe(
            client.session, facts, lambda: hooks.client is self, self._swapped
        )

    def session_started(self, client: Any) -> Callable[[str | None], None]:
        started = _clock()

        def ended(error: str | None) -> None:
            peer = _peer(client.transport)
            attributes: dict[str, Any] = {}
            if NETWORK_TRANSPORT in peer:
                attributes[NETWORK_TRANSPORT] = peer[NETWORK_TRANSPORT]
            if client.revision:
                attributes[PROTOCOL_VERSION] = client.revision
            if error is not None:
                attributes[ERROR_TYPE] = error
            self._sessions.record(_clock() - started, attributes)

        return ended
