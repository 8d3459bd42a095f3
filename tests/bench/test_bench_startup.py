"""benchmarks.startup: each row starts its server, which reads end of input and
exits; a failing start is an error, not a figure."""

from __future__ import annotations

import importlib.util
import sys

import pytest

from benchmarks import startup


def test_the_rows_name_ours_the_floor_and_the_installed_peers() -> None:
    rows = startup.commands()
    assert list(rows)[:3] == ["mcp-core serve", "examples/hello.py", "mcp-core echo server"]
    assert list(rows)[-1] == "floor"
    assert ("SDK MCPServer" in rows) == (importlib.util.find_spec("mcp") is not None)
    assert ("FastMCP" in rows) == (importlib.util.find_spec("fastmcp") is not None)


def test_a_start_is_timed_from_exec_to_exit() -> None:
    rows = startup.commands()
    chosen = {label: rows[label] for label in ("mcp-core serve", "floor")}
    figures = startup.measure(1, chosen)
    assert list(figures) == ["mcp-core serve", "floor"]
    for cpu, wall in figures.values():
        assert cpu > 0 and wall > 0


def test_a_server_that_fails_to_start_is_an_error() -> None:
    with pytest.raises(RuntimeError, match="exited with status 3"):
        startup.measure(1, {"broken": [sys.executable, "-c", "raise SystemExit(3)"]})
