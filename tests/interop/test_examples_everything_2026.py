"""The 2026-07-28 fixtures of the everything example (examples/_everything_2026.py)
through a real Client over the in-memory pipe, in both eras, on both backends.

The same handlers ask their questions as server-to-client requests up to
2025-11-25 and as InputRequiredResults in 2026-07-28; the Client answers either
from the same callbacks. The raw wire of the 2026-07-28 rounds (keys, states) is
in test_server_mrtr_keys.py, and the official suite (0.2.0-alpha.12, run by
.ci/run) checks it over HTTP.
"""

from __future__ import annotations

from typing import Any

import pytest
from runtime_helpers import BOTH_ERAS, Inbox, connected, only_text
from test_examples_servers import everything

from mcp_core import McpError
from mcp_core.types import (
    CreateMessageRequestParams,
    CreateMessageResult,
    ElicitRequestParams,
    ElicitResult,
    Root,
    TextContent,
)
from mcp_core.wire import INVALID_REQUEST, MISSING_REQUIRED_CLIENT_CAPABILITY

pytestmark = [pytest.mark.anyio, BOTH_ERAS]


class Client:
    """The client's side: answers every question and keeps what it was asked."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def sampling(self, params: CreateMessageRequestParams) -> CreateMessageResult:
        (message,) = params.messages
        assert isinstance(message.content, TextContent)
        self.asked.append(message.content.text)
        return CreateMessageResult(role="assistant", content=TextContent(text="Paris"), model="m")

    def elicitation(self, params: ElicitRequestParams) -> ElicitResult:
        self.asked.append(params.message)
        fields = params.requested_schema.properties
        values = {"name": "Ada", "ok": True, "color": "blue", "context": "tests"}
        return ElicitResult(action="accept", content={k: values[k] for k in fields})

    def roots(self) -> list[Root]:
        self.asked.append("roots")
        return [Root(uri="file:///work")]

    def options(self) -> dict[str, Any]:
        return {"sampling": self.sampling, "elicitation": self.elicitation, "roots": self.roots}


async def test_questions_are_answered_in_both_eras(era: str) -> None:
    answers = Client()
    async with connected(everything(), era, **answers.options()) as client:

        async def call(name: str) -> str:
            return only_text(await client.call_tool(name))

        assert await call("test_input_required_result_elicitation") == "Hello, Ada!"
        assert await call("test_input_required_result_sampling") == "The model said: Paris"
        assert await call("test_input_required_result_list_roots") == "Roots: file:///work"
        assert await call("test_input_required_result_request_state") == (
            "state-ok: confirmed=True"
        )
        assert await call("test_input_required_result_multiple_inputs") == "Paris Ada (1 roots)"
        assert await call("test_input_required_result_multi_round") == "Ada likes blue"
        assert await call("test_input_required_result_tampered_state") == "confirmed=True"
        assert await call("test_input_required_result_capabilities") == "3 answers"
        assert await call("test_streaming_elicitation") == (
            'User response: action=accept, content={"name": "Ada"}'
        )
        assert await call("test_missing_capability") == "LLM response: Paris"
        prompt = await client.get_prompt("test_input_required_result_prompt")
        assert prompt.messages[0].content.text == "Use this context: tests"  # type: ignore[union-attr]
    assert "Step 2: What is your favorite color?" in answers.asked


async def test_only_declared_capabilities_are_asked(era: str) -> None:
    answers = Client()
    async with connected(everything(), era, sampling=answers.sampling) as client:
        result = await client.call_tool("test_input_required_result_capabilities")
        assert only_text(result) == "1 answers"
        with pytest.raises(McpError) as caught:
            await client.call_tool("test_input_required_result_elicitation")
    expected = MISSING_REQUIRED_CLIENT_CAPABILITY if era == "modern" else INVALID_REQUEST
    assert caught.value.code == expected
    assert answers.asked == ["Pick a number"]


async def test_missing_capability_names_it(era: str) -> None:
    async with connected(everything(), era) as client:
        with pytest.raises(McpError) as caught:
            await client.call_tool("test_missing_capability")
    if era == "modern":
        assert caught.value.code == MISSING_REQUIRED_CLIENT_CAPABILITY
        assert caught.value.data == {"requiredCapabilities": {"sampling": {}}}


async def test_header_tool_and_logging_tool(era: str) -> None:
    logs = Inbox()
    async with connected(everything(), era, on_log=logs) as client:
        result = await client.call_tool("test_x_mcp_header", {"region": "eu", "priority": 3})
        assert only_text(result) == "region=eu priority=3 query="
        tools = {tool.name: tool async for tool in client.iter_tools()}
        properties = tools["test_x_mcp_header"].input_schema["properties"]
        assert properties["region"]["x-mcp-header"] == "Region"
        assert properties["priority"]["x-mcp-header"] == "Priority"
        assert "x-mcp-header" not in properties["query"]
        assert only_text(await client.call_tool("test_logging_tool")) == "Logging tool completed"
        if era == "legacy":
            # Without logging/setLevel a legacy client gets every level.
            assert len(await logs.wait_for(3)) == 3
    if era == "modern":
        # 2026-07-28 server/utilities/logging.mdx: no logLevel, no log messages.
        assert logs.items == []


async def test_triggers_change_the_lists(era: str) -> None:
    changes = Inbox()
    async with connected(everything(), era, on_notification=changes) as client:
        names = {tool.name async for tool in client.iter_tools()}
        assert "test_dynamic_tool" not in names
        added = await client.call_tool("test_trigger_tool_change")
        assert only_text(added) == "added test_dynamic_tool"
        assert "test_dynamic_tool" in {tool.name async for tool in client.iter_tools()}
        assert only_text(await client.call_tool("test_dynamic_tool")) == "dynamic"
        removed = await client.call_tool("test_trigger_tool_change")
        assert only_text(removed) == "removed test_dynamic_tool"
        added = await client.call_tool("test_trigger_prompt_change")
        assert only_text(added) == "added test_dynamic_prompt"
        assert "test_dynamic_prompt" in {p.name async for p in client.iter_prompts()}
        removed = await client.call_tool("test_trigger_prompt_change")
        assert only_text(removed) == "removed test_dynamic_prompt"
