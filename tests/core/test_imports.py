"""The layer rule, read from the source: every import in mcp_core is on an allow-list.

mcp_core does no I/O, starts no task and reads no clock (docs/architecture.md).
Loading it and looking at ``sys.modules`` cannot prove that: ``time``, ``os`` and
``socket`` may already be loaded by the interpreter itself. So every
``import`` statement of every module is read with ``ast`` (function bodies and
``TYPE_CHECKING`` blocks included) and checked against the list below.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import paths
import pytest

CORE = paths.ROOT / "mcp_core"

ALLOWED = frozenset(
    {
        "__future__",
        "msgspec",
        # Pure computation from the standard library.
        "base64",
        "binascii",
        "collections",
        "collections.abc",
        "contextlib",
        "copy",
        "dataclasses",
        "enum",
        "functools",
        "hashlib",
        "heapq",
        "hmac",
        "inspect",
        # A package's own names on first use (mcp_core/lazy.py): ``import_module``
        # of mcp_core modules only, as an import statement would.
        "importlib",
        "ipaddress",
        "itertools",
        # The application layer logs handler failures (logger "mcp_core"), importing
        # logging on the first failure only (mcp_core/server/failures.py): loading it
        # starts threading, which test_importing_the_core_loads_no_io_module forbids.
        "logging",
        "math",
        "operator",
        "re",
        "string",
        "struct",
        "types",
        "typing",
        "urllib.parse",
        # Entropy for session ids, task ids and sealing keys: the only thing the core
        # takes from the operating system, and it neither waits nor blocks.
        "secrets",
        # The live task engines, which telemetry counts by status
        # (mcp_core/tasks/engine.py:ENGINES): no I/O, no waiting.
        "weakref",
    }
)
"""Modules mcp_core may import. Not here, on purpose: time, os, io, socket, select,
selectors, threading, asyncio, anyio, trio, h11, subprocess, urllib.request."""


LOADS_NOTHING_OF = ("threading", "logging", "socket", "asyncio", "anyio", "trio", "selectors")
"""Modules the interpreter does not load by itself, so ``sys.modules`` can show that
importing mcp_core leaves them out (time and os it loads anyway: see above)."""

_LOADED_BY = """
import importlib, pkgutil, sys
watched = sys.argv[1:]
before = [name for name in watched if name in sys.modules]
import mcp_core
for module in pkgutil.walk_packages(mcp_core.__path__, "mcp_core."):
    importlib.import_module(module.name)
print(before, [name for name in watched if name in sys.modules])
"""


def test_importing_the_core_loads_no_io_module() -> None:
    # A fresh interpreter: this one has loaded everything already.
    env = {**os.environ, "PYTHONPATH": str(paths.ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", _LOADED_BY, *LOADS_NOTHING_OF],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert done.stdout.strip() == "[] []", done.stdout + done.stderr


def imports_of(path: Path, root: Path) -> list[tuple[int, str]]:
    """Every absolute module a file below ``root`` imports, with its line; relative
    imports are resolved and must stay inside mcp_core."""
    tree = ast.parse(path.read_text(), str(path))
    # The package a relative import starts from: the folder, for a module and for
    # an __init__ alike.
    package = path.relative_to(root).parts[:-1]
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                assert base[:1] == ("mcp_core",), f"{path}:{node.lineno} leaves mcp_core"
                found.append((node.lineno, ".".join([*base, *filter(None, [node.module])])))
            else:
                found.append((node.lineno, node.module or ""))
    return found


def bad_imports(root: Path) -> list[str]:
    """The imports of ``root``/mcp_core that are not allowed, as ``file:line: module``."""
    return [
        f"{path.relative_to(root)}:{line}: {module}"
        for path in sorted((root / "mcp_core").rglob("*.py"))
        for line, module in imports_of(path, root)
        if module.split(".")[0] != "mcp_core" and module not in ALLOWED
    ]


def test_every_core_module_imports_only_allowed_modules() -> None:
    assert len(list(CORE.rglob("*.py"))) > 40
    assert bad_imports(paths.ROOT) == []


@pytest.mark.parametrize(
    "source",
    [
        "import time",
        "from os import environ",
        "def f():\n    import socket",
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import anyio",
        "import urllib.request",
    ],
)
def test_the_check_sees_imports_wherever_they_are(tmp_path: Path, source: str) -> None:
    (tmp_path / "mcp_core" / "wire").mkdir(parents=True)
    (tmp_path / "mcp_core" / "wire" / "ok.py").write_text("from ..types import base\nimport re\n")
    assert bad_imports(tmp_path) == []
    (tmp_path / "mcp_core" / "wire" / "probe.py").write_text(source + "\n")
    assert len(bad_imports(tmp_path)) == 1
