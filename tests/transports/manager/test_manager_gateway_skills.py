"""Skills (SEP-2640) through a manager and its gateway: each upstream's skills under
its server's name, listed, got, loaded and verified by a client of the gateway.

Two upstreams in this process serve a skill of the same URI
(``skill://refunds/SKILL.md``), one speaking 2026-07-28 and one 2025-11-25, and a
third serves no skills; clients of both eras, as encoded bytes over the in-memory
pipe (what the client sent is counted), asyncio and trio; and through the
``mcp-core gateway`` command, a process, with a client of each era.
"""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import paths
import pytest
from manager_helpers import ENV, LIMIT
from runtime_helpers import Tap

from mcp_core import McpError, Server
from mcp_core.client.skills import SkillVerificationError, skill_name
from mcp_core.manager import ServerConfig
from mcp_core.manager.skills import prefixed, unprefixed
from mcp_core.skills import Skills
from mcp_core.wire import INVALID_PARAMS
from transports import Client
from transports.manager import Manager, gateway_server
from transports.memory import pipe
from transports.stdio import stdio_connector

pytestmark = pytest.mark.anyio

ERAS = pytest.mark.parametrize("era", ["2026-07-28", "2025-11-25"])
UPSTREAMS = {"billing": ("2026-07-28",), "support": ("2025-11-25",)}


def skills_server(team: str) -> Server:
    skills = Skills()
    front = f"---\nname: refunds\ndescription: Refunds, {team} style\n---\n"
    skills.add(
        "refunds",
        {"SKILL.md": f"{front}Be {team}.\n", "examples/email.md": f"Dear customer, {team} here.\n"},
    )
    return Server(team, "1.0", extensions=[skills])


def plain_server() -> Server:
    server = Server("plain", "1.0")

    @server.tool
    def hello() -> str:
        return "hi"

    return server


@asynccontextmanager
async def gateway_client(era: str) -> AsyncIterator[tuple[Client, Tap]]:
    async with Manager() as manager:
        gateway = gateway_server(manager)  # declares skills before anyone connects
        for name, revisions in UPSTREAMS.items():
            config = ServerConfig(name=name, command="not-run")
            manager.add(config, connector=pipe(skills_server(name), revisions=revisions))
        manager.add(ServerConfig(name="plain", command="not-run"), connector=pipe(plain_server()))
        for name in (*UPSTREAMS, "plain"):
            await manager.wait_for(name, "connected", timeout=LIMIT)
        assert [manager.status_of(name).revision for name in UPSTREAMS] == [
            "2026-07-28",
            "2025-11-25",
        ]
        tap = Tap(gateway, revisions=(era,))
        async with Client(tap, revisions=(era,), skills=True) as client:
            yield client, tap


def test_a_union_uri_carries_its_server_and_gives_it_back() -> None:
    assert prefixed("billing", "skill://acme/refunds/SKILL.md") == (
        "skill://billing/acme/refunds/SKILL.md"
    )
    assert unprefixed("skill://billing/acme/refunds/SKILL.md") == (
        "billing",
        "skill://acme/refunds/SKILL.md",
    )
    assert unprefixed("github://owner/SKILL.md") == ("owner", "github://SKILL.md")
    for bad in ("skill://billing", "skill://billing/", "no-scheme/a/b", "://x/y"):
        assert unprefixed(bad) is None
    with pytest.raises(ValueError):
        prefixed("billing", "no-scheme")


@ERAS
async def test_each_upstreams_skills_under_its_name_verified(era: str) -> None:
    with anyio.fail_after(LIMIT):
        async with gateway_client(era) as (client, tap):
            entries = {entry.uri: entry for entry in await client.skills.list()}
            assert sorted(entries) == [
                "skill://billing/refunds/SKILL.md",
                "skill://support/refunds/SKILL.md",
            ]
            assert {skill_name(entry) for entry in entries.values()} == {"refunds"}
            assert tap.requests("resources/read") == []  # listing read nothing
            for team in UPSTREAMS:
                uri = f"skill://{team}/refunds/SKILL.md"
                entry = await client.skills.get(uri)
                assert entry == entries[uri]
                loaded = await client.skills.load(entry)
                assert loaded.body == f"Be {team}.\n"
                email = await loaded.read("examples/email.md")
                assert email == f"Dear customer, {team} here.\n".encode()
            assert len(tap.requests("resources/read")) == 4


@ERAS
async def test_what_names_no_upstream_skill_is_refused(era: str) -> None:
    with anyio.fail_after(LIMIT):
        async with gateway_client(era) as (client, tap):
            for uri in ("skill://nobody/refunds/SKILL.md", "skill://billing/nothing/SKILL.md"):
                with pytest.raises(McpError) as refused:
                    await client.skills.get(uri)
                assert refused.value.code == INVALID_PARAMS
            with pytest.raises(McpError):
                await client.read_resource("skill://nobody/refunds/SKILL.md")
            # An entry whose file is not one the upstream serves fails verification.
            entry = await client.skills.get("skill://billing/refunds/SKILL.md")
            loaded = await client.skills.load(entry)
            with pytest.raises(SkillVerificationError):
                await loaded.read("examples/other.md")
            assert only_reads(tap) == [
                "skill://nobody/refunds/SKILL.md",
                "skill://billing/refunds/SKILL.md",
            ]


def only_reads(tap: Tap) -> list[str]:
    out = []
    for request in tap.requests("resources/read"):
        params = request.params
        out.append(params["uri"] if isinstance(params, dict) else params.uri)
    return out


@ERAS
async def test_through_mcp_core_gateway(tmp_path: Path, anyio_backend: str, era: str) -> None:
    # The command: `mcp-core gateway --config FILE` over two servers serving the
    # same skills, kept apart by their names; a client of each era.
    server = str(paths.SERVERS / "skills_server.py")
    upstream = {"command": "python", "args": ["-m", "transports", "serve", server], "env": ENV}
    config = tmp_path / "servers.json"
    config.write_text(json.dumps({"mcpServers": {"a": upstream, "b": upstream}}))
    argv = [sys.executable, "-m", "transports", "gateway", "--config", str(config)]
    connector = stdio_connector([*argv, "--backend", anyio_backend], env=ENV, cwd=paths.ROOT)
    with anyio.fail_after(LIMIT):
        async with Client(connector, revisions=(era,), skills=True) as client:
            listed = [entry.uri for entry in await client.skills.list()]
            assert "skill://a/pdf-processing/SKILL.md" in listed
            assert "skill://b/support/refunds/SKILL.md" in listed
            loaded = await client.skills.load("skill://b/support/refunds/SKILL.md")
            assert loaded.body.endswith("Be kind.\n")
            forms = await (await client.skills.load("skill://a/pdf-processing/SKILL.md")).read(
                "references/FORMS.md"
            )
    on_disk = paths.SERVERS / "skills" / "pdf-processing" / "references" / "FORMS.md"
    assert forms == on_disk.read_bytes()
