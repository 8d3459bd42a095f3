"""The server application layer: registry, schemas, dispatch, results, capabilities."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Annotated, Any, Literal, TypedDict

import anyio
import msgspec
import pytest
from server_app_helpers import LEGACY, MODERN, dispatch, wire

from mcp_core.server.app import Server
from mcp_core.server.context import Context, McpError, ResourceNotFoundError
from mcp_core.server.signatures import inspect_function, output_schema, parse_docstring
from mcp_core.types.content import ImageContent, TextContent, TextResourceContents
from mcp_core.types.server import (
    CallToolResult,
    CompleteResult,
    Completion,
    GetPromptResult,
    ListToolsResult,
    PromptMessage,
    ToolAnnotations,
)
from mcp_core.wire.errors import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    METHOD_NOT_FOUND,
    RESOURCE_NOT_FOUND,
)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


BOTH = pytest.mark.parametrize("anyio_backend", ["asyncio", "trio"])


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


class Point(msgspec.Struct):
    """A point on the plane."""

    x: float
    y: float


@dataclass
class Box:
    width: int
    height: int


class Totals(TypedDict):
    count: int
    names: list[str]


class Tree(msgspec.Struct):
    value: int
    children: list[Tree] = []


# --- schemas -------------------------------------------------------------------------------


def search(
    query: str,
    limit: int = 10,
    kind: Literal["file", "dir"] = "file",
    color: Color | None = None,
    origin: Point | None = None,
    tags: list[str] | None = None,
    weight: Annotated[float, "How much it counts."] = 1.0,
    depth: Annotated[int, msgspec.Meta(description="How deep.", ge=0)] = 0,
) -> list[str]:
    """Search for things.

    Looks everywhere.

    Args:
        query: What to look for,
            over two lines.
        limit (int): At most this many.
        weight: overridden by Annotated.

    Returns:
        The names found.
    """
    return []


def test_input_schema_required_defaults_and_descriptions() -> None:
    info = inspect_function(search)
    schema = info.input_schema
    assert info.description == "Search for things.\n\nLooks everywhere."
    assert schema["type"] == "object"
    assert schema["required"] == ["query"]
    props = schema["properties"]
    assert list(props) == [
        "query",
        "limit",
        "kind",
        "color",
        "origin",
        "tags",
        "weight",
        "depth",
    ]
    assert props["query"] == {"type": "string", "description": "What to look for, over two lines."}
    assert props["limit"] == {"type": "integer", "description": "At most this many.", "default": 10}
    assert props["kind"] == {"enum": ["dir", "file"], "default": "file"}
    assert props["color"] == {
        "anyOf": [{"$ref": "#/$defs/Color"}, {"type": "null"}],
        "default": None,
    }
    assert props["tags"]["anyOf"][0] == {"type": "array", "items": {"type": "string"}}
    assert props["weight"]["description"] == "How much it counts."
    assert props["depth"] == {
        "description": "How deep.",
        "type": "integer",
        "minimum": 0,
        "default": 0,
    }
    defs = schema["$defs"]
    assert defs["Color"]["enum"] == ["green", "red"]
    assert defs["Point"]["description"] == "A point on the plane."
    assert defs["Point"]["required"] == ["x", "y"]


def test_no_parameters_and_context_is_injected_not_described() -> None:
    def ping(ctx: Context) -> str:
        return "pong"

    def maybe(a: int, ctx: Context | None = None) -> None:
        pass

    info = inspect_function(ping)
    assert info.input_schema == {"type": "object", "additionalProperties": False}
    assert info.context_param == "ctx"
    assert inspect_function(maybe).input_schema["properties"].keys() == {"a"}


def test_unsupported_signatures_are_refused() -> None:
    def star(*args: int) -> None:
        pass

    def bad(a: object) -> None:
        pass

    with pytest.raises(TypeError, match="args"):
        inspect_function(star)
    with pytest.raises(TypeError, match="unsupported"):
        inspect_function(bad)


def test_argument_conversion_is_json_strict_but_widens_int() -> None:
    def f(n: float, p: Point, when: Color, items: list[int] = [1]) -> None:  # noqa: B006
        pass

    info = inspect_function(f)
    values = info.convert({"n": 1, "p": {"x": 1, "y": 2}, "when": "red"})
    assert values == {"n": 1.0, "p": Point(1.0, 2.0), "when": Color.RED, "items": [1]}
    values["items"].append(2)
    assert info.convert({"n": 1, "p": {"x": 1, "y": 2}, "when": "red"})["items"] == [1]
    with pytest.raises(msgspec.ValidationError, match=r"\$\.n"):
        info.convert({"n": "1", "p": {"x": 1, "y": 2}, "when": "red"})
    with pytest.raises(msgspec.ValidationError, match="`when`"):
        info.convert({"n": 1, "p": {"x": 1, "y": 2}})


def test_output_schemas() -> None:
    assert output_schema(str) is None
    assert output_schema(CallToolResult) is None
    assert output_schema(list[TextContent]) is None
    assert output_schema(Any) is None
    point, wrapped = output_schema(Point)  # type: ignore[misc]
    assert not wrapped and point["type"] == "object" and "$defs" not in point
    assert output_schema(Box)[0]["required"] == ["width", "height"]  # type: ignore[index]
    assert output_schema(Totals)[0]["properties"]["names"]["type"] == "array"  # type: ignore[index]
    assert output_schema(dict[str, int]) == (
        {"type": "object", "additionalProperties": {"type": "integer"}},
        False,
    )
    assert output_schema(int) == (
        {"type": "object", "properties": {"result": {"type": "integer"}}, "required": ["result"]},
        True,
    )
    listed, wrapped = output_schema(list[Point])  # type: ignore[misc]
    assert wrapped and listed["$defs"]["Point"]["type"] == "object"
    assert output_schema(str, force=True)[0]["properties"]["result"] == {"type": "string"}  # type: ignore[index]
    tree, _ = output_schema(Tree)  # type: ignore[misc]
    assert tree["properties"]["children"]["items"] == {"$ref": "#/$defs/Tree"}
    assert tree["$defs"]["Tree"]["type"] == "object"


def test_docstring_parsing() -> None:
    assert parse_docstring(None) == (None, {})
    assert parse_docstring("Args:\n    a: x\n") == (None, {"a": "x"})
    text, args = parse_docstring(
        "Do it.\n\nParameters:\n    a: first\n    b:\n        second, indented\n"
        "Raises:\n    ValueError: never\n"
    )
    assert text == "Do it."
    assert args == {"a": "first", "b": "second, indented"}


# --- tools -----------------------------------------------------------------------------------


def make_server(**options: Any) -> Server:
    return Server("test", "1.0", state_key=b"k" * 32, **options)


@pytest.mark.anyio
async def test_tool_decorator_with_and_without_parentheses() -> None:
    server = make_server()

    @server.tool
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    @server.tool(name="shout", title="Shout", annotations=ToolAnnotations(read_only_hint=True))
    async def loud(text: str) -> str:
        await anyio.sleep(0)
        return text.upper()

    assert add(1, 2) == 3  # the decorators return the function
    listed = await dispatch(server, "tools/list")
    assert isinstance(listed, ListToolsResult)
    assert [t.name for t in listed.tools] == ["add", "shout"]
    assert wire(listed.tools[0]) == {
        "name": "add",
        "description": "Add two numbers.",
        "inputSchema": {
            "type": "object",
            "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
            "required": ["a", "b"],
            "additionalProperties": False,
        },
        "outputSchema": {
            "type": "object",
            "properties": {"result": {"type": "integer"}},
            "required": ["result"],
        },
    }
    assert wire(listed.tools[1])["annotations"] == {"readOnlyHint": True}
    assert "outputSchema" not in wire(listed.tools[1])
    result = await dispatch(server, "tools/call", {"name": "add", "arguments": {"a": 2, "b": 3}})
    assert wire(result) == {
        "content": [{"type": "text", "text": "5"}],
        "structuredContent": {"result": 5},
    }
    result = await dispatch(server, "tools/call", {"name": "shout", "arguments": {"text": "hi"}})
    assert wire(result) == {"content": [{"type": "text", "text": "HI"}]}


@BOTH
@pytest.mark.anyio
async def test_sync_and_async_tools_under_both_loops() -> None:
    server = make_server()

    @server.tool
    def sync_tool(n: int) -> str:
        return f"sync {n}"

    @server.tool
    async def async_tool(n: int, ctx: Context) -> str:
        await anyio.sleep(0)
        return f"async {n} for {ctx.request_id}"

    first = await dispatch(server, "tools/call", {"name": "sync_tool", "arguments": {"n": 1}})
    second = await dispatch(server, "tools/call", {"name": "async_tool", "arguments": {"n": 2}})
    assert first.content == [TextContent(text="sync 1")]
    assert second.content == [TextContent(text="async 2 for 1")]


@pytest.mark.anyio
async def test_tool_arguments_reach_keyword_positional_only_and_context_parameters() -> None:
    # FunctionInfo.call: keywords alone, positional-only parameters, a Context;
    # defaults (a mutable one copied per call) fill what the client left out.
    server = make_server()

    @server.tool
    async def keywords(a: int, b: str = "b", seen: list[int] = []) -> str:  # noqa: B006
        seen.append(a)
        return f"{a} {b} {seen}"

    @server.tool
    async def positional(a: int, /, b: int, ctx: Context, c: int = 3) -> str:
        return f"{a} {b} {c} {ctx.request_id}"

    async def text(name: str, arguments: dict[str, Any]) -> str:
        result = await dispatch(server, "tools/call", {"name": name, "arguments": arguments})
        assert result.is_error is not True, result
        return str(result.content[0].text)

    assert await text("keywords", {"a": 1}) == "1 b [1]"
    assert await text("keywords", {"a": 2, "b": "x"}) == "2 x [2]"
    assert await text("positional", {"a": 1, "b": 2}) == "1 2 3 1"
    assert await text("positional", {"b": 5, "a": 4, "c": 6}) == "4 5 6 1"


@pytest.mark.anyio
async def test_invalid_arguments_and_exceptions_are_tool_errors() -> None:
    server = make_server()

    @server.tool
    def divide(a: int, b: int) -> float:
        return a / b

    result = await dispatch(server, "tools/call", {"name": "divide", "arguments": {"a": "x"}})
    assert result.is_error is True
    assert "Invalid arguments for tool 'divide'" in result.content[0].text
    assert "$.a" in result.content[0].text
    result = await dispatch(server, "tools/call", {"name": "divide", "arguments": {"a": 1}})
    assert result.is_error is True and "`b`" in result.content[0].text
    result = await dispatch(server, "tools/call", {"name": "divide", "arguments": {"a": 1, "b": 0}})
    assert wire(result) == {
        "content": [{"type": "text", "text": "division by zero"}],
        "isError": True,
    }


@pytest.mark.anyio
async def test_unknown_tool_is_a_protocol_error() -> None:
    server = make_server()
    with pytest.raises(McpError) as caught:
        await dispatch(server, "tools/call", {"name": "nope"})
    assert caught.value.code == INVALID_PARAMS
    assert caught.value.message == "Unknown tool: nope"


@pytest.mark.anyio
async def test_mcp_error_from_a_tool_propagates() -> None:
    server = make_server()

    @server.tool
    def strict() -> None:
        raise McpError(-32000, "custom", data={"why": 1})

    with pytest.raises(McpError) as caught:
        await dispatch(server, "tools/call", {"name": "strict"})
    assert (caught.value.code, caught.value.data) == (-32000, {"why": 1})


@pytest.mark.anyio
async def test_structured_outputs() -> None:
    server = make_server()

    @server.tool
    def where() -> Point:
        return Point(1.0, 2.0)

    @server.tool
    def boxes() -> list[Box]:
        return [Box(1, 2)]

    @server.tool(structured=False)
    def raw() -> Point:
        return Point(3.0, 4.0)

    @server.tool(output_schema={"type": "object", "properties": {"n": {"type": "integer"}}})
    def explicit() -> dict[str, int]:
        return {"n": 1}

    @server.tool(structured=True)
    def text() -> str:
        return "plain"

    tools = {t.name: t for t in server.tools}
    assert tools["where"].output_schema["required"] == ["x", "y"]  # type: ignore[index]
    assert tools["raw"].output_schema is msgspec.UNSET
    result = await dispatch(server, "tools/call", {"name": "where"})
    assert wire(result) == {
        "content": [{"type": "text", "text": '{"x":1.0,"y":2.0}'}],
        "structuredContent": {"x": 1.0, "y": 2.0},
    }
    result = await dispatch(server, "tools/call", {"name": "boxes"})
    assert result.structured_content == {"result": [{"width": 1, "height": 2}]}
    result = await dispatch(server, "tools/call", {"name": "raw"})
    assert wire(result) == {"content": [{"type": "text", "text": '{"x":3.0,"y":4.0}'}]}
    result = await dispatch(server, "tools/call", {"name": "explicit"})
    assert result.structured_content == {"n": 1}
    result = await dispatch(server, "tools/call", {"name": "text"})
    assert result.structured_content == {"result": "plain"}
    with pytest.raises(ValueError, match="structured=False"):
        server.add_tool(where, name="x", structured=False, output_schema={"type": "object"})


@pytest.mark.anyio
async def test_unstructured_return_conversion() -> None:
    server = make_server()
    png = b"\x89PNG\r\n\x1a\n" + b"\0" * 8
    image = ImageContent(data="AAAA", mime_type="image/gif")
    passthrough = CallToolResult(content=[], is_error=False)
    values: dict[str, Any] = {
        "none": None,
        "png": png,
        "block": image,
        "mixed": ["a", image],
        "data": {"k": [1, 2]},
        "result": passthrough,
        "unknown_bytes": b"\x00\x01",
    }
    for name, value in values.items():
        server.add_tool(lambda value=value: value, name=name, structured=False)
    get = {}
    for name in values:
        get[name] = await dispatch(server, "tools/call", {"name": name})
    assert get["none"].content == []
    assert wire(get["png"].content) == [
        {"type": "image", "data": "iVBORw0KGgoAAAAAAAAAAA==", "mimeType": "image/png"}
    ]
    assert get["block"].content == [image]
    assert get["mixed"].content == [TextContent(text="a"), image]
    assert get["data"].content == [TextContent(text='{"k":[1,2]}')]
    assert get["result"] is passthrough
    assert get["unknown_bytes"].is_error is True
    assert "unknown media type" in get["unknown_bytes"].content[0].text


def test_duplicate_and_removed_tools() -> None:
    server = make_server()
    server.add_tool(lambda: None, name="t")
    with pytest.raises(ValueError, match="already"):
        server.add_tool(lambda: None, name="t")
    server.remove_tool("t")
    assert server.tools == []
    with pytest.raises(KeyError):
        server.remove_tool("t")


# --- resources ---------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_static_resources_and_templates() -> None:
    server = make_server()

    @server.resource("config://app", mime_type="application/json")
    def config() -> dict[str, int]:
        """The app's configuration."""
        return {"debug": 1}

    @server.resource("users://{user_id}/profile", name="profile")
    async def profile(user_id: int, ctx: Context) -> str:
        return f"user {user_id + 1}"

    @server.resource("files://{+path}", mime_type="application/octet-stream")
    def files(path: str) -> bytes:
        return path.encode()

    listed = await dispatch(server, "resources/list")
    assert wire(listed) == {
        "resources": [
            {
                "uri": "config://app",
                "name": "config",
                "description": "The app's configuration.",
                "mimeType": "application/json",
            }
        ]
    }
    templates = await dispatch(server, "resources/templates/list")
    assert [t.uri_template for t in templates.resource_templates] == [
        "users://{user_id}/profile",
        "files://{+path}",
    ]
    result = await dispatch(server, "resources/read", {"uri": "config://app"})
    assert wire(result) == {
        "contents": [{"uri": "config://app", "mimeType": "application/json", "text": '{"debug":1}'}]
    }
    result = await dispatch(server, "resources/read", {"uri": "users://41/profile"})
    assert result.contents == [
        TextResourceContents(uri="users://41/profile", text="user 42", mime_type="text/plain")
    ]
    result = await dispatch(server, "resources/read", {"uri": "files://a/b.txt"})
    assert wire(result)["contents"][0] == {
        "uri": "files://a/b.txt",
        "mimeType": "application/octet-stream",
        "blob": "YS9iLnR4dA==",
    }


