"""Skills as data, and what a server says about them (SEP-2640, pure).

A `Skill` is a skill path (``acme/billing/refunds``), its ``SKILL.md`` frontmatter
and its files, each with size, ``sha256:`` digest and MIME type; `make_skill` builds
one from file contents and checks the rules of "Skill Format" and "Resource
Mapping". A `Catalog` is the skills a server serves at one moment: the entries of
``skills/list`` and ``skills/get``, the ``skill://`` resources of ``resources/list``
("Resource Metadata"), the directories of ``resources/directory/read``, and which
skill a file URI belongs to. Nothing here reads a file: contents come from a
`mcp_core.skills.SkillSource` (in memory, or a directory read by transports/skills.py).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

import msgspec
from msgspec import UNSET

from ..types.content import Resource
from ..types.skills import DIRECTORY_MIME_TYPE, SkillEntry
from ..types.skills import SkillFile as SkillFileEntry
from .frontmatter import FrontmatterError, FrontmatterParser, parse_yaml, split_frontmatter

__all__ = [
    "MAX_FILES",
    "MAX_TOTAL_BYTES",
    "SCHEME",
    "SKILL_FILE",
    "Catalog",
    "Skill",
    "SkillError",
    "SkillFile",
    "check_name",
    "check_relative",
    "digest_of",
    "make_skill",
    "mime_type_of",
    "over_limits",
    "skill_frontmatter",
]

SCHEME: Final = "skill://"
"""The scheme servers SHOULD use (SEP-2640 "Resource Mapping")."""

SKILL_FILE: Final = "SKILL.md"

MAX_FILES: Final = 512
"""Resources per skill, SKILL.md included (SEP-2640 "Limits")."""

MAX_TOTAL_BYTES: Final = 16 * 1024 * 1024
"""Total file size per skill (SEP-2640 "Limits": 16 MiB)."""

# Agent Skills naming rules, as SEP-2640 "Resource Mapping" requires of the final
# <skill-path> segment: 1-64 characters, lowercase letters, digits and hyphens, no
# leading, trailing or consecutive hyphens.
_NAME: Final = re.compile(r"(?!.*--)[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?")
# A path segment: RFC 3986 unreserved characters and a few sub-delims, no "%".
_SEGMENT: Final = re.compile(r"[A-Za-z0-9._~!$&'()*+,;=@-]+")

# File extension -> MIME type, for files not given one ("Other files in the skill use
# the mimeType appropriate to their content"). A fixed table: the standard library's
# mimetypes reads system files, and mcp_core reads none.
_MIME: Final = {
    "md": "text/markdown",
    "markdown": "text/markdown",
    "txt": "text/plain",
    "py": "text/x-python",
    "sh": "text/x-shellscript",
    "js": "text/javascript",
    "mjs": "text/javascript",
    "ts": "text/x-typescript",
    "json": "application/json",
    "yaml": "application/yaml",
    "yml": "application/yaml",
    "toml": "application/toml",
    "xml": "application/xml",
    "html": "text/html",
    "htm": "text/html",
    "css": "text/css",
    "csv": "text/csv",
    "svg": "image/svg+xml",
    "png": "image/png",
    "jpg": "image/jpeg",
    "jpeg": "image/jpeg",
    "gif": "image/gif",
    "webp": "image/webp",
    "pdf": "application/pdf",
    "zip": "application/zip",
}


class SkillError(ValueError):
    """A skill that breaks SEP-2640's rules (it is not served)."""


class SkillFile(msgspec.Struct, frozen=True, kw_only=True):
    """One file of a skill.

    Attributes:
        path: relative to the skill's root, ``/``-separated (``references/FORMS.md``).
        size: its length in bytes.
        digest: ``sha256:`` and 64 lowercase hex digits of its bytes.
        mime_type: its MIME type.
    """

    path: str
    size: int
    digest: str
    mime_type: str


