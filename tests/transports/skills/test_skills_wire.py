"""Skills (SEP-2640) served from a directory and from code, from the wire: HTTP
(h11), both eras, asyncio and trio. The rules are those of
tests/spec/extensions/sep-2640-skills-extension.md."""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path
from typing import Any

import paths
import pytest
from extension_helpers import wire

from mcp_core import Server
from mcp_core.skills import (
    SKILLS_EXTENSION,
    Skill,
    SkillFile,
    Skills,
    SkillUnavailable,
    make_skill,
)
from transports.skills import SkillDirectory

pytestmark = [pytest.mark.anyio, pytest.mark.parametrize("era", ["legacy", "modern"])]

FIXTURES = paths.SERVERS / "skills"
PDF = "skill://pdf-processing/SKILL.md"
REFUNDS = "skill://acme/billing/refunds/SKILL.md"


def digest(path: Path) -> str:
    return "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()


def skills_server(directory_read: bool = True) -> Server:
    server = Server("skills", "1")
    skills = Skills(SkillDirectory(FIXTURES), directory_read=directory_read)
    skills.add(
        "inline/greeting",
        {
            "SKILL.md": "---\nname: greeting\ndescription: Greet in two languages\n---\nSay hi.\n",
            "data/words.json": b'{"en": "hi", "fr": "salut"}',
            "data/logo.bin": b"\x00\xff\x10",
        },
    )
    server.extend(skills)
    return server


async def test_declared_with_resources_in_both_eras(era: str) -> None:
    async with wire(skills_server(), era, {}) as peer:
        capabilities = (await peer.open())["result"]["capabilities"]
    # SEP-2640 "Capability Declaration" (inline settings), and the resources
    # capability its files need; SEP-2133 declares it in the handshake too.
    assert capabilities["extensions"] == {SKILLS_EXTENSION: {"directoryRead": True}}
    assert "resources" in capabilities


async def test_list_gives_every_skill_with_digests_and_sizes(era: str) -> None:
    async with wire(skills_server(), era, {}) as peer:
        await peer.open()
        result = (await peer.request("skills/list"))["result"]
    entries = {entry["uri"]: entry for entry in result["skills"]}
    assert set(entries) == {PDF, REFUNDS, "skill://inline/greeting/SKILL.md"}
    pdf = entries[PDF]
    assert pdf["frontmatter"] == {
        "name": "pdf-processing",
        "description": "Extract, fill, and assemble PDF documents",
        "license": "Apache-2.0",
        "metadata": {"version": "2.1.0", "author": "mcp-core tests"},
    }
    files = {f["uri"]: f for f in pdf["resources"]}
    on_disk = sorted(p for p in (FIXTURES / "pdf-processing").rglob("*") if p.is_file())
    assert len(files) == len(on_disk)
    for path in on_disk:
        uri = "skill://pdf-processing/" + path.relative_to(FIXTURES / "pdf-processing").as_posix()
        assert files[uri] == {"uri": uri, "digest": digest(path), "size": path.stat().st_size}
    # A folded description, read as YAML reads it.
    refunds = entries[REFUNDS]["frontmatter"]
    assert refunds["description"] == "Process customer refund requests per company policy\n"
    # 2026-07-28: cacheable, ttlMs and cacheScope present; before, no such fields.
    if era == "modern":
        assert result["ttlMs"] == 0 and result["cacheScope"] == "private"
    else:
        assert "ttlMs" not in result and "cacheScope" not in result


async def test_list_pages_keep_each_entry_whole(era: str) -> None:
    server = skills_server()
    server.page_size = 2
    async with wire(server, era, {}) as peer:
        await peer.open()
        first = (await peer.request("skills/list"))["result"]
        second = (await peer.request("skills/list", {"cursor": first["nextCursor"]}))["result"]
    assert len(first["skills"]) == 2 and len(second["skills"]) == 1
    assert "nextCursor" not in second


async def test_get_answers_for_a_skill_and_refuses_anything_else(era: str) -> None:
    async with wire(skills_server(), era, {}) as peer:
        await peer.open()
        listed = (await peer.request("skills/list"))["result"]["skills"]
        got = (await peer.request("skills/get", {"uri": REFUNDS}))["result"]
        unknown = await peer.request("skills/get", {"uri": "skill://nope/SKILL.md"})
        a_file = await peer.request(
            "skills/get", {"uri": "skill://pdf-processing/references/FORMS.md"}
        )
    assert got["skill"] == next(e for e in listed if e["uri"] == REFUNDS)
    assert "nextCursor" not in got
    assert (era == "modern") == ("ttlMs" in got)
    # SEP-2640 "Retrieval via skills/get": -32602 for what is not a skill served.
    assert unknown["error"]["code"] == -32602 and a_file["error"]["code"] == -32602


