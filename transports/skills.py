"""A directory of skills, read from disk for `mcp_core.skills.Skills` (SEP-2640).

`SkillDirectory(root)` is a `mcp_core.skills.SkillSource`: every folder under
``root`` that holds a ``SKILL.md`` is a skill, its path under ``root`` its skill
path (``root/acme/billing/refunds/SKILL.md`` is ``skill://acme/billing/refunds``),
and every file below it one of its files, a nested skill's included (SEP-2640
"Resources": completeness extends to nested skills). The walk and the reads run
in a worker thread; mcp_core gets sizes, digests and bytes.

* Digests are computed once per file and kept while its size and modification
  time stay the same; the skills are measured again on every request that needs
  them (a walk of ``stat`` calls), and the same sequence object is returned while
  nothing changed, so the catalog built from it is kept too.
* Nothing outside ``root`` is served: a symbolic link whose target is outside it
  is left out (and reading re-checks, so a file swapped for such a link after the
  listing is refused, not read). ``..`` never reaches this far: URIs are matched
  against the files found, and mcp_core refuses paths that could leave a root.
* A file larger than ``max_file_bytes`` makes its skill unserved (reading one
  that grew refuses with "Resource too large"); so does a skill over SEP-2640's
  "Limits" (512 files, 16 MiB), whose servers SHOULD NOT serve it, and a skill
  whose SKILL.md breaks the rules (no frontmatter, a name that is not its folder's).
  Each is logged once per change on the ``mcp_core.skills`` logger, and listed in
  `SkillDirectory.problems`.
"""

from __future__ import annotations

import logging
import os
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

import anyio.to_thread

from mcp_core.skills import (
    MAX_TOTAL_BYTES,
    SKILL_FILE,
    FrontmatterParser,
    Skill,
    SkillError,
    SkillFile,
    SkillUnavailable,
    digest_of,
    make_skill,
    mime_type_of,
    over_limits,
    parse_yaml,
    skill_frontmatter,
)

__all__ = ["SkillDirectory"]

log = logging.getLogger("mcp_core.skills")

DEFAULT_MAX_FILE_BYTES: Final = MAX_TOTAL_BYTES
"""A file larger than a whole skill may be (16 MiB) is never served."""


