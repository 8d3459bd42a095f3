"""Spans of the notifications a session sends and receives.

OpenTelemetry's semantic conventions for MCP (tests/spec/otel-mcp.md) give a
notification the spans a request has: the client span "is reported by the MCP
client when it initiates the request or notification or by the MCP server when
server initiates the operation", the server span "by the MCP server when client
initiates the request (or notification) or by the MCP client when server
initiates the operation". So each notification gets a span of kind CLIENT where
it is sent (a server's progress, log message or list_changed too) and one of kind
SERVER where it is received, named ``{mcp.method.name}`` (no notification names
a tool or a prompt; ``notifications/resources/updated`` carries
``mcp.resource.uri``), with the session's attributes. Trace context goes in the
notification's ``params._meta`` ("injecting it into the MCP request
``params._meta`` property bag when creating a request or notification"); the
receiver extracts it as the remote parent and links the ambient context.

Every notification is recorded, progress included: the conventions leave no
room for sampling some out, and a span costs little when no exporter takes it.
The sender's span ends once the notification is handed to the transport, the
receiver's once the session has taken it: JSON-RPC has no answer to a
notification to wait for, so neither records an operation duration.

The same wrapper gives a request the session answers itself (``ping``, both
ways: `ANSWERED_BY_SESSION`) its receiver's span (kind SERVER, its parent from
``params._meta``) and ``mcp.server.operation.duration``: no application call
exists to observe, the answer is queued before ``receive_message`` returns.

The spans are made by wrapping the session's own ``messages_to_send`` and
``receive_message`` (every message of every transport passes there), on the
session object, when it is made while telemetry is on: a session made while it
is off has nothing to skip.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.metrics import Histogram
from opentelemetry.trace import SpanKind, Tracer

from mcp_core.session.requests import with_meta
from mcp_core.session.telemetry import (
    ANSWERED_BY_SESSION,
    METRIC_KEYS,
    operation,
    readable,
    trace_carrier,
)
from mcp_core.wire import Message, Notification, Request

if TYPE_CHECKING:
    from .spans import _Propagation

__all__ = ["Facts", "NotificationSpans"]

Facts = Callable[[bool], dict[str, Any]]
"""``facts(sending)``: the attributes of where the session is (its revision, its
transport, its session id, the peer's address) for a notification sent, or
received."""


_METRIC_KEYS: Final = METRIC_KEYS | {"network.transport"}


def _spanned(message: Message) -> Notification | Request | None:
    # What gets a span where it is received: a notification, or a request the
    # session answers itself (the others get theirs where the application answers).
    if type(message) is Notification:
        return message
    if type(message) is Request and message.method in ANSWERED_BY_SESSION:
        return message
    return None


class NotificationSpans:
    """Makes the spans of the notifications of the sessions it `observe` s."""

    __slots__ = ("_propagation", "_tracer")

    def __init__(self, tracer: Tracer, propagation: _Propagation) -> None:
        self._tracer = tracer
        self._propagation = propagation

    def observe(
        self,
        session: Any,
        facts: Facts,
        installed: Callable[[], bool],
        durations: Histogram,
    ) -> None:
        """Give every notification ``session`` sends or receives from now on its
        span, and each request it answers itself its span and its duration in
        ``durations`` (what else it sends or receives passes untouched), while
        ``installed()`` (the observer has not been uninstalled)."""
        sent = session.messages_to_send
        received = session.receive_message

        def messages_to_send() -> list[Message]:
            out: list[Message] = sent()
            if not out or not installed():
                return out
            for index, message in enumerate(out):
                if type(message) is Notification:
                    out[index] = self._sent(message, facts(True))
            return out

        def receive_message(message: Message, now: float = 0.0) -> Any:
            spanned = _spanned(message)
            if spanned is None or not installed():
                return received(message, now)
            span, attributes = self._received(spanned, facts(False))
            token = otel_context.attach(trace.set_span_in_context(span))
            started = time.perf_counter()
            try:
                return received(message, now)
            finally:
                otel_context.detach(token)
                span.end()
                if type(spanned) is Request:  # answered by now: its duration
                    metric = {k: v for k, v in attributes.items() if k in _METRIC_KEYS}
                    durations.record(time.perf_counter() - started, metric)

        session.messages_to_send = messages_to_send
        session.receive_message = receive_message

    def _sent(self, message: Notification, where: dict[str, Any]) -> Notification:
        # The span's parent is the context the notification is sent in: a
        # handler's progress nests under the server span of its request.
        name, attributes = operation(message.method, message.params, None, None)
        attributes.update(where)
        span = self._tracer.start_span(name, kind=SpanKind.CLIENT, attributes=attributes)
        carrier: dict[str, str] = {}
        self._propagation.inject(carrier, trace.set_span_in_context(span))
        span.end()
        if not carrier:
            return message
        try:
            params = with_meta(message.params, carrier, override=True)
        except TypeError:  # params of a shape without _meta (JSON already): as they are
            return message
        return Notification(method=message.method, params=params)

    def _received(
        self, message: Notification | Request, where: dict[str, Any]
    ) -> tuple[trace.Span, dict[str, Any]]:
        params = readable(message.params)
        request_id = message.id if type(message) is Request else None
        name, attributes = operation(message.method, params, request_id, None)
        attributes.update(where)
        parent, links = self._propagation.remote(trace_carrier(params))
        span = self._tracer.start_span(
            name, context=parent, kind=SpanKind.SERVER, attributes=attributes, links=links
        )
        return span, attributes
