"""mcp_core/skills/catalog.py: skills built from their files under SEP-2640's rules,
and the views of a catalog (entries, resources, directories)."""

from __future__ import annotations

import hashlib

import pytest

from mcp_core.skills import (
    MAX_FILES,
    Catalog,
    SkillError,
    check_relative,
    digest_of,
    make_skill,
    mime_type_of,
    over_limits,
)
from mcp_core.types.skills import DIRECTORY_MIME_TYPE


def skill_md(name: str, extra: str = "") -> bytes:
    return f"---\nname: {name}\ndescription: The {name} skill\n{extra}---\nbody\n".encode()


def test_a_skill_from_its_files() -> None:
    skill = make_skill(
        "acme/billing/refunds",
        {"examples/email.md": b"Dear customer", "SKILL.md": skill_md("refunds", "license: MIT\n")},
    )
    assert skill.uri == "skill://acme/billing/refunds/SKILL.md"
    assert skill.root == "skill://acme/billing/refunds"
    assert [f.path for f in skill.files] == ["SKILL.md", "examples/email.md"]  # SKILL.md first
    entry = skill.entry()
    assert entry.frontmatter == {
        "name": "refunds",
        "description": "The refunds skill",
        "license": "MIT",
    }
    email = entry.resources[1]
    assert email.uri == "skill://acme/billing/refunds/examples/email.md"
    assert email.digest == "sha256:" + hashlib.sha256(b"Dear customer").hexdigest()
    assert email.size == 13


@pytest.mark.parametrize(
    ("path", "files", "why"),
    [
        ("refunds", {"SKILL.md": skill_md("other")}, "is not 'refunds'"),
        ("Refunds", {"SKILL.md": skill_md("Refunds")}, "lowercase"),
        ("re--funds", {"SKILL.md": skill_md("re--funds")}, "double hyphen"),
        ("-refunds", {"SKILL.md": skill_md("-refunds")}, "lowercase"),
        ("refunds", {"README.md": b"x"}, "has no SKILL.md"),
        ("refunds", {"SKILL.md": b"no frontmatter"}, "---"),
        ("refunds", {"SKILL.md": b"---\nname: refunds\n---\n"}, "no description"),
        ("refunds", {"SKILL.md": b"\xff\xfe"}, "not UTF-8"),
        ("a/../refunds", {"SKILL.md": skill_md("refunds")}, "segments"),
        ("refunds", {"SKILL.md": skill_md("refunds"), "../x": b""}, "plain relative"),
        ("refunds", {"SKILL.md": skill_md("refunds"), "a//b": b""}, "plain relative"),
    ],
)
def test_rules(path: str, files: dict[str, bytes], why: str) -> None:
    with pytest.raises(SkillError, match=why):
        make_skill(path, files)


@pytest.mark.parametrize("path", ["", ".", "..", "a/../b", "/a", "a/", "a\\b", "a\0b", "./a"])
def test_relative_paths_that_could_leave_their_root(path: str) -> None:
    with pytest.raises(SkillError):
        check_relative(path)


def test_limits_and_types() -> None:
    files = {"SKILL.md": skill_md("big")} | {f"f{i}.txt": b"" for i in range(MAX_FILES)}
    assert "513 files" in (over_limits(make_skill("big", files)) or "")
    assert over_limits(make_skill("small", {"SKILL.md": skill_md("small")})) is None
    assert mime_type_of("a/b.MD") == "text/markdown"
    assert mime_type_of("script.py") == "text/x-python"
    assert mime_type_of("noext") == "application/octet-stream"
    assert digest_of(b"") == "sha256:" + hashlib.sha256(b"").hexdigest()


def test_catalog_views() -> None:
    outer = make_skill(
        "outer",
        {
            "SKILL.md": skill_md("outer"),
            "docs/a.md": b"a",
            "inner/SKILL.md": skill_md("inner"),
        },
    )
    inner = make_skill("outer/inner", {"SKILL.md": skill_md("inner")})
    duplicate = make_skill("outer", {"SKILL.md": skill_md("outer")})
    catalog = Catalog([outer, inner, duplicate])
    assert [e.uri for e in catalog.entries] == [outer.uri, inner.uri]  # the first of a URI
    assert catalog.skill(inner.uri) is inner
    assert catalog.skill("skill://outer/docs/a.md") is None
    assert catalog.file("skill://outer/docs/a.md") == (outer, outer.files[1])
    root = {r.uri: r.mime_type for r in catalog.directory("skill://outer") or []}
    assert root == {
        "skill://outer/SKILL.md": "text/markdown",
        "skill://outer/docs": DIRECTORY_MIME_TYPE,
        "skill://outer/inner": DIRECTORY_MIME_TYPE,
    }
    assert catalog.directory("skill://outer/SKILL.md") is None
    assert catalog.directory("skill://nowhere") is None
    listed = {r.uri: r for r in catalog.resources}
    assert listed[outer.uri].name == "outer"
    assert listed[outer.uri].description == "The outer skill"
    assert listed["skill://outer/docs/a.md"].name == "docs/a.md"


def test_a_skill_added_while_serving_is_announced() -> None:
    from mcp_core import Server
    from mcp_core.skills import Skills

    skills = Skills()
    server = Server("s", "1", extensions=[skills])
    server.config()  # serving started: changes are announced from now on
    skills.add("late", {"SKILL.md": skill_md("late")})
    assert "notifications/resources/list_changed" in server.take_list_changes()
    with pytest.raises(SkillError, match="already"):
        skills.add("late", {"SKILL.md": skill_md("late")})