class SkillDirectory:
    """The skills under ``root`` (see the module).

    Args:
        root: the directory of skills.
        max_file_bytes: the largest file served.
        parser: reads SKILL.md frontmatter (default mcp_core's YAML subset).
    """

    def __init__(
        self,
        root: str | os.PathLike[str],
        *,
        max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
        parser: FrontmatterParser = parse_yaml,
    ) -> None:
        self.root = Path(root).resolve(strict=True)
        if not self.root.is_dir():
            raise NotADirectoryError(str(self.root))
        self.max_file_bytes = max_file_bytes
        self.parser = parser
        #: Why each skill path left out of the last scan is not served.
        self.problems: dict[str, str] = {}
        self._digests: dict[str, tuple[int, int, str, int]] = {}
        self._frontmatter: dict[str, dict[str, Any]] = {}
        self._stamp: object = None
        self._skills: tuple[Skill, ...] = ()
        #: How many files were read to compute a digest (each once while unchanged).
        self.hashed = 0

    async def skills(self) -> Sequence[Skill]:
        return await anyio.to_thread.run_sync(self._scan)

    async def read(self, skill: Skill, file: SkillFile) -> bytes:
        return await anyio.to_thread.run_sync(self._read, skill.path, file.path)

    # --- in the worker thread ------------------------------------------------------------

    def _inside(self, path: str) -> bool:
        return path == str(self.root) or path.startswith(str(self.root) + os.sep)

    def _files(self) -> dict[str, os.stat_result]:
        # Every regular file under the root by its "/"-separated relative path,
        # symbolic links followed only where they stay inside the root.
        found: dict[str, os.stat_result] = {}
        for folder, dirs, names in os.walk(self.root, followlinks=False):
            base = Path(folder)
            for name in list(dirs):
                full = base / name
                if full.is_symlink() and not self._inside(os.path.realpath(full)):
                    dirs.remove(name)  # a link out of the root: not walked
            dirs.sort()
            for name in sorted(names):
                full = base / name
                if full.is_symlink() and not self._inside(os.path.realpath(full)):
                    continue
                try:
                    info = full.stat()
                except OSError:
                    continue
                if stat.S_ISREG(info.st_mode):
                    found[full.relative_to(self.root).as_posix()] = info
        return found

    def _digest(self, relative: str, info: os.stat_result) -> tuple[str, int]:
        # The digest and size of the bytes read (a file rewritten between the
        # stat and the read is described as read, and hashed again next time,
        # its stamp having changed).
        key = (info.st_mtime_ns, info.st_size)
        known = self._digests.get(relative)
        if known is not None and known[:2] == key:
            return known[2], known[3]
        data = (self.root / relative).read_bytes()
        self.hashed += 1
        digest = digest_of(data)
        self._digests[relative] = (*key, digest, len(data))
        return digest, len(data)

    def _scan(self) -> tuple[Skill, ...]:
        files = self._files()
        stamp = tuple((k, v.st_mtime_ns, v.st_size) for k, v in files.items())
        if stamp == self._stamp:
            return self._skills
        roots = sorted(k[: -len(SKILL_FILE) - 1] for k in files if k.endswith("/" + SKILL_FILE))
        skills: list[Skill] = []
        problems: dict[str, str] = {}
        for root in roots:
            try:
                skills.append(self._skill(root, files))
            except (SkillError, OSError) as exc:
                problems[root] = str(exc)
        for root, why in problems.items():
            if self.problems.get(root) != why:
                log.warning("skill %r under %s is not served: %s", root, self.root, why)
        self.problems = problems
        self._digests = {k: v for k, v in self._digests.items() if k in files}
        kept = {s.files[0].digest for s in skills}  # SKILL.md comes first
        self._frontmatter = {k: v for k, v in self._frontmatter.items() if k in kept}
        self._stamp, self._skills = stamp, tuple(skills)
        return self._skills

    def _skill(self, root: str, files: dict[str, os.stat_result]) -> Skill:
        prefix = root + "/"
        measured = []
        for relative, info in files.items():
            if not relative.startswith(prefix):
                continue
            if info.st_size > self.max_file_bytes:
                raise SkillError(f"{relative}: {info.st_size} bytes, over {self.max_file_bytes}")
            path = relative[len(prefix) :]
            digest, size = self._digest(relative, info)
            measured.append(
                SkillFile(path=path, size=size, digest=digest, mime_type=mime_type_of(path))
            )
        skill_md = next(f for f in measured if f.path == SKILL_FILE)
        frontmatter = self._frontmatter.get(skill_md.digest)
        if frontmatter is None:
            data = (self.root / prefix / SKILL_FILE).read_bytes()
            frontmatter = skill_frontmatter(data, self.parser)
            self._frontmatter[skill_md.digest] = frontmatter
        skill = make_skill(root, measured, dict(frontmatter))
        why = over_limits(skill)
        if why is not None:
            raise SkillError(f"over SEP-2640's limits: {why}")
        return skill

    def _read(self, skill_path: str, file_path: str) -> bytes:
        path = os.path.realpath(self.root / skill_path / file_path)
        if not self._inside(path):
            raise SkillUnavailable(f"{skill_path}/{file_path} leads out of the skills directory")
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        except OSError as exc:
            raise SkillUnavailable(f"{skill_path}/{file_path}: {exc.strerror}") from None
        with os.fdopen(fd, "rb") as handle:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode):
                raise SkillUnavailable(f"{skill_path}/{file_path} is not a file")
            if info.st_size > self.max_file_bytes:
                raise SkillUnavailable(
                    f"{skill_path}/{file_path}: {info.st_size} bytes, over {self.max_file_bytes}",
                    too_large=True,
                )
            data = handle.read(self.max_file_bytes + 1)
        if len(data) > self.max_file_bytes:
            raise SkillUnavailable(
                f"{skill_path}/{file_path} is over {self.max_file_bytes} bytes", too_large=True
            )
        return data
