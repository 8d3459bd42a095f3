"""The names `mcp_core`, `mcp_core.http` and `transports` offer load on first use
(mcp_core/lazy.py), so what each says it exports must be what it gives.

For each package, read with ``ast``: the modules its ``TYPE_CHECKING`` block
imports from (what type checkers and the API reference see) are its table
``_WHERE``, name for name, and both are its ``__all__``. Each name then gives the
object of its module. In a fresh interpreter, a stdio server's imports leave the
HTTP and client modules unloaded, which is what the laziness is for.
"""

from __future__ import annotations

import ast
import importlib
import os
import subprocess
import sys

import paths
import pytest

PACKAGES = ("mcp_core", "mcp_core.http", "transports")
EAGER = {"mcp_core": {"__version__"}, "mcp_core.http": set(), "transports": {"pump"}}
"""Names a package binds when imported (`transports.pump` shares its module's name)."""


def typed_imports(package: str) -> dict[str, tuple[str, ...]]:
    """The ``from .x import (...)`` lines under ``if TYPE_CHECKING:`` in ``package``'s
    __init__: module -> names."""
    path = paths.ROOT.joinpath(*package.split("."), "__init__.py")
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: dict[str, tuple[str, ...]] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for child in node.body:
                assert isinstance(child, ast.ImportFrom) and child.level, ast.unparse(child)
                module = "." * child.level + (child.module or "")
                found[module] = tuple(alias.name for alias in child.names)
    return found


@pytest.mark.parametrize("package", PACKAGES)
def test_the_table_the_type_checker_and_all_agree(package: str) -> None:
    module = importlib.import_module(package)
    where = {key: tuple(names) for key, names in module._WHERE.items()}
    assert typed_imports(package) == where
    names = [name for names in where.values() for name in names]
    assert len(names) == len(set(names))
    assert set(module.__all__) == set(names) | EAGER[package]
    assert all(name in vars(module) for name in EAGER[package])


@pytest.mark.parametrize("package", PACKAGES)
def test_every_name_is_its_modules_object(package: str) -> None:
    module = importlib.import_module(package)
    for source, names in module._WHERE.items():
        origin = importlib.import_module(source, package)
        for name in names:
            assert getattr(module, name) is getattr(origin, name)
    # Kept once loaded: the next lookup does not go through the table.
    first = module._WHERE[next(iter(module._WHERE))][0]
    assert first in vars(module)


@pytest.mark.parametrize("package", PACKAGES)
def test_an_unknown_name_is_an_attribute_error(package: str) -> None:
    module = importlib.import_module(package)
    with pytest.raises(AttributeError, match=f"module '{package}' has no attribute 'Nope'"):
        module.Nope  # noqa: B018
    with pytest.raises(ImportError, match="cannot import name 'Nope'"):
        exec(f"from {package} import Nope", {})


_STDIO_SERVER = """
import sys
from mcp_core import Server
from transports import run_stdio
from transports.cli.commands import main
print(sorted(name for name in sys.modules if name.startswith(tuple(sys.argv[1:]))))
"""


def test_a_stdio_server_loads_no_http_and_no_client() -> None:
    unwanted: tuple[str, ...] = (
        "mcp_core.http.client",
        "mcp_core.http.server",
        "mcp_core.auth",
        "transports.http",
    )
    unwanted += ("transports.client", "transports.memory", "mcp_core.client")
    env = {**os.environ, "PYTHONPATH": str(paths.ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", _STDIO_SERVER, *unwanted],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert done.stdout.strip() == "[]", done.stdout + done.stderr
    # What it stands in for: the same program, told to load the HTTP client, does.
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import transports; transports.connect_http\n" + _STDIO_SERVER,
            *unwanted,
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert "transports.http.client" in done.stdout, done.stdout + done.stderr
