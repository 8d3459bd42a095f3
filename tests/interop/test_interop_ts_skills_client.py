"""Interop: the TypeScript SDK 2.4's skills client (``@modelcontextprotocol/client``
``ext/skills``: ``SkillsClient`` list, get and read) against our skills server,
examples/skills_server.py serving tests/servers/skills/ over stdio, on asyncio and trio.

tests/interop/ts_skills/client.mjs lists the skills, gets pdf-processing, reads its
``SKILL.md`` and ``references/FORMS.md`` through ``SkillsClient.read`` (which refuses a
file whose size or digest differs from the skill's entry, or a ``SKILL.md`` whose
frontmatter differs), and prints what it got as JSON; the test checks that against
the files on disk. Both eras the TS client negotiates: its default ``legacy`` mode
speaks 2025-11-25 (``initialize``); ``auto`` probes ``server/discover`` and gets
2026-07-28, where every list carries ``ttlMs`` and ``cacheScope`` (SEP-2640).

The package comes from npm into a cache (MCP_CORE_TS_SKILLS_CLIENT_CACHE, default
~/.cache/mcp-core-ts-skills/client-2.4.0), once; the tests skip without node and npm.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Final

import paths
import pytest
from limits import HANG
from test_interop_ts_skills import VERSION, npm_folder

SKILLS: Final = paths.SERVERS / "skills"
SCRIPT: Final = paths.TESTS / "interop" / "ts_skills" / "client.mjs"
PDF: Final = "skill://pdf-processing/SKILL.md"
FORMS: Final = "references/FORMS.md"


@pytest.fixture(scope="module")
def ts_client() -> Path:
    """The folder holding the client package and our script."""
    default = Path.home() / ".cache" / "mcp-core-ts-skills" / f"client-{VERSION}"
    folder = Path(os.environ.get("MCP_CORE_TS_SKILLS_CLIENT_CACHE", default))
    return npm_folder("@modelcontextprotocol/client", folder, SCRIPT)


def run(folder: Path, mode: str, backend: str) -> dict[str, Any]:
    """What client.mjs reports against our server on ``backend``."""
    server = [sys.executable, "-m", "transports", "serve", str(paths.EXAMPLES / "skills_server.py")]
    command = ["node", SCRIPT.name, mode, PDF, FORMS, "--", *server, "--backend", backend]
    # The server inherits this environment: PYTHONPATH, and the folder it serves.
    env = {**os.environ, "SKILLS_DIR": str(SKILLS)}
    done = subprocess.run(
        command, cwd=folder, env=env, capture_output=True, timeout=HANG, check=False
    )
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    report: dict[str, Any] = json.loads(done.stdout)
    return report


def digest(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def on_disk(skill: Path) -> list[dict[str, Any]]:
    """The entry's resources a server must list for the skill folder ``skill``."""
    files = sorted(path for path in skill.rglob("*") if path.is_file())
    return [
        {
            "uri": f"skill://{path.relative_to(SKILLS).as_posix()}",
            "digest": digest(path.read_bytes()),
            "size": len(path.read_bytes()),
        }
        for path in files
    ]


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
@pytest.mark.parametrize(("mode", "revision"), [("legacy", "2025-11-25"), ("auto", "2026-07-28")])
def test_ts_sdk_client_lists_loads_and_verifies_our_skills(
    ts_client: Path, backend: str, mode: str, revision: str
) -> None:
    report = run(ts_client, mode, backend)
    assert report["protocolVersion"] == revision
    assert report["supported"] is True
    assert report["directoryRead"] is True
    if revision == "2026-07-28":
        assert report["cacheScope"] in ("public", "private")
        assert isinstance(report["ttlMs"], int)
    else:
        assert "ttlMs" not in report
    listed = {entry["uri"]: entry for entry in report["skills"]}
    assert {uri: entry["name"] for uri, entry in listed.items()} == {
        "skill://acme/billing/refunds/SKILL.md": "refunds",
        "skill://git-workflow/SKILL.md": "git-workflow",  # written in code, not on disk
        PDF: "pdf-processing",
    }
    for folder in (SKILLS / "acme" / "billing" / "refunds", SKILLS / "pdf-processing"):
        uri = f"skill://{folder.relative_to(SKILLS).as_posix()}/SKILL.md"
        assert sorted(listed[uri]["resources"], key=lambda r: r["uri"]) == on_disk(folder)

    assert report["got"] == PDF
    manifest = (SKILLS / "pdf-processing" / "SKILL.md").read_bytes()
    assert report["manifest"]["uri"] == PDF
    assert report["manifest"]["verified"] is True
    assert report["manifest"]["digest"] == digest(manifest)
    assert report["manifest"]["frontmatter"]["name"] == "pdf-processing"
    assert report["manifest"]["body"] == manifest.decode().split("---\n", 2)[2]
    forms = (SKILLS / "pdf-processing" / FORMS).read_bytes()
    assert report["file"] == {
        "uri": f"skill://pdf-processing/{FORMS}",
        "verified": True,
        "size": len(forms),
        "digest": digest(forms),
    }
