"""Sampling with tools (2025-11-25 client/sampling.mdx "Sampling with Tools"), end to
end in both eras: a tool loop on the server, a client whose sampling callback
declares ``sampling.tools``, and the sub-capability enforced both ways."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from runtime_helpers import BOTH_ERAS, connected, only_text

from mcp_core import Context, McpError, Server
from mcp_core.types import (
    CreateMessageRequestParams,
    SamplingMessage,
    TextContent,
    ToolResultContent,
    ToolUseContent,
)
from mcp_core.wire import INVALID_PARAMS, INVALID_REQUEST, MISSING_REQUIRED_CLIENT_CAPABILITY

pytestmark = [pytest.mark.anyio, BOTH_ERAS]

WEATHER = {
    "name": "get_weather",
    "description": "Current weather for a city",
    "inputSchema": {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
    },
}


def weather_server() -> Server:
    server = Server("agent", "1.0")

    @server.tool
    async def forecast(ctx: Context, city: str) -> str:
        # The spec's multi-turn tool loop: sample, run the tools the model asked
        # for, sample again with their results, until the model stops.
        history: list[SamplingMessage | str] = [f"Weather in {city}?"]
        for turn in range(3):
            sampled = await ctx.sample(
                history,
                max_tokens=100,
                tools=[WEATHER],
                tool_choice="none" if turn == 2 else "auto",
            )
            if sampled.stop_reason != "toolUse":
                assert isinstance(sampled.content, TextContent)
                return sampled.content.text
            uses = sampled.content if isinstance(sampled.content, list) else [sampled.content]
            history.append(SamplingMessage(role="assistant", content=uses))
            results: list[Any] = [
                ToolResultContent(
                    tool_use_id=use.id,
                    content=[TextContent(text=f"18C in {use.input['city']}")],
                )
                for use in uses
                if isinstance(use, ToolUseContent)
            ]
            history.append(SamplingMessage(role="user", content=results))
        return "gave up"

    @server.tool
    async def plain(ctx: Context) -> str:
        sampled = await ctx.sample("hello", max_tokens=5)
        assert isinstance(sampled.content, TextContent)
        return sampled.content.text

    return server


class Model:
    """A sampling callback that uses the tool once, then answers from its result."""

    def __init__(self) -> None:
        self.seen: list[CreateMessageRequestParams] = []

    def __call__(self, params: CreateMessageRequestParams) -> dict[str, Any]:
        self.seen.append(params)
        last = params.messages[-1]
        if params.tools is msgspec.UNSET:
            return {"role": "assistant", "content": TEXT("hi"), "model": "m"}
        if not isinstance(last.content, list):  # the question: use the tool
            use = {
                "type": "tool_use",
                "id": "c1",
                "name": "get_weather",
                "input": {"city": "Paris"},
            }
            return {"role": "assistant", "content": [use], "model": "m", "stopReason": "toolUse"}
        (result,) = last.content
        assert isinstance(result, ToolResultContent)
        (block,) = result.content
        assert isinstance(block, TextContent)
        return {
            "role": "assistant",
            "content": TEXT(f"It is {block.text}"),
            "model": "m",
            "stopReason": "endTurn",
        }


def TEXT(text: str) -> dict[str, str]:
    return {"type": "text", "text": text}


async def test_a_tool_loop_through_sampling(era: str) -> None:
    model = Model()
    async with connected(weather_server(), era, sampling=model, sampling_tools=True) as client:
        result = await client.call_tool("forecast", {"city": "Paris"})
        assert only_text(result) == "It is 18C in Paris"
    # What the client's callback saw: the tools, the choice, then the tool result.
    first, second = model.seen[0], model.seen[-1]
    assert first.tools is not msgspec.UNSET and first.tools[0].name == "get_weather"
    assert first.tool_choice is not msgspec.UNSET and first.tool_choice.mode == "auto"
    assert [m.role for m in second.messages] == ["user", "assistant", "user"]


async def test_a_client_without_sampling_tools_is_not_sent_tools(era: str) -> None:
    model = Model()
    async with connected(weather_server(), era, sampling=model) as client:
        # The server does not send the request: the handler gets the error.
        with pytest.raises(McpError) as refused:
            await client.call_tool("forecast", {"city": "Paris"})
        code = INVALID_REQUEST if era == "legacy" else MISSING_REQUIRED_CLIENT_CAPABILITY
        assert refused.value.code == code
        assert refused.value.data == {"requiredCapabilities": {"sampling": {"tools": {}}}}
        # Sampling without tools still works.
        assert only_text(await client.call_tool("plain")) == "hi"
    assert len(model.seen) == 1


async def test_the_client_declares_sampling_tools(era: str) -> None:
    seen: list[Any] = []
    server = Server("caps", "1.0")

    @server.tool
    def caps(ctx: Context) -> dict[str, Any]:
        seen.append(ctx.client.capabilities)
        return {}

    async with connected(server, era, sampling=Model(), sampling_tools=True) as client:
        await client.call_tool("caps")
    assert msgspec.to_builtins(seen[0].sampling) == {"tools": {}}


def test_sampling_tools_needs_a_sampling_callback(era: str) -> None:
    from transports import Client

    with pytest.raises(ValueError):
        Client("http://localhost:1/mcp", sampling_tools=True)


async def test_a_client_refuses_tools_it_did_not_declare(era: str) -> None:
    # A server that ignores the rule (an advanced handler asks through the peer
    # directly in the legacy era) gets -32602 from our client.
    from mcp_core.client import Callbacks

    callbacks = Callbacks(sampling=Model())
    params = msgspec.convert(
        {"messages": [], "maxTokens": 5, "tools": [WEATHER]}, CreateMessageRequestParams
    )
    with pytest.raises(McpError) as refused:
        callbacks.answer("sampling/createMessage", params)
    assert refused.value.code == INVALID_PARAMS