@pytest.mark.parametrize(
    ("revision", "code"), [(LEGACY, RESOURCE_NOT_FOUND), (MODERN, INVALID_PARAMS)]
)
@pytest.mark.anyio
async def test_unknown_resource_code_depends_on_revision(revision: str, code: int) -> None:
    server = make_server()

    @server.resource("users://{user_id}")
    def user(user_id: int) -> str:
        if user_id > 10:
            raise ResourceNotFoundError(user_id)
        return "ok"

    for uri in ("nothing://here", "users://abc", "users://11"):
        with pytest.raises(McpError) as caught:
            await dispatch(server, "resources/read", {"uri": uri}, revision=revision)
        assert caught.value.code == code
        assert caught.value.data == {"uri": uri}


@pytest.mark.anyio
async def test_resource_errors_and_registration_checks() -> None:
    server = make_server()

    @server.resource("broken://x")
    def broken() -> str:
        raise RuntimeError("disk on fire")

    with pytest.raises(McpError) as caught:
        await dispatch(server, "resources/read", {"uri": "broken://x"})
    assert caught.value.code == INTERNAL_ERROR
    assert "disk on fire" in caught.value.message
    with pytest.raises(TypeError, match="variables"):
        server.add_resource(lambda other: "", "users://{user_id}")
    with pytest.raises(TypeError, match="no arguments"):
        server.add_resource(lambda needed: "", "plain://x")
    with pytest.raises(ValueError, match="already"):
        server.add_resource(lambda: "", "broken://x")
    server.remove_resource("broken://x")
    assert server.resources == []


