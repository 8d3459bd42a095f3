"""``mcp-core skills SERVER [NAME]``: a server's skills listed, or one fetched and
verified (SEP-2640), against tests/servers/skills_server.py spawned over stdio (a TARGET)."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import paths
import pytest

from transports.cli import main

SERVER = str(paths.SERVERS / "skills_server.py")
SKILLS = paths.SERVERS / "skills"
EXAMPLE = paths.ROOT / "examples" / "skills_server.py"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(["skills", *args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_the_listing_shows_each_skills_path_and_description(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, _ = run(capsys, SERVER)
    assert status == 0
    # In the server's order: the skills registered in code first.
    lines = {line.split()[0]: line for line in out.splitlines()}
    assert list(lines) == ["support/refunds", "acme/billing/refunds", "pdf-processing"]
    assert lines["pdf-processing"].endswith("  Extract, fill, and assemble PDF documents")
    status, out, _ = run(capsys, SERVER, "--json")
    skills = {skill["uri"]: skill for skill in json.loads(out)["skills"]}
    pdf = skills["skill://pdf-processing/SKILL.md"]
    assert status == 0 and pdf["frontmatter"]["name"] == "pdf-processing"
    assert all(file["digest"].startswith("sha256:") for file in pdf["resources"])


def test_a_skill_is_fetched_by_name_path_or_uri_verified(
    capsys: pytest.CaptureFixture[str],
) -> None:
    text = (SKILLS / "pdf-processing" / "SKILL.md").read_text()
    for name in ("pdf-processing", "skill://pdf-processing/SKILL.md"):
        assert run(capsys, SERVER, name) == (0, text, "")
    status, out, _ = run(capsys, SERVER, "acme/billing/refunds", "--files")
    assert (status, out.split()) == (
        0,
        ["skill://acme/billing/refunds/SKILL.md", "skill://acme/billing/refunds/examples/email.md"],
    )
    forms = (SKILLS / "pdf-processing" / "references" / "FORMS.md").read_text()
    assert run(capsys, SERVER, "pdf-processing", "--file", "references/FORMS.md")[:2] == (
        0,
        forms,
    )
    status, out, _ = run(capsys, SERVER, "support/refunds", "--json")
    assert status == 0 and json.loads(out)["text"].endswith("Be kind.\n")


def test_what_cannot_be_fetched_fails_with_a_reason(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, SERVER, "refunds")  # two skills share the name
    assert status == 1 and "support/refunds, acme/billing/refunds;" in err
    status, _, err = run(capsys, SERVER, "pdf-processing", "--file", "scripts/x.py")
    assert status == 1 and "does not list this file" in err
    status, _, err = run(capsys, SERVER, "no-such-skill")
    assert status == 1 and "-32602" in err
    hello = shlex.join([sys.executable, str(paths.ROOT / "examples" / "hello.py")])
    status, _, err = run(capsys, hello)
    assert status == 1 and "did not declare the skills extension" in err


def test_with_config_the_skills_of_every_server_under_its_name(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    serve = ["-m", "transports", "serve"]
    env = {"PYTHONPATH": str(paths.ROOT)}
    servers = {
        "docs": {"command": "python", "args": [*serve, str(EXAMPLE)], "env": env},
        "more": {"command": "python", "args": [*serve, SERVER], "env": env},
    }
    config = tmp_path / "servers.json"
    config.write_text(json.dumps({"mcpServers": servers}))
    status, out, _ = run(capsys, "--config", str(config))
    paths_listed = [line.split()[0] for line in out.splitlines()]
    assert status == 0 and "docs/pdf-processing" in paths_listed
    assert "more/support/refunds" in paths_listed and "more/pdf-processing" in paths_listed
    status, out, _ = run(capsys, "--config", str(config), "more/support/refunds")
    assert status == 0 and out.endswith("Be kind.\n")
    forms = (SKILLS / "pdf-processing" / "references" / "FORMS.md").read_text()
    status, out, _ = run(
        capsys, "--config", str(config), "docs/pdf-processing", "--file", "references/FORMS.md"
    )
    assert (status, out) == (0, forms)
    status, _, err = run(capsys, "--config", str(config), "pdf-processing")  # two servers
    assert status == 1 and "docs/pdf-processing, more/pdf-processing" in err
