"""Types of the Skills extension, ``io.modelcontextprotocol/skills`` (SEP-2640).

The SEP text followed is vendored at tests/spec/extensions/sep-2640-skills-extension.md
(modelcontextprotocol/modelcontextprotocol, commit 753b9f2b). It adds two methods,
``skills/list`` and ``skills/get`` ("Enumeration via skills/list", "Retrieval via
skills/get"), and ``resources/directory/read`` ("Directory Listing"), served when the
server declares ``directoryRead: true``. Results are cacheable in 2026-07-28 (SEP-2549
``ttlMs`` / ``cacheScope``), as ``resources/list`` is.
"""

from __future__ import annotations

from typing import Any, Final, Literal

from msgspec import UNSET, UnsetType

from .base import Cursor, MCPModel, PaginatedRequestParams, RequestParams
from .content import Resource
from .server import CacheableResult

__all__ = [
    "DIRECTORY_MIME_TYPE",
    "SKILLS_EXTENSION",
    "DirectoryReadParams",
    "DirectoryReadResult",
    "GetSkillParams",
    "GetSkillResult",
    "ListSkillsResult",
    "SkillEntry",
    "SkillFile",
]

SKILLS_EXTENSION: Final = "io.modelcontextprotocol/skills"
"""The extension's identifier (SEP-2640 "Capability Declaration")."""

DIRECTORY_MIME_TYPE: Final = "inode/directory"
"""The ``mimeType`` of a directory resource (SEP-2640 "Directory resources")."""


class SkillFile(MCPModel, frozen=True, kw_only=True):
    """One file of a skill: its URI, ``sha256:{hex}`` digest and size in bytes
    (SEP-2640 "Resources", "Integrity and verification")."""

    uri: str
    digest: str
    size: int


class SkillEntry(MCPModel, frozen=True, kw_only=True):
    """A skill as ``skills/list`` and ``skills/get`` give it: the URI of its
    ``SKILL.md``, that file's frontmatter verbatim, and every file of the skill
    (or ``"dynamic"`` for generated content) (SEP-2640 "Enumeration via
    skills/list", result fields)."""

    uri: str
    frontmatter: dict[str, Any]
    resources: list[SkillFile] | Literal["dynamic"]


class ListSkillsResult(CacheableResult, frozen=True, kw_only=True):
    """Result of ``skills/list``: one page of entries, each whole on its page."""

    skills: list[SkillEntry]
    next_cursor: Cursor | UnsetType = UNSET


class GetSkillParams(RequestParams, frozen=True, kw_only=True):
    """Params of ``skills/get``: the URI of a skill's ``SKILL.md``."""

    uri: str


class GetSkillResult(CacheableResult, frozen=True, kw_only=True):
    """Result of ``skills/get``: one entry, no cursor (SEP-2640 "Retrieval via
    skills/get"; ``ttlMs``/``cacheScope`` are sent in 2026-07-28 as on
    ``resources/read``, which conformance 0.2.0-alpha.12 requires)."""

    skill: SkillEntry


class DirectoryReadParams(PaginatedRequestParams, frozen=True, kw_only=True):
    """Params of ``resources/directory/read``: a directory's URI and a cursor."""

    uri: str


class DirectoryReadResult(CacheableResult, frozen=True, kw_only=True):
    """Result of ``resources/directory/read``: the direct children, as
    ``resources/list`` gives resources (SEP-2640 "resources/directory/read")."""

    resources: list[Resource]
    next_cursor: Cursor | UnsetType = UNSET