# --- prompts -------------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_prompts_with_arguments() -> None:
    server = make_server()

    @server.prompt
    def review(code: str, passes: int = 1) -> str:
        """Review some code.

        Args:
            code: The code to review.
        """
        return f"Review this {passes} times:\n{code}"

    @server.prompt(name="chat", description="A short chat.")
    async def conversation() -> list[Any]:
        return [
            "hello",
            PromptMessage(role="assistant", content=TextContent(text="hi")),
            {"role": "user", "content": {"type": "text", "text": "bye"}},
        ]

    @server.prompt
    def whole() -> GetPromptResult:
        return GetPromptResult(messages=[], description="as is")

    listed = await dispatch(server, "prompts/list")
    assert wire(listed)["prompts"][0] == {
        "name": "review",
        "description": "Review some code.",
        "arguments": [
            {"name": "code", "description": "The code to review.", "required": True},
            {"name": "passes", "required": False},
        ],
    }
    assert "arguments" not in wire(listed)["prompts"][1]
    result = await dispatch(
        server, "prompts/get", {"name": "review", "arguments": {"code": "x=1", "passes": "2"}}
    )
    assert wire(result) == {
        "description": "Review some code.",
        "messages": [
            {"role": "user", "content": {"type": "text", "text": "Review this 2 times:\nx=1"}}
        ],
    }
    result = await dispatch(server, "prompts/get", {"name": "chat"})
    assert [m.role for m in result.messages] == ["user", "assistant", "user"]
    assert result.description == "A short chat."
    assert (await dispatch(server, "prompts/get", {"name": "whole"})).description == "as is"
    cases: list[tuple[dict[str, Any], str]] = [
        ({"name": "review"}, "`code`"),
        ({"name": "review", "arguments": {"code": "x", "passes": "many"}}, "passes"),
        ({"name": "missing"}, "Unknown prompt: missing"),
    ]
    for params, text in cases:
        with pytest.raises(McpError) as caught:
            await dispatch(server, "prompts/get", params)
        assert caught.value.code == INVALID_PARAMS
        assert text in caught.value.message


