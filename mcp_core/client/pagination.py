"""Walking a paginated list (``tools/list``, ``resources/list``...) page by page.

Cursors are opaque (2026-07-28 server/utilities/pagination.mdx): the client only
sends back the ``nextCursor`` it was given, until a page comes without one. A server
that hands out a cursor it gave before would have the client fetch the same pages
forever, so `Cursors` refuses a repeated cursor.
"""

from __future__ import annotations

from typing import Any

from msgspec import UnsetType

from ..server.context import McpError
from ..wire import INTERNAL_ERROR

__all__ = ["Cursors"]


class Cursors:
    """The cursors of one walk through a list."""

    def __init__(self) -> None:
        self._seen: set[str] = set()

    def follow(self, page: Any) -> str | None:
        """Take a page: the cursor of the next one, or None after the last.

        Raises:
            McpError: -32603 (internal error), the server repeated a cursor of
                this walk; stop walking.
        """
        cursor = page.next_cursor
        if isinstance(cursor, UnsetType) or cursor is None:
            return None
        if cursor in self._seen:
            raise McpError(INTERNAL_ERROR, f"the server repeated cursor {cursor!r}")
        self._seen.add(cursor)
        return str(cursor)
