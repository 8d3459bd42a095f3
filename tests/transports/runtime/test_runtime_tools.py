"""Tools end to end over the in-memory pipe: content, structured output, errors,
advanced handlers, progress, logging and pagination, in both eras and backends."""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Any

import anyio.lowlevel
import msgspec
import pytest
from runtime_helpers import BOTH_ERAS, Inbox, connected, only_text

from mcp_core import Context, McpError, Server
from mcp_core.types import (
    AudioContent,
    CallToolRequestParams,
    CallToolResult,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
    TextResourceContents,
)
from mcp_core.wire import INTERNAL_ERROR, INVALID_PARAMS

pytestmark = [pytest.mark.anyio, BOTH_ERAS]

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 8
WAV = b"RIFF\x24\x00\x00\x00WAVEfmt " + b"\x00" * 8


class Point(msgspec.Struct):
    x: float
    y: float


@dataclass
class Box:
    width: int
    height: int


def media_server() -> Server:
    server = Server("media", "1.0")

    @server.tool
    def words() -> str:
        """Plain text."""
        return "just words"

    @server.tool
    def picture() -> bytes:
        """A PNG, recognised by its signature."""
        return PNG

    @server.tool
    def sound() -> bytes:
        """A WAV file."""
        return WAV

    @server.tool
    def link() -> ResourceLink:
        return ResourceLink(uri="file:///notes.txt", name="notes", mime_type="text/plain")

    @server.tool
    def embedded() -> EmbeddedResource:
        contents = TextResourceContents(uri="memo://1", text="remember", mime_type="text/plain")
        return EmbeddedResource(resource=contents)

    @server.tool
    def everything() -> list[Any]:
        return ["first", PNG, WAV, link(), embedded()]

    return server


@pytest.mark.parametrize("objects", [False, True])
async def test_every_content_type(era: str, objects: bool) -> None:
    async with connected(media_server(), era, objects=objects) as client:
        assert only_text(await client.call_tool("words")) == "just words"

        (image,) = (await client.call_tool("picture")).content
        assert isinstance(image, ImageContent)
        assert (image.mime_type, base64.b64decode(image.data)) == ("image/png", PNG)

        (audio,) = (await client.call_tool("sound")).content
        assert isinstance(audio, AudioContent)
        assert (audio.mime_type, base64.b64decode(audio.data)) == ("audio/wav", WAV)

        (link,) = (await client.call_tool("link")).content
        assert isinstance(link, ResourceLink)
        assert (link.uri, link.name, link.mime_type) == ("file:///notes.txt", "notes", "text/plain")

        (embedded,) = (await client.call_tool("embedded")).content
        assert isinstance(embedded, EmbeddedResource)
        assert (embedded.resource.uri, embedded.resource.text) == ("memo://1", "remember")

        mixed = await client.call_tool("everything")
        assert [type(block) for block in mixed.content] == [
            TextContent,
            ImageContent,
            AudioContent,
            ResourceLink,
            EmbeddedResource,
        ]
        assert mixed.is_error in (False, msgspec.UNSET)


def structured_server() -> Server:
    server = Server("structured", "1.0")

    @server.tool
    def point(x: float, y: float) -> Point:
        """A msgspec Struct."""
        return Point(x=x, y=y)

    @server.tool
    def box(width: int, height: int) -> Box:
        """A dataclass."""
        return Box(width=width, height=height)

    @server.tool
    def counts(words: list[str]) -> dict[str, int]:
        """A dict."""
        return {word: len(word) for word in words}

    @server.tool
    def total(numbers: list[int]) -> int:
        """Not an object: wrapped as {"result": ...}."""
        return sum(numbers)

    return server


@pytest.mark.parametrize("objects", [False, True])
async def test_structured_output_with_output_schema(era: str, objects: bool) -> None:
    async with connected(structured_server(), era, objects=objects) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert tools["point"].output_schema["required"] == ["x", "y"]  # type: ignore[index]
        assert tools["box"].output_schema["properties"] == {  # type: ignore[index]
            "width": {"type": "integer"},
            "height": {"type": "integer"},
        }
        assert tools["counts"].output_schema["type"] == "object"  # type: ignore[index]
        assert tools["total"].output_schema["required"] == ["result"]  # type: ignore[index]

        expected = {
            "point": ({"x": 1.5, "y": -2.0}, {"x": 1.5, "y": -2.0}),
            "box": ({"width": 3, "height": 4}, {"width": 3, "height": 4}),
            "counts": ({"words": ["a", "bcd"]}, {"a": 1, "bcd": 3}),
            "total": ({"numbers": [1, 2, 3]}, {"result": 6}),
        }
        for name, (arguments, structured) in expected.items():
            result = await client.call_tool(name, arguments)
            assert result.structured_content == structured, name
            # The same data as text, for clients that only read content.
            unwrapped = structured["result"] if name == "total" else structured
            assert msgspec.json.decode(only_text(result)) == unwrapped, name


