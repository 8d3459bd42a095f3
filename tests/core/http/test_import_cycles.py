"""No import cycle inside mcp_core.

Reads every module's imports with `ast` (nothing is imported) and looks for a
cycle in the graph of mcp_core modules. Counted: the imports a module runs when it
is loaded, at its top level and in its top-level ``if``/``try``/``with`` blocks.
Not counted: imports inside functions, and ``if TYPE_CHECKING:`` blocks, which
never run. The sessions use the latter on purpose: `session/requests.py` and
`session/opening.py` are modules of functions that the session classes take as
methods (composition instead of a chain of base classes), and name their class
for ``self`` only when type checking.

Run it as a script to print the graph's cycles, if any:
``python tests/core/http/test_import_cycles.py [ROOT]``.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
PACKAGE = "mcp_core"


def modules(root: Path) -> dict[str, Path]:
    """Every module of the package, by dotted name."""
    found: dict[str, Path] = {}
    for path in sorted((root / PACKAGE).rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _loaded_imports(body: list[ast.stmt]) -> Iterator[ast.Import | ast.ImportFrom]:
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        elif isinstance(node, ast.If) and _type_checking(node.test):
            yield from _loaded_imports(node.orelse)
        elif isinstance(node, ast.If | ast.Try | ast.With):
            for block in ("body", "orelse", "finalbody"):
                yield from _loaded_imports(getattr(node, block, []))
            for handler in getattr(node, "handlers", []):
                yield from _loaded_imports(handler.body)


def imports_of(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The package's modules that module ``name`` imports when it loads."""
    is_package = path.name == "__init__.py"
    here = name.split(".") if is_package else name.split(".")[:-1]
    targets: set[str] = set()
    for node in _loaded_imports(ast.parse(path.read_text(), str(path)).body):
        if isinstance(node, ast.Import):
            targets.update(alias.name for alias in node.names)
            continue
        if node.level:
            base = here[: len(here) - (node.level - 1)]
            source = ".".join([*base, node.module] if node.module else base)
        else:
            source = node.module or ""
        if node.module:
            targets.add(source)
        for alias in node.names:
            # `from pkg import sub` imports the submodule pkg.sub; `from . import
            # sub` needs nothing of the package but that (it is the importer's own
            # package, loaded first), while `from . import name` reads the package.
            sub = f"{source}.{alias.name}"
            targets.add(sub if sub in known else source)
    return {t for t in targets if t in known and t != name}


def graph(root: Path = ROOT) -> dict[str, set[str]]:
    """The import graph of the package's modules."""
    known = modules(root)
    return {name: imports_of(name, path, known) for name, path in known.items()}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each
    sorted: every import cycle lies within one."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(edges.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_the_cycle_finder_counts_only_what_runs(tmp_path: Path) -> None:
    package = tmp_path / PACKAGE
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from .b import B\n")
    (package / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from . import c\n"
        "if B := 1:\n    from . import a\n"
    )
    (package / "c.py").write_text("from . import b\ndef f():\n    from . import a\n")
    assert cycles(graph(tmp_path)) == [[f"{PACKAGE}.a", f"{PACKAGE}.b"]]


def test_mcp_core_has_no_import_cycle() -> None:
    edges = graph()
    assert f"{PACKAGE}.http.client" in edges  # the walk found the package
    assert cycles(edges) == []


if __name__ == "__main__":
    where = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT
    edges = graph(where)
    found = cycles(edges)
    print(f"{len(edges)} modules, {sum(map(len, edges.values()))} imports, {len(found)} cycles")
    for component in found:
        print("cycle among:", ", ".join(component))
    sys.exit(1 if found else 0)
