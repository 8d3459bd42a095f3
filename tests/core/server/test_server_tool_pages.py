"""tools/list pages of an unchanged registry are made once, and their tools encoded
once for transports that send JSON (mcp_core/server/tool_pages.py): the bytes are
those of the page encoded whole, a change makes new pages, and a result the
server did not make (a handler's, a middleware's) goes out as it is."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import msgspec
import pytest
from server_app_helpers import MODERN, dispatch

from mcp_core import Context, Server
from mcp_core.session.events import RequestReceived
from mcp_core.types.server import ListToolsResult
from mcp_core.wire import Response, encode_message

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def make_server(count: int, **options: Any) -> Server:
    server = Server("pages", "1", **options)
    for i in range(count):
        server.add_tool(lambda: "x", name=f"tool_{i}", description=f"Tool {i}.")
    return server


def as_sent(result: Any) -> bytes:
    return encode_message(Response(id=7, result=result))


def names(result: ListToolsResult) -> list[str]:
    return [tool.name for tool in result.tools]


async def test_an_unchanged_registry_gives_the_same_page_with_its_tools_encoded_once() -> None:
    server = make_server(3)
    first = await dispatch(server, "tools/list")
    assert await dispatch(server, "tools/list", revision=MODERN) is first
    sent = server.wire_form(first)
    assert type(sent.tools) is msgspec.Raw
    assert as_sent(sent) == as_sent(first)
    assert server.wire_form(first) is sent
    assert names(first) == ["tool_0", "tool_1", "tool_2"]


async def test_a_change_to_the_tools_makes_a_new_page() -> None:
    server = make_server(2)
    before = await dispatch(server, "tools/list")
    server.wire_form(before)
    server.add_tool(lambda: "y", name="added")
    after = await dispatch(server, "tools/list")
    assert names(after) == ["tool_0", "tool_1", "added"]
    assert server.wire_form(before) is before
    assert as_sent(server.wire_form(after)) == as_sent(after)
    server.remove_tool("tool_0")
    assert names(await dispatch(server, "tools/list")) == ["tool_1", "added"]


async def test_each_page_is_kept_and_encoded_by_its_cursor() -> None:
    server = make_server(5, page_size=2)
    seen: list[str] = []
    cursor: Any = None
    while True:
        params = {} if cursor is None else {"cursor": cursor}
        result = await dispatch(server, "tools/list", params)
        assert await dispatch(server, "tools/list", params) is result
        assert as_sent(server.wire_form(result)) == as_sent(result)
        seen += names(result)
        if not isinstance(result.next_cursor, str):
            break
        cursor = result.next_cursor
    assert seen == [f"tool_{i}" for i in range(5)]


async def test_a_page_from_middleware_or_a_handler_goes_out_as_it_is() -> None:
    server = make_server(3)

    @server.use
    async def only_even(
        event: RequestReceived, ctx: Context, call_next: Callable[[], Awaitable[Any]]
    ) -> Any:
        result = await call_next()
        if event.method != "tools/list":
            return result
        kept = [tool for tool in result.tools if int(tool.name[-1]) % 2 == 0]
        return msgspec.structs.replace(result, tools=kept)

    filtered = await dispatch(server, "tools/list")
    assert names(filtered) == ["tool_0", "tool_2"]
    assert server.wire_form(filtered) is filtered

    handled = make_server(1)
    handled.on_list_tools(lambda params, ctx: ListToolsResult(tools=[]))
    result = await dispatch(handled, "tools/list")
    assert result.tools == [] and handled.wire_form(result) is result
