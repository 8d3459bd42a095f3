"""``mcp-core list`` and ``inspect`` show which tools have an MCP Apps view
(examples/apps.py, spawned over stdio), and ``read`` prints a view's HTML."""

from __future__ import annotations

import shlex
import sys

import paths
import pytest

from transports.cli import main

APPS = shlex.join([sys.executable, str(paths.ROOT / "examples" / "apps.py")])


def run_main(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    status = main(list(args))
    return status, capsys.readouterr().out


def test_list_and_inspect_show_views(capsys: pytest.CaptureFixture[str]) -> None:
    status, out = run_main(capsys, "list", APPS)
    assert status == 0
    assert out.splitlines() == [
        "roll    Roll some six-sided dice. [view ui://dice/view.html]",
        "reroll  Roll two dice again (for the view's button). [view ui://dice/view.html, app only]",
    ]
    status, out = run_main(capsys, "inspect", APPS)
    assert status == 0
    assert "  roll    Roll some six-sided dice. [view ui://dice/view.html]" in out.splitlines()
    assert "  ui://dice/view.html  dice_view" in out.splitlines()
    status, out = run_main(capsys, "read", APPS, "ui://dice/view.html")
    assert status == 0 and out.startswith("<!doctype html>")
