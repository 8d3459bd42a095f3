"""The catalog: listings cached per server (list changes, reconnects, ttlMs with a
fake clock) and their union under prefixed names."""

from __future__ import annotations

import msgspec

from mcp_core.manager import Catalog, changed_kind, ttl_of
from mcp_core.types import ListToolsResult, Prompt, Resource, ResourceTemplate, Tool

SCHEMA = {"type": "object"}


def tool(name: str, description: str | None = None) -> Tool:
    if description is None:
        return Tool(name=name, input_schema=SCHEMA)
    return Tool(name=name, description=description, input_schema=SCHEMA)


def test_the_union_prefixes_names_and_descriptions() -> None:
    catalog = Catalog()
    catalog.store("weather", "tools", [tool("forecast", "Tomorrow.")], now=0, ttl=None)
    catalog.store("hello", "tools", [tool("HelloTool")], now=0, ttl=None)
    entries = catalog.tools()
    assert [(e.server, e.name, e.original) for e in entries] == [
        ("weather", "weather.forecast", "forecast"),
        ("hello", "hello.HelloTool", "HelloTool"),
    ]
    assert entries[0].item.name == "weather.forecast"
    assert entries[0].item.description == "[weather] Tomorrow."
    assert entries[1].item.description == "[hello]"
    assert catalog.resolve("tools", "weather.forecast") == ("weather", "forecast")
    assert catalog.resolve("tools", "forecast") is None
    assert [e.name for e in catalog.tools(["hello"])] == ["hello.HelloTool"]


def test_servers_keep_the_order_they_were_added_in() -> None:
    catalog = Catalog()
    catalog.add_server("b")
    catalog.add_server("a")
    catalog.store("a", "tools", [tool("t")], now=0, ttl=None)
    catalog.store("b", "tools", [tool("t")], now=0, ttl=None)
    assert [e.server for e in catalog.tools()] == ["b", "a"]


def test_a_collision_between_servers_shows_both_and_is_reported() -> None:
    catalog = Catalog()
    catalog.store("a.b", "tools", [tool("c")], now=0, ttl=None)
    catalog.store("a", "tools", [tool("b.c")], now=0, ttl=None)
    entries = catalog.tools()
    assert len(entries) == 2 and entries[0].name != entries[1].name
    (collision,) = catalog.collisions("tools")
    assert collision.name == "a.b.c"
    for entry in entries:
        assert catalog.resolve("tools", entry.name) == (entry.server, entry.original)


def test_safe_names() -> None:
    catalog = Catalog(safe_names=True)
    catalog.store("my server", "prompts", [Prompt(name="a/b")], now=0, ttl=None)
    (entry,) = catalog.prompts()
    assert entry.name == "my_server_a_b"
    assert catalog.resolve("prompts", "my_server_a_b") == ("my server", "a/b")


def test_without_a_ttl_a_listing_stays_fresh_until_a_list_change() -> None:
    catalog = Catalog()
    catalog.store("s", "tools", [tool("t")], now=0, ttl=None)
    assert catalog.fresh("s", "tools", now=10_000)
    assert catalog.notified("s", "notifications/message") is None
    assert catalog.fresh("s", "tools", now=10_000)
    assert catalog.notified("s", "notifications/tools/list_changed") == "tools"
    assert not catalog.fresh("s", "tools", now=10_000)
    # The old names still resolve until the new listing comes.
    assert catalog.resolve("tools", "s.t") == ("s", "t")
    catalog.store("s", "tools", [tool("u")], now=10_001, ttl=None)
    assert catalog.fresh("s", "tools", now=10_001)
    assert catalog.resolve("tools", "s.t") is None
    assert catalog.resolve("tools", "s.u") == ("s", "u")


def test_each_kind_goes_stale_on_its_own_notification() -> None:
    catalog = Catalog()
    for kind in ("tools", "resources", "prompts"):
        catalog.store("s", kind, [], now=0, ttl=None)
    catalog.notified("s", "notifications/prompts/list_changed")
    assert [catalog.fresh("s", k, 0) for k in ("tools", "resources", "prompts")] == [
        True,
        True,
        False,
    ]
    assert changed_kind("notifications/resources/list_changed") == "resources"


def test_a_reconnect_makes_everything_of_that_server_stale() -> None:
    catalog = Catalog()
    catalog.store("s", "tools", [], now=0, ttl=None)
    catalog.store("s", "prompts", [], now=0, ttl=None)
    catalog.store("other", "tools", [], now=0, ttl=None)
    catalog.invalidate("s")
    assert not catalog.fresh("s", "tools", 0) and not catalog.fresh("s", "prompts", 0)
    assert catalog.fresh("other", "tools", 0)
    assert not catalog.fresh("never", "tools", 0)


def test_ttl_ms_keeps_a_listing_fresh_for_that_long_on_the_callers_clock() -> None:
    # 2026-07-28 server/utilities/caching.mdx: fresh while now < received + ttlMs.
    page = msgspec.convert({"tools": [], "ttlMs": 1500}, ListToolsResult)
    ttl = ttl_of(page)
    assert ttl == 1.5
    catalog = Catalog()
    catalog.store("s", "tools", [], now=100.0, ttl=ttl)
    assert catalog.fresh("s", "tools", now=101.4)
    assert not catalog.fresh("s", "tools", now=101.5)


def test_a_zero_or_negative_ttl_is_stale_at_once_and_none_means_no_hint() -> None:
    zero = msgspec.convert({"tools": [], "ttlMs": 0}, ListToolsResult)
    negative = msgspec.structs.replace(zero, ttl_ms=-5)
    assert ttl_of(zero) == 0 and ttl_of(negative) == 0
    assert ttl_of(ListToolsResult(tools=[])) is None
    catalog = Catalog()
    catalog.store("s", "tools", [], now=5.0, ttl=0)
    assert not catalog.fresh("s", "tools", now=5.0)


def test_a_notification_ends_freshness_before_the_ttl() -> None:
    catalog = Catalog()
    catalog.store("s", "tools", [], now=0, ttl=60)
    catalog.notified("s", "notifications/tools/list_changed")
    assert not catalog.fresh("s", "tools", now=1)


def test_resources_keep_their_uris_and_shared_ones_name_their_owners() -> None:
    catalog = Catalog()
    shared = Resource(uri="file:///a", name="a")
    template = ResourceTemplate(uri_template="file:///{x}", name="x")
    catalog.store("one", "resources", [shared, template], now=0, ttl=None)
    catalog.store("two", "resources", [shared], now=0, ttl=None)
    assert [(e.server, e.name) for e in catalog.resources()] == [
        ("one", "file:///a"),
        ("one", "file:///{x}"),
        ("two", "file:///a"),
    ]
    assert catalog.owners_of("file:///a") == ["one", "two"]
    assert catalog.owners_of("file:///b") == []


def test_a_forgotten_server_leaves_the_union_and_frees_its_names() -> None:
    catalog = Catalog()
    catalog.store("a.b", "tools", [tool("c")], now=0, ttl=None)
    catalog.store("a", "tools", [tool("b.c")], now=0, ttl=None)
    catalog.forget("a")
    assert [e.name for e in catalog.tools()] == ["a.b.c"]
    assert catalog.collisions() == []
