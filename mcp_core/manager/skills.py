"""Skills of many servers under one namespace: each server's under its name.

A skill URI is scoped to the server that serves it: two servers may both serve
``skill://refunds/SKILL.md``, two unrelated skills, and a host MUST keep the
server's identity with the URI wherever it records or addresses a skill (SEP-2640
"Skill URIs"). A manager's union, and the gateway that serves it as one server,
does so by putting the server's name in front of the skill path:
``skill://refunds/SKILL.md`` of server ``billing`` is ``skill://billing/refunds/SKILL.md``
in the union, its files likewise. The server's name becomes the first segment of the
organisational prefix that SEP-2640 "Resource Mapping" lets a server choose, so the
last segment is still the skill's name and its frontmatter still matches; the bytes
are unchanged, so every digest still holds, and the client of the union verifies
them as any client does.
"""

from __future__ import annotations

import msgspec

from ..types import ReadResourceResult
from ..types.skills import SkillEntry

__all__ = ["prefixed", "prefixed_contents", "prefixed_entry", "unprefixed"]


def prefixed(server: str, uri: str) -> str:
    """``uri`` of ``server`` as the union names it (``scheme://server/rest``).

    Raises:
        ValueError: ``uri`` has no ``scheme://``.
    """
    scheme, sep, rest = uri.partition("://")
    if not sep or not scheme:
        raise ValueError(f"not a URI with a scheme: {uri!r}")
    return f"{scheme}://{server}/{rest}"


def unprefixed(uri: str) -> tuple[str, str] | None:
    """The server and its own URI for a union URI, or None when ``uri`` has no
    server segment (``scheme://server/rest`` with a non-empty rest)."""
    scheme, sep, rest = uri.partition("://")
    server, slash, own = rest.partition("/")
    if not sep or not scheme or not server or not slash or not own:
        return None
    return server, f"{scheme}://{own}"


def prefixed_entry(server: str, entry: SkillEntry) -> SkillEntry:
    """``entry`` of ``server`` with its URI and its files' URIs as the union names
    them (digests, sizes and frontmatter unchanged)."""
    resources = entry.resources
    if not isinstance(resources, str):
        resources = [
            msgspec.structs.replace(file, uri=prefixed(server, file.uri)) for file in resources
        ]
    return msgspec.structs.replace(entry, uri=prefixed(server, entry.uri), resources=resources)


def prefixed_contents(server: str, result: ReadResourceResult) -> ReadResourceResult:
    """A read of ``server``'s, its contents' URIs as the union names them."""
    contents = [
        msgspec.structs.replace(each, uri=prefixed(server, each.uri)) for each in result.contents
    ]
    return msgspec.structs.replace(result, contents=contents)
