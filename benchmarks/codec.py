"""The codec layer: one message in as bytes, typed, and back out as bytes.

Each operation is what a peer does with a message it receives and then sends on:
parse the bytes, validate them into the method's typed params or result, and
serialise a message carrying that typed value. No session, no I/O.

Implementations, side by side in the same runs:

* ``mcp-core``: one pass (``message_decoder``, the session's, keyed on the method;
  ``OnePassResponseDecoder`` for a result of a known type), then decode_params /
  decode_result as the session calls them (they hand the typed value back), then
  encode_message of a new Request/Response carrying the typed value.
* ``msgspec typed``: a bare msgspec pipeline with one Struct for the whole
  message whose params/result field uses mcp_core's own MCP types, so the gap to
  ``mcp-core`` is the envelope and codec overhead alone (limits, Raw, two stages).
* ``msgspec untyped``: msgspec to and from plain dicts: a floor, validating nothing.
* ``mcp SDK (pydantic)``: the official SDK's models (``mcp_types``), read the way
  its transports and sessions do: ``jsonrpc_message_adapter.validate_json`` for
  the envelope, ``model_validate`` of the version-free params/result model, and
  back with ``model_dump(by_alias=True, mode="json", exclude_none=True)`` into a
  JSONRPC message written with ``model_dump_json(by_alias=True, exclude_unset=True)``.
  The SDK's sessions also validate each message against the per-revision surface
  model (``mcp_types.methods``); that pass is left out, so the SDK figure here is
  an upper bound on what it does per message.

Every implementation's output is checked to equal its input as JSON before any
timing starts. The one exception: the SDK's models fill in defaults the input
left out (``resultType``, ``ttlMs``, ``cacheScope`` on results), so its output
only has to contain the input.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any, Final, Literal

import msgspec

from mcp_core.types.methods import message_decoder
from mcp_core.types.server import CallToolRequestParams, CallToolResult, ListToolsResult
from mcp_core.wire import (
    OnePassResponseDecoder,
    Request,
    Response,
    decode_params,
    decode_result,
    encode_message,
)

from .harness import Case, Settings, run_case
from .layers import LayerResult, Progress, not_importable

__all__ = ["CASES", "MCP_CORE", "MSGSPEC_TYPED", "MSGSPEC_UNTYPED", "SDK", "run"]

MCP_CORE: Final = "mcp-core"
MSGSPEC_TYPED: Final = "msgspec typed"
MSGSPEC_UNTYPED: Final = "msgspec untyped"
SDK: Final = "mcp SDK (pydantic)"

RATIOS: Final = {
    "mcp-core / msgspec typed": (MCP_CORE, MSGSPEC_TYPED),
    "mcp-core / SDK": (MCP_CORE, SDK),
}

Operation = Callable[[], bytes]
Pipeline = Callable[[bytes], bytes]


# --- Payloads -------------------------------------------------------------------------------------


def _call_request(arguments: dict[str, Any]) -> bytes:
    message = {
        "jsonrpc": "2.0",
        "id": 42,
        "method": "tools/call",
        "params": {
            "name": "get_forecast",
            "arguments": arguments,
            "_meta": {"progressToken": "call-42"},
        },
    }
    return msgspec.json.encode(message)


def small_call_request() -> bytes:
    """A ``tools/call`` request with three small arguments."""
    return _call_request({"city": "Lisbon", "units": "metric", "days": 3})


def call_result_response() -> bytes:
    """The response to it: a CallToolResult with one text content block."""
    text = "Lisbon, next 3 days: 21°C clear, 19°C light rain, 23°C sunny. Wind 12 km/h NW."
    message = {
        "jsonrpc": "2.0",
        "id": 42,
        "result": {"content": [{"type": "text", "text": text}], "isError": False},
    }
    return msgspec.json.encode(message)


_PROPERTY_KINDS: Final[list[tuple[str, dict[str, Any]]]] = [
    ("query", {"type": "string", "description": "What to search for."}),
    ("limit", {"type": "integer", "minimum": 1, "maximum": 100, "default": 10}),
    ("path", {"type": "string", "description": "A path relative to the workspace root."}),
    ("recursive", {"type": "boolean", "default": False}),
    ("tags", {"type": "array", "items": {"type": "string"}, "description": "Labels to match."}),
    ("format", {"type": "string", "enum": ["json", "text", "markdown"]}),
]


def _tool(i: int) -> dict[str, Any]:
    count = 2 + i % 3
    picked = [_PROPERTY_KINDS[(i + k) % len(_PROPERTY_KINDS)] for k in range(count)]
    tool: dict[str, Any] = {
        "name": f"tool_{i:03d}",
        "title": f"Tool number {i}",
        "description": f"Runs operation {i} over the workspace and reports what it found.",
        "inputSchema": {
            "type": "object",
            "properties": dict(picked),
            "required": [picked[0][0]],
        },
    }
    if i % 4 == 0:
        tool["annotations"] = {"readOnlyHint": True, "openWorldHint": False}
    return tool


def list_tools_response(tools: int = 100) -> bytes:
    """A ``tools/list`` response listing ``tools`` tools with small input schemas."""
    message = {
        "jsonrpc": "2.0",
        "id": 7,
        "result": {"tools": [_tool(i) for i in range(tools)]},
    }
    return msgspec.json.encode(message)


def large_call_request(size: int = 1 << 20) -> bytes:
    """A ``tools/call`` request whose ``content`` argument is a ``size``-character string.

    The string is text with a newline per line, as a file being written would be,
    so parsers go through their escape handling too.
    """
    line = "The quick brown fox jumps over the lazy dog; pack my box with five dozen jugs.\n"
    content = (line * (size // len(line) + 1))[:size]
    return _call_request({"path": "notes/large.txt", "content": content})


# --- mcp-core ------------------------------------------------------------------------------------


def _core_request(params_type: type[Any]) -> Pipeline:
    # The session's own one-pass decoder (every method of the tables), then
    # decode_params as the session calls it, which hands the typed params back.
    decoder = msgspec.json.Decoder(params_type)

    def round_trip(data: bytes) -> bytes:
        message = message_decoder.decode(data)
        if type(message) is not Request:
            raise TypeError(f"expected a request, got {type(message).__name__}")
        params = decode_params(message, decoder)
        return encode_message(Request(id=message.id, method=message.method, params=params))

    return round_trip


def _core_response(result_type: type[Any]) -> Pipeline:
    # A client knows the result type of the request a response answers.
    decoder = msgspec.json.Decoder(result_type)
    one_pass = OnePassResponseDecoder(result_type)

    def round_trip(data: bytes) -> bytes:
        message = one_pass.decode(data)
        if type(message) is not Response:
            raise TypeError(f"expected a response, got {type(message).__name__}")
        result = decode_result(message, decoder)
        return encode_message(Response(id=message.id, result=result))

    return round_trip


# --- bare msgspec ---------------------------------------------------------------------------------


class CallToolRequestMessage(msgspec.Struct, frozen=True, kw_only=True):
    """A whole ``tools/call`` request as one plain Struct."""

    jsonrpc: Literal["2.0"]
    id: int | str
    method: str
    params: CallToolRequestParams


class CallToolResponseMessage(msgspec.Struct, frozen=True, kw_only=True):
    """A whole ``tools/call`` response as one plain Struct."""

    jsonrpc: Literal["2.0"]
    id: int | str
    result: CallToolResult


class ListToolsResponseMessage(msgspec.Struct, frozen=True, kw_only=True):
    """A whole ``tools/list`` response as one plain Struct."""

    jsonrpc: Literal["2.0"]
    id: int | str
    result: ListToolsResult


def _msgspec_typed(message_type: type[Any]) -> Pipeline:
    decoder = msgspec.json.Decoder(message_type)
    encoder = msgspec.json.Encoder()

    def round_trip(data: bytes) -> bytes:
        return encoder.encode(decoder.decode(data))

    return round_trip


def _msgspec_untyped() -> Pipeline:
    decoder = msgspec.json.Decoder()
    encoder = msgspec.json.Encoder()

    def round_trip(data: bytes) -> bytes:
        return encoder.encode(decoder.decode(data))

    return round_trip


# --- the official SDK -----------------------------------------------------------------------------


class _Sdk:
    """The SDK's pipelines, built only when ``mcp_types`` imports."""

    def __init__(self) -> None:
        types = importlib.import_module("mcp_types")
        jsonrpc = importlib.import_module("mcp_types.jsonrpc")
        self.adapter = jsonrpc.jsonrpc_message_adapter
        self.request_type = jsonrpc.JSONRPCRequest
        self.response_type = jsonrpc.JSONRPCResponse
        self.call_params = types.CallToolRequestParams
        self.call_result = types.CallToolResult
        self.list_result = types.ListToolsResult

    def request(self, params_model: Any) -> Pipeline:
        adapter, request_type = self.adapter, self.request_type

        def round_trip(data: bytes) -> bytes:
            message = adapter.validate_json(data, by_name=False)
            params = params_model.model_validate(message.params, by_name=False)
            out = request_type(
                jsonrpc="2.0",
                id=message.id,
                method=message.method,
                params=params.model_dump(by_alias=True, mode="json", exclude_none=True),
            )
            text: str = out.model_dump_json(by_alias=True, exclude_unset=True)
            return text.encode()

        return round_trip

    def response(self, result_model: Any) -> Pipeline:
        adapter, response_type = self.adapter, self.response_type

        def round_trip(data: bytes) -> bytes:
            message = adapter.validate_json(data, by_name=False)
            result = result_model.model_validate(message.result, by_name=False)
            out = response_type(
                jsonrpc="2.0",
                id=message.id,
                result=result.model_dump(by_alias=True, mode="json", exclude_none=True),
            )
            text: str = out.model_dump_json(by_alias=True, exclude_unset=True)
            return text.encode()

        return round_trip


