"""examples/many_servers.py: three servers from an mcpServers file, their tools printed."""

from __future__ import annotations

import os
import subprocess
import sys

import paths
from limits import HANG


def test_the_example_prints_the_tools_of_three_servers(tmp_path: object) -> None:
    done = subprocess.run(
        [sys.executable, str(paths.EXAMPLES / "many_servers.py")],
        capture_output=True,
        text=True,
        timeout=HANG,
        cwd=str(tmp_path),  # relative paths in the file count from its folder
        env={**os.environ, "PYTHONPATH": str(paths.ROOT)},
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[:3] == [
        "hello: connected (stdio, 2026-07-28)",
        "weather: connected (stdio, 2026-07-28)",
        "files: connected (stdio, 2026-07-28)",
    ]
    tools = [line.split()[0] for line in lines if line.split()[1:2] and line.split()[1][0] == "["]
    assert tools == [
        "hello.HelloTool",
        "weather.getCurrentWeather",
        "weather.getWeatherForecast",
        "files.readFile",
    ]
    assert "hello.HelloTool -> Hello-bonjour many servers!" in lines
    assert any(line.startswith("files.readFile -> ") for line in lines)
