"""The official SDK's client (``mcp`` 2.3) against our stdio server, for the
2025-11-25 client features: sampling with tools (the SDK client declares
``sampling.tools`` through ``sampling_capabilities``), URL-mode elicitation, and the
-32042 URLElicitationRequiredError. Both eras: legacy server-to-client requests,
2026-07-28 multi round-trip requests; the SDK client runs on the test's backend.
"""

from __future__ import annotations

import sys
from typing import Any, Final

import anyio
import mcp_types as sdk_types
import paths
import pytest
from limits import HANG
from mcp import Client as SdkClient
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError

from mcp_core.wire import MISSING_REQUIRED_CLIENT_CAPABILITY, URL_ELICITATION_REQUIRED

SERVER = str(paths.SERVERS / "interop_server.py")
ENV: Final = {"PYTHONPATH": str(paths.ROOT)}
LIMIT: Final = HANG
"""Seconds for one connection's conversation, spawn included (see test_interop_sdk)."""


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


class Side:
    """The SDK client's callbacks, recording what our server asked."""

    def __init__(self) -> None:
        self.sampled: list[sdk_types.CreateMessageRequestParams] = []
        self.elicited: list[Any] = []

    async def sampling(self, context: Any, params: sdk_types.CreateMessageRequestParams) -> Any:
        self.sampled.append(params)
        last = params.messages[-1]
        content = last.content if isinstance(last.content, list) else [last.content]
        if any(isinstance(block, sdk_types.ToolResultContent) for block in content):
            return sdk_types.CreateMessageResult(
                role="assistant",
                content=sdk_types.TextContent(type="text", text="mild"),
                model="m",
                stop_reason="endTurn",
            )
        return sdk_types.CreateMessageResultWithTools(
            role="assistant",
            content=[
                sdk_types.ToolUseContent(
                    type="tool_use", id="u1", name="get_weather", input={"city": "Oslo"}
                )
            ],
            model="m",
            stop_reason="toolUse",
        )

    async def elicitation(self, context: Any, params: Any) -> sdk_types.ElicitResult:
        self.elicited.append(params)
        return sdk_types.ElicitResult(action="accept")


def parameters(backend: str) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=[SERVER, backend], env=ENV)


async def text_of(client: SdkClient, tool: str, arguments: dict[str, Any]) -> str:
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, result
    (block,) = result.content
    assert isinstance(block, sdk_types.TextContent)
    return block.text


@pytest.mark.anyio
@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_sdk_client_uses_our_client_features(anyio_backend: str, era: str) -> None:
    side = Side()
    with anyio.fail_after(LIMIT):
        async with SdkClient(
            parameters(anyio_backend),
            mode="legacy" if era == "legacy" else "auto",
            sampling_callback=side.sampling,
            sampling_capabilities=sdk_types.SamplingCapability(
                tools=sdk_types.SamplingToolsCapability()
            ),
            elicitation_callback=side.elicitation,
        ) as client:
            assert client.protocol_version == ("2025-11-25" if era == "legacy" else "2026-07-28")
            # Sampling with tools: the model asks for the tool, our handler runs
            # it and samples again with the result.
            answer = await text_of(client, "ask_model_with_tools", {"city": "Oslo"})
            assert answer == "toolUse then mild"
            first, second = side.sampled
            assert first.tools is not None and [t.name for t in first.tools] == ["get_weather"]
            assert first.tool_choice is not None and first.tool_choice.mode == "auto"
            assert second.tool_choice is not None and second.tool_choice.mode == "none"
            assert [m.role for m in second.messages] == ["user", "assistant", "user"]

            # URL-mode elicitation.
            assert await text_of(client, "open_page", {}) == "accept"
            (page,) = side.elicited
            assert (page.mode, page.url, page.message) == (
                "url",
                "https://example.com/pay",
                "Pay here",
            )
            if era == "legacy":
                assert page.elicitation_id == "pay-1"

            # URLElicitationRequiredError: -32042 with the elicitations in 2025-11-25;
            # an InputRequiredResult in 2026-07-28, which the SDK answers and retries.
            if era == "legacy":
                with pytest.raises(MCPError) as required:
                    await client.call_tool("needs_connect", {})
                assert required.value.code == URL_ELICITATION_REQUIRED
                (elicitation,) = required.value.error.data["elicitations"]
                assert elicitation["url"] == "https://example.com/connect"
                assert elicitation["elicitationId"] == "c-1"
                assert await text_of(client, "needs_connect", {}) == "connected"
            else:
                assert await text_of(client, "needs_connect", {}) == "connected"
                assert [e.url for e in side.elicited[1:]] == ["https://example.com/connect"]


@pytest.mark.anyio
@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_sdk_client_without_sampling_tools_is_not_sent_tools(
    anyio_backend: str, era: str
) -> None:
    side = Side()
    with anyio.fail_after(LIMIT):
        async with SdkClient(
            parameters(anyio_backend),
            mode="legacy" if era == "legacy" else "auto",
            sampling_callback=side.sampling,
        ) as client:
            with pytest.raises(MCPError) as refused:
                await client.call_tool("ask_model_with_tools", {"city": "Oslo"})
    # Our server refuses before sending: the SDK client is never asked.
    code = -32600 if era == "legacy" else MISSING_REQUIRED_CLIENT_CAPABILITY
    assert refused.value.code == code
    assert refused.value.error.data == {"requiredCapabilities": {"sampling": {"tools": {}}}}
    assert side.sampled == []