class Skill(msgspec.Struct, frozen=True, kw_only=True):
    """A skill: where it is, what its SKILL.md says, and its files (SKILL.md first).

    Attributes:
        path: the skill path, ``/``-separated; its last segment is ``name``.
        frontmatter: SKILL.md's frontmatter, verbatim.
        files: every file of the skill, SKILL.md included.
    """

    path: str
    frontmatter: dict[str, Any]
    files: tuple[SkillFile, ...]

    @property
    def uri(self) -> str:
        """The URI of its SKILL.md (``skill://<skill-path>/SKILL.md``)."""
        return f"{SCHEME}{self.path}/{SKILL_FILE}"

    @property
    def root(self) -> str:
        """Its root directory's URI, without a trailing slash."""
        return f"{SCHEME}{self.path}"

    def entry(self) -> SkillEntry:
        """Its entry in ``skills/list`` and ``skills/get``."""
        root = self.root
        return SkillEntry(
            uri=self.uri,
            frontmatter=self.frontmatter,
            resources=[
                SkillFileEntry(uri=f"{root}/{f.path}", digest=f.digest, size=f.size)
                for f in self.files
            ],
        )


def digest_of(data: bytes) -> str:
    """The digest of a file's bytes (SEP-2640 "Integrity and verification")."""
    return "sha256:" + hashlib.sha256(data).hexdigest()


def mime_type_of(path: str) -> str:
    """The MIME type of a file by its extension; application/octet-stream if unknown."""
    _, dot, extension = path.rpartition(".")
    return (
        _MIME.get(extension.lower(), "application/octet-stream")
        if dot
        else ("application/octet-stream")
    )


def check_name(name: str) -> str:
    """``name`` if it follows the Agent Skills naming rules.

    Raises:
        SkillError: it does not.
    """
    if not _NAME.fullmatch(name):
        raise SkillError(
            f"skill name {name!r}: 1-64 lowercase letters, digits and hyphens, "
            "no leading, trailing or double hyphen"
        )
    return name


def check_relative(path: str) -> str:
    """A ``/``-separated relative path with nothing that leaves its root: no empty,
    ``.`` or ``..`` segment, no backslash, no NUL, no leading slash.

    Raises:
        SkillError: it could name something outside its root.
    """
    segments = path.split("/")
    if not path or any(s in ("", ".", "..") for s in segments) or "\\" in path or "\0" in path:
        raise SkillError(f"path {path!r} is not a plain relative path")
    return path


def skill_frontmatter(text: bytes, parser: FrontmatterParser = parse_yaml) -> dict[str, Any]:
    """SKILL.md's frontmatter, checked for ``name`` and ``description``.

    Raises:
        SkillError: no frontmatter, not UTF-8, not a mapping, or without them.
    """
    try:
        yaml, _ = split_frontmatter(text.decode("utf-8"))
        value = parser(yaml)
    except UnicodeDecodeError:
        raise SkillError("SKILL.md is not UTF-8") from None
    except FrontmatterError as exc:
        raise SkillError(str(exc)) from None
    if not isinstance(value, dict):
        raise SkillError("SKILL.md's frontmatter is not a mapping")
    for field in ("name", "description"):
        if not isinstance(value.get(field), str) or not value[field]:
            raise SkillError(f"SKILL.md's frontmatter has no {field}")
    try:
        msgspec.json.encode(value)
    except (TypeError, ValueError) as exc:  # dates from a custom parser, NaN ...
        raise SkillError(f"SKILL.md's frontmatter is not JSON: {exc}") from None
    return value


def make_skill(
    path: str,
    files: Mapping[str, bytes | str] | Iterable[SkillFile],
    frontmatter: dict[str, Any] | None = None,
    *,
    parser: FrontmatterParser = parse_yaml,
) -> Skill:
    """A skill at ``path`` from its files: contents by relative path (str as
    UTF-8), or files already measured (then ``frontmatter`` is SKILL.md's, parsed
    by the caller).

    Raises:
        SkillError: no SKILL.md, bad frontmatter, its ``name`` is not the last
            segment of ``path`` or breaks the naming rules, a bad file path.
    """
    segments = path.split("/")
    if any(not _SEGMENT.fullmatch(s) or s in (".", "..") for s in segments):
        raise SkillError(f"skill path {path!r}: segments of URI-safe characters only")
    check_name(segments[-1])
    if isinstance(files, Mapping):
        files = {k: v.encode() if isinstance(v, str) else bytes(v) for k, v in files.items()}
        if SKILL_FILE not in files:
            raise SkillError(f"skill {path!r} has no {SKILL_FILE}")
        frontmatter = skill_frontmatter(files[SKILL_FILE], parser)
        measured = [
            SkillFile(
                path=check_relative(name),
                size=len(data),
                digest=digest_of(data),
                mime_type=mime_type_of(name),
            )
            for name, data in files.items()
        ]
    else:
        measured = [f for f in files if check_relative(f.path)]
        if not any(f.path == SKILL_FILE for f in measured):
            raise SkillError(f"skill {path!r} has no {SKILL_FILE}")
        if frontmatter is None:
            raise SkillError(f"skill {path!r}: the frontmatter of measured files is given")
    if frontmatter.get("name") != segments[-1]:
        # SEP-2640 "Resource Mapping": the final segment MUST equal the name.
        raise SkillError(
            f"skill {path!r}: frontmatter name {frontmatter.get('name')!r} is not {segments[-1]!r}"
        )
    measured.sort(key=lambda f: (f.path != SKILL_FILE, f.path))
    return Skill(path=path, frontmatter=frontmatter, files=tuple(measured))


