"""`mcp-core serve` on a server whose lifespan fails: a one-line message, exit 1,
no traceback, on stdio and HTTP, asyncio and trio."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from limits import HANG

SERVER = textwrap.dedent(
    """
    from contextlib import asynccontextmanager
    from mcp_core import Server

    @asynccontextmanager
    async def lifespan(server):
        raise ConnectionRefusedError("no database at db:5432")
        yield

    server = Server("bad", "1", lifespan=lifespan)
    """
)


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
@pytest.mark.parametrize("transport", [[], ["--transport", "http", "--port", "0"]])
def test_a_failing_lifespan_stops_serve_with_a_clear_message(
    tmp_path: Path, backend: str, transport: list[str]
) -> None:
    path = tmp_path / "bad.py"
    path.write_text(SERVER)
    argv = [sys.executable, "-m", "transports", "serve", str(path), "--backend", backend]
    done = subprocess.run(
        [*argv, *transport], capture_output=True, text=True, timeout=HANG, stdin=subprocess.DEVNULL
    )
    assert done.returncode == 1
    assert "the lifespan of server 'bad' failed to start" in done.stderr
    assert "no database at db:5432" in done.stderr
    assert "Traceback" not in done.stderr
