# The skills extension (SEP-2640) as the async client holds it: ``client.skills``.
#
# The rules (what to declare, what to verify, what to keep) are
# mcp_core/client/skills.py's; this only sends requests and reads files.

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mcp_core import LocalProtocolError
from mcp_core.client.pagination import Cursors
from mcp_core.client.skills import (
    SkillCache,
    check_frontmatter,
    file_bytes,
    get_skill,
    list_skills,
    listed_file,
    offers_skills,
    skill_name,
    verify_file,
)
from mcp_core.skills.frontmatter import split_frontmatter
from mcp_core.types.skills import GetSkillResult, ListSkillsResult, SkillEntry

from .driver import _now

if TYPE_CHECKING:
    from .client import Client

__all__ = ["LoadedSkill", "Skills"]


class Skills:
    """A client's skills: ``client.skills``, for a Client made with ``skills=True``.

    ``await client.skills.list()`` gives every entry of the server's listing and
    ``await client.skills.get(uri)`` one entry by its ``SKILL.md`` URI; neither
    reads a file. ``await client.skills.load(entry_or_uri)`` reads the skill's
    ``SKILL.md`` and checks it against its entry (size, digest, frontmatter);
    ``await loaded.read("references/FORMS.md")`` reads one more file of it, checked
    the same way. Content that fails is never returned: `SkillVerificationError`.

    Results are reused while their ``ttlMs`` says they are fresh (a
    ``cacheScope: "public"`` one by any client given the same ``cache``), and
    verified files while the entry lists the same digest. ``refresh=True`` asks
    the server again.
    """

    def __init__(self, client: Client, cache: SkillCache | None = None) -> None:
        self._client = client
        self.cache = SkillCache() if cache is None else cache

    def _check(self) -> None:
        client = self._client
        if not client.declares_skills:
            raise RuntimeError("this client did not declare skills: pass skills=True to Client")
        if not offers_skills(client.server_capabilities):
            raise LocalProtocolError("the server did not declare the skills extension")

    async def _cached(self, method: str, key: str, refresh: bool, call: Any) -> Any:
        self._check()
        cache = self.cache
        if not refresh:
            kept = cache.result(method, key, _now(), self._client)
            if kept is not None:
                return kept
        result = await self._client._send(call)
        cache.keep(method, key, result, _now(), self._client)
        return result

    async def list_page(
        self, cursor: str | None = None, *, refresh: bool = False
    ) -> ListSkillsResult:
        """One page of ``skills/list``."""
        page: ListSkillsResult = await self._cached(
            "skills/list", cursor or "", refresh, list_skills(cursor)
        )
        return page

    async def list(self, *, refresh: bool = False) -> list[SkillEntry]:
        """Every entry, walking all pages (an empty or partial listing is not proof
        that the server has no other skills: SEP-2640 "Enumeration")."""
        entries: list[SkillEntry] = []
        cursors = Cursors()
        cursor: str | None = None
        while True:
            page = await self.list_page(cursor, refresh=refresh)
            entries.extend(page.skills)
            cursor = cursors.follow(page)
            if cursor is None:
                return entries

    async def get(self, uri: str, *, refresh: bool = False) -> SkillEntry:
        """The entry of the skill whose ``SKILL.md`` is ``uri`` (``skills/get``)."""
        result: GetSkillResult = await self._cached("skills/get", uri, refresh, get_skill(uri))
        return result.skill

    async def _read(self, entry: SkillEntry, path_or_uri: str) -> bytes:
        file = listed_file(entry, path_or_uri)
        kept = self.cache.file(file)
        if kept is not None:
            return kept
        result = await self._client.read_resource(file.uri)
        data = verify_file(file, file_bytes(result, file.uri))
        self.cache.keep_file(file, data)
        return data

    async def load(self, skill: SkillEntry | str) -> LoadedSkill:
        """Load a skill: read its ``SKILL.md`` and verify it against the entry
        (``skill`` itself, or ``skills/get`` of a URI).

        Raises:
            SkillVerificationError: the file's size, digest or frontmatter is
                not the entry's, or the entry lists no files (a dynamic skill,
                which this client declines to load: SEP-2640 "Resources").
        """
        entry = skill if isinstance(skill, SkillEntry) else await self.get(skill)
        self._check()
        data = await self._read(entry, entry.uri)
        frontmatter = check_frontmatter(entry, data)
        return LoadedSkill(self, entry, data.decode(), frontmatter)


class LoadedSkill:
    """A skill loaded by `Skills.load`: its entry, its ``SKILL.md`` (verified),
    and `read` for its other files, each verified against the same entry."""

    def __init__(
        self, skills: Skills, entry: SkillEntry, text: str, frontmatter: dict[str, Any]
    ) -> None:
        self._skills = skills
        #: The entry the skill was loaded from; every read is checked against it.
        self.entry = entry
        #: The whole ``SKILL.md``.
        self.text = text
        #: Its frontmatter (equal to the entry's).
        self.frontmatter = frontmatter

    def __repr__(self) -> str:
        return f"LoadedSkill({self.entry.uri!r})"

    @property
    def name(self) -> str:
        return skill_name(self.entry)

    @property
    def body(self) -> str:
        """``SKILL.md`` after its frontmatter."""
        return split_frontmatter(self.text)[1]

    async def read(self, path_or_uri: str) -> bytes:
        """One file of the skill, by path from its root or by URI, verified.

        Raises:
            SkillVerificationError: the entry does not list it, or its content is
                not what the entry says.
        """
        return await self._skills._read(self.entry, path_or_uri)
