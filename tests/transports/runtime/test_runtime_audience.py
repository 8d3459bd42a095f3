"""All connections of one application watch its registry through one watcher
(transports/audience.py): each still gets every change, and the last one to close
stops the watching."""

from __future__ import annotations

from contextlib import AsyncExitStack

import pytest
from runtime_helpers import Inbox, connected

from mcp_core import Server

pytestmark = pytest.mark.anyio


async def test_connections_share_one_watcher_and_each_hears_a_change() -> None:
    server = Server("changing", "1.0")
    server.add_tool(lambda: "one", name="one")
    inboxes = [Inbox() for _ in range(3)]
    async with AsyncExitStack() as stack:
        for inbox in inboxes:
            await stack.enter_async_context(connected(server, "legacy", on_notification=inbox))
        assert len(server._watchers) == 1
        assert len(server.tasks._watchers) == 1
        server.add_tool(lambda: "two", name="two")
        for inbox in inboxes:
            assert [method for method, _ in await inbox.wait_for(1)] == [
                "notifications/tools/list_changed"
            ]
    assert not server._watchers and not server.tasks._watchers


async def test_a_connection_after_the_last_one_closed_watches_again() -> None:
    server = Server("changing", "1.0")
    server.add_tool(lambda: "one", name="one")
    async with connected(server, "legacy"):
        pass
    assert not server._watchers
    inbox = Inbox()
    async with connected(server, "legacy", on_notification=inbox):
        server.add_tool(lambda: "two", name="two")
        assert [method for method, _ in await inbox.wait_for(1)] == [
            "notifications/tools/list_changed"
        ]
