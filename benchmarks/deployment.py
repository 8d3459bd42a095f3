"""The many-process deployment the ``workers`` layer measures, built as the README
recipe ("Many processes (Redis)") builds it, on 127.0.0.1:

* `redis_server`: a redis-server without persistence, in a temporary folder;
* `worker`: one ``mcp-core serve examples/redis/app.py --transport http`` per
  port, with ``--redis URL`` or without (then its state is in its memory);
* `balancer`: HAProxy with examples/redis/haproxy.cfg (round robin, no
  stickiness, a new connection to a worker per request) before the given workers.

redis-server and haproxy are Debian packages. The bench does not install them
(`missing` says which are absent and how to install them); the tests' fixtures do
when they run as root (tests/debian_helpers.py).
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Final

from .http_servers import free_port, listening

__all__ = [
    "RedisCounters",
    "RedisMonitor",
    "balancer",
    "find_program",
    "missing",
    "redis_server",
    "worker",
]

ROOT: Final = Path(__file__).resolve().parent.parent
RECIPE: Final = ROOT / "examples" / "redis"
STATE_KEY: Final = "cd" * 32
"""Every worker seals 2026-07-28 ``requestState`` with the same key."""
_SBIN: Final = "/usr/local/sbin:/usr/sbin:/sbin"
"""Where Debian puts haproxy, off the PATH of users other than root."""
PROGRAMS: Final = {"haproxy": "haproxy", "redis-server": "redis-server"}
"""Program -> the Debian package that has it."""


def find_program(name: str, path: str | None = None) -> str | None:
    """Where program ``name`` is: on ``path``, or on PATH and the sbin folders."""
    if path is not None:
        return shutil.which(name, path=path)
    return shutil.which(name) or shutil.which(name, path=_SBIN)


def missing(path: str | None = None) -> dict[str, str]:
    """Program -> why it cannot run, for each program of `PROGRAMS` not installed."""
    return {
        name: f"{name} is not installed (Debian: apt-get install {package})"
        for name, package in PROGRAMS.items()
        if find_program(name, path) is None
    }


def _program(name: str) -> str:
    found = find_program(name)
    if found is None:
        raise RuntimeError(missing()[name])
    return found


@contextmanager
def redis_server() -> Iterator[tuple[int, int]]:
    """A redis-server on a free port: yields ``(pid, port)``."""
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="mcp-bench-redis-") as folder:
        argv = [_program("redis-server"), "--bind", "127.0.0.1", "--port", str(port)]
        argv += ["--save", "", "--appendonly", "no", "--dir", folder]
        with listening(argv, port, "redis-server") as process:
            yield process.pid, port


@contextmanager
def worker(redis_port: int | None) -> Iterator[tuple[int, int]]:
    """One worker of the recipe's app, on Redis when ``redis_port`` is given:
    yields ``(pid, port)``."""
    port = free_port()
    argv = [sys.executable, "-m", "transports", "serve", str(RECIPE / "app.py")]
    argv += ["--transport", "http", "--port", str(port), "--shutdown-grace", "1"]
    if redis_port is not None:
        argv += ["--redis", f"redis://127.0.0.1:{redis_port}/0"]
    env = dict(os.environ, PYTHONPATH=str(ROOT), MCP_CORE_STATE_KEY=STATE_KEY)
    with listening(argv, port, "a worker", env=env) as process:
        yield process.pid, port


@contextmanager
def balancer(worker_ports: list[int]) -> Iterator[tuple[int, int]]:
    """HAProxy before ``worker_ports``, with the recipe's configuration and, in
    each of its backends, one ``server`` line per worker: yields ``(pid, port)``."""
    servers = [f"    server w{n} 127.0.0.1:{port}" for n, port in enumerate(worker_ports, 1)]
    text = []
    for section in re.split(r"(?m)^(?=backend )", (RECIPE / "haproxy.cfg").read_text()):
        kept = [line for line in section.splitlines() if not line.startswith("    server w")]
        text += [*kept, *servers] if section.startswith("backend ") else kept
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="mcp-bench-haproxy-") as folder:
        config = Path(folder) / "haproxy.cfg"
        config.write_text("\n".join(text) + "\n")
        argv = [_program("haproxy"), "-f", str(config), "-db"]
        env = dict(os.environ, MCP_LB_PORT=str(port))
        with listening(argv, port, "haproxy", env=env) as process:
            yield process.pid, port


class RedisCounters:
    """The commands a redis-server has run, those inside scripts included, from
    ``INFO stats`` on one connection kept open, its own queries left out."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.queries = 0

    def close(self) -> None:
        self.sock.close()

    def commands(self) -> int:
        """Commands run so far, other than this object's queries."""
        self.sock.sendall(b"INFO stats\r\n")
        data = b""
        while b"\r\n" not in data:
            data += _receive(self.sock)
        head, _, body = data.partition(b"\r\n")
        size = int(head[1:])  # a bulk string: $<size>\r\n<body>\r\n
        while len(body) < size + 2:
            body += _receive(self.sock)
        fields = dict(
            line.split(":", 1) for line in body[:size].decode().splitlines() if ":" in line
        )
        # Redis counts a command once it has run: this query is not in it yet.
        done = int(fields["total_commands_processed"]) - self.queries
        self.queries += 1
        return done


class RedisMonitor:
    """Counts the commands clients send to a redis-server from now until `stop`:
    each one round trip for its sender (a script is one; MONITOR lists the
    commands scripts run apart, as ``[0 lua]``). MONITOR slows Redis down: count
    outside timed runs."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.sock.sendall(b"MONITOR\r\n")
        self.data = b""
        while b"\r\n" not in self.data:
            self.data += _receive(self.sock)
        if not self.data.startswith(b"+OK\r\n"):
            raise RuntimeError(f"MONITOR answered {self.data[:100]!r}")
        self.data = self.data[len(b"+OK\r\n") :]

    def stop(self) -> int:
        """The commands clients sent since the start; closes the connection."""
        mark = f"mcp-bench-{os.getpid()}-{id(self)}".encode()
        with socket.create_connection(("127.0.0.1", self.port), timeout=10) as other:
            other.sendall(b"ECHO " + mark + b"\r\n")
            _receive(other)
        try:
            while mark not in self.data:
                self.data += _receive(self.sock)
        finally:
            self.sock.close()
        lines = self.data[: self.data.index(mark)].split(b"\r\n")[:-1]
        # +<time> [<db> <client address>] "COMMAND" ...: scripts' are [<db> lua].
        return sum(1 for line in lines if not line.split(b"]", 1)[0].endswith(b" lua"))


def _receive(sock: socket.socket) -> bytes:
    data = sock.recv(65536)
    if not data:
        raise RuntimeError("redis-server closed the connection")
    return data
