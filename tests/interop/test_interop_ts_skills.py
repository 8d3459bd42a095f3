"""Interop: our skills client against the TypeScript SDK 2.4's skills server
(``@modelcontextprotocol/server`` ``ext/skills``: ``loadSkills(folder).attach(mcp)``)
over stdio, serving tests/servers/skills/. It speaks the handshake era and declares
the extension in its ``initialize`` answer (with ``directoryRead``); it has no
``server/discover``, so our client falls back to 2025-11-25. asyncio and trio.

The package comes from npm into a cache (MCP_CORE_TS_SKILLS_CACHE, default
~/.cache/mcp-core-ts-skills/2.4.0), once; the tests skip without node and npm.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Final

import anyio
import paths
import pytest
from limits import HANG

from mcp_core.client.skills import SkillVerificationError
from mcp_core.types.skills import SKILLS_EXTENSION
from transports import Client
from transports.stdio import stdio_connector

pytestmark = pytest.mark.anyio

VERSION: Final = "2.4.0"
SKILLS: Final = paths.SERVERS / "skills"
SCRIPT: Final = paths.TESTS / "interop" / "ts_skills" / "server.mjs"


def npm_folder(package: str, folder: Path, script: Path) -> Path:
    """``folder`` holding ``package`` at VERSION (installed on first use) and ``script``.

    Skips the test without node and npm, or when the install fails.
    """
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.skip("node and npm are needed for the TypeScript SDK interop")
    installed = folder / "node_modules" / package / "package.json"
    if not installed.exists():
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "package.json").write_text('{"name": "skills-interop", "private": true}\n')
        command = [npm, "install", "--no-audit", "--no-fund", f"{package}@{VERSION}"]
        done = subprocess.run(command, cwd=folder, capture_output=True, timeout=600, check=False)
        if done.returncode != 0:
            pytest.skip(f"npm install failed: {done.stderr.decode()[-500:]}")
    if json.loads(installed.read_text())["version"] != VERSION:
        pytest.skip(f"{folder} holds another {package} than {VERSION}")
    # Node resolves a script's imports from the script's folder: ours goes beside.
    shutil.copyfile(script, folder / script.name)
    return folder


@pytest.fixture(scope="module")
def ts_sdk() -> Path:
    """The folder holding the server package and our script."""
    default = Path.home() / ".cache" / "mcp-core-ts-skills" / VERSION
    folder = Path(os.environ.get("MCP_CORE_TS_SKILLS_CACHE", default))
    return npm_folder("@modelcontextprotocol/server", folder, SCRIPT)


def client(folder: Path) -> Client:
    command = ["node", str(folder / SCRIPT.name), str(SKILLS)]
    return Client(stdio_connector(command, cwd=folder), skills=True)


async def test_our_client_lists_loads_and_verifies_ts_sdk_skills(ts_sdk: Path) -> None:
    with anyio.fail_after(HANG):
        async with client(ts_sdk) as c:
            assert c.revision == "2025-11-25"
            assert SKILLS_EXTENSION in c.server_capabilities.extensions
            entries = {entry.uri: entry for entry in await c.skills.list()}
            assert sorted(entries) == [
                "skill://acme/billing/refunds/SKILL.md",
                "skill://pdf-processing/SKILL.md",
            ]
            entry = await c.skills.get("skill://pdf-processing/SKILL.md")
            assert entry.frontmatter == entries[entry.uri].frontmatter
            loaded = await c.skills.load(entry)
            assert loaded.text == (SKILLS / "pdf-processing" / "SKILL.md").read_text()
            forms = await loaded.read("references/FORMS.md")
            with pytest.raises(SkillVerificationError):
                await loaded.read("references/NOT-LISTED.md")
    on_disk = (SKILLS / "pdf-processing" / "references" / "FORMS.md").read_bytes()
    assert forms == on_disk
    listed = {file.uri: file for file in entry.resources if not isinstance(file, str)}
    assert listed["skill://pdf-processing/references/FORMS.md"].digest == (
        "sha256:" + hashlib.sha256(on_disk).hexdigest()
    )