def _load_sdk() -> tuple[_Sdk | None, str]:
    try:
        return _Sdk(), ""
    except ImportError as exc:
        return None, not_importable(exc, "mcp_types")


# --- cases ----------------------------------------------------------------------------------------


def _contains(outer: Any, inner: Any) -> bool:
    # Every member of ``inner`` is in ``outer`` with an equal value, recursively.
    if isinstance(inner, dict) and isinstance(outer, dict):
        return all(key in outer and _contains(outer[key], value) for key, value in inner.items())
    if isinstance(inner, list) and isinstance(outer, list):
        return len(inner) == len(outer) and all(map(_contains, outer, inner))
    return bool(outer == inner)


def _case(name: str, title: str, payload: bytes, pipelines: dict[str, Pipeline]) -> Case:
    expected = msgspec.json.decode(payload)
    operations: dict[str, Operation] = {}
    for label, pipeline in pipelines.items():
        written = msgspec.json.decode(pipeline(payload))
        # The SDK's version-free models write defaults the input left out
        # (resultType, ttlMs, cacheScope); everything else must come back as it went.
        same = _contains(written, expected) if label == SDK else written == expected
        if not same:
            raise AssertionError(f"{name}: {label} does not round-trip the message unchanged")
        operations[label] = _bind(pipeline, payload)
    return Case(
        name=name,
        title=title,
        payload_bytes=len(payload),
        implementations=operations,
        ratios=RATIOS,
    )


