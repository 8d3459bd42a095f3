"""The layer rule, from the adapters' side: transports/ carries messages and never
spells an MCP method or reaches into mcp_core's private parts (docs/architecture.md). The
core's own side, every import it makes, is tests/core/test_imports.py (which
replaced a check of sys.modules that could not see modules the interpreter
loads itself, such as time)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

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
