"""All connections of one application watch its registry through one watcher
(transports/audience.py): each still gets every change, connections that come and
go add no watchers, and a change with nobody connected reaches nobody."""

from __future__ import annotations

import gc
import weakref
from contextlib import AsyncExitStack

import pytest
from runtime_helpers import Inbox, connected

from mcp_core import Server

pytestmark = pytest.mark.anyio

CHANGED = "notifications/tools/list_changed"


def changing_server() -> Server:
    server = Server("changing", "1.0")
    server.add_tool(lambda: "one", name="one")
    return server


async def test_connections_share_one_watcher_and_each_hears_a_change() -> None:
    server = changing_server()
    inboxes = [Inbox() for _ in range(3)]
    async with AsyncExitStack() as stack:
        for inbox in inboxes:
            await stack.enter_async_context(connected(server, "legacy", on_notification=inbox))
        assert len(server._watchers) == 1
        assert len(server.tasks._watchers) == 1
        server.add_tool(lambda: "two", name="two")
        for inbox in inboxes:
            assert [method for method, _ in await inbox.wait_for(1)] == [CHANGED]
    assert len(server._watchers) == 1


async def test_connections_that_come_and_go_keep_one_watcher() -> None:
    server = changing_server()
    for _ in range(3):
        async with connected(server, "modern"):
            pass
        server.add_tool(lambda: "x", name="between")  # nobody to tell
        server.remove_tool("between")
    assert len(server._watchers) == 1 and len(server.tasks._watchers) == 1
    inbox = Inbox()
    async with connected(server, "legacy", on_notification=inbox):
        server.add_tool(lambda: "two", name="two")
        assert [method for method, _ in await inbox.wait_for(1)] == [CHANGED]


async def test_the_audience_does_not_keep_the_application_alive() -> None:
    server = changing_server()
    async with connected(server, "legacy"):
        pass
    gone = weakref.ref(server)
    del server
    gc.collect()
    assert gone() is None
