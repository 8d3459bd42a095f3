"""Which handlers the application layer hands to the runtime's worker threads
(`Peer.run_sync`): plain functions, unless registered with ``threaded=False`` or
served by ``Server(threaded=False)``; never ``async def`` ones."""

from __future__ import annotations

from typing import Any

import pytest
from server_app_helpers import FakePeer, dispatch

from mcp_core import Server

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def make_server(**options: bool) -> Server:
    server = Server("threads", "1", **options)

    @server.tool
    def plain() -> str:
        return "plain"

    @server.tool(threaded=False)
    def quick() -> str:
        return "quick"

    @server.tool
    async def coroutine() -> str:
        return "async"

    @server.resource("res://plain")
    def resource() -> str:
        return "text"

    return server


@pytest.mark.parametrize(
    ("server_threaded", "method", "name", "expected"),
    [
        (True, "tools/call", "plain", 1),
        (True, "tools/call", "quick", 0),
        (True, "tools/call", "coroutine", 0),
        (True, "resources/read", "res://plain", 1),
        (False, "tools/call", "plain", 0),
        (False, "resources/read", "res://plain", 0),
    ],
)
async def test_plain_functions_go_to_a_thread(
    server_threaded: bool, method: str, name: str, expected: int
) -> None:
    peer = FakePeer()
    params = {"name": name} if method == "tools/call" else {"uri": name}
    await dispatch(make_server(threaded=server_threaded), method, params, peer=peer)
    assert peer.threaded == expected


class _Ready:
    """An awaitable that is no coroutine, of a type the routes do not know."""

    def __await__(self):  # type: ignore[no-untyped-def]
        return (yield from _later("ready").__await__())


async def _later(text: str) -> str:
    return text


@pytest.mark.parametrize("threaded", [True, False])
@pytest.mark.parametrize("method", ["tools/call", "prompts/get"])
async def test_an_awaitable_a_plain_function_returns_is_awaited(
    threaded: bool, method: str
) -> None:
    # A `def` that wraps an `async def` without saying so: what it returns, from its
    # thread or not, is awaited on the loop (the routes skip isawaitable only for
    # result types that cannot be awaited).
    server = Server("threads", "1")

    @server.tool(threaded=threaded)
    def wrapped() -> Any:
        return _later("wrapped")

    @server.tool(threaded=threaded)
    def ready() -> Any:
        return _Ready()

    @server.prompt(threaded=threaded)
    def hint() -> Any:
        return _Ready()

    peer = FakePeer()
    if method == "tools/call":
        texts = []
        for name in ("wrapped", "ready"):
            result = await dispatch(server, method, {"name": name}, peer=peer)
            texts.append(result.content[0].text)
        assert texts == ["wrapped", "ready"]
    else:
        result = await dispatch(server, method, {"name": "hint"}, peer=peer)
        assert result.messages[0].content.text == "ready"
    assert peer.threaded == (2 if method == "tools/call" else 1) * threaded
