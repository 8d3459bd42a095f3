"""What telemetry may record of an MCP operation, as facts: no I/O, no tracer.

OpenTelemetry's semantic conventions for MCP (`docs/gen-ai/mcp.md` of the
semantic-conventions-genai repository, status Development; the text followed is
vendored in tests/spec/otel-mcp.md) name a span ``{mcp.method.name} {target}``, the
target being the tool or prompt name, and give its attributes. Which method carries
which target is protocol knowledge, so it lives here; `transports.otel` makes the
spans and metrics from these facts.

Only low-cardinality facts that identify the operation are taken: the method, the
tool or prompt name, the resource URI (without userinfo or query, which can carry a
credential or an argument), the request id and the revision. An argument value,
a result or a credential never is, unless the application asks for a tool call's
arguments (`tool_arguments`: the conventions' Opt-In ``gen_ai.tool.call.arguments``,
cut to a size it chooses). Trace context rides in ``params._meta`` under the
unprefixed W3C keys (the conventions, "Context propagation"; SEP-414).
"""

from __future__ import annotations

from typing import Any, Final
from urllib.parse import urlsplit, urlunsplit

import msgspec

from ..types.server import CallToolResult
from ..wire.jsonrpc import RequestId
from .base import BaseSession

__all__ = [
    "ANSWERED_BY_SESSION",
    "ERROR_TYPE",
    "METHOD",
    "METRIC_KEYS",
    "TRACE_KEYS",
    "operation",
    "readable",
    "result_error",
    "tool_arguments",
    "trace_carrier",
]

# Attribute names of the conventions (tables "Client" and "Server" of mcp.md).
METHOD: Final = "mcp.method.name"
TOOL: Final = "gen_ai.tool.name"
PROMPT: Final = "gen_ai.prompt.name"
OPERATION: Final = "gen_ai.operation.name"
RESOURCE_URI: Final = "mcp.resource.uri"
REQUEST_ID: Final = "jsonrpc.request.id"
PROTOCOL_VERSION: Final = "mcp.protocol.version"
ERROR_TYPE: Final = "error.type"
STATUS_CODE: Final = "rpc.response.status_code"
ARGUMENTS: Final = "gen_ai.tool.call.arguments"
"""Opt-In: "Parameters passed to the tool call. (This attribute may contain
sensitive information.)"; on a span, a JSON string when structured values are
not supported (note [13] of the conventions' tables)."""

TRACE_KEYS: Final = ("traceparent", "tracestate", "baggage")
"""The `_meta` keys trace context travels under, unprefixed (SEP-414)."""

METRIC_KEYS: Final = frozenset(
    {METHOD, TOOL, PROMPT, OPERATION, PROTOCOL_VERSION, ERROR_TYPE, STATUS_CODE}
)
"""The operation attributes that go on the duration metrics too: the resource URI
is Opt-In there, and a request id is one value per request."""

ANSWERED_BY_SESSION: Final = BaseSession._answered_at_once
"""The requests a session answers itself the moment they arrive (``ping``: 2025-11-25
basic/utilities/ping.mdx, "The receiver MUST respond promptly"): no
RequestReceived reaches the application, so their server span is made where the
session takes the message."""

# method -> (the params member naming the target, its attribute)
_TARGETS: Final = {
    "tools/call": ("name", TOOL),
    "prompts/get": ("name", PROMPT),
}
# Note [4] of the conventions' tables: the requests and the notification that
# carry a resource URI.
_URI_METHODS: Final = frozenset(
    {
        "resources/read",
        "resources/subscribe",
        "resources/unsubscribe",
        "notifications/resources/updated",
    }
)
_TOOL_CALL: Final = "tools/call"


class _Facts(msgspec.Struct):
    # What telemetry reads of params still in their JSON (a notification as it
    # arrives): the target and the trace context, nothing else.
    name: Any = None
    uri: Any = None
    meta: Any = msgspec.field(default=None, name="_meta")


_facts = msgspec.json.Decoder(_Facts)


def readable(params: Any) -> Any:
    """``params``, or what telemetry reads of it (a dict of its ``name``, ``uri``
    and ``_meta``) when it is still JSON (msgspec.Raw), as a notification's are
    on arrival; None when that JSON is not an object. Read once, for both
    `operation` and `trace_carrier`."""
    if type(params) is not msgspec.Raw:
        return params
    try:
        facts = _facts.decode(params)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    return {"name": facts.name, "uri": facts.uri, "_meta": facts.meta}


def _member(params: Any, name: str) -> Any:
    if isinstance(params, dict):
        return params.get(name)
    return getattr(params, name, None)


def _safe_uri(uri: str) -> str:
    # userinfo may be a credential, a query an argument: neither is kept.
    try:
        parts = urlsplit(uri)
    except ValueError:
        return uri.split("?", 1)[0].rsplit("@", 1)[-1]
    netloc = parts.netloc.rsplit("@", 1)[-1]
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def operation(
    method: str, params: Any, request_id: RequestId | None, revision: str | None
) -> tuple[str, dict[str, str]]:
    """The span name and the attributes of one request or notification.

    Args:
        method: the MCP method.
        params: its params (an MCP Struct, a dict, or still JSON), read for the
            target only.
        request_id: the JSON-RPC id (None for a notification).
        revision: the protocol revision it is served or sent under, if known.
    """
    attributes = {METHOD: method}
    name = method
    params = readable(params)
    target = _TARGETS.get(method)
    if target is not None:
        value = _member(params, target[0])
        if type(value) is str:
            attributes[target[1]] = value
            name = f"{method} {value}"
        if method == _TOOL_CALL:
            attributes[OPERATION] = "execute_tool"
    elif method in _URI_METHODS:
        uri = _member(params, "uri")
        if type(uri) is str:
            attributes[RESOURCE_URI] = _safe_uri(uri)
    if request_id is not None:
        attributes[REQUEST_ID] = str(request_id)
    if revision:
        attributes[PROTOCOL_VERSION] = revision
    return name, attributes


def tool_arguments(method: str, params: Any, cap: int) -> str | None:
    """The arguments of a ``tools/call`` as JSON, cut to ``cap`` bytes (at a
    character's boundary), or None for another method or a call without any.

    Only what the peer put in ``params.arguments`` is taken: never ``_meta``
    (trace context, a client's own keys) nor a header of the transport.
    """
    if method != _TOOL_CALL:
        return None
    arguments = _member(params, "arguments")
    if not isinstance(arguments, dict):
        return None
    try:
        data = msgspec.json.encode(arguments)
    except (TypeError, ValueError, OverflowError):
        return None
    if len(data) > cap:
        data = data[:cap]
    return data.decode("utf-8", "ignore")


def result_error(result: Any) -> str | None:
    """The ``error.type`` of a result that reports a failure in its payload: a
    ``CallToolResult`` with ``isError`` is ``tool_error`` (the conventions, note
    [1] of ``error.type``)."""
    if type(result) is CallToolResult:
        return "tool_error" if result.is_error is True else None
    if isinstance(result, dict) and result.get("isError") is True:
        return "tool_error"
    return None


def trace_carrier(params: Any) -> dict[str, str] | None:
    """The trace context keys of ``params._meta``, if it has any (``params``: an
    MCP Struct, a dict, or still JSON)."""
    params = readable(params)
    meta = _member(params, "meta") if not isinstance(params, dict) else params.get("_meta")
    if not meta or not isinstance(meta, dict):
        return None
    carrier = {key: value for key in TRACE_KEYS if type(value := meta.get(key)) is str}
    return carrier or None