@pytest.mark.anyio
async def test_prompt_failures_are_internal_errors() -> None:
    server = make_server()
    server.add_prompt(lambda: 42, name="bad")
    with pytest.raises(McpError) as caught:
        await dispatch(server, "prompts/get", {"name": "bad"})
    assert caught.value.code == INTERNAL_ERROR


# --- completion ----------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_completion() -> None:
    server = make_server()
    with pytest.raises(McpError) as caught:
        await dispatch(server, "completion/complete", _complete_params("py"))
    assert caught.value.code == METHOD_NOT_FOUND

    @server.completion
    def complete(ref: Any, argument: Any, context: dict[str, str]) -> list[str]:
        assert ref.name == "review"
        names = [f"{argument.value}{i}" for i in range(150)]
        return names if context.get("all") else names[:2]

    result = await dispatch(server, "completion/complete", _complete_params("py"))
    assert wire(result) == {"completion": {"values": ["py0", "py1"], "total": 2, "hasMore": False}}
    params = _complete_params("py")
    params["context"] = {"arguments": {"all": "yes"}}
    result = await dispatch(server, "completion/complete", params)
    assert isinstance(result, CompleteResult)
    assert len(result.completion.values) == 100
    assert (result.completion.total, result.completion.has_more) == (150, True)
    assert server.capabilities().completions == {}


