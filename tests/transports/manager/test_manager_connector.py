"""A server reached through a connector of the caller's (here one in this process)
rather than the config's command or url. asyncio and trio."""

from __future__ import annotations

import anyio
import pytest
from manager_helpers import LIMIT
from runtime_helpers import only_text

from mcp_core import Server
from mcp_core.manager import ServerConfig
from transports.manager import Manager
from transports.memory import pipe

pytestmark = pytest.mark.anyio


def _server() -> Server:
    server = Server("local", "1")

    @server.tool
    async def shout(text: str) -> str:
        """Say it louder."""
        return text.upper()

    return server


async def test_a_server_in_this_process() -> None:
    with anyio.fail_after(LIMIT):
        async with Manager() as manager:
            # The command is never run: the connector stands in for it.
            config = ServerConfig(name="local", command="no-such-program")
            assert manager.add(config, connector=pipe(_server())) == "local"
            await manager.wait_for("local", "connected", timeout=LIMIT)
            status = manager.status_of("local")
            assert (status.transport, status.pid) == ("memory", None)
            assert [tool.name for tool in await manager.tools()] == ["local.shout"]
            result = await manager.call_tool("local.shout", {"text": "hi"})
            assert only_text(result) == "HI"
            await manager.remove("local")
            assert manager.servers == []
