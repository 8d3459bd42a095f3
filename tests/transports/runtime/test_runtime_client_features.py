"""Sampling, elicitation and roots end to end: server-to-client requests in the
legacy era, multi round-trip requests (basic/patterns/mrtr.mdx) in 2026-07-28, with
the same client callbacks and the same handler code in both."""

from __future__ import annotations

from collections import Counter
from typing import Any

import anyio.lowlevel
import msgspec
import pytest
from runtime_helpers import BOTH_ERAS, connected, only_text, text

from mcp_core import Context, McpError, Server
from mcp_core.types import (
    CreateMessageRequestParams,
    ElicitRequestParams,
    ElicitResult,
    Root,
    TextContent,
)
from mcp_core.wire import INTERNAL_ERROR, INVALID_REQUEST, MISSING_REQUIRED_CLIENT_CAPABILITY

pytestmark = [pytest.mark.anyio, BOTH_ERAS]

NAME_SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}

MISSING_CAPABILITY = {"legacy": INVALID_REQUEST, "modern": MISSING_REQUIRED_CLIENT_CAPABILITY}
"""A request needing an undeclared client capability: -32021 in 2026-07-28
(basic/index.mdx); legacy revisions have no such code, so -32600."""


def asking_server(runs: Counter[str]) -> Server:
    """Tools that ask; ``runs`` counts how often each handler body started."""
    server = Server("asking", "1.0")

    @server.tool
    async def greet(ctx: Context) -> str:
        runs["greet"] += 1
        answer = await ctx.elicit("Your name?", NAME_SCHEMA)
        if answer.action != "accept":
            return f"no name ({answer.action})"
        return f"Hello, {answer.content['name']}"  # type: ignore[index]

    @server.tool
    async def haiku(ctx: Context, topic: str) -> str:
        runs["haiku"] += 1
        sampled = await ctx.sample(f"A haiku about {topic}", max_tokens=50, temperature=0.5)
        assert isinstance(sampled.content, TextContent)
        return f"{sampled.model}: {sampled.content.text}"

    @server.tool
    async def where(ctx: Context) -> list[str]:
        runs["where"] += 1
        return [root.uri for root in (await ctx.list_roots()).roots]

    @server.tool
    async def twice(ctx: Context) -> str:
        # Two asks: one round trip each in 2026-07-28, replaying the handler.
        runs["twice"] += 1
        name = await ctx.elicit("Your name?", NAME_SCHEMA)
        runs["twice:after-first"] += 1
        poem = await ctx.sample(f"A poem for {name.content['name']}", max_tokens=20)  # type: ignore[index]
        assert isinstance(poem.content, TextContent)
        return f"{name.content['name']}: {poem.content.text}"  # type: ignore[index]

    @server.prompt
    async def personal(ctx: Context) -> str:
        runs["personal"] += 1
        answer = await ctx.elicit("Your name?", NAME_SCHEMA)
        return f"Write to {answer.content['name']}"  # type: ignore[index]

    @server.resource("roots://first")
    async def first_root(ctx: Context) -> str:
        runs["first_root"] += 1
        return (await ctx.list_roots()).roots[0].uri

    return server


class Answers:
    """Client callbacks that record what they were asked."""

    def __init__(self, name: str = "Ada", action: str = "accept") -> None:
        self.name = name
        self.action = action
        self.asked: list[tuple[str, Any]] = []

    async def elicitation(self, params: ElicitRequestParams) -> ElicitResult:
        await anyio.lowlevel.checkpoint()
        self.asked.append(("elicitation", params.message))
        if self.action != "accept":
            return ElicitResult(action=self.action)  # type: ignore[arg-type]
        return ElicitResult(action="accept", content={"name": self.name})

    def sampling(self, params: CreateMessageRequestParams) -> dict[str, Any]:
        # A plain function returning a dict is fine too.
        (message,) = params.messages
        assert isinstance(message.content, TextContent)
        self.asked.append(("sampling", (message.content.text, params.max_tokens)))
        return {
            "role": "assistant",
            "content": {"type": "text", "text": "an old silent pond"},
            "model": "test-model",
        }

    def roots(self) -> list[Any]:
        self.asked.append(("roots", None))
        return [Root(uri="file:///work", name="work"), {"uri": "file:///tmp"}]

    def options(self) -> dict[str, Any]:
        return {"elicitation": self.elicitation, "sampling": self.sampling, "roots": self.roots}


