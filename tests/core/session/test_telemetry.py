"""What telemetry may record of an operation (mcp_core/session/telemetry.py),
against the conventions' text (tests/spec/otel-mcp.md): span names, attributes,
no argument value, trace context from ``_meta``."""

from __future__ import annotations

import pytest

from mcp_core.session.telemetry import (
    METRIC_KEYS,
    operation,
    result_error,
    tool_arguments,
    trace_carrier,
)
from mcp_core.types import (
    CallToolRequestParams,
    CallToolResult,
    GetPromptRequestParams,
    ReadResourceRequestParams,
    TextContent,
)


def test_a_tool_call_is_named_for_its_tool_and_is_execute_tool() -> None:
    params = CallToolRequestParams(name="get-weather", arguments={"city": "secret"})
    name, attributes = operation("tools/call", params, 7, "2025-11-25")
    assert name == "tools/call get-weather"
    assert attributes == {
        "mcp.method.name": "tools/call",
        "gen_ai.tool.name": "get-weather",
        "gen_ai.operation.name": "execute_tool",
        "jsonrpc.request.id": "7",
        "mcp.protocol.version": "2025-11-25",
    }


def test_a_prompt_is_named_for_its_prompt_and_is_no_tool_execution() -> None:
    params = GetPromptRequestParams(name="review", arguments={"code": "x"})
    name, attributes = operation("prompts/get", params, "r-1", None)
    assert name == "prompts/get review"
    assert attributes == {
        "mcp.method.name": "prompts/get",
        "gen_ai.prompt.name": "review",
        "jsonrpc.request.id": "r-1",
    }


@pytest.mark.parametrize(
    ("uri", "kept"),
    [
        ("file:///home/user/report.pdf", "file:///home/user/report.pdf"),
        ("postgres://admin:hunter2@db/customers?token=abc", "postgres://db/customers"),
        ("users://42/profile#name", "users://42/profile"),
    ],
)
def test_a_resource_uri_keeps_no_userinfo_nor_query(uri: str, kept: str) -> None:
    name, attributes = operation("resources/read", ReadResourceRequestParams(uri=uri), 1, None)
    assert name == "resources/read"  # the URI is never in the name (cardinality)
    assert attributes["mcp.resource.uri"] == kept


def test_a_notification_has_no_request_id_and_a_dict_is_read_too() -> None:
    name, attributes = operation("tools/call", {"name": "echo", "arguments": {}}, None, None)
    assert name == "tools/call echo"
    assert "jsonrpc.request.id" not in attributes
    name, attributes = operation("notifications/initialized", None, None, None)
    assert (name, attributes) == ("notifications/initialized", {"mcp.method.name": name})


def test_metrics_take_no_per_request_value() -> None:
    assert not METRIC_KEYS & {"jsonrpc.request.id", "mcp.resource.uri", "mcp.session.id"}


def test_a_tool_result_with_is_error_is_a_tool_error() -> None:
    failed = CallToolResult(content=[TextContent(text="no")], is_error=True)
    assert result_error(failed) == "tool_error"
    assert result_error(CallToolResult(content=[])) is None
    assert result_error({"content": [], "isError": True}) == "tool_error"
    assert result_error({"tools": []}) is None


def test_trace_context_is_read_from_meta_unprefixed() -> None:
    parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
    meta = {"traceparent": parent, "tracestate": "rojo=1", "progressToken": 3}
    params = CallToolRequestParams(name="x", meta=meta)
    assert trace_carrier(params) == {"traceparent": parent, "tracestate": "rojo=1"}
    assert trace_carrier({"_meta": {"baggage": "a=b"}}) == {"baggage": "a=b"}
    assert trace_carrier(CallToolRequestParams(name="x")) is None
    assert trace_carrier({"_meta": {"traceparent": 5}}) is None
    assert trace_carrier(None) is None


def test_tool_arguments_only_of_a_tool_call_cut_at_a_character() -> None:
    params = CallToolRequestParams(name="echo", arguments={"text": "é" * 10})
    assert tool_arguments("tools/call", params, 1000) == '{"text":"' + "é" * 10 + '"}'
    assert tool_arguments("tools/call", params, 12) == '{"text":"é'  # 9 + 2, then half of one
    as_dict = {"name": "echo", "arguments": {"n": 1}, "_meta": {"traceparent": "00-x"}}
    assert tool_arguments("tools/call", as_dict, 1000) == '{"n":1}'
    assert tool_arguments("tools/call", {"name": "echo"}, 1000) is None
    assert tool_arguments("prompts/get", {"name": "p", "arguments": {"a": "b"}}, 1000) is None
    unencodable = {"name": "echo", "arguments": {"when": object()}}
    assert tool_arguments("tools/call", unencodable, 1000) is None


def test_a_notification_as_it_arrives_is_read_for_its_uri_and_trace_context() -> None:
    # Note [4] of the conventions' tables: notifications/resources/updated carries
    # mcp.resource.uri. A notification's params arrive still JSON (msgspec.Raw).
    import msgspec

    from mcp_core.session.telemetry import readable

    traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
    raw = msgspec.Raw(
        b'{"uri":"file://user:pw@host/notes?key=1","_meta":{"traceparent":"'
        + traceparent.encode()
        + b'","other":1}}'
    )
    params = readable(raw)
    name, attributes = operation("notifications/resources/updated", params, None, "2025-11-25")
    assert name == "notifications/resources/updated"
    assert attributes == {
        "mcp.method.name": "notifications/resources/updated",
        "mcp.resource.uri": "file://host/notes",
        "mcp.protocol.version": "2025-11-25",
    }
    assert trace_carrier(raw) == trace_carrier(params) == {"traceparent": traceparent}
    # Not an object: nothing read, nothing raised.
    assert readable(msgspec.Raw(b"[1]")) is None
    assert trace_carrier(msgspec.Raw(b"[1]")) is None
    assert operation("notifications/progress", msgspec.Raw(b"7"), None, None)[1] == {
        "mcp.method.name": "notifications/progress"
    }


def test_a_senders_trace_context_replaces_the_one_relayed_params_carry() -> None:
    # A gateway relays an upstream's request with the upstream's traceparent in
    # _meta; the gateway's own span is the receiver's parent (the conventions,
    # "Context propagation": the sender injects its context). Other keys stay.
    from mcp_core.session.requests import with_meta

    ours = {"traceparent": "00-" + "1" * 32 + "-" + "2" * 16 + "-01"}
    relayed = {"traceparent": "00-" + "3" * 32 + "-" + "4" * 16 + "-01", "k": "v"}
    params = CallToolRequestParams(name="t", meta=relayed)
    for given in (params, {"name": "t", "_meta": relayed}):
        replaced = with_meta(given, ours, override=True)
        assert trace_carrier(replaced) == ours
        meta = replaced.meta if isinstance(replaced, CallToolRequestParams) else replaced["_meta"]
        assert meta["k"] == "v"
        kept = with_meta(given, ours)  # without override the params' own keys win
        assert trace_carrier(kept) == {"traceparent": relayed["traceparent"]}
    assert with_meta(CallToolRequestParams(name="t"), ours, override=True).meta == ours