def failing_server() -> Server:
    server = Server("failing", "1.0")

    @server.tool
    def divide(a: int, b: int) -> float:
        return a / b

    @server.tool
    def refuse() -> str:
        raise McpError(INVALID_PARAMS, "not today", data={"why": "closed"})

    return server


async def test_a_raising_tool_is_an_error_result(era: str) -> None:
    async with connected(failing_server(), era) as client:
        result = await client.call_tool("divide", {"a": 1, "b": 0})
        assert result.is_error is True
        assert "division by zero" in only_text(result)
        # The connection is unharmed.
        assert (await client.call_tool("divide", {"a": 1, "b": 4})).structured_content == {
            "result": 0.25
        }


@pytest.mark.parametrize(
    "arguments",
    [{"a": "one", "b": 2}, {"a": 1}, {"a": None, "b": 2}],
    ids=["wrong-type", "missing", "null"],
)
async def test_invalid_arguments_are_an_error_result(era: str, arguments: dict[str, Any]) -> None:
    async with connected(failing_server(), era) as client:
        result = await client.call_tool("divide", arguments)
        assert result.is_error is True
        assert only_text(result).startswith("Invalid arguments for tool 'divide'")


async def test_protocol_errors_raise(era: str) -> None:
    async with connected(failing_server(), era) as client:
        with pytest.raises(McpError) as unknown:
            await client.call_tool("nope")
        assert unknown.value.code == INVALID_PARAMS
        assert "nope" in unknown.value.message

        # A tool raising McpError fails the request itself, with its code and data.
        with pytest.raises(McpError) as refused:
            await client.call_tool("refuse")
        assert (refused.value.code, refused.value.message) == (INVALID_PARAMS, "not today")
        assert refused.value.data == {"why": "closed"}


@pytest.mark.parametrize("objects", [False, True])
async def test_advanced_call_tool_handler(era: str, objects: bool) -> None:
    server = Server("advanced", "1.0")
    seen: list[tuple[str, Any, str]] = []

    @server.on_call_tool
    async def call(params: CallToolRequestParams, ctx: Context) -> CallToolResult:
        seen.append((params.name, params.arguments, ctx.revision))
        if params.name == "boom":
            raise RuntimeError("kaput")
        if params.name == "missing":
            raise McpError(INVALID_PARAMS, f"Unknown tool: {params.name}")
        return CallToolResult(
            content=[TextContent(text=f"ran {params.name}")],
            structured_content={"args": params.arguments},
        )

    async with connected(server, era, objects=objects) as client:
        assert client.server_capabilities.tools is not msgspec.UNSET
        result = await client.call_tool("anything", {"n": 1})
        assert only_text(result) == "ran anything"
        assert result.structured_content == {"args": {"n": 1}}
        with pytest.raises(McpError) as missing:
            await client.call_tool("missing")
        assert missing.value.code == INVALID_PARAMS
        with pytest.raises(McpError) as boom:
            await client.call_tool("boom")
        assert boom.value.code == INTERNAL_ERROR
        assert "kaput" in boom.value.message
    revision = "2025-11-25" if era == "legacy" else "2026-07-28"
    assert seen == [
        ("anything", {"n": 1}, revision),
        ("missing", msgspec.UNSET, revision),
        ("boom", msgspec.UNSET, revision),
    ]


# --- progress --------------------------------------------------------------------------


def progress_server(tokens: list[object]) -> Server:
    server = Server("progress", "1.0")

    @server.tool
    async def count(ctx: Context, steps: int) -> str:
        tokens.append(ctx.request.progress_token)
        for step in range(1, steps + 1):
            await ctx.report_progress(step, steps, f"step {step}")
        return "counted"

    return server


@pytest.mark.parametrize("objects", [False, True])
async def test_progress_reaches_on_progress_in_order(era: str, objects: bool) -> None:
    tokens: list[object] = []
    progress = Inbox()
    async with connected(progress_server(tokens), era, objects=objects) as client:
        result = await client.call_tool("count", {"steps": 20}, on_progress=progress)
        assert only_text(result) == "counted"
    # Every notification came before the answer, and on_progress saw each one in turn.
    assert [(p.progress, p.total, p.message) for p in progress.items] == [
        (step, 20, f"step {step}") for step in range(1, 21)
    ]
    assert tokens[0] is not None
    assert {p.progress_token for p in progress.items} == {tokens[0]}


