"""transports/skills.py:SkillDirectory: what a directory of skills serves, and what
it refuses (links out of the root, files over the limit, broken SKILL.md), with
digests computed once while a file stays the same. asyncio and trio."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from extension_helpers import wire

from mcp_core import Server
from mcp_core.skills import Skills, SkillUnavailable, digest_of
from transports.skills import SkillDirectory

pytestmark = pytest.mark.anyio


def write_skill(root: Path, path: str, files: dict[str, str] | None = None) -> Path:
    folder = root / path
    name = path.rsplit("/", 1)[-1]
    (folder).mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: The {name} skill\n---\n")
    for relative, text in (files or {}).items():
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        (folder / relative).write_text(text)
    return folder


async def test_digests_are_computed_once_while_files_stay(tmp_path: Path) -> None:
    folder = write_skill(tmp_path, "alpha", {"notes.md": "one"})
    source = SkillDirectory(tmp_path)
    first = await source.skills()
    assert source.hashed == 2
    again = await source.skills()
    assert again is first and source.hashed == 2  # nothing read, same snapshot
    (folder / "notes.md").write_text("two, longer")  # a new size
    changed = await source.skills()
    assert changed is not first and source.hashed == 3  # only the changed file
    [skill] = changed
    notes = next(f for f in skill.files if f.path == "notes.md")
    assert notes.digest == digest_of(b"two, longer") and notes.size == 11


async def test_nested_skills_and_their_enclosing_skill(tmp_path: Path) -> None:
    write_skill(tmp_path, "outer", {"a.md": "a"})
    write_skill(tmp_path, "outer/inner", {"b.md": "b"})
    skills = {s.path: s for s in await SkillDirectory(tmp_path).skills()}
    # SEP-2640 "Resources": completeness extends to nested skills.
    assert sorted(f.path for f in skills["outer"].files) == [
        "SKILL.md",
        "a.md",
        "inner/SKILL.md",
        "inner/b.md",
    ]
    assert sorted(f.path for f in skills["outer/inner"].files) == ["SKILL.md", "b.md"]


async def test_links_out_of_the_root_are_not_served(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    outside = tmp_path / "secret.txt"
    outside.write_text("secret")
    folder = write_skill(root, "alpha", {"inside.md": "fine"})
    os.symlink(outside, folder / "leak.txt")
    os.symlink(folder / "inside.md", folder / "alias.md")  # inside the root: served
    os.symlink(tmp_path, folder / "up")  # a directory link out of the root
    [skill] = await SkillDirectory(root).skills()
    assert sorted(f.path for f in skill.files) == ["SKILL.md", "alias.md", "inside.md"]


async def test_a_file_swapped_for_a_link_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    (tmp_path / "secret.txt").write_text("secret")
    folder = write_skill(root, "alpha", {"doc.md": "fine"})
    source = SkillDirectory(root)
    server = Server("s", "1", extensions=[Skills(source)])
    [skill] = await source.skills()
    doc = next(f for f in skill.files if f.path == "doc.md")
    (folder / "doc.md").unlink()
    os.symlink(tmp_path / "secret.txt", folder / "doc.md")
    # Read by an entry taken before the swap: the target is checked, not followed.
    with pytest.raises(SkillUnavailable, match="out of the skills directory"):
        await source.read(skill, doc)
    # Through the server: a new walk leaves the link out, so it is no file served.
    async with wire(server, "legacy", {}) as peer:
        await peer.open()
        read = await peer.request("resources/read", {"uri": "skill://alpha/doc.md"})
    assert read["error"]["code"] == -32002 and "secret" not in str(read)


async def test_oversize_files(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    write_skill(root, "small", {"ok.md": "x" * 10})
    write_skill(root, "big", {"huge.bin": "x" * 101})
    source = SkillDirectory(root, max_file_bytes=100)
    [small] = await source.skills()
    assert small.path == "small"
    assert "101 bytes" in source.problems["big"]
    ok = next(f for f in small.files if f.path == "ok.md")
    (root / "small" / "ok.md").write_text("x" * 200)
    # A file that grew past the limit after the listing: refused as too large.
    with pytest.raises(SkillUnavailable) as refused:
        await source.read(small, ok)
    assert refused.value.too_large
    # The next walk stops serving the skill; reading it is "not found".
    server = Server("s", "1", extensions=[Skills(source)])
    async with wire(server, "modern", {}) as peer:
        await peer.open()
        listed = (await peer.request("skills/list"))["result"]["skills"]
        gone = await peer.request("resources/read", {"uri": "skill://small/ok.md"})
    assert listed == []
    assert gone["error"]["code"] == -32602 and gone["error"]["message"] == "Resource not found"


async def test_skills_that_break_the_rules_are_not_served(tmp_path: Path) -> None:
    write_skill(tmp_path, "good")
    (tmp_path / "wrong").mkdir()
    (tmp_path / "wrong" / "SKILL.md").write_text("---\nname: other\ndescription: d\n---\n")
    (tmp_path / "bare").mkdir()
    (tmp_path / "bare" / "SKILL.md").write_text("no frontmatter here\n")
    (tmp_path / "Bad_Name").mkdir()
    (tmp_path / "Bad_Name" / "SKILL.md").write_text("---\nname: Bad_Name\ndescription: d\n---\n")
    source = SkillDirectory(tmp_path)
    assert [s.path for s in await source.skills()] == ["good"]
    assert set(source.problems) == {"wrong", "bare", "Bad_Name"}
    assert "'other'" in source.problems["wrong"]
