"""The docs point at code that exists: every `path:name` in the pages of docs/ (the
architecture, the spec-rule index, the tutorials...), and every path they name, is
checked, so a move or a rename cannot leave a page stale."""

from __future__ import annotations

import ast
import re

import paths
import pytest

DOCS = paths.ROOT / "docs"
PAGES = sorted(DOCS.rglob("*.md"))
REFERENCE = re.compile(r"`((?:mcp_core|transports|tests)/[\w/]+\.py)(?::([\w.]+))?`")


def defined_names(source: str) -> set[str]:
    """Top-level names of a module, and Class.member for what classes define."""
    names: set[str] = set()
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.ClassDef):
            names.add(node.name)
            for member in node.body:
                if isinstance(member, ast.FunctionDef | ast.AsyncFunctionDef):
                    names.add(f"{node.name}.{member.name}")
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names


REFERENCES = sorted({found for page in PAGES for found in REFERENCE.findall(page.read_text())})


@pytest.mark.parametrize("name", ["architecture.md", "spec-rules.md"])
def test_the_maps_name_code(name: str) -> None:
    assert len(REFERENCE.findall((DOCS / name).read_text())) > 30


@pytest.mark.parametrize(("path", "name"), REFERENCES, ids=lambda x: x or "-")
def test_reference_exists(path: str, name: str) -> None:
    file = paths.ROOT / path
    assert file.is_file(), f"{path} does not exist"
    if name:
        assert name in defined_names(file.read_text()), f"{path} defines no {name}"
