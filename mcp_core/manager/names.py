"""The names a client manager gives its servers' tools and prompts: ``server.tool``.

Two servers may each have a tool called ``search``; a client of both sees
``github.search`` and ``jira.search``. Some model APIs take tool names of
``[a-zA-Z0-9_-]`` only, at most 64 long: in safe mode every other character
becomes ``_`` (the separator too: ``github_search``) and a long name is cut to 64.

Two entries that still end up with one name (``a.b`` + ``c`` and ``a`` + ``b.c``,
two names cut to the same 64 characters, or a server listing one tool twice) are a
collision. Neither hides the other: every entry of a collision gets a short hash of
its server and original name appended, which stays the same from one listing to the
next, and the collision is reported (`Names.collisions`) for the application to
show. Only an exact duplicate (the same server listing the same name twice) keeps
its first entry, and that is reported too.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Final

__all__ = ["MAX_SAFE_LENGTH", "Collision", "Names", "assign_names", "describe", "sanitise"]

MAX_SAFE_LENGTH: Final = 64
"""The longest name safe mode gives."""

_UNSAFE: Final = re.compile(r"[^A-Za-z0-9_-]")
_HASH_LENGTH: Final = 6

Owner = tuple[str, str]
"""(server, the name on that server)."""


def sanitise(text: str) -> str:
    """``text`` with every character outside ``[a-zA-Z0-9_-]`` replaced by ``_``."""
    return _UNSAFE.sub("_", text)


def describe(server: str, description: str | None) -> str:
    """A description prefixed with the server's name, so a model knows whose tool it is."""
    return f"[{server}] {description}" if description else f"[{server}]"


def _hash(owner: Owner, length: int) -> str:
    server, name = owner
    return hashlib.sha256(f"{server}\x00{name}".encode()).hexdigest()[:length]


@dataclass(frozen=True)
class Collision:
    """Several entries that wanted one name.

    Attributes:
        name: the name they wanted.
        owners: the (server, name) of each, in listing order.
        given: the name each got, in the same order ("" for a duplicate dropped).
    """

    name: str
    owners: tuple[Owner, ...]
    given: tuple[str, ...]

    def __str__(self) -> str:
        parts = [
            f"{server}:{name} as {given!r}" if given else f"{server}:{name} (a duplicate, dropped)"
            for (server, name), given in zip(self.owners, self.given, strict=True)
        ]
        return f"{len(self.owners)} entries want the name {self.name!r}: " + ", ".join(parts)


@dataclass
class Names:
    """The names given to a set of entries.

    Attributes:
        by_name: the (server, original name) each name stands for.
        by_owner: the name each (server, original name) got.
        collisions: what could not have the plain name, and what it got instead.
    """

    by_name: dict[str, Owner] = field(default_factory=dict)
    by_owner: dict[Owner, str] = field(default_factory=dict)
    collisions: list[Collision] = field(default_factory=list)


class _Rules:
    def __init__(self, safe: bool, separator: str) -> None:
        self.safe = safe
        self.separator = "_" if safe else separator

    def plain(self, owner: Owner) -> str:
        server, name = owner
        if not self.safe:
            return f"{server}{self.separator}{name}"
        return sanitise(f"{server}{self.separator}{name}")[:MAX_SAFE_LENGTH]

    def hashed(self, owner: Owner, length: int = _HASH_LENGTH) -> str:
        suffix = ("_" if self.safe else "~") + _hash(owner, length)
        plain = self.plain(owner)
        if self.safe:
            plain = plain[: MAX_SAFE_LENGTH - len(suffix)]
        return plain + suffix


def assign_names(entries: Iterable[Owner], *, safe: bool = False, separator: str = ".") -> Names:
    """Name every (server, name) entry, in order.

    Args:
        entries: (server name, tool or prompt name) pairs.
        safe: sanitise to ``[a-zA-Z0-9_-]`` and cap at 64 characters.
        separator: between the server's name and the entry's (safe mode: ``_``).
    """
    rules = _Rules(safe, separator)
    wanted: dict[str, list[Owner]] = {}
    for owner in entries:
        wanted.setdefault(rules.plain(owner), []).append(owner)
    names = Names()
    for name, owners in wanted.items():
        if len(owners) == 1:
            names.by_name[name] = owners[0]
            names.by_owner[owners[0]] = name
            continue
        given: list[str] = []
        for owner in owners:
            if owner in names.by_owner:
                given.append("")  # the same server listed the same name twice
                continue
            hashed = rules.hashed(owner)
            if hashed in wanted or hashed in names.by_name:
                # Some entry is really called that: the whole hash, then.
                hashed = rules.hashed(owner, 16)
            names.by_name[hashed] = owner
            names.by_owner[owner] = hashed
            given.append(hashed)
        names.collisions.append(Collision(name, tuple(owners), tuple(given)))
    return names
