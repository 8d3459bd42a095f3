"""Arguments a tool's signature does not name, and what a wrong call is told.

An unknown argument is refused with -32602 naming it, unless the function takes
``**kwargs``; the input schema says the same (``additionalProperties``). A missing
or mistyped argument stays a tool execution error, and shows the signature.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
import pytest
from server_app_helpers import LEGACY, MODERN, dispatch, wire

from mcp_core.server.app import Server
from mcp_core.server.context import McpError
from mcp_core.server.signatures import inspect_function
from mcp_core.wire.errors import INVALID_PARAMS

REVISIONS = [LEGACY, MODERN]


def shop() -> Server:
    server = Server("shop", "1.0", state_key=b"k" * 32)

    @server.tool
    def add(a: int, b: int) -> int:
        return a + b

    @server.tool(name="order")
    def place_order(item: str, **notes: Any) -> str:
        return f"{item} {sorted(notes.items())}"

    @server.prompt
    def ask(topic: str) -> str:
        return f"Tell me about {topic}"

    return server


@pytest.mark.anyio
@pytest.mark.parametrize("revision", REVISIONS)
async def test_unknown_arguments_are_refused_with_their_names(revision: str) -> None:
    params = {"name": "add", "arguments": {"a": 1, "b": 2, "zeta": 4, "c": 3}}
    with pytest.raises(McpError) as caught:
        await dispatch(shop(), "tools/call", params, revision=revision)
    assert caught.value.code == INVALID_PARAMS
    assert caught.value.message == (
        "Unknown arguments for tool 'add': c, zeta; it takes add(a: int, b: int)"
    )
    assert caught.value.data == {"unknown": ["c", "zeta"]}


@pytest.mark.anyio
async def test_kwargs_take_the_arguments_the_signature_does_not_name() -> None:
    server = shop()
    listed = {tool.name: wire(tool) for tool in server.tools}
    assert "additionalProperties" not in listed["order"]["inputSchema"]
    assert listed["add"]["inputSchema"]["additionalProperties"] is False
    params = {"name": "order", "arguments": {"item": "tea", "size": "L", "sugar": 2}}
    result = await dispatch(server, "tools/call", params)
    assert wire(result)["content"] == [
        {"type": "text", "text": "tea [('size', 'L'), ('sugar', 2)]"}
    ]


@pytest.mark.anyio
async def test_a_missing_argument_shows_the_signature() -> None:
    result = await dispatch(shop(), "tools/call", {"name": "add", "arguments": {"a": 1}})
    assert wire(result) == {
        "content": [
            {
                "type": "text",
                "text": "Invalid arguments for tool 'add': Object missing required field `b`; "
                "it takes add(a: int, b: int)",
            }
        ],
        "isError": True,
    }


@pytest.mark.anyio
async def test_unknown_prompt_arguments_are_refused() -> None:
    params = {"name": "ask", "arguments": {"topic": "tea", "tone": "dry"}}
    with pytest.raises(McpError) as caught:
        await dispatch(shop(), "prompts/get", params)
    assert caught.value.code == INVALID_PARAMS
    assert caught.value.message == (
        "Unknown argument for prompt 'ask': tone; it takes ask(topic: str)"
    )


class Point(msgspec.Struct):
    x: int


def test_signatures_read_as_written() -> None:
    def f(
        p: Point, label: Annotated[str, "shown"] = "x", /, *, tags: list[str] | None = None
    ) -> None:
        pass

    def g(**extra: Any) -> None:
        pass

    assert inspect_function(f).signature() == (
        "f(p: Point, label: str = 'x', tags: list[str] | None = None)"
    )
    info = inspect_function(g)
    assert info.signature() == "g(**extra)"
    assert info.input_schema == {"type": "object"}
    assert info.convert({"anything": [1]}) == {"anything": [1]}


def test_args_are_still_refused_at_registration() -> None:
    def f(*values: int) -> None:
        pass

    with pytest.raises(TypeError, match=r"\*args"):
        inspect_function(f)