@pytest.mark.anyio
async def test_completion_other_returns() -> None:
    server = make_server()
    answers: list[Any] = [None, Completion(values=["a"]), 3]

    @server.completion
    async def complete(ref: Any, argument: Any, context: Any, ctx: Context) -> Any:
        return answers.pop(0)

    assert (
        await dispatch(server, "completion/complete", _complete_params(""))
    ).completion.values == []
    assert (
        await dispatch(server, "completion/complete", _complete_params(""))
    ).completion.values == ["a"]
    with pytest.raises(McpError) as caught:
        await dispatch(server, "completion/complete", _complete_params(""))
    assert caught.value.code == INTERNAL_ERROR
    with pytest.raises(TypeError):
        server.completion(lambda ref: [])


def _complete_params(value: str) -> dict[str, Any]:
    return {
        "ref": {"type": "ref/prompt", "name": "review"},
        "argument": {"name": "code", "value": value},
    }


# --- pagination ----------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_pagination_across_pages_and_bad_cursor() -> None:
    server = make_server(page_size=2)
    for i in range(5):
        server.add_tool(lambda: None, name=f"t{i}")
    names: list[str] = []
    cursor = None
    pages = 0
    while True:
        params: dict[str, Any] = {} if cursor is None else {"cursor": cursor}
        result = await dispatch(server, "tools/list", params)
        pages += 1
        names += [t.name for t in result.tools]
        if result.next_cursor is msgspec.UNSET:
            break
        cursor = result.next_cursor
    assert names == ["t0", "t1", "t2", "t3", "t4"]
    assert pages == 3
    for bad in ("garbage!", "LTE=", "MDE="):  # not base64, "-1", "01"
        with pytest.raises(McpError) as caught:
            await dispatch(server, "tools/list", {"cursor": bad})
        assert caught.value.code == INVALID_PARAMS
    with pytest.raises(ValueError):
        Server("x", "1", page_size=0)


