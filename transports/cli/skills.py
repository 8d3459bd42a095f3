"""``mcp-core skills SERVER [NAME]``: a server's skills (SEP-2640), listed or fetched.

Without NAME: one line per skill of ``skills/list``, its path and description.
With NAME (a skill's name, its path such as ``acme/billing/refunds``, or the URI of
its ``SKILL.md``): the skill is loaded, its ``SKILL.md`` verified against its entry
(size, digest, frontmatter) and printed; ``--file PATH`` prints one of its other
files instead, verified the same way; ``--files`` lists its files. Nothing is read
that the command does not print. A name that two skills share is refused with both
paths, never resolved to one of them (SEP-2640 "Names").

With ``--config FILE`` (an mcpServers file), the skills of all its servers, each
under its server's name (``billing/refunds`` is ``refunds`` of server ``billing``),
fetched and verified the same way.

Exit statuses as for ``mcp-core read``; 1 too when the server does not declare the
skills extension, when no skill has that name, or when content fails verification.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from mcp_core import LocalProtocolError, McpError
from mcp_core.client.skills import (
    SkillVerificationError,
    check_frontmatter,
    file_bytes,
    listed_file,
    skill_name,
    skill_root,
    verify_file,
)
from mcp_core.types.skills import SkillEntry

from ..client import Client
from ..manager import Manager
from ..manager.errors import ServerUnavailable, UnknownName
from .client import pretty
from .connect import UsageError, error, run_session

__all__ = ["find_skill", "run_many_skills", "run_skills", "skill_lines"]


class _Refused(Exception):
    """The command cannot go on; its message is for the user."""


def _path(entry: SkillEntry) -> str:
    root = skill_root(entry)
    return root.split("://", 1)[1] if "://" in root else root


def skill_lines(entries: list[SkillEntry]) -> list[str]:
    """``path  description`` per skill, the paths in one column."""
    rows = [(_path(entry), str(entry.frontmatter.get("description", ""))) for entry in entries]
    width = max((len(path) for path, _ in rows), default=0)
    return [
        f"{path:<{width}}  {text.strip().splitlines()[0] if text.strip() else ''}".rstrip()
        for path, text in rows
    ]


def find_skill(entries: list[SkillEntry], name: str) -> SkillEntry | str:
    """The entry ``name`` means (a URI, a path or a name), or the URI to ask
    ``skills/get`` for when no listed skill matches (a listing may be partial).

    Raises:
        _Refused: several skills have that name.
    """
    for entry in entries:
        if name in (entry.uri, _path(entry)):
            return entry
    named = [entry for entry in entries if skill_name(entry) == name]
    if len(named) > 1:
        paths = ", ".join(_path(entry) for entry in named)
        raise _Refused(f"several skills are named {name!r}: {paths}; give its path")
    if named:
        return named[0]
    return name if "://" in name else f"skill://{name}/SKILL.md"


async def _work(client: Client, args: argparse.Namespace) -> tuple[int, Any]:
    try:
        entries = await client.skills.list()
        if args.name is None:
            return 0, entries
        found = find_skill(entries, args.name)
        loaded = await client.skills.load(found)
        if args.file is not None:
            return 0, (loaded, await loaded.read(args.file))
        return 0, (loaded, None)
    except (LocalProtocolError, SkillVerificationError, _Refused) as exc:
        return 1, str(exc)


def run_skills(args: argparse.Namespace) -> int:
    """``mcp-core skills SERVER [NAME]``."""

    async def work(client: Client) -> tuple[int, Any]:
        return await _work(client, args)

    status, outcome = run_session(args, work, skills=True)
    if outcome is None:
        return status
    return _show(args, *outcome)


class _Loaded:
    """A skill fetched through a manager: its entry and verified SKILL.md."""

    def __init__(self, entry: SkillEntry, text: str) -> None:
        self.entry = entry
        self.text = text


async def _many_work(manager: Manager, args: argparse.Namespace) -> tuple[int, Any]:
    try:
        entries = await manager.skills()
        if args.name is None:
            return 0, entries
        found = find_skill(entries, args.name)
        entry = found if isinstance(found, SkillEntry) else await manager.get_skill(found)

        async def read(path_or_uri: str) -> bytes:
            file = listed_file(entry, path_or_uri)
            result = await manager.read_skill_file(file.uri)
            return verify_file(file, file_bytes(result, file.uri))

        data = await read(entry.uri)
        check_frontmatter(entry, data)
        loaded = _Loaded(entry, data.decode())
        return 0, (loaded, None if args.file is None else await read(args.file))
    except (SkillVerificationError, _Refused, UnknownName, ServerUnavailable, McpError) as exc:
        return 1, str(exc)


def run_many_skills(args: argparse.Namespace) -> int:
    """``mcp-core skills --config FILE [NAME]``: the skills of all its servers."""
    from .many import _run, _unavailable, load_servers

    try:
        servers = load_servers(args.config, args.timeout)
    except UsageError as exc:
        error(str(exc))
        return 2

    async def work(manager: Manager) -> tuple[Any, tuple[int, Any]]:
        return manager.status(), await _many_work(manager, args)

    statuses, outcome = _run(args, servers, work, skills=True)
    down = _unavailable(statuses)
    status = _show(args, *outcome)
    return status or (1 if down else 0)


def _show(args: argparse.Namespace, code: int, value: Any) -> int:
    if code:
        error(value)
        return code
    if args.name is None:
        if args.json:
            print(pretty({"skills": value}))
        elif value:
            print("\n".join(skill_lines(value)))
        else:
            print("(the server lists no skills)", file=sys.stderr)
        return 0
    loaded, data = value
    if args.json:
        print(pretty({"skill": loaded.entry, "text": loaded.text}))
    elif args.files:
        files = loaded.entry.resources
        print("\n".join(file.uri for file in ([] if files == "dynamic" else files)))
    elif data is not None:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    else:
        print(loaded.text, end="")
    return 0
