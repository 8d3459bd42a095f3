"""Skills extension types (SEP-2640, extension ``io.modelcontextprotocol/skills``).

A skill is a directory of files served as resources (``skill://<skill-path>/<file>``);
``skills/list`` enumerates entries, ``skills/get`` returns one by its ``SKILL.md`` URI.
An entry carries the ``SKILL.md`` frontmatter rendered as JSON and, for a skill that is
not generated on the fly, every file with its SHA-256 digest and byte size
(tests/spec/extensions/skills/README.md names the text followed and its commit;
SEP-2640 "Enumeration via skills/list", "Retrieval via skills/get", "Resources").
"""

from __future__ import annotations

from typing import Any, Final

from msgspec import UNSET, UnsetType, field

from .base import MCPModel, RequestParams
from .server import CacheableResult, _CacheablePage

__all__ = [
    "SKILLS_EXTENSION",
    "GetSkillRequestParams",
    "GetSkillResult",
    "ListSkillsResult",
    "SkillEntry",
    "SkillFile",
]

SKILLS_EXTENSION: Final = "io.modelcontextprotocol/skills"
"""The extension's identifier (SEP-2640 header, "Capability Declaration")."""


class SkillFile(MCPModel, frozen=True, kw_only=True):
    """One file of a skill: its resource URI, ``sha256:<hex>`` digest and size in
    bytes (SEP-2640 "Resources", "Integrity and verification")."""

    uri: str
    digest: str
    size: int | UnsetType = UNSET


class SkillEntry(MCPModel, frozen=True, kw_only=True):
    """A skill as ``skills/list`` and ``skills/get`` describe it.

    ``resources`` is absent only for a skill generated on the fly, which offers no
    integrity (SEP-2640 "Resources": hosts MAY decline to load it).
    """

    uri: str
    frontmatter: dict[str, Any]
    resources: list[SkillFile] | UnsetType = UNSET
    meta: dict[str, Any] | UnsetType = field(default=UNSET, name="_meta")

    @property
    def name(self) -> str:
        """The skill's name: the final segment of its path (SEP-2640 "Resource
        Mapping"), which its frontmatter ``name`` must equal."""
        return self.uri.rsplit("/", 2)[-2] if self.uri.count("/") >= 3 else ""

    @property
    def description(self) -> str:
        """The frontmatter's ``description`` ("" when it has none)."""
        value = self.frontmatter.get("description")
        return value if isinstance(value, str) else ""


class ListSkillsResult(_CacheablePage, frozen=True, kw_only=True):
    """``skills/list``: one page of entries; an entry is never split across pages.
    ``ttlMs`` and ``cacheScope`` from 2026-07-28 (SEP-2549)."""

    skills: list[SkillEntry]


class GetSkillRequestParams(RequestParams, frozen=True, kw_only=True):
    """``skills/get``: the URI of a skill's ``SKILL.md``."""

    uri: str


class GetSkillResult(CacheableResult, frozen=True, kw_only=True):
    """``skills/get``: one entry, a point-in-time snapshot."""

    skill: SkillEntry