async def test_async_on_progress_is_awaited_in_order(era: str) -> None:
    seen: list[float] = []

    async def slow(event: Any) -> None:
        await anyio.lowlevel.checkpoint()
        seen.append(event.progress)

    async with connected(progress_server([]), era) as client:
        await client.call_tool("count", {"steps": 5}, on_progress=slow)
    assert seen == [1, 2, 3, 4, 5]


async def test_no_progress_without_on_progress(era: str) -> None:
    tokens: list[object] = []
    async with connected(progress_server(tokens), era) as client:
        assert only_text(await client.call_tool("count", {"steps": 3})) == "counted"
    # No token was sent, so the handler's reports went nowhere.
    assert tokens == [None]


# --- logging ---------------------------------------------------------------------------


def logging_server() -> Server:
    server = Server("logging", "1.0")

    @server.tool
    async def chatty(ctx: Context) -> str:
        await ctx.debug("debug line")
        await ctx.info({"structured": True}, logger="app")
        await ctx.warning("warning line")
        await ctx.log("emergency", "last")
        return "done"

    return server


async def test_log_messages_reach_on_log(era: str) -> None:
    logs = Inbox()
    async with connected(logging_server(), era, on_log=logs) as client:
        await client.set_logging_level("debug")
        assert only_text(await client.call_tool("chatty")) == "done"
        received = await logs.wait_for(4)
    assert [(m.level, m.data, m.logger) for m in received] == [
        ("debug", "debug line", msgspec.UNSET),
        ("info", {"structured": True}, "app"),
        ("warning", "warning line", msgspec.UNSET),
        ("emergency", "last", msgspec.UNSET),
    ]


async def test_set_logging_level_filters(era: str) -> None:
    logs = Inbox()
    async with connected(logging_server(), era, on_log=logs) as client:
        await client.set_logging_level("warning")
        await client.call_tool("chatty")
        await logs.wait_for(2)
        await client.set_logging_level("info")
        await client.call_tool("chatty")
        received = await logs.wait_for(5)
    assert [m.level for m in received] == ["warning", "emergency", "info", "warning", "emergency"]


async def test_without_a_level_legacy_gets_everything_and_modern_nothing(era: str) -> None:
    logs = Inbox()
    async with connected(logging_server(), era, on_log=logs) as client:
        await client.call_tool("chatty")
        # Then ask for errors only: the "last" emergency line of this call is the
        # marker that everything before it was delivered.
        await client.set_logging_level("error")
        await client.call_tool("chatty")
        received = await logs.wait_for(5 if era == "legacy" else 1)
    levels = [m.level for m in received]
    if era == "legacy":
        assert levels == ["debug", "info", "warning", "emergency", "emergency"]
    else:
        assert levels == ["emergency"]


async def test_a_tool_added_later_may_log(era: str) -> None:
    # Why logging is declared whatever is registered: the session's capabilities
    # are fixed at its opening, and a tool added afterwards may still log
    # (2025-11-25 server/utilities/logging.mdx: servers that emit log messages
    # MUST declare logging).
    server = Server("empty", "1.0")
    server.declare("tools")  # tools will come, none is registered yet
    logs = Inbox()
    async with connected(server, era, on_log=logs) as client:
        assert client.server_capabilities.logging == {}
        await client.set_logging_level("info")  # the core answers it for any server

        @server.tool
        async def late(ctx: Context) -> str:
            await ctx.info("logged from a tool added later")
            return "ok"

        assert only_text(await client.call_tool("late")) == "ok"
        (message,) = await logs.wait_for(1)
    assert message.data == "logged from a tool added later"


# --- pagination ------------------------------------------------------------------------


def many_tools_server(count: int) -> Server:
    server = Server("many", "1.0", page_size=2)
    for index in range(count):

        def tool(n: int = index) -> int:
            return n

        server.add_tool(tool, name=f"tool_{index:02d}", description=f"number {index}")
    return server


@pytest.mark.parametrize("objects", [False, True])
async def test_iter_tools_walks_every_page_in_order(era: str, objects: bool) -> None:
    async with connected(many_tools_server(25), era, objects=objects) as client:
        names = [tool.name async for tool in client.iter_tools()]
        assert names == [f"tool_{index:02d}" for index in range(25)]

        pages = 0
        cursor: str | None = None
        while True:
            page = await client.list_tools(cursor)
            pages += 1
            assert len(page.tools) == (1 if pages == 13 else 2)
            if page.next_cursor is msgspec.UNSET:
                break
            cursor = page.next_cursor  # type: ignore[assignment]
        assert pages == 13

        result = await client.call_tool("tool_24", {})
        assert result.structured_content == {"result": 24}


async def test_a_cursor_the_server_did_not_make_is_invalid_params(era: str) -> None:
    async with connected(many_tools_server(3), era) as client:
        with pytest.raises(McpError) as bad:
            await client.list_tools("not-a-cursor")
        assert bad.value.code == INVALID_PARAMS
