"""Fetching one kind of listing from one server: every page, and the cache hint.

A server that does not declare a kind's capability offers none of it: an empty
listing, fresh until a reconnect. The time a listing may be kept is the smallest
``ttlMs`` of its pages (`mcp_core.manager.ttl_of`), None when none has one.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from msgspec import UnsetType

from mcp_core.client import Cursors
from mcp_core.manager import Kind, ttl_of

from ..client import Client

__all__ = ["fetch"]

Page = Callable[[str | None], Awaitable[Any]]


async def _walk(page: Page, field: str, items: list[Any], ttls: list[float]) -> None:
    cursors = Cursors()
    cursor: str | None = None
    while True:
        result = await page(cursor)
        items.extend(getattr(result, field))
        ttl = ttl_of(result)
        if ttl is not None:
            ttls.append(ttl)
        cursor = cursors.follow(result)
        if cursor is None:
            return


async def fetch(client: Client, kind: Kind) -> tuple[list[Any], float | None]:
    """Every item of ``kind`` the server offers (resources: with their templates),
    and the seconds the listing may be cached (None: no hint)."""
    capability = getattr(client.server_capabilities, kind)
    if isinstance(capability, UnsetType) or capability is None:
        return [], None
    items: list[Any] = []
    ttls: list[float] = []
    if kind == "tools":
        await _walk(client.list_tools, "tools", items, ttls)
    elif kind == "prompts":
        await _walk(client.list_prompts, "prompts", items, ttls)
    else:
        await _walk(client.list_resources, "resources", items, ttls)
        await _walk(client.list_resource_templates, "resource_templates", items, ttls)
    return items, min(ttls) if ttls else None
