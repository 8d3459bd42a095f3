"""Skills (SEP-2640) interop: the official Python SDK's client (``mcp.Client``, 2.3),
declaring the extension with FastMCP's ``SkillsClientExtension`` and reading
``skills/list`` / ``skills/get`` with FastMCP's wire models (fastmcp.skills.models,
pydantic, which check SEP-2640's rules: names, digests, URIs within the skill),
against our server (tests/servers/skills/) over HTTP: h11 on asyncio and trio,
the ASGI app under uvicorn; both eras. Each file it reads is checked against the
digest and size of its entry, as a host must (SEP-2640 "Integrity and
verification")."""

from __future__ import annotations

import base64
import hashlib
from typing import Final

import anyio
import paths
import pytest
from adapter_flavours import by_flavour, flavour_fixture  # noqa: F401
from limits import HANG
from test_interop_sdk_http import serving

from mcp_core import Server
from mcp_core.skills import SKILLS_EXTENSION, Skills
from transports.skills import SkillDirectory

mcp = pytest.importorskip("mcp")
skills_models = pytest.importorskip("fastmcp.skills.models")
from fastmcp.skills import SkillsClientExtension  # noqa: E402
from mcp import Client as SdkClient  # noqa: E402

pytestmark = pytest.mark.anyio

LIMIT: Final = HANG
PDF = "skill://pdf-processing/SKILL.md"


def skills_server() -> Server:
    return Server(
        "skills",
        "1",
        extensions=[Skills(SkillDirectory(paths.SERVERS / "skills"), directory_read=True)],
    )


def content_bytes(contents: object) -> bytes:
    text = getattr(contents, "text", None)
    if text is not None:
        return str(text).encode()
    return base64.b64decode(str(getattr(contents, "blob", "")))


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_sdk_client_lists_gets_and_verifies_our_skills(
    flavour: tuple[str, str], era: str
) -> None:
    models = skills_models
    with anyio.fail_after(LIMIT):
        async with (
            serving(flavour, skills_server()) as base,
            SdkClient(
                f"{base}/mcp",
                mode="legacy" if era == "legacy" else "auto",
                extensions=[SkillsClientExtension()],
            ) as client,
        ):
            extensions = client.server_capabilities.extensions or {}
            assert extensions[SKILLS_EXTENSION] == {"directoryRead": True}
            listed = await client.session.send_request(
                models.ListSkillsRequest(params=models.ListSkillsParams()),
                models.ListSkillsResult,
            )
            got = await client.session.send_request(
                models.GetSkillRequest(params=models.GetSkillParams(uri=PDF)),
                models.GetSkillResult,
            )
            entry = next(s for s in listed.skills if s.uri == PDF)
            assert got.skill == entry
            for resource in entry.resources:
                read = await client.read_resource(resource.uri)
                data = content_bytes(read.contents[0])
                assert len(data) == resource.size
                assert "sha256:" + hashlib.sha256(data).hexdigest() == resource.digest
    assert {s.uri for s in listed.skills} == {PDF, "skill://acme/billing/refunds/SKILL.md"}
    assert entry.frontmatter.root["name"] == "pdf-processing"