# --- capabilities and list changes ---------------------------------------------------------------


def test_capabilities_only_for_what_is_registered_and_logging_always() -> None:
    # logging is declared even with nothing registered: any handler, including one
    # added after the session fixed its capabilities, may log through its Context,
    # and servers that emit log messages MUST declare it (2025-11-25
    # server/utilities/logging.mdx). The reason sits next to Server.capabilities().
    server = make_server()
    assert wire(server.capabilities()) == {"logging": {}}
    server.add_tool(lambda: None, name="t")
    assert wire(server.capabilities()) == {"logging": {}, "tools": {"listChanged": True}}
    server.add_prompt(lambda: "", name="p")
    server.add_resource(lambda: "", "a://b")
    assert wire(server.capabilities()) == {
        "logging": {},
        "prompts": {"listChanged": True},
        "resources": {"listChanged": True},
        "tools": {"listChanged": True},
    }
    subscribing = make_server(subscribe=True)
    assert wire(subscribing.capabilities())["resources"] == {"subscribe": True, "listChanged": True}
    declared = make_server()
    declared.declare("prompts", "completions")
    assert wire(declared.capabilities()) == {
        "logging": {},
        "completions": {},
        "prompts": {"listChanged": True},
    }
    with pytest.raises(ValueError):
        declared.declare("nonsense")
    config = server.config(revisions=(MODERN,))
    assert config.server_info.name == "test" and config.revisions == (MODERN,)
    assert config.capabilities == server.capabilities()


