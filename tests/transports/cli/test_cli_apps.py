"""``mcp-core list`` and ``inspect`` show which tools have an MCP Apps view
(examples/apps.py, spawned over stdio), ``read`` prints a view's HTML, and
``serve --server-card`` publishes the server card."""

from __future__ import annotations

import json
import os
import shlex
import sys

import anyio
import paths
import pytest
from http_helpers import RawClient
from runtime_helpers import LIMIT

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


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_serve_with_a_server_card(anyio_backend: str) -> None:
    argv = [sys.executable, "-m", "transports", "serve", str(paths.ROOT / "examples" / "apps.py")]
    argv += ["--transport", "http", "--port", "0", "--server-card"]
    with anyio.fail_after(LIMIT * 2):
        async with await anyio.open_process(argv, env=dict(os.environ)) as process:
            assert process.stderr is not None
            announced = b""
            while b"\n" not in announced:
                announced += await process.stderr.receive()
            url = announced.decode().split(" on ", 1)[1].split()[0]
            port = int(url.rsplit(":", 1)[1].split("/", 1)[0])
            async with RawClient(port, "/.well-known/mcp/server-card.json") as raw:
                await raw.send("GET")
                answer = await raw.answer()
            process.terminate()
    card = json.loads(answer.body)
    assert card["serverInfo"] == {"name": "dice", "version": "1.0"}
    assert card["capabilities"]["extensions"] == {"io.modelcontextprotocol/ui": {}}
    assert card["transport"] == {"type": "streamable-http", "endpoint": "/mcp"}
