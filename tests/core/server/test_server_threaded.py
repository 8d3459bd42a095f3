"""Which handlers the application layer hands to the runtime's worker threads
(`Peer.run_sync`): plain functions, unless registered with ``threaded=False`` or
served by ``Server(threaded=False)``; never ``async def`` ones."""

from __future__ import annotations

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
