"""Handler failures are logged with their traceback, `mask_errors` keeps their text
from clients, and middleware wraps every request."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from server_app_helpers import dispatch, wire

from mcp_core import Context, McpError, Server
from mcp_core.session.events import RequestReceived
from mcp_core.types.server import CallToolResult
from mcp_core.wire import INTERNAL_ERROR, INVALID_REQUEST

pytestmark = pytest.mark.anyio

Next = Callable[[], Awaitable[Any]]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def make_server(**options: Any) -> Server:
    server = Server("mw", "1", **options)

    @server.tool
    def lookup(key: str) -> str:
        return {"a": "A"}[key]

    @server.tool
    def fine() -> str:
        return "ok"

    @server.resource("res://broken")
    def broken() -> str:
        raise RuntimeError("the database password is hunter2")

    return server


async def call(server: Server, name: str, arguments: dict[str, Any] | None = None) -> Any:
    return await dispatch(server, "tools/call", {"name": name, "arguments": arguments or {}})


async def test_a_failing_tool_is_logged_with_its_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.ERROR, logger="mcp_core"):
        result = await call(make_server(), "lookup", {"key": "zz"})
    assert isinstance(result, CallToolResult) and result.is_error
    assert wire(result)["content"][0]["text"] == "KeyError: 'zz'"
    (record,) = caplog.records
    assert record.name == "mcp_core"
    assert "tool 'lookup' failed serving tools/call" in record.getMessage()
    assert record.exc_info is not None and record.exc_info[0] is KeyError


async def test_mask_errors_tells_the_client_only_that_it_failed(
    caplog: pytest.LogCaptureFixture,
) -> None:
    server = make_server(mask_errors=True)
    with caplog.at_level(logging.ERROR, logger="mcp_core"):
        result = await call(server, "lookup", {"key": "zz"})
        with pytest.raises(McpError) as caught:
            await dispatch(server, "resources/read", {"uri": "res://broken"})
    assert wire(result)["content"][0]["text"] == "tool 'lookup' failed"
    assert caught.value.code == INTERNAL_ERROR
    assert "hunter2" not in str(caught.value)
    assert any("hunter2" in str(r.exc_info[1]) for r in caplog.records if r.exc_info)


async def test_middleware_wraps_every_request_in_order() -> None:
    seen: list[str] = []

    async def outer(event: RequestReceived, ctx: Context, call_next: Next) -> Any:
        seen.append(f"outer {event.method} {ctx.principal}")
        result = await call_next()
        seen.append("outer done")
        return result

    server = make_server(middleware=[outer])

    @server.use
    async def inner(event: RequestReceived, ctx: Context, call_next: Next) -> Any:
        seen.append(f"inner {event.params.name}")
        return await call_next()

    result = await dispatch(server, "tools/call", {"name": "fine"}, principal="ada")
    assert wire(result)["content"][0]["text"] == "ok"
    assert seen == ["outer tools/call ada", "inner fine", "outer done"]


async def test_middleware_can_refuse_or_answer() -> None:
    async def guard(event: RequestReceived, ctx: Context, call_next: Next) -> Any:
        if ctx.principal is None:
            raise McpError(INVALID_REQUEST, "sign in first")
        if event.method == "tools/list":
            return {"tools": []}  # answered here, the handler never runs
        return await call_next()

    server = make_server(middleware=[guard])
    with pytest.raises(McpError) as caught:
        await call(server, "fine")
    assert (caught.value.code, str(caught.value)) == (INVALID_REQUEST, "sign in first")
    assert await dispatch(server, "tools/list", principal="ada") == {"tools": []}


async def test_a_failing_middleware_is_an_internal_error(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def broken(event: RequestReceived, ctx: Context, call_next: Next) -> Any:
        raise ZeroDivisionError("oops")

    with caplog.at_level(logging.ERROR, logger="mcp_core"), pytest.raises(McpError) as caught:
        await call(make_server(middleware=[broken]), "fine")
    assert caught.value.code == INTERNAL_ERROR
    assert caplog.records and caplog.records[0].exc_info is not None
