"""What every server offers, cached per server, and the union under one namespace.

A client manager lists each server's tools, resources (with their templates) and
prompts once and keeps the listing until it goes stale:

- a ``notifications/tools/list_changed`` (or resources, prompts) from the server
  makes that kind stale at once (2025-11-25 server/tools.mdx "List Changed
  Notification", server/resources.mdx, server/prompts.mdx);
- a reconnect makes all of it stale (a restarted server may offer other things);
- a 2026-07-28 list result's ``ttlMs`` keeps it fresh while
  ``now < received + ttlMs``, 0 (or less) meaning stale at once (2026-07-28
  server/utilities/caching.mdx "Freshness Calculation"). A listing without
  ``ttlMs`` (an older server) stays fresh until a notification or reconnect says
  otherwise: the spec leaves that case to the client's own heuristics.

Time is the caller's ``now`` in seconds. Tools and prompts get ``server.name``
names (`mcp_core.manager.names`), computed over every server listed so far, so a
server going away for a while does not rename anyone else's tools; resources keep
their URIs (two servers offering one URI are reported, and reading it then needs the
server).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

import msgspec
from msgspec import UnsetType

from .names import Collision, Names, assign_names, describe

__all__ = ["KINDS", "Catalog", "Entry", "Kind", "changed_kind", "ttl_of"]

Kind = Literal["tools", "resources", "prompts"]

KINDS: Final[tuple[Kind, ...]] = ("tools", "resources", "prompts")

_LIST_CHANGED: Final[dict[str, Kind]] = {
    # 2025-11-25 server/tools.mdx, server/resources.mdx, server/prompts.mdx.
    "notifications/tools/list_changed": "tools",
    "notifications/resources/list_changed": "resources",
    "notifications/prompts/list_changed": "prompts",
}


def changed_kind(method: str) -> Kind | None:
    """The kind of list a notification says has changed, or None for another one."""
    return _LIST_CHANGED.get(method)


def ttl_of(page: Any) -> float | None:
    """The seconds a list page may be cached, from its 2026-07-28 ``ttlMs``; None
    when it has none. A negative one counts as 0 (caching.mdx "Time-to-Live")."""
    ttl_ms = getattr(page, "ttl_ms", None)
    if ttl_ms is None or isinstance(ttl_ms, UnsetType):
        return None
    return max(0, int(ttl_ms)) / 1000.0


@dataclass(frozen=True)
class Entry:
    """One tool, prompt, resource or resource template of the union.

    Attributes:
        server: the server that offers it.
        name: the name clients of the union use (tools and prompts: prefixed);
            for resources, the URI (or URI template).
        original: its name (or URI) on that server.
        item: the item as the union shows it (a Tool, Prompt, Resource or
            ResourceTemplate; tools and prompts renamed, their description
            prefixed with the server's name).
    """

    server: str
    name: str
    original: str
    item: Any


class _Listing:
    __slots__ = ("expires", "items", "stale")

    def __init__(self, items: list[Any], expires: float | None) -> None:
        self.items = items
        self.expires = expires  # None: until told otherwise
        self.stale = False


class Catalog:
    """The listings of several servers and their union.

    Args:
        safe_names: give tools and prompts names of ``[a-zA-Z0-9_-]``, at most 64
            long (`mcp_core.manager.names`).
        separator: between a server's name and a tool's (not in safe mode).
    """

    def __init__(self, *, safe_names: bool = False, separator: str = ".") -> None:
        self.safe_names = safe_names
        self.separator = separator
        self._servers: list[str] = []
        self._listings: dict[tuple[str, Kind], _Listing] = {}
        self._names: dict[Kind, Names] = {}

    # --- the servers' listings ------------------------------------------------------

    def add_server(self, server: str) -> None:
        """Know ``server``; the union lists servers in the order they were added."""
        if server not in self._servers:
            self._servers.append(server)

    def forget(self, server: str) -> None:
        """Drop everything about ``server`` (it was removed)."""
        if server in self._servers:
            self._servers.remove(server)
        for kind in KINDS:
            self._listings.pop((server, kind), None)
        self._names.clear()

    def store(
        self, server: str, kind: Kind, items: list[Any], now: float, ttl: float | None
    ) -> None:
        """A fresh listing of ``kind`` from ``server``, received at ``now``.

        Args:
            ttl: seconds it stays fresh (`ttl_of` of its pages, the smallest),
                or None: until a notification or a reconnect.
        """
        self.add_server(server)
        self._listings[(server, kind)] = _Listing(items, None if ttl is None else now + ttl)
        self._names.pop(kind, None)

    def fresh(self, server: str, kind: Kind, now: float) -> bool:
        """Whether the listing of ``kind`` from ``server`` can be used without asking again."""
        listing = self._listings.get((server, kind))
        if listing is None or listing.stale:
            return False
        return listing.expires is None or now < listing.expires

    def invalidate(self, server: str, kind: Kind | None = None) -> None:
        """Mark one kind (or all) of ``server``'s listings stale (a reconnect). The
        old items still name things until new ones arrive."""
        for each in KINDS if kind is None else (kind,):
            listing = self._listings.get((server, each))
            if listing is not None:
                listing.stale = True

    def notified(self, server: str, method: str) -> Kind | None:
        """A notification from ``server``: a list change makes that kind stale.

        Returns:
            The kind that changed, or None when the notification is about something else.
        """
        kind = changed_kind(method)
        if kind is not None:
            self.invalidate(server, kind)
        return kind

    # --- the union --------------------------------------------------------------------

    def _naming(self, kind: Kind) -> Names:
        names = self._names.get(kind)
        if names is None:
            owners = [
                (server, item.name)
                for server in self._servers
                for item in self._items(server, kind)
            ]
            names = assign_names(owners, safe=self.safe_names, separator=self.separator)
            self._names[kind] = names
        return names

    def _items(self, server: str, kind: Kind) -> list[Any]:
        listing = self._listings.get((server, kind))
        return [] if listing is None else listing.items

    def collisions(self, kind: Kind = "tools") -> list[Collision]:
        """The names of ``kind`` ("tools" or "prompts") that collided, and what each got."""
        return list(self._naming(kind).collisions)

    def _union(self, kind: Kind, servers: Iterable[str] | None) -> list[Entry]:
        names = self._naming(kind)
        wanted = self._servers if servers is None else [s for s in self._servers if s in servers]
        entries = []
        seen: set[tuple[str, str]] = set()
        for server in wanted:
            for item in self._items(server, kind):
                owner = (server, item.name)
                if owner in seen:
                    continue  # the server listed it twice (a reported collision)
                seen.add(owner)
                name = names.by_owner[owner]
                shown = msgspec.structs.replace(
                    item,
                    name=name,
                    description=describe(server, _text(item.description)),
                )
                entries.append(Entry(server, name, item.name, shown))
        return entries

    def tools(self, servers: Iterable[str] | None = None) -> list[Entry]:
        """Every tool of ``servers`` (default all), under its union name."""
        return self._union("tools", servers)

    def prompts(self, servers: Iterable[str] | None = None) -> list[Entry]:
        """Every prompt of ``servers`` (default all), under its union name."""
        return self._union("prompts", servers)

    def resources(self, servers: Iterable[str] | None = None) -> list[Entry]:
        """Every resource and resource template of ``servers``, under its URI."""
        wanted = self._servers if servers is None else [s for s in self._servers if s in servers]
        entries = []
        for server in wanted:
            for item in self._items(server, "resources"):
                uri = getattr(item, "uri", None) or item.uri_template
                entries.append(Entry(server, uri, uri, item))
        return entries

    def resolve(self, kind: Kind, name: str) -> tuple[str, str] | None:
        """The (server, name on the server) a union name of ``kind`` stands for."""
        return self._naming(kind).by_name.get(name)

    def task_support(self, server: str, tool: str) -> str | None:
        """How ``server`` listed ``tool``'s ``execution.taskSupport``: "optional",
        "required" (a client MUST call it as a task, 2025-11-25
        basic/utilities/tasks.mdx "Tool-Level Negotiation"), or None."""
        for item in self._items(server, "tools"):
            if item.name == tool:
                execution = getattr(item, "execution", None)
                support = getattr(execution, "task_support", None)
                return support if support in ("optional", "required") else None
        return None

    def owners_of(self, uri: str) -> Sequence[str]:
        """The servers whose listed resources include ``uri`` (exactly)."""
        return [
            server
            for server in self._servers
            if any(getattr(item, "uri", None) == uri for item in self._items(server, "resources"))
        ]


def _text(value: str | UnsetType | None) -> str | None:
    return None if value is None or isinstance(value, UnsetType) else value
