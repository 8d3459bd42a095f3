"""Walking list pages: the cursor guard (Cursors)."""

from __future__ import annotations

import pytest

from mcp_core.client import Cursors
from mcp_core.server import McpError
from mcp_core.types import ListToolsResult
from mcp_core.wire import INTERNAL_ERROR


def page(cursor: str | None = None) -> ListToolsResult:
    if cursor is None:
        return ListToolsResult(tools=[])
    return ListToolsResult(tools=[], next_cursor=cursor)


def test_follows_each_next_cursor_until_the_last_page() -> None:
    cursors = Cursors()
    assert cursors.follow(page("a")) == "a"
    assert cursors.follow(page("b")) == "b"
    assert cursors.follow(page()) is None


def test_a_repeated_cursor_stops_the_walk() -> None:
    # A server that hands out a cursor again would be walked forever.
    cursors = Cursors()
    cursors.follow(page("a"))
    cursors.follow(page("b"))
    with pytest.raises(McpError) as caught:
        cursors.follow(page("a"))
    assert caught.value.code == INTERNAL_ERROR
    assert "'a'" in caught.value.message


def test_the_same_cursor_twice_in_a_row_is_repeated_too() -> None:
    cursors = Cursors()
    cursors.follow(page("same"))
    with pytest.raises(McpError):
        cursors.follow(page("same"))


def test_each_walk_has_its_own_cursors() -> None:
    Cursors().follow(page("a"))
    assert Cursors().follow(page("a")) == "a"