def _bind(pipeline: Pipeline, payload: bytes) -> Operation:
    def operation() -> bytes:
        return pipeline(payload)

    return operation


CASES: Final = ("call_request", "call_result", "list_tools_100", "call_request_1mib")
"""The case names, in the order they run."""


def build_cases(sdk: _Sdk | None) -> list[tuple[str, Callable[[], Case]]]:
    """The cases as (name, factory) pairs; factories build payloads lazily."""

    def with_sdk(
        pipelines: dict[str, Pipeline], make: Callable[[_Sdk], Pipeline]
    ) -> dict[str, Pipeline]:
        if sdk is not None:
            pipelines[SDK] = make(sdk)
        return pipelines

    def call_request() -> Case:
        return _case(
            "call_request",
            "tools/call request, small arguments",
            small_call_request(),
            with_sdk(
                {
                    MCP_CORE: _core_request(CallToolRequestParams),
                    MSGSPEC_UNTYPED: _msgspec_untyped(),
                    MSGSPEC_TYPED: _msgspec_typed(CallToolRequestMessage),
                },
                lambda s: s.request(s.call_params),
            ),
        )

    def call_result() -> Case:
        return _case(
            "call_result",
            "tools/call response, CallToolResult with one text block",
            call_result_response(),
            with_sdk(
                {
                    MCP_CORE: _core_response(CallToolResult),
                    MSGSPEC_UNTYPED: _msgspec_untyped(),
                    MSGSPEC_TYPED: _msgspec_typed(CallToolResponseMessage),
                },
                lambda s: s.response(s.call_result),
            ),
        )

    def list_tools() -> Case:
        return _case(
            "list_tools_100",
            "tools/list response, 100 tools with input schemas",
            list_tools_response(100),
            with_sdk(
                {
                    MCP_CORE: _core_response(ListToolsResult),
                    MSGSPEC_UNTYPED: _msgspec_untyped(),
                    MSGSPEC_TYPED: _msgspec_typed(ListToolsResponseMessage),
                },
                lambda s: s.response(s.list_result),
            ),
        )

    def large_request() -> Case:
        return _case(
            "call_request_1mib",
            "tools/call request, one 1 MiB string argument",
            large_call_request(),
            with_sdk(
                {
                    MCP_CORE: _core_request(CallToolRequestParams),
                    MSGSPEC_UNTYPED: _msgspec_untyped(),
                    MSGSPEC_TYPED: _msgspec_typed(CallToolRequestMessage),
                },
                lambda s: s.request(s.call_params),
            ),
        )

    return [
        ("call_request", call_request),
        ("call_result", call_result),
        ("list_tools_100", list_tools),
        ("call_request_1mib", large_request),
    ]


def run(settings: Settings, progress: Progress) -> LayerResult:
    """Run every codec case; the SDK column is skipped, with the reason, when absent."""
    sdk, reason = _load_sdk()
    result = LayerResult(name="codec")
    if sdk is None:
        result.skipped[SDK] = reason
    for name, factory in build_cases(sdk):
        case = factory()
        progress(f"codec: {name}: {case.title} ({len(case.implementations)} implementations)")
        result.cases.append(run_case(case, settings))
    return result