async def test_resources_list_and_read(era: str) -> None:
    async with wire(skills_server(), era, {}) as peer:
        await peer.open()
        listed = (await peer.request("resources/list"))["result"]["resources"]
        skill_md = (await peer.request("resources/read", {"uri": PDF}))["result"]
        text = await peer.request(
            "resources/read", {"uri": "skill://inline/greeting/data/words.json"}
        )
        blob = await peer.request(
            "resources/read", {"uri": "skill://inline/greeting/data/logo.bin"}
        )
    by_uri = {r["uri"]: r for r in listed}
    # SEP-2640 "Resource Metadata": SKILL.md named and described by its frontmatter.
    assert by_uri[PDF]["name"] == "pdf-processing"
    assert by_uri[PDF]["description"] == "Extract, fill, and assemble PDF documents"
    assert by_uri[PDF]["mimeType"] == "text/markdown"
    assert by_uri["skill://pdf-processing/references/FORMS.md"]["name"] == "references/FORMS.md"
    [contents] = skill_md["contents"]
    assert contents["mimeType"] == "text/markdown"
    assert contents["text"] == (FIXTURES / "pdf-processing" / "SKILL.md").read_text()
    assert text["result"]["contents"][0]["text"] == '{"en": "hi", "fr": "salut"}'
    assert base64.b64decode(blob["result"]["contents"][0]["blob"]) == b"\x00\xff\x10"


async def test_directory_read(era: str) -> None:
    async with wire(skills_server(), era, {}) as peer:
        await peer.open()
        root = await peer.request("resources/directory/read", {"uri": "skill://pdf-processing"})
        templates = await peer.request(
            "resources/directory/read", {"uri": "skill://pdf-processing/templates"}
        )
        a_file = await peer.request("resources/directory/read", {"uri": PDF})
        nothing = await peer.request("resources/directory/read", {"uri": "skill://nope"})
    children = {r["uri"]: r.get("mimeType") for r in root["result"]["resources"]}
    assert children == {
        PDF: "text/markdown",
        "skill://pdf-processing/references": "inode/directory",
        "skill://pdf-processing/templates": "inode/directory",
    }
    names = sorted(r["name"] for r in templates["result"]["resources"])
    assert names == ["invoice.md", "regional"]
    # SEP-2640 "resources/directory/read": not a directory -> -32602.
    assert a_file["error"]["code"] == -32602 and nothing["error"]["code"] == -32602


async def test_directory_read_needs_the_setting(era: str) -> None:
    async with wire(skills_server(directory_read=False), era, {}) as peer:
        capabilities = (await peer.open())["result"]["capabilities"]
        refused = await peer.request("resources/directory/read", {"uri": "skill://pdf-processing"})
    assert capabilities["extensions"] == {SKILLS_EXTENSION: {}}
    assert refused["error"]["code"] == -32601


async def test_a_server_without_skills_has_no_skills_methods(era: str) -> None:
    async with wire(Server("plain", "1"), era, {}) as peer:
        await peer.open()
        refused = await peer.request("skills/list")
    assert refused["error"]["code"] == -32601


@pytest.mark.parametrize(
    "uri",
    [
        "skill://pdf-processing/../acme/billing/refunds/SKILL.md",
        "skill://pdf-processing/./SKILL.md",
        "skill://pdf-processing//SKILL.md",
        "skill://pdf-processing/..%2F..%2Fetc/passwd",
        "skill://../../etc/passwd",
    ],
)
async def test_paths_that_leave_a_root_are_refused(era: str, uri: str) -> None:
    async with wire(skills_server(), era, {}) as peer:
        await peer.open()
        read = await peer.request("resources/read", {"uri": uri})
        listed = await peer.request("resources/directory/read", {"uri": uri})
    # -32602 for a path that could leave its root, or (an escaped one, which is no
    # file served) the era's "resource not found".
    not_found = -32602 if era == "modern" else -32002
    assert read["error"]["code"] in (-32602, not_found)
    assert listed["error"]["code"] == -32602
    assert "result" not in read


def refusal(answer: dict[str, Any]) -> tuple[int, str]:
    return answer["error"]["code"], answer["error"]["message"]


class Refusing:
    """A source whose one file is over its size limit when read."""

    def __init__(self) -> None:
        self.skill = make_skill("tall", {"SKILL.md": "---\nname: tall\ndescription: d\n---\n"})

    async def skills(self) -> tuple[Skill, ...]:
        return (self.skill,)

    async def read(self, skill: Skill, file: SkillFile) -> bytes:
        raise SkillUnavailable("tall/SKILL.md: 20 bytes, over 10", too_large=True)


async def test_a_file_over_the_limit_is_refused(era: str) -> None:
    source = Refusing()
    server = Server("s", "1", extensions=[Skills(source)])
    async with wire(server, era, {}) as peer:
        await peer.open()
        read = await peer.request("resources/read", {"uri": "skill://tall/SKILL.md"})
    # Not served: the era's "resource not found" code, saying why.
    assert refusal(read) == (-32602 if era == "modern" else -32002, "Resource too large")
    assert read["error"]["data"]["reason"] == "tall/SKILL.md: 20 bytes, over 10"
