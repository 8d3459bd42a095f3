"""``mcp-core call ... --task``: status lines on stderr until the result (stdio)."""

from __future__ import annotations

import shlex
import sys

import paths
import pytest

from transports.cli import main

SERVER = shlex.join([sys.executable, str(paths.ROOT / "tests" / "servers" / "task_server.py")])


def test_call_as_a_task_shows_status_until_the_result(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["call", SERVER, "count", "--arg", "to=2", "--task", "--timeout", "30"])
    captured = capsys.readouterr()
    assert (status, captured.out) == (0, "counted to 2\n")
    lines = captured.err.splitlines()
    assert lines[0].startswith("task ") and lines[0].endswith(": working")
    assert lines[-1].endswith(": completed")
    task_ids = {line.split(":")[0] for line in lines}
    assert len(task_ids) == 1
