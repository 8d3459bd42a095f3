"""The layer rule: mcp_core does no I/O and loads no async library (DESIGN.md)."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

FORBIDDEN = [
    "asyncio",
    "anyio",
    "trio",
    "socket",
    "threading",
    "selectors",
    "subprocess",
    "h11",
]


def test_importing_mcp_core_loads_no_io_module() -> None:
    # A fresh interpreter: this test process has loaded pytest, asyncio and more.
    # -S skips site (which may import anything); -I isolates from the environment.
    code = (
        "import sys, json\n"
        f"sys.path[:0] = {json.dumps(sys.path)}\n"
        "before = set(sys.modules)\n"
        "import mcp_core, mcp_core.__init__\n"
        "print(json.dumps(sorted(set(sys.modules) - before)))\n"
    )
    out = subprocess.run(
        [sys.executable, "-I", "-S", "-c", code], capture_output=True, text=True, check=True
    )
    loaded = set(json.loads(out.stdout))
    bad = sorted(m for m in loaded if m.split(".")[0] in FORBIDDEN)
    assert "mcp_core" in loaded
    assert bad == [], f"mcp_core pulled in {bad}"


# The transports carry out what the core decides; an MCP method name in an adapter
# means protocol logic leaked into it (STYLE.md section 6).
METHOD_NAME = re.compile(
    r'"(initialize|tools/|resources/|prompts/|notifications/|sampling/|elicitation/|roots/'
    r"|ping|server/discover|subscriptions/|completion/|logging/)"
)
PRIVATE_PATH = re.compile(r"\bmcp_core(\.\w+)*\._")
TRANSPORTS = Path(__file__).resolve().parents[2] / "transports"


def _transport_files() -> list[Path]:
    files = sorted(TRANSPORTS.rglob("*.py"))
    assert len(files) > 5, TRANSPORTS
    return files


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def test_no_transport_spells_an_mcp_method() -> None:
    found = [
        f"{path.relative_to(TRANSPORTS.parent)}:{number}: {line.strip()}"
        for path in _transport_files()
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if METHOD_NAME.search(line)
    ]
    assert found == [], "method names belong in mcp_core:\n" + "\n".join(found)


def test_no_transport_imports_a_private_part_of_mcp_core() -> None:
    found = []
    for path in _transport_files():
        where = path.relative_to(TRANSPORTS.parent)
        text = path.read_text()
        found += [f"{where}: {m.group(0)}" for m in PRIVATE_PATH.finditer(text)]
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("mcp_core"):
                assert node.module is not None
                modules = node.module.split(".")
                names = [alias.name for alias in node.names]
                found += [f"{where}: from {node.module} import {n}" for n in names if _private(n)]
                if any(_private(part) for part in modules):
                    found.append(f"{where}: from {node.module}")
            elif isinstance(node, ast.Import):
                found += [
                    f"{where}: import {alias.name}"
                    for alias in node.names
                    if alias.name.startswith("mcp_core")
                    and any(_private(part) for part in alias.name.split("."))
                ]
    assert found == [], "transports use mcp_core's public names only:\n" + "\n".join(found)
