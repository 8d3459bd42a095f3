"""Each client request as (method, params, result type), and its bytes on the wire."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from msgspec import UNSET

from mcp_core.client import Call, requests
from mcp_core.types import (
    CallToolResult,
    CompleteResult,
    EmptyResult,
    GetPromptResult,
    ListPromptsResult,
    ListResourcesResult,
    ListResourceTemplatesResult,
    ListToolsResult,
    PromptReference,
    ReadResourceResult,
    SubscriptionsListenResult,
)
from mcp_core.types.methods import METHODS, REVISIONS


def wire(call: Call[Any]) -> Any:
    if call.params is UNSET:
        return None
    return msgspec.json.decode(msgspec.json.encode(call.params))


CASES = [
    (requests.call_tool("add", {"a": 1}), "tools/call", CallToolResult,
     {"name": "add", "arguments": {"a": 1}}),
    (requests.call_tool("now"), "tools/call", CallToolResult, {"name": "now"}),
    (requests.read_resource("file:///a"), "resources/read", ReadResourceResult,
     {"uri": "file:///a"}),
    (requests.get_prompt("greet", {"who": "me"}), "prompts/get", GetPromptResult,
     {"name": "greet", "arguments": {"who": "me"}}),
    (requests.get_prompt("greet"), "prompts/get", GetPromptResult, {"name": "greet"}),
    (requests.complete(PromptReference(name="p"), "x", "a"),
     "completion/complete", CompleteResult,
     {"ref": {"type": "ref/prompt", "name": "p"}, "argument": {"name": "x", "value": "a"}}),
    (requests.complete(PromptReference(name="p"), "x", "a", {"y": "b"}),
     "completion/complete", CompleteResult,
     {"ref": {"type": "ref/prompt", "name": "p"}, "argument": {"name": "x", "value": "a"},
      "context": {"arguments": {"y": "b"}}}),
    (requests.ping(), "ping", EmptyResult, None),
    (requests.list_tools(), "tools/list", ListToolsResult, {}),
    (requests.list_tools("c1"), "tools/list", ListToolsResult, {"cursor": "c1"}),
    (requests.list_resources("c"), "resources/list", ListResourcesResult, {"cursor": "c"}),
    (requests.list_resource_templates(), "resources/templates/list",
     ListResourceTemplatesResult, {}),
    (requests.list_prompts(), "prompts/list", ListPromptsResult, {}),
    (requests.subscribe("file:///a"), "resources/subscribe", EmptyResult, {"uri": "file:///a"}),
    (requests.unsubscribe("file:///a"), "resources/unsubscribe", EmptyResult,
     {"uri": "file:///a"}),
    (requests.listen(tools=True, resource_uris=["file:///a"]), "subscriptions/listen",
     SubscriptionsListenResult,
     {"notifications": {"toolsListChanged": True, "resourceSubscriptions": ["file:///a"]}}),
    (requests.listen(), "subscriptions/listen", SubscriptionsListenResult, {"notifications": {}}),
]  # fmt: skip


@pytest.mark.parametrize(("call", "method", "result_type", "params"), CASES)
def test_builders(call: Call[Any], method: str, result_type: type, params: Any) -> None:
    assert call.method == method
    assert call.result_type is result_type
    assert wire(call) == params
    assert method in repr(call)


@pytest.mark.parametrize(("call", "method", "result_type", "params"), CASES)
def test_builders_agree_with_the_method_table(
    call: Call[Any], method: str, result_type: type, params: Any
) -> None:
    specs = [METHODS[key] for key in ((method, r) for r in REVISIONS) if key in METHODS]
    assert specs, method
    for spec in specs:
        assert spec.sender in ("client", "both")
        assert spec.result_type is result_type
        if call.params is not UNSET:
            assert isinstance(call.params, spec.params_type)