def test_capabilities_follow_every_change_after_being_asked() -> None:
    # capabilities() remembers its last answer (asked once per 2026-07-28 request):
    # each change made after an answer must still show in the next one.
    server = make_server()
    asked = [wire(server.capabilities())]
    server.add_tool(lambda: None, name="t")
    asked.append(wire(server.capabilities()))
    server.remove_tool("t")
    asked.append(wire(server.capabilities()))
    server.declare("prompts")
    asked.append(wire(server.capabilities()))
    server.subscribe = True
    asked.append(wire(server.capabilities()))
    server.subscribe = False
    server.on_list_resources(lambda params, ctx: None)
    asked.append(wire(server.capabilities()))
    server.completion(lambda ref, argument, context: None)
    asked.append(wire(server.capabilities()))
    listed = {"listChanged": True}
    assert asked == [
        {"logging": {}},
        {"logging": {}, "tools": listed},
        {"logging": {}},
        {"logging": {}, "prompts": listed},
        {"logging": {}, "prompts": listed, "resources": {"subscribe": True, **listed}},
        {"logging": {}, "prompts": listed, "resources": listed},
        {"logging": {}, "prompts": listed, "resources": listed, "completions": {}},
    ]
    config = server.config()
    assert config is server.config() and config.capabilities == server.capabilities()
    server.add_tool(lambda: None, name="u")
    assert server.config() is not config and "tools" in wire(server.config().capabilities)


@pytest.mark.anyio
async def test_list_changes_are_recorded_after_start() -> None:
    server = make_server(subscribe=True)
    server.add_tool(lambda: None, name="before")
    assert server.take_list_changes() == []
    await dispatch(server, "tools/list")
    server.add_tool(lambda: None, name="t")
    server.remove_tool("t")
    server.add_prompt(lambda: "", name="p")
    server.add_resource(lambda x: "", "a://{x}")
    assert server.take_list_changes() == [
        "notifications/tools/list_changed",
        "notifications/prompts/list_changed",
        "notifications/resources/list_changed",
    ]
    assert server.take_list_changes() == []
    server.resource_updated("a://1")
    server.resource_updated("a://1")
    assert server.take_resource_updates() == ["a://1"]
    assert (await dispatch(server, "resources/subscribe", {"uri": "a://1"})) == msgspec.convert(
        {}, type(await dispatch(server, "resources/unsubscribe", {"uri": "a://1"}))
    )


