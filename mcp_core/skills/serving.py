"""The Skills extension on a server (SEP-2640, ``io.modelcontextprotocol/skills``).

`Skills` is an `mcp_core.extensions.Extension`: it declares the extension with its
one setting, ``directoryRead`` ("Capability Declaration"; the ``resources``
capability too, which the extension requires since skill files are read with
``resources/read``), and answers ``skills/list`` ("Enumeration via skills/list":
paginated, each entry whole on its page), ``skills/get`` ("Retrieval via
skills/get": -32602 for a URI that is not a skill served), ``resources/directory/read``
when ``directory_read`` is on ("Directory Listing": -32602 for anything but a
directory), and the ``skill://`` resources of ``resources/list`` and
``resources/read``. In 2026-07-28 the session adds ``ttlMs`` and ``cacheScope`` to
each result (they are cacheable results), from the server's config.

Skills come from sources (`SkillSource`): skills registered in code (`Skills.add`,
held in memory), or a directory of skills read by the runtime
(transports/skills.py: `SkillDirectory`), which hands this module measured files and
bytes; mcp_core reads no file.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from msgspec import UNSET

from ..extensions import Extension, Route
from ..server.context import Context, McpError
from ..server.results import page
from ..session.events import RequestReceived
from ..types.base import PaginatedRequestParams
from ..types.content import BlobResourceContents, Resource, TextResourceContents
from ..types.server import ReadResourceResult
from ..types.skills import (
    SKILLS_EXTENSION,
    DirectoryReadResult,
    GetSkillResult,
    ListSkillsResult,
)
from ..wire.errors import INVALID_PARAMS, RESOURCE_NOT_FOUND
from .catalog import SCHEME, Catalog, Skill, SkillError, SkillFile, check_relative, make_skill
from .frontmatter import FrontmatterParser, parse_yaml

if TYPE_CHECKING:
    from ..server.app import Server

__all__ = ["MemorySkills", "SkillSource", "SkillUnavailable", "Skills"]


class SkillUnavailable(Exception):
    """A file a source will not serve: gone, moved out of its root, or too large.

    Attributes:
        too_large: the file is over the source's size limit.
    """

    def __init__(self, message: str, *, too_large: bool = False) -> None:
        super().__init__(message)
        self.too_large = too_large


class SkillSource(Protocol):
    """Where skills come from. ``skills()`` is asked on every request that needs
    the catalog and returns the same sequence object while nothing changed (the
    catalog built from it is then kept)."""

    async def skills(self) -> Sequence[Skill]:
        """The skills served now, with current sizes and digests."""
        ...

    async def read(self, skill: Skill, file: SkillFile) -> bytes:
        """A file's bytes.

        Raises:
            SkillUnavailable: it cannot be served.
        """
        ...


class MemorySkills:
    """Skills registered in code, their contents in memory (digests computed once).

    Args:
        parser: reads SKILL.md frontmatter (default: mcp_core's YAML subset).
    """

    def __init__(self, parser: FrontmatterParser = parse_yaml) -> None:
        self.parser = parser
        self._skills: tuple[Skill, ...] = ()
        self._contents: dict[tuple[str, str], bytes] = {}

    def add(self, path: str, files: Mapping[str, bytes | str]) -> Skill:
        """Serve the skill at ``path`` (its last segment is its name) with these
        files, by relative path; str is encoded as UTF-8.

        Raises:
            SkillError: it breaks a rule of SEP-2640 (see `make_skill`), or a skill
                is registered at ``path`` already.
        """
        contents = {
            name: d.encode() if isinstance(d, str) else bytes(d) for name, d in files.items()
        }
        skill = make_skill(path, contents, parser=self.parser)
        if any(known.path == path for known in self._skills):
            raise SkillError(f"a skill is registered at {path!r} already")
        for name, data in contents.items():
            self._contents[path, name] = data
        self._skills = (*self._skills, skill)
        return skill

    async def skills(self) -> Sequence[Skill]:
        return self._skills

    async def read(self, skill: Skill, file: SkillFile) -> bytes:
        data = self._contents.get((skill.path, file.path))
        if data is None:
            raise SkillUnavailable(f"{skill.root}/{file.path} is not served")
        return data


def _text(data: bytes, mime_type: str) -> str | None:
    # Text contents for text (and JSON, YAML...) that is UTF-8; else a blob.
    textual = mime_type.startswith("text/") or mime_type in (
        "application/json",
        "application/yaml",
        "application/toml",
        "application/xml",
        "image/svg+xml",
    )
    if not textual:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


class Skills(Extension):
    """Serve skills (SEP-2640): ``Server(..., extensions=[Skills(...)])``.

    Args:
        sources: where skills come from besides those added with `add`
            (transports.skills.SkillDirectory reads a directory of them).
        directory_read: declare ``directoryRead`` and answer
            ``resources/directory/read``.
        parser: reads the frontmatter of skills added with `add` (default
            mcp_core's YAML subset; ``yaml.safe_load`` for all of YAML).
        page_size: entries per ``skills/list`` and directory page; None: the
            server's ``page_size``.
    """

    id = SKILLS_EXTENSION

    def __init__(
        self,
        *sources: SkillSource,
        directory_read: bool = False,
        parser: FrontmatterParser = parse_yaml,
        page_size: int | None = None,
    ) -> None:
        self.memory = MemorySkills(parser)
        self.sources: tuple[SkillSource, ...] = (self.memory, *sources)
        self.directory_read = directory_read
        self.page_size = page_size
        self._server: Server | None = None
        self._built: tuple[tuple[int, ...], Catalog, dict[str, SkillSource]] | None = None

    def add(self, path: str, files: Mapping[str, bytes | str]) -> Skill:
        """Serve a skill registered in code (see `MemorySkills.add`)."""
        skill = self.memory.add(path, files)
        if self._server is not None:
            self._server._changed("resources")
        return skill

    # --- the extension ------------------------------------------------------------------

    def settings(self) -> dict[str, Any]:
        # SEP-2640 "Capability Declaration": directoryRead inline, else {}.
        return {"directoryRead": True} if self.directory_read else {}

    def routes(self) -> Mapping[str, Route]:
        routes: dict[str, Route] = {"skills/list": self.list_skills, "skills/get": self.get_skill}
        if self.directory_read:
            routes["resources/directory/read"] = self.read_directory
        return routes

    resource_schemes = (SCHEME,)

    def attach(self, server: Server) -> None:
        # "A server declaring this extension MUST also declare the resources
        # capability" (conformance sep-2640-capability-requires-resources).
        self._server = server
        server.declare("resources")

    async def catalog(self) -> Catalog:
        """The skills served now (built again only when a source's answer changed)."""
        answers = [(source, await source.skills()) for source in self.sources]
        key = tuple(id(skills) for _, skills in answers)
        built = self._built
        if built is not None and built[0] == key:
            return built[1]
        origin: dict[str, SkillSource] = {}
        for source, skills in answers:
            for skill in skills:
                origin.setdefault(skill.uri, source)
        catalog = Catalog([skill for _, skills in answers for skill in skills])
        self._built = (key, catalog, origin)
        return catalog

    def _page_size(self) -> int | None:
        if self.page_size is not None:
            return self.page_size
        return None if self._server is None else self._server.page_size

    async def list_skills(self, event: RequestReceived, ctx: Context) -> ListSkillsResult:
        """``skills/list``: a page of entries."""
        catalog = await self.catalog()
        entries, cursor = page(catalog.entries, _cursor(event.params), self._page_size())
        return ListSkillsResult(skills=entries, next_cursor=cursor)

    async def get_skill(self, event: RequestReceived, ctx: Context) -> GetSkillResult:
        """``skills/get``: the entry of the skill whose SKILL.md is ``params.uri``."""
        uri = event.params.uri
        skill = (await self.catalog()).skill(uri)
        if skill is None:
            # SEP-2640 "Retrieval via skills/get": MUST return -32602.
            raise McpError(INVALID_PARAMS, "Unknown skill", data={"uri": uri})
        return GetSkillResult(skill=skill.entry())

    async def read_directory(self, event: RequestReceived, ctx: Context) -> DirectoryReadResult:
        """``resources/directory/read``: the direct children of a directory."""
        uri = event.params.uri
        _check_uri(uri)
        children = (await self.catalog()).directory(uri)
        if children is None:
            # SEP-2640 "resources/directory/read": not a directory (or not
            # there) MUST be -32602.
            raise McpError(INVALID_PARAMS, "Not a directory", data={"uri": uri})
        resources, cursor = page(children, _cursor(event.params), self._page_size())
        return DirectoryReadResult(resources=resources, next_cursor=cursor)

    async def list_resources(self, ctx: Context) -> list[Resource]:
        """The ``skill://`` files, for ``resources/list``."""
        return (await self.catalog()).resources

    async def read_resource(self, uri: str, ctx: Context) -> ReadResourceResult | None:
        """A ``skill://`` file for ``resources/read``; None: not one of ours.

        Raises:
            McpError: a URI with a path that leaves its root (-32602), or a file
                its source will not serve (gone: not found; over the size limit:
                not found with the limit in ``data``).
        """
        _check_uri(uri)
        catalog = await self.catalog()
        found = catalog.file(uri)
        if found is None:
            return None
        skill, file = found
        assert self._built is not None
        source = self._built[2][skill.uri]
        try:
            data = await source.read(skill, file)
        except SkillUnavailable as exc:
            # The code of an unknown resource: -32002 before 2026-07-28, then
            # -32602 (2026-07-28 server/resources.mdx "Error Handling").
            code = INVALID_PARAMS if ctx.modern else RESOURCE_NOT_FOUND
            detail: dict[str, Any] = {"uri": uri, "reason": str(exc)}
            message = "Resource too large" if exc.too_large else "Resource not found"
            raise McpError(code, message, data=detail) from None
        text = _text(data, file.mime_type)
        contents: Any
        if text is not None:
            contents = TextResourceContents(uri=uri, text=text, mime_type=file.mime_type)
        else:
            blob = base64.b64encode(data).decode("ascii")
            contents = BlobResourceContents(uri=uri, blob=blob, mime_type=file.mime_type)
        return ReadResourceResult(contents=[contents])


def _cursor(params: Any) -> Any:
    return params.cursor if isinstance(params, PaginatedRequestParams) else UNSET


def _check_uri(uri: str) -> None:
    # A skill:// URI whose path could leave its root ("..", ".", empty segments,
    # backslashes) is refused before any lookup: -32602 in both eras.
    if not uri.startswith(SCHEME):
        return
    try:
        check_relative(uri[len(SCHEME) :].rstrip("/") or ".")
    except SkillError as exc:
        raise McpError(INVALID_PARAMS, f"Invalid skill URI: {exc}", data={"uri": uri}) from None