def over_limits(skill: Skill) -> str | None:
    """Why a skill exceeds SEP-2640's per-skill limits ("Limits": servers SHOULD NOT
    serve it), or None."""
    if len(skill.files) > MAX_FILES:
        return f"{len(skill.files)} files (the limit is {MAX_FILES})"
    total = sum(f.size for f in skill.files)
    if total > MAX_TOTAL_BYTES:
        return f"{total} bytes (the limit is {MAX_TOTAL_BYTES})"
    return None


class Catalog:
    """The skills served at one moment, and every view of them a method needs.

    Args:
        skills: the skills, in listing order; a later one with the URI of an
            earlier one is left out.
    """

    def __init__(self, skills: Sequence[Skill]) -> None:
        self.skills: list[Skill] = []
        self._by_uri: dict[str, Skill] = {}
        self._files: dict[str, tuple[Skill, SkillFile]] = {}
        self._dirs: dict[str, dict[str, Resource]] = {}
        for skill in skills:
            if skill.uri in self._by_uri:
                continue
            self.skills.append(skill)
            self._by_uri[skill.uri] = skill
            for file in skill.files:
                self._add_file(skill, file)
        self.entries = [skill.entry() for skill in self.skills]
        self.resources = [self._resource(skill, f) for skill in self.skills for f in skill.files]

    def _add_file(self, skill: Skill, file: SkillFile) -> None:
        uri = f"{skill.root}/{file.path}"
        self._files.setdefault(uri, (skill, file))
        # Every directory level from the skill root down is a directory resource
        # (SEP-2640 "Directory resources"); a nested skill's root is one of its
        # enclosing skill's.
        parent = skill.root
        for segment in file.path.split("/")[:-1]:
            child = f"{parent}/{segment}"
            self._dirs.setdefault(parent, {})[child] = Resource(
                uri=child, name=segment, mime_type=DIRECTORY_MIME_TYPE
            )
            parent = child
        name = file.path.rsplit("/", 1)[-1]
        self._dirs.setdefault(parent, {})[uri] = Resource(
            uri=uri, name=name, mime_type=file.mime_type, size=file.size
        )

    @staticmethod
    def _resource(skill: Skill, file: SkillFile) -> Resource:
        # SEP-2640 "Resource Metadata": SKILL.md named and described by its
        # frontmatter, text/markdown; other files by their path and type.
        uri = f"{skill.root}/{file.path}"
        if file.path == SKILL_FILE:
            description = skill.frontmatter.get("description")
            return Resource(
                uri=uri,
                name=skill.frontmatter["name"],
                description=description if isinstance(description, str) else UNSET,
                mime_type="text/markdown",
                size=file.size,
            )
        return Resource(uri=uri, name=file.path, mime_type=file.mime_type, size=file.size)

    def skill(self, uri: str) -> Skill | None:
        """The skill whose SKILL.md is at ``uri``."""
        return self._by_uri.get(uri)

    def file(self, uri: str) -> tuple[Skill, SkillFile] | None:
        """The skill and file at ``uri`` (a file of a nested skill: the first skill
        that lists it, its enclosing one; the bytes are the same)."""
        return self._files.get(uri)

    def directory(self, uri: str) -> list[Resource] | None:
        """The direct children of the directory at ``uri``, or None for no directory."""
        children = self._dirs.get(uri.rstrip("/") if uri.endswith("/") else uri)
        return None if children is None else list(children.values())
