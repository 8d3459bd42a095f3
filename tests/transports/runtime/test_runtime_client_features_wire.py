"""The 2025-11-25 client features over real transports, our client against our
server: streamable HTTP (h11 server, h11 client) and stdio (a child process), both
eras, asyncio and trio. Sampling with tools, URL-mode elicitation with its
completion notice, and the -32042 error (an InputRequiredResult in 2026-07-28)."""

from __future__ import annotations

import sys
from typing import Any

import anyio
import msgspec
import paths
import pytest
from http_helpers import running
from runtime_helpers import BOTH_ERAS, ERAS, LIMIT, Inbox, only_text

from mcp_core import Context, Server, UrlElicitationRequiredError
from mcp_core.server import url_elicitation
from mcp_core.types import CreateMessageRequestParams, ElicitRequestParams, ElicitResult
from transports import Client
from transports.stdio import connect_stdio

pytestmark = [pytest.mark.anyio, BOTH_ERAS]

INTEROP_SERVER = str(paths.SERVERS / "interop_server.py")


class Answers:
    """Our client's callbacks for sampling with tools and URL-mode elicitation."""

    def __init__(self) -> None:
        self.urls: list[ElicitRequestParams] = []
        self.done = Inbox()

    def sampling(self, params: CreateMessageRequestParams) -> dict[str, Any]:
        assert params.tools is not msgspec.UNSET
        if params.tool_choice is not msgspec.UNSET and params.tool_choice.mode == "none":
            text = {"type": "text", "text": "mild"}
            return {"role": "assistant", "content": text, "model": "m", "stopReason": "endTurn"}
        use = {"type": "tool_use", "id": "u1", "name": "get_weather", "input": {"city": "Oslo"}}
        return {"role": "assistant", "content": [use], "model": "m", "stopReason": "toolUse"}

    def elicitation_url(self, params: ElicitRequestParams) -> ElicitResult:
        self.urls.append(params)
        return ElicitResult(action="accept")

    def options(self, era: str) -> dict[str, Any]:
        return {
            "revisions": ERAS[era],
            "sampling": self.sampling,
            "sampling_tools": True,
            "elicitation_url": self.elicitation_url,
            "on_elicitation_complete": self.done,
        }


def features_server() -> Server:
    server = Server("features", "1.0")
    connected: set[str] = set()

    @server.tool
    async def agent(ctx: Context) -> str:
        tools = [{"name": "get_weather", "inputSchema": {"type": "object"}}]
        first = await ctx.sample("Weather?", 20, tools=tools)
        second = await ctx.sample("Weather?", 20, tools=tools, tool_choice="none", key="last")
        assert isinstance(first.content, list)
        return f"{first.stop_reason} {second.stop_reason}"

    @server.tool
    async def pay(ctx: Context) -> str:
        answer = await ctx.elicit_url("https://example.com/pay", "Pay", elicitation_id="p1")
        await ctx.complete_elicitation("p1")
        return answer.action

    @server.tool
    async def files(ctx: Context) -> str:
        if not connected:
            connected.add("ada")
            raise UrlElicitationRequiredError(
                [url_elicitation("https://example.com/connect", "Connect", elicitation_id="c1")]
            )
        return "files"

    return server


async def check_features(client: Client, era: str, answers: Answers, *, agent: str) -> None:
    if agent == "agent":
        assert only_text(await client.call_tool("agent")) == "toolUse endTurn"
    else:
        result = await client.call_tool("ask_model_with_tools", {"city": "Oslo"})
        assert only_text(result) == "toolUse then mild"
    assert only_text(await client.call_tool(*PAY[agent])) == "accept"
    assert answers.urls[-1].mode == "url"
    if era == "legacy":
        if agent == "agent":  # our in-process server completes the elicitation
            assert await answers.done.wait_for(1) == ["p1"]
        with pytest.raises(UrlElicitationRequiredError) as required:
            await client.call_tool(*FILES[agent])
        assert [e.url for e in required.value.elicitations] == ["https://example.com/connect"]
    assert only_text(await client.call_tool(*FILES[agent])) in ("files", "connected")


PAY = {"agent": ("pay", {}), "interop": ("open_page", {})}
FILES = {"agent": ("files", {}), "interop": ("needs_connect", {})}


async def test_over_http(era: str) -> None:
    answers = Answers()
    with anyio.fail_after(LIMIT * 2):
        async with running(features_server()) as port:
            url = f"http://127.0.0.1:{port}/mcp"
            async with Client(url, **answers.options(era)) as client:
                assert client.era == era
                await check_features(client, era, answers, agent="agent")


async def test_over_stdio(era: str, anyio_backend: str) -> None:
    answers = Answers()
    argv = [sys.executable, INTEROP_SERVER, anyio_backend]
    with anyio.fail_after(LIMIT * 4):
        async with connect_stdio(
            argv, env={"PYTHONPATH": str(paths.ROOT)}, **answers.options(era)
        ) as client:
            assert client.era == era
            await check_features(client, era, answers, agent="interop")
