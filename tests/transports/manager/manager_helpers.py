"""Servers in other processes for the manager's tests: stdio entries, and HTTP
servers (``mcp-core serve --transport http``) that a test can kill and restart."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Final

import anyio
import paths
from anyio.abc import Process

from mcp_core.manager import Backoff, ServerConfig
from transports import Client
from transports.stdio import stdio_connector

ENV: Final = {"PYTHONPATH": str(paths.ROOT)}
"""The children import this checkout's mcp_core."""

FAST: Final = Backoff(initial=0.2, factor=2, maximum=0.5, jitter=0.1)
"""A short schedule, so that reconnection tests take seconds."""

LIMIT: Final = 60.0
"""Seconds a whole test may take (servers start in processes of their own)."""

MANAGER_SERVER: Final = str(paths.SERVERS / "manager_server.py")


def stdio(name: str, program: str, *args: str, **options: Any) -> ServerConfig:
    """A server run as ``python program args`` on stdio."""
    return ServerConfig(
        name=name, command="python", args=[program, *args], env=ENV, cwd=str(paths.ROOT), **options
    )


class HttpServer:
    """A server on HTTP in a process of its own, on a port that survives a restart."""

    def __init__(self, target: str, env: dict[str, str]) -> None:
        self.target = target
        self.env = env
        self.port = 0
        self.url = ""
        self.process: Process | None = None

    async def start(self) -> None:
        argv = [sys.executable, "-m", "transports", "serve", self.target]
        argv += ["--transport", "http", "--port", str(self.port)]
        process = await anyio.open_process(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env={**os.environ, **ENV, **self.env},
            cwd=paths.ROOT,
        )
        self.process = process
        assert process.stderr is not None
        seen = b""
        while b" on http" not in seen:
            chunk = await process.stderr.receive()
            seen += chunk
        line = next(line for line in seen.decode().splitlines() if " on http" in line)
        self.url = line.rsplit(" on ", 1)[1].strip()
        self.port = int(self.url.split(":")[2].split("/")[0])

    async def stop(self) -> int:
        """SIGTERM: a graceful shutdown; returns the exit status."""
        assert self.process is not None
        self.process.terminate()
        status = await self.process.wait()
        self.process = None
        return status

    async def kill(self) -> None:
        if self.process is not None:
            self.process.kill()
            with anyio.CancelScope(shield=True):
                await self.process.wait()
            self.process = None


@asynccontextmanager
async def http_server(target: str, **env: str) -> AsyncIterator[HttpServer]:
    """An HTTP server of ``target`` (``mcp-core serve``), killed on the way out."""
    server = HttpServer(target, env)
    try:
        await server.start()
        yield server
    finally:
        await server.kill()


@asynccontextmanager
async def gateway_client(
    tmp_path: Path, backend: str, era: str, servers: dict[str, Any], **options: Any
) -> AsyncIterator[Client]:
    """A client of ``era`` of ``mcp-core gateway`` (on ``backend``, in a process
    of its own) over ``servers`` (``mcpServers`` entries); ``options`` are the
    Client's."""
    config = tmp_path / "servers.json"
    config.write_text(json.dumps({"mcpServers": servers}))
    argv = [sys.executable, "-m", "transports", "gateway", "--config", str(config)]
    connector = stdio_connector([*argv, "--backend", backend], env=ENV, cwd=paths.ROOT)
    async with Client(connector, revisions=(era,), **options) as client:
        yield client