@pytest.mark.parametrize("objects", [False, True])
async def test_elicitation(era: str, objects: bool) -> None:
    runs: Counter[str] = Counter()
    answers = Answers()
    async with connected(asking_server(runs), era, objects=objects, **answers.options()) as client:
        assert only_text(await client.call_tool("greet")) == "Hello, Ada"
    assert answers.asked == [("elicitation", "Your name?")]
    # Legacy asks in the middle of the call; 2026-07-28 runs the handler again.
    assert runs["greet"] == (1 if era == "legacy" else 2)


async def test_elicitation_declined(era: str) -> None:
    answers = Answers(action="decline")
    async with connected(asking_server(Counter()), era, **answers.options()) as client:
        assert only_text(await client.call_tool("greet")) == "no name (decline)"


@pytest.mark.parametrize("objects", [False, True])
async def test_sampling(era: str, objects: bool) -> None:
    answers = Answers()
    async with connected(
        asking_server(Counter()), era, objects=objects, **answers.options()
    ) as client:
        result = await client.call_tool("haiku", {"topic": "frogs"})
        assert only_text(result) == "test-model: an old silent pond"
    assert answers.asked == [("sampling", ("A haiku about frogs", 50))]


@pytest.mark.parametrize("objects", [False, True])
async def test_roots(era: str, objects: bool) -> None:
    answers = Answers()
    async with connected(
        asking_server(Counter()), era, objects=objects, **answers.options()
    ) as client:
        result = await client.call_tool("where")
        assert result.structured_content == {"result": ["file:///work", "file:///tmp"]}
    assert answers.asked == [("roots", None)]


@pytest.mark.parametrize("objects", [False, True])
async def test_a_tool_that_asks_twice(era: str, objects: bool) -> None:
    runs: Counter[str] = Counter()
    answers = Answers(name="Grace")
    async with connected(asking_server(runs), era, objects=objects, **answers.options()) as client:
        assert only_text(await client.call_tool("twice")) == "Grace: an old silent pond"
        # Again, to see that nothing of the first call lingers.
        assert only_text(await client.call_tool("twice")) == "Grace: an old silent pond"
    one_call = [("elicitation", "Your name?"), ("sampling", ("A poem for Grace", 20))]
    assert answers.asked == one_call * 2
    if era == "legacy":
        assert (runs["twice"], runs["twice:after-first"]) == (2, 2)
    else:
        # Each call: run, ask 1; replay, ask 2; replay with both answers.
        assert (runs["twice"], runs["twice:after-first"]) == (6, 4)


async def test_prompts_and_resources_ask_too(era: str) -> None:
    answers = Answers()
    async with connected(asking_server(Counter()), era, **answers.options()) as client:
        prompt = await client.get_prompt("personal")
        assert text(prompt.messages[0].content) == "Write to Ada"
        (contents,) = (await client.read_resource("roots://first")).contents
        assert contents.text == "file:///work"
    assert [kind for kind, _ in answers.asked] == ["elicitation", "roots"]


@pytest.mark.parametrize(
    ("tool", "capability", "arguments"),
    [("greet", "elicitation", {}), ("haiku", "sampling", {"topic": "x"}), ("where", "roots", {})],
)
async def test_asking_for_an_undeclared_capability_fails(
    era: str, tool: str, capability: str, arguments: dict[str, Any]
) -> None:
    answers = Answers()
    options = {k: v for k, v in answers.options().items() if k != capability}
    async with connected(asking_server(Counter()), era, **options) as client:
        with pytest.raises(McpError) as refused:
            await client.call_tool(tool, arguments)
        assert refused.value.code == MISSING_CAPABILITY[era]
        assert refused.value.data == {"requiredCapabilities": {capability: {}}}
        # The other capabilities still work on the same connection.
        others = {
            "greet": ("haiku", {"topic": "x"}),
            "haiku": ("where", {}),
            "where": ("greet", {}),
        }
        other, other_arguments = others[tool]
        assert (await client.call_tool(other, other_arguments)).is_error is msgspec.UNSET
    assert answers.asked != []


async def test_a_failing_callback(era: str) -> None:
    def broken(params: ElicitRequestParams) -> ElicitResult:
        raise LookupError("no user at the keyboard")

    async with connected(asking_server(Counter()), era, elicitation=broken) as client:
        if era == "legacy":
            # The client answers the server's request with an error; the tool
            # cannot go on and fails the call with it.
            with pytest.raises(McpError) as failed:
                await client.call_tool("greet")
            assert failed.value.code == INTERNAL_ERROR
            assert "no user at the keyboard" in failed.value.message
        else:
            # The client itself runs the callback between round trips.
            with pytest.raises(LookupError):
                await client.call_tool("greet")
        assert client.server_info is not None
        # The session is still usable.
        with pytest.raises(McpError):
            await client.call_tool("nope")
