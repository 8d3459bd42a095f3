# tools/list answers of a registry that has not changed, made and encoded once.
#
# Listing 10,000 tools costs the server ~6.5 ms of msgspec encoding and ~0.2 ms
# of building the list, at every call, for an answer that changes only when the
# registry does. `ToolPages` keeps each page's ListToolsResult (by cursor and page
# size) until the registry's tools change (Registry._changed clears it), and, for
# a transport that encodes what it sends, a twin of it whose ``tools`` is the
# page's JSON encoded once (msgspec.Raw: ~0.5 ms for 10,000 tools, the same bytes).
#
# What may differ between requests stays out of the cache: the 2026-07-28
# envelope (resultType, ttlMs, cacheScope, serverInfo in _meta) is added after the
# handler, per request (session/per_request.py finish_result), around whichever
# form goes out; the tools array is the same in every revision, since the
# registry renders a tool once. Anything that changes the answer per request
# returns another object, which goes out as it is: an application's own
# tools/list handler is not cached, and middleware that filters the tools (by
# the caller's scopes, say) builds a new result, which `wire_form` does not know.
# Middleware must not change a result's ``tools`` list in place: it is shared.

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import msgspec
from msgspec import UnsetType

from ..types.server import ListToolsResult, Tool
from .results import page

__all__ = ["ToolPages"]

_PAGES_KEPT: Final = 256
"""Pages kept at most: a cursor names any offset, so a client could ask for many."""


class ToolPages:
    """The tools/list pages of an unchanged registry (see the module's notes)."""

    __slots__ = ("_pages", "_wire")

    def __init__(self) -> None:
        self._pages: dict[tuple[str | UnsetType, int | None], ListToolsResult] = {}
        # id(page) -> (the page, its twin with the tools encoded), made on first use.
        self._wire: dict[int, tuple[ListToolsResult, ListToolsResult]] = {}

    def get(
        self, tools: Callable[[], list[Tool]], cursor: str | UnsetType, page_size: int | None
    ) -> ListToolsResult:
        """The page at ``cursor``, made from ``tools()`` if not kept.

        Raises:
            McpError: -32602 for a cursor we did not make.
        """
        pages = self._pages
        result = pages.get((cursor, page_size))
        if result is None:
            listed, next_cursor = page(tools(), cursor, page_size)
            if len(pages) >= _PAGES_KEPT:
                self.clear()
            result = pages[cursor, page_size] = ListToolsResult(
                tools=listed, next_cursor=next_cursor
            )
        return result

    def wire_form(self, result: Any) -> Any:
        """``result`` as a transport that encodes it should send it: a kept page
        with its tools encoded once; anything else as it is."""
        if type(result) is not ListToolsResult or not self._pages:
            return result
        entry = self._wire.get(id(result))
        if entry is None or entry[0] is not result:
            if not any(kept is result for kept in self._pages.values()):
                return result
            encoded = msgspec.Raw(msgspec.json.encode(result.tools))
            twin = msgspec.structs.replace(result, tools=encoded)
            entry = self._wire[id(result)] = (result, twin)
        return entry[1]

    def clear(self) -> None:
        """Forget every page (the registry's tools changed)."""
        self._pages.clear()
        self._wire.clear()
