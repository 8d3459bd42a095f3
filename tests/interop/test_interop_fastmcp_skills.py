"""Interop: our skills client (``client.skills``, SEP-2640) against FastMCP 4.2's
skills server (``SkillsDirectoryProvider`` over tests/servers/skills/), served by
its own streamable-HTTP app under uvicorn.

FastMCP serves ``skills/list`` and ``skills/get`` to 2026-07-28 clients only
(fastmcp/skills/extension.py: MODERN_PROTOCOL_VERSIONS), so the client speaks
2026-07-28. uvicorn runs on asyncio only.
"""

from __future__ import annotations

import hashlib
from typing import Any, Final

import anyio
import paths
import pytest
from asgi_helpers import uvicorn_serving
from limits import HANG

from transports import Client

fastmcp = pytest.importorskip("fastmcp")
provider = pytest.importorskip("fastmcp.skills.provider")

pytestmark = pytest.mark.anyio

SKILLS: Final = paths.SERVERS / "skills"
LIMIT: Final = HANG


@pytest.fixture
def anyio_backend() -> str:
    """uvicorn runs on asyncio only."""
    return "asyncio"


def fastmcp_app() -> Any:
    server = fastmcp.FastMCP("fastmcp-skills")
    server.add_provider(provider.SkillsDirectoryProvider(SKILLS))
    return server.http_app(path="/mcp")


async def test_our_client_lists_loads_and_verifies_fastmcp_skills() -> None:
    with anyio.fail_after(LIMIT):
        async with uvicorn_serving(fastmcp_app()) as port:
            url = f"http://127.0.0.1:{port}/mcp"
            async with Client(url, skills=True, revisions=("2026-07-28",)) as client:
                entries = {entry.uri: entry for entry in await client.skills.list()}
                uri = "skill://pdf-processing/SKILL.md"
                assert uri in entries and "skill://acme/billing/refunds/SKILL.md" in entries
                entry = await client.skills.get(uri)
                assert entry.frontmatter == entries[uri].frontmatter
                loaded = await client.skills.load(entry)
                assert loaded.text == (SKILLS / "pdf-processing" / "SKILL.md").read_text()
                forms = await loaded.read("references/FORMS.md")
    on_disk = (SKILLS / "pdf-processing" / "references" / "FORMS.md").read_bytes()
    assert forms == on_disk
    listed = {file.uri: file for file in entry.resources if not isinstance(file, str)}
    assert listed["skill://pdf-processing/references/FORMS.md"].digest == (
        "sha256:" + hashlib.sha256(on_disk).hexdigest()
    )
