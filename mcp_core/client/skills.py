"""The skills extension, client side: listing, retrieval and verification.

SEP-2640 (``io.modelcontextprotocol/skills``; tests/spec/extensions/skills/README.md):

- a client that wants skills declares the extension in its capabilities
  (`with_skills`) and calls ``skills/list`` / ``skills/get`` only on a server that
  declared it ("Capability Declaration");
- "Hosts MUST NOT retrieve a skill's files ahead of need — not on connection, not
  on listing, and not at approval": listing reads nothing; a ``SKILL.md`` is read
  when the skill is loaded, a supporting file when it is read;
- every file read is checked against the entry it was read for ("Integrity and
  verification"): its byte length against ``size`` first, then its SHA-256 against
  ``digest`` (`verify_file`); a read of a file the entry does not list is a failure
  too (`listed_file`); the ``SKILL.md``'s YAML frontmatter must equal the entry's
  ``frontmatter`` field by field (`check_frontmatter`). A failure is
  `SkillVerificationError`, and the content is never handed out;
- listings and entries are cached per their 2026-07-28 ``ttlMs`` and
  ``cacheScope`` (server/utilities/caching.mdx), and verified files by digest: a
  kept file whose digest the current entry lists again is not fetched again
  (`SkillCache`).

Nothing here awaits; `transports.client_skills` sends and reads.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from collections import OrderedDict
from typing import Any

from msgspec import UNSET

from ..extensions import server_settings, with_extension
from ..skills.catalog import SKILL_FILE
from ..skills.frontmatter import FrontmatterError, parse_yaml, split_frontmatter
from ..types import ClientCapabilities, ReadResourceResult
from ..types.base import PaginatedRequestParams
from ..types.skills import (
    SKILLS_EXTENSION,
    GetSkillParams,
    GetSkillResult,
    ListSkillsResult,
    SkillEntry,
    SkillFile,
)
from .requests import Call

__all__ = [
    "SkillCache",
    "SkillVerificationError",
    "check_frontmatter",
    "file_bytes",
    "get_skill",
    "list_skills",
    "listed_file",
    "offers_skills",
    "skill_name",
    "skill_root",
    "verify_file",
    "with_skills",
]


class SkillVerificationError(ValueError):
    """Content that does not match the entry it was read for: the host MUST NOT
    use it (SEP-2640 "Integrity and verification").

    Attributes:
        uri: the file's URI.
        reason: "size", "digest", "unlisted", "frontmatter", "name" or "dynamic".
    """

    def __init__(self, uri: str, reason: str, message: str) -> None:
        super().__init__(f"{uri}: {message}")
        self.uri = uri
        self.reason = reason


# --- negotiation and requests ------------------------------------------------------------


def with_skills(capabilities: ClientCapabilities) -> ClientCapabilities:
    """``capabilities`` declaring the skills extension (settings: none)."""
    return with_extension(capabilities, SKILLS_EXTENSION)


def offers_skills(capabilities: Any) -> bool:
    """Whether server ``capabilities`` declare the extension (an object, maybe empty)."""
    return capabilities is not None and server_settings(capabilities, SKILLS_EXTENSION) is not None


def skill_name(entry: SkillEntry) -> str:
    """A skill's name: the final segment of its path, which its frontmatter's
    ``name`` must equal (SEP-2640 "Resource Mapping")."""
    return skill_root(entry).rsplit("/", 1)[-1]


def list_skills(cursor: str | None = None) -> Call[ListSkillsResult]:
    """``skills/list``: one page."""
    params = UNSET if cursor is None else PaginatedRequestParams(cursor=cursor)
    return Call("skills/list", params, ListSkillsResult)


def get_skill(uri: str) -> Call[GetSkillResult]:
    """``skills/get``: the entry of the skill whose ``SKILL.md`` is ``uri``."""
    return Call("skills/get", GetSkillParams(uri=uri), GetSkillResult)


# --- verification -------------------------------------------------------------------------


def skill_root(entry: SkillEntry) -> str:
    """The skill's root directory URI: its ``SKILL.md`` URI without ``/SKILL.md``
    (SEP-2640 "Resource Mapping")."""
    return entry.uri.removesuffix("/" + SKILL_FILE)


def listed_file(entry: SkillEntry, path_or_uri: str) -> SkillFile:
    """The file of ``entry`` at ``path_or_uri``: a full URI, or a path relative to
    the skill's root ("Reading": references resolve against the root).

    Raises:
        SkillVerificationError: the entry lists no such file ("while acting on a
            skill, a host MUST resolve reads ... only to URIs listed in that
            entry's resources"), or lists no files at all (a dynamic skill).
    """
    root = skill_root(entry)
    uri = path_or_uri if "://" in path_or_uri else f"{root}/{path_or_uri.lstrip('/')}"
    if entry.resources == "dynamic":
        raise SkillVerificationError(
            uri, "dynamic", "the skill lists no files, so none can be verified"
        )
    for file in entry.resources:
        if file.uri == uri:
            return file
    raise SkillVerificationError(uri, "unlisted", "the skill's entry does not list this file")


def file_bytes(result: ReadResourceResult, uri: str) -> bytes:
    """The raw bytes of a ``resources/read`` answer for one file: text as UTF-8,
    a blob decoded from base64.

    Raises:
        SkillVerificationError: not exactly one content for ``uri``.
    """
    contents = [each for each in result.contents if each.uri == uri]
    if len(contents) != 1:
        raise SkillVerificationError(
            uri, "digest", f"the read gave {len(contents)} contents for this file, not one"
        )
    content = contents[0]
    if isinstance(content.text, str):
        return content.text.encode()
    try:
        return base64.b64decode(str(content.blob), validate=True)
    except (binascii.Error, ValueError):
        raise SkillVerificationError(uri, "digest", "the blob is not base64") from None


def verify_file(file: SkillFile, data: bytes) -> bytes:
    """``data`` when it is the file ``file`` describes: its length equal to
    ``size`` (a mismatch fails before any hashing), its SHA-256 equal to
    ``digest``.

    Raises:
        SkillVerificationError: ``data`` is not that file.
    """
    if len(data) != file.size:
        raise SkillVerificationError(
            file.uri, "size", f"read {len(data)} bytes where the entry says {file.size}"
        )
    digest = "sha256:" + hashlib.sha256(data).hexdigest()
    if digest != file.digest:
        raise SkillVerificationError(
            file.uri, "digest", f"the content's digest is {digest}, the entry's {file.digest}"
        )
    return data


def check_frontmatter(entry: SkillEntry, data: bytes) -> dict[str, Any]:
    """The frontmatter of ``entry``'s ``SKILL.md`` read as ``data``, when it is
    the entry's, field by field, and names the skill its URI names.

    Raises:
        SkillVerificationError: it differs, or cannot be read.
    """
    try:
        found = parse_yaml(split_frontmatter(data.decode())[0])
    except (UnicodeDecodeError, FrontmatterError) as exc:
        raise SkillVerificationError(entry.uri, "frontmatter", str(exc)) from None
    if not isinstance(found, dict):
        raise SkillVerificationError(entry.uri, "frontmatter", "its frontmatter is not a mapping")
    expected = entry.frontmatter
    differing = sorted(
        key for key in found.keys() | expected.keys() if _differ(found.get(key), expected.get(key))
    )
    if differing:
        raise SkillVerificationError(
            entry.uri,
            "frontmatter",
            f"its frontmatter differs from the entry's in {', '.join(differing)}",
        )
    name = skill_name(entry)
    if found.get("name") != name:
        raise SkillVerificationError(
            entry.uri, "name", f"the skill at this URI is named {name!r}, not {found.get('name')!r}"
        )
    return found


def _differ(a: Any, b: Any) -> bool:
    # JSON equality: 1 and 1.0 are one number, true and 1 are not.
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is not type(b) or a != b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() != b.keys() or any(_differ(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) != len(b) or any(_differ(x, y) for x, y in zip(a, b, strict=True))
    return bool(a != b)


# --- the cache ----------------------------------------------------------------------------


class _Kept:
    __slots__ = ("expires", "owner", "value")

    def __init__(self, value: Any, expires: float, owner: object | None) -> None:
        self.value = value
        self.expires = expires
        self.owner = owner  # None: "public", anyone may reuse it


class SkillCache:
    """Skill listings, entries and verified files of one server.

    Listing pages and entries stay fresh while ``now < received + ttlMs``; a
    result without ``ttlMs`` (an older server) is stale at once (caching.mdx
    "If ttlMs is absent, clients SHOULD assume a default of 0"). A ``"private"``
    result is reused only by the ``owner`` that fetched it (one connection, one
    authorization context); a ``"public"`` one by any owner sharing this cache.
    Verified files are kept by (URI, digest), ``max_files`` of them, and reused
    whenever the current entry lists that digest again.

    Args:
        max_files: verified files kept, the least recently used dropped first.
        max_file_bytes: a file larger than this is verified but not kept.
    """

    def __init__(self, *, max_files: int = 256, max_file_bytes: int = 1 << 20) -> None:
        self.max_files = max_files
        self.max_file_bytes = max_file_bytes
        self._results: dict[tuple[str, str], _Kept] = {}
        self._files: OrderedDict[tuple[str, str], bytes] = OrderedDict()

    def result(self, method: str, key: str, now: float, owner: object) -> Any:
        """A fresh result of ``method`` for ``key`` (a cursor, a URI) that
        ``owner`` may reuse, or None."""
        kept = self._results.get((method, key))
        if kept is None or now >= kept.expires or kept.owner not in (None, owner):
            return None
        return kept.value

    def keep(self, method: str, key: str, result: Any, now: float, owner: object) -> None:
        """Keep ``result`` (a ListSkillsResult or GetSkillResult) received at ``now``."""
        ttl_ms = getattr(result, "ttl_ms", UNSET)
        ttl = 0.0 if ttl_ms is UNSET else max(0, int(ttl_ms)) / 1000.0
        if ttl <= 0:
            self._results.pop((method, key), None)
            return
        public = getattr(result, "cache_scope", UNSET) == "public"
        self._results[(method, key)] = _Kept(result, now + ttl, None if public else owner)

    def invalidate(self) -> None:
        """Forget every listing and entry (the files stay: their digests guard them)."""
        self._results.clear()

    def file(self, file: SkillFile) -> bytes | None:
        """The verified bytes of ``file`` at its digest, if kept."""
        key = (file.uri, file.digest)
        data = self._files.get(key)
        if data is not None:
            self._files.move_to_end(key)
        return data

    def keep_file(self, file: SkillFile, data: bytes) -> None:
        """Keep ``data``, verified against ``file``."""
        if len(data) > self.max_file_bytes or self.max_files <= 0:
            return
        self._files[(file.uri, file.digest)] = data
        self._files.move_to_end((file.uri, file.digest))
        while len(self._files) > self.max_files:
            self._files.popitem(last=False)