@pytest.mark.anyio
async def test_unknown_method() -> None:
    with pytest.raises(McpError) as caught:
        await dispatch(make_server(), "sampling/createMessage", _sampling())
    assert caught.value.code == METHOD_NOT_FOUND


def _sampling() -> dict[str, Any]:
    return {"messages": [], "maxTokens": 1}


# --- advanced service ----------------------------------------------------------------------------


@pytest.mark.anyio
async def test_advanced_handlers_answer_raw_requests() -> None:
    server = make_server()
    seen: list[Any] = []

    @server.on_list_tools
    def list_tools(params: Any, ctx: Context) -> ListToolsResult:
        seen.append(params)
        return ListToolsResult(tools=[])

    @server.on_call_tool
    async def call_tool(params: Any, ctx: Context) -> CallToolResult:
        if params.name == "boom":
            raise RuntimeError("bad")
        return CallToolResult(content=[TextContent(text=f"{params.name}{params.arguments}")])

    @server.on_read_resource
    def read(params: Any, ctx: Context) -> Any:
        raise ResourceNotFoundError(params.uri)

    server.on_list_resources(lambda params, ctx: "resources")
    server.on_list_resource_templates(lambda params, ctx: "templates")
    server.on_list_prompts(lambda params, ctx: "prompts")
    server.on_get_prompt(lambda params, ctx: params.name)

    assert wire(server.capabilities()) == {
        "logging": {},
        "prompts": {"listChanged": True},
        "resources": {"listChanged": True},
        "tools": {"listChanged": True},
    }
    assert (await dispatch(server, "tools/list")).tools == []
    assert seen[0].cursor is msgspec.UNSET
    result = await dispatch(server, "tools/call", {"name": "x", "arguments": {"a": 1}})
    assert result.content[0].text == "x{'a': 1}"
    with pytest.raises(McpError) as caught:
        await dispatch(server, "tools/call", {"name": "boom"})
    assert caught.value.code == INTERNAL_ERROR
    with pytest.raises(McpError) as caught:
        await dispatch(server, "resources/read", {"uri": "z://"}, revision=MODERN)
    assert caught.value.code == INVALID_PARAMS
    assert await dispatch(server, "resources/list") == "resources"
    assert await dispatch(server, "resources/templates/list") == "templates"
    assert await dispatch(server, "prompts/list") == "prompts"
    assert await dispatch(server, "prompts/get", {"name": "n"}) == "n"


@pytest.mark.anyio
async def test_advanced_not_found_outside_resources_is_internal() -> None:
    server = make_server()

    @server.on_call_tool
    def call_tool(params: Any, ctx: Context) -> Any:
        raise ResourceNotFoundError("x")

    with pytest.raises(McpError) as caught:
        await dispatch(server, "tools/call", {"name": "x"})
    assert caught.value.code == INTERNAL_ERROR


def test_config_is_shared_until_the_registry_changes() -> None:
    # Sessions of one server share one config (and what they derive from it) while
    # nothing changes; a new capability makes a new config.
    server = make_server()
    first = server.config()
    assert server.config() is first
    assert server.config(revisions=("2025-11-25",)) is not first
    server.add_tool(lambda: None, name="t")
    second = server.config()
    assert second is not first
    assert wire(second.capabilities)["tools"] == {"listChanged": True}
    assert server.config() is second
    assert server.config(result_ttl_ms=5).result_ttl_ms == 5


def test_tool_header_paths_follow_the_registry() -> None:
    # What an HTTP endpoint checks Mcp-Param-* headers against (2026-07-28
    # streamable-http.mdx): kept by the server, up to date as tools come and go.
    server = make_server()
    assert server.tool_header_paths("query") == {}

    def query(
        region: Annotated[str, msgspec.Meta(extra_json_schema={"x-mcp-header": "Region"})],
    ) -> str:
        return region

    server.add_tool(query)
    assert server.tool_header_paths("query") == {"region": ("region",)}  # names lower-cased
    server.remove_tool("query")
    assert server.tool_header_paths("query") == {}
