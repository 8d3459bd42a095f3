"""Change notifications end to end: list changes and resource updates.

Legacy sessions get them as plain notifications (resources/subscribe for updates);
2026-07-28 only inside a ``subscriptions/listen`` stream
(basic/patterns/subscriptions.mdx), which `Client.listen` opens.

Notifications reach ``on_notification`` in the order they were sent, so "nothing
arrived" is checked by sending a marker afterwards that must arrive first.
"""

from __future__ import annotations

from typing import Any

import anyio
import msgspec
import pytest
from runtime_helpers import Inbox, connected

from mcp_core import Server
from transports.driver import ConnectionClosed

pytestmark = pytest.mark.anyio

TOOLS_CHANGED = "notifications/tools/list_changed"
PROMPTS_CHANGED = "notifications/prompts/list_changed"
RESOURCES_CHANGED = "notifications/resources/list_changed"
UPDATED = "notifications/resources/updated"
SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"


def changing_server() -> Server:
    server = Server("changing", "1.0", subscribe=True)
    server.add_tool(lambda: "one", name="one")
    server.add_prompt(lambda: "hi", name="hello")
    server.add_resource(lambda: "a", "note://a")
    server.add_resource(lambda: "b", "note://b")
    return server


def methods(items: list[Any]) -> list[str]:
    return [method for method, _ in items]


@pytest.mark.parametrize("objects", [False, True])
async def test_legacy_list_changes_reach_on_notification(objects: bool) -> None:
    server = changing_server()
    notes = Inbox()
    async with connected(server, "legacy", objects=objects, on_notification=notes) as client:
        server.add_tool(lambda: "two", name="two")
        await notes.wait_for(1)
        assert [tool.name async for tool in client.iter_tools()] == ["one", "two"]
        server.add_prompt(lambda: "bye", name="bye")
        server.remove_resource("note://b")
        server.remove_tool("one")
        received = await notes.wait_for(4)
        assert [tool.name for tool in (await client.list_tools()).tools] == ["two"]
    assert methods(received) == [TOOLS_CHANGED, PROMPTS_CHANGED, RESOURCES_CHANGED, TOOLS_CHANGED]


@pytest.mark.parametrize("objects", [False, True])
async def test_modern_list_changes_only_inside_listen(objects: bool) -> None:
    server = changing_server()
    notes = Inbox()
    async with connected(server, "modern", objects=objects, on_notification=notes) as client:
        server.add_tool(lambda: "before", name="before")  # nobody listens: not sent
        async with client.listen(tools=True) as subscription:
            assert subscription.granted.tools_list_changed is True
            assert subscription.granted.prompts_list_changed is msgspec.UNSET
            server.add_prompt(lambda: "", name="unwanted")  # not asked for: not sent
            server.add_tool(lambda: "inside", name="inside")
            (first,) = await notes.wait_for(1)
            assert first[0] == TOOLS_CHANGED
            assert first[1].meta == {SUBSCRIPTION_ID: subscription.id}
        server.add_tool(lambda: "after", name="after")  # the stream is closed: not sent
        async with client.listen(tools=True, prompts=True) as again:
            server.add_prompt(lambda: "", name="wanted")
            received = await notes.wait_for(2)
        assert [tool.name async for tool in client.iter_tools()] == [
            "one",
            "before",
            "inside",
            "after",
        ]
    assert methods(received) == [TOOLS_CHANGED, PROMPTS_CHANGED]
    assert received[1][1].meta == {SUBSCRIPTION_ID: again.id}
    assert again.id != subscription.id


async def test_modern_listen_for_everything_with_two_streams() -> None:
    server = changing_server()
    notes = Inbox()
    async with (
        connected(server, "modern", on_notification=notes) as client,
        client.listen(tools=True) as tools,
        client.listen(tools=True, prompts=True, resources=True) as everything,
    ):
        server.add_tool(lambda: "", name="t")
        server.add_resource(lambda: "", "note://c")
        received = await notes.wait_for(3)
    # One notification per stream that asked for it, each tagged with its stream.
    assert sorted((method, params.meta[SUBSCRIPTION_ID]) for method, params in received) == sorted(
        [
            (TOOLS_CHANGED, tools.id),
            (TOOLS_CHANGED, everything.id),
            (RESOURCES_CHANGED, everything.id),
        ]
    )


@pytest.mark.parametrize("objects", [False, True])
async def test_legacy_resource_updates_after_subscribe(objects: bool) -> None:
    server = changing_server()
    notes = Inbox()
    async with connected(server, "legacy", objects=objects, on_notification=notes) as client:
        server.resource_updated("note://a")  # not subscribed: not sent
        await client.subscribe("note://a")
        server.resource_updated("note://b")  # not subscribed: not sent
        server.resource_updated("note://a")
        (first,) = await notes.wait_for(1)
        await client.unsubscribe("note://a")
        server.resource_updated("note://a")  # unsubscribed: not sent
        await client.subscribe("note://b")
        server.resource_updated("note://b")
        received = await notes.wait_for(2)
    assert first == (UPDATED, first[1])
    assert [(method, params.uri) for method, params in received] == [
        (UPDATED, "note://a"),
        (UPDATED, "note://b"),
    ]


async def test_a_listen_stream_that_breaks_ends_its_block() -> None:
    # Once acknowledged, the stream's failure cancels the block and is raised out
    # of it (a client manager learns this way that an idle connection died).
    with anyio.fail_after(10):
        async with connected(changing_server(), "modern") as client:
            with pytest.raises(ConnectionClosed, match="gone"):
                async with client.listen(tools=True):
                    client.driver.close("gone")
                    await anyio.sleep_forever()


@pytest.mark.parametrize("objects", [False, True])
async def test_modern_resource_updates_inside_listen(objects: bool) -> None:
    server = changing_server()
    notes = Inbox()
    async with connected(server, "modern", objects=objects, on_notification=notes) as client:
        server.resource_updated("note://a")  # nobody listens: not sent
        async with client.listen(resource_uris=["note://a"]) as subscription:
            assert subscription.granted.resource_subscriptions == ["note://a"]
            server.resource_updated("note://b")  # not asked for: not sent
            server.resource_updated("note://a")
            (first,) = await notes.wait_for(1)
        server.resource_updated("note://a")  # the stream is closed: not sent
        async with client.listen(resource_uris=["note://b"]):
            server.resource_updated("note://b")
            received = await notes.wait_for(2)
    assert first[0] == UPDATED
    assert (first[1].uri, first[1].meta) == ("note://a", {SUBSCRIPTION_ID: subscription.id})
    assert [(method, params.uri) for method, params in received] == [
        (UPDATED, "note://a"),
        (UPDATED, "note://b"),
    ]


async def test_modern_listen_without_subscribe_capability_grants_no_uris() -> None:
    server = Server("plain", "1.0")
    server.add_resource(lambda: "a", "note://a")
    notes = Inbox()
    async with (
        connected(server, "modern", on_notification=notes) as client,
        client.listen(resources=True, resource_uris=["note://a"]) as subscription,
    ):
        assert subscription.granted.resources_list_changed is True
        assert subscription.granted.resource_subscriptions is msgspec.UNSET
        server.resource_updated("note://a")  # not granted: not sent
        server.add_resource(lambda: "b", "note://b")
        received = await notes.wait_for(1)
    assert methods(received) == [RESOURCES_CHANGED]
