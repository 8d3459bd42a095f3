"""A real redis-server for the tests, on 127.0.0.1 and a free port, and the
shared-state backends to run one test module against memory and Redis.

The server runs without persistence in a temporary folder; `RedisProcess.restart`
stops it and starts it again on the same port (the outage tests). Every wait is
bounded."""

from __future__ import annotations

import socket
import subprocess
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from debian_helpers import debian_program
from limits import HANG

from benchmarks.http_servers import free_port
from mcp_core.http.shared import MemoryEventLog, MemorySessionRegistry
from mcp_core.server import MemoryOnceStore
from mcp_core.tasks import MemoryTaskStore
from transports.bus import MemoryBus

START_LIMIT: Final = HANG


def free_ports(count: int = 1) -> int:
    """The first of ``count`` consecutive free ports, below the ephemeral range,
    so that no outgoing connection takes one between this check and the bind (or
    while Redis restarts)."""
    return free_port(count)


def _answers_ping(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
    except OSError:
        return False


class RedisProcess:
    """One redis-server child process."""

    def __init__(self, folder: Path, *, persist: bool = False) -> None:
        self.persist = persist
        self.binary = debian_program("redis-server", "redis-server")
        self.folder = folder
        self.port = free_ports()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                self.binary,
                "--bind", "127.0.0.1",
                "--port", str(self.port),
                "--save", "",
                "--appendonly", "yes" if self.persist else "no",
                "--appendfsync", "always",
                "--dir", str(self.folder),
                "--protected-mode", "yes",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        deadline = time.monotonic() + START_LIMIT
        while not _answers_ping(self.port):
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"redis-server did not start on port {self.port}")
            time.sleep(0.02)

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is not None:
            process.terminate()
            try:
                process.wait(START_LIMIT)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(START_LIMIT)

    def restart(self) -> None:
        self.stop()
        self.start()


@dataclass
class Backends:
    """The shared-state backends of one kind ("memory" or "redis")."""

    kind: str
    once: Any
    tasks: Any
    sessions: Any
    events: Any
    bus: Any


_PREFIXES = iter(range(1_000_000))


@asynccontextmanager
async def backends(
    kind: str, redis: RedisProcess | None, **options: Any
) -> AsyncIterator[Backends]:
    """The backends of ``kind``; on Redis under a prefix of their own, so tests
    do not see each other's keys. A Redis command may take up to START_LIMIT
    (``timeout`` to say otherwise): these tests are about what Redis answers,
    not how soon, and on a loaded machine the first command after a restart
    (a new connection) took more than the 2 s a deployment would allow."""
    if kind == "memory":
        yield Backends(
            kind,
            MemoryOnceStore(),
            MemoryTaskStore(),
            MemorySessionRegistry(),
            MemoryEventLog(max_events=options.get("max_events", 256)),
            MemoryBus(),
        )
        return
    from transports.redis import (
        RedisBus,
        RedisConnection,
        RedisEventLog,
        RedisOnceStore,
        RedisSessionRegistry,
        RedisTaskStore,
    )

    assert redis is not None
    prefix = f"test{next(_PREFIXES)}-{time.monotonic_ns()}"
    timeout = options.get("timeout", START_LIMIT)
    async with RedisConnection(redis.url, prefix=prefix, timeout=timeout) as c:
        yield Backends(
            kind,
            RedisOnceStore(c),
            RedisTaskStore(c),
            RedisSessionRegistry(c),
            RedisEventLog(c, max_events=options.get("max_events", 256)),
            RedisBus(c),
        )
