"""Union names: ``server.tool``, safe mode, collisions that hide nothing."""

from __future__ import annotations

import re

from mcp_core.manager import MAX_SAFE_LENGTH, assign_names, describe, sanitise

SAFE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def test_names_are_prefixed_with_the_server() -> None:
    names = assign_names([("github", "search"), ("jira", "search"), ("jira", "create")])
    assert names.by_name == {
        "github.search": ("github", "search"),
        "jira.search": ("jira", "search"),
        "jira.create": ("jira", "create"),
    }
    assert names.collisions == []


def test_safe_mode_sanitises_and_caps() -> None:
    long = "x" * 100
    names = assign_names([("my server", "get/weather"), ("s", long)], safe=True)
    assert names.by_owner[("my server", "get/weather")] == "my_server_get_weather"
    capped = names.by_owner[("s", long)]
    assert len(capped) == MAX_SAFE_LENGTH and capped.startswith("s_xxx")
    assert all(SAFE.match(name) for name in names.by_name)
    assert sanitise("a.b c/d-e_f") == "a_b_c_d-e_f"


def test_a_collision_keeps_both_tools_under_stable_hashed_names_and_is_reported() -> None:
    entries = [("a.b", "c"), ("a", "b.c"), ("z", "ok")]
    names = assign_names(entries)
    first = names.by_owner[("a.b", "c")]
    second = names.by_owner[("a", "b.c")]
    assert first != second and first.startswith("a.b.c~") and second.startswith("a.b.c~")
    assert names.by_name[first] == ("a.b", "c") and names.by_name[second] == ("a", "b.c")
    assert names.by_owner[("z", "ok")] == "z.ok"
    (collision,) = names.collisions
    assert collision.name == "a.b.c"
    assert collision.owners == (("a.b", "c"), ("a", "b.c"))
    assert collision.given == (first, second)
    assert "a.b.c" in str(collision)
    # The same entries, in another order, get the same names.
    again = assign_names(list(reversed(entries)))
    assert again.by_owner[("a.b", "c")] == first and again.by_owner[("a", "b.c")] == second


def test_safe_mode_collisions_get_a_hash_and_stay_safe() -> None:
    long = "t" * 80
    entries = [("s", long + "1"), ("s", long + "2"), ("a b", "c"), ("a", "b c")]
    names = assign_names(entries, safe=True)
    given = {names.by_owner[entry] for entry in entries}
    assert len(given) == 4
    assert all(SAFE.match(name) for name in given)
    assert len(names.collisions) == 2


def test_a_server_listing_a_tool_twice_is_reported_not_doubled() -> None:
    names = assign_names([("s", "t"), ("s", "t")])
    assert list(names.by_name.values()) == [("s", "t")]
    (collision,) = names.collisions
    assert collision.given[1] == ""
    assert "duplicate" in str(collision)


def test_a_hashed_name_never_takes_a_real_one() -> None:
    clash = assign_names([("a.b", "c"), ("a", "b.c")]).by_owner[("a.b", "c")]
    server, _, tool = clash.partition(".")
    names = assign_names([("a.b", "c"), ("a", "b.c"), (server, tool)])
    assert names.by_owner[(server, tool)] == clash
    assert len(set(names.by_owner.values())) == 3


def test_descriptions_name_the_server() -> None:
    assert describe("weather", "Forecast.") == "[weather] Forecast."
    assert describe("weather", None) == "[weather]"
