"""The HTTP servers the benchmarks spawn:
``python -m benchmarks.http_servers KIND PORT [--backend B] [--answers A]``.

KIND is one of:

* ``ours``: mcp-core's decorator server with the echo tool on our h11 server
  (`transports.http.server.run_http`), on BACKEND ("asyncio" or "trio");
* ``sdk``: the official SDK's ``MCPServer`` with the same tool, its
  ``streamable_http_app()`` under uvicorn (asyncio);
* ``fastmcp``: FastMCP's ``http_app()`` under uvicorn (asyncio);
* ``h11``: no MCP: a raw h11 server on anyio (`benchmarks.h11_echo`) on BACKEND
  that answers every POST with a small fixed JSON-RPC response (JSON, or one
  SSE event), keep-alive. The floor under any HTTP round trip made this way.

``--answers json|sse`` asks for JSON answers or SSE streams; by default each
does what it does by default (ours: SSE for 2025-11-25 sessions, JSON otherwise;
the echo: JSON). Every server binds
127.0.0.1:PORT, takes up to 60,000 legacy sessions (the memory layer opens
10,000, the curves layer's full run 50,000), keeps them for an hour, and runs
until it is terminated.

`spawn` starts one and waits until it accepts connections.
"""

from __future__ import annotations

import argparse
import importlib
import random
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Final

__all__ = ["KINDS", "free_port", "listening", "main", "spawn"]

KINDS: Final = ("ours", "sdk", "fastmcp", "h11")
MAX_SESSIONS: Final = 60_000
IDLE_SECONDS: Final = 3600.0
_ROOT: Final = str(Path(__file__).resolve().parent.parent)
_START_SECONDS: Final = 30.0


def _ours(port: int, backend: str, answers: str) -> None:
    from mcp_core import HttpServerConfig
    from transports.http.server import run_http

    from .echo_servers import ours
    from .otel_on import maybe_instrument

    maybe_instrument()
    config = HttpServerConfig(
        max_sessions=MAX_SESSIONS,
        session_idle_timeout=IDLE_SECONDS,
        response_mode="json" if answers == "json" else "sse" if answers == "sse" else "auto",
    )
    run_http(ours(), backend=backend, port=port, config=config)


def _uvicorn(app: Any, port: int) -> None:
    uvicorn = importlib.import_module("uvicorn")
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", access_log=False)


def _sdk(port: int, answers: str) -> None:
    from .echo_servers import sdk_decorated

    app = sdk_decorated(log_level="WARNING").streamable_http_app(
        json_response=answers == "json",
        max_sessions=MAX_SESSIONS,
        session_idle_timeout=IDLE_SECONDS,
    )
    _uvicorn(app, port)


def _fastmcp(port: int, answers: str) -> None:
    from .echo_servers import fastmcp_server

    _uvicorn(fastmcp_server().http_app(path="/mcp", json_response=answers == "json"), port)


def _h11(port: int, backend: str, answers: str) -> None:
    import anyio

    from .h11_echo import serve_echo

    anyio.run(serve_echo, port, answers, backend=backend)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.http_servers")
    parser.add_argument("kind", choices=KINDS)
    parser.add_argument("port", type=int)
    parser.add_argument("--backend", choices=("asyncio", "trio"), default="asyncio")
    parser.add_argument("--answers", choices=("default", "json", "sse"), default="default")
    args = parser.parse_args(argv)
    try:
        if args.kind == "ours":
            _ours(args.port, args.backend, args.answers)
        elif args.kind == "sdk":
            _sdk(args.port, args.answers)
        elif args.kind == "h11":
            _h11(args.port, args.backend, args.answers)
        else:
            _fastmcp(args.port, args.answers)
    except KeyboardInterrupt:
        pass


def free_port(count: int = 1) -> int:
    """The first of ``count`` consecutive loopback ports free a moment ago, below the
    ephemeral range (32768 and up on Linux).

    A port the kernel hands out for ``bind(0)`` is the next one it may hand to any
    other process that binds port 0 or connects out, before our child has bound it;
    a port below that range is taken only by another caller of this function.
    """
    rng = random.Random()
    for _ in range(200):
        base = rng.randrange(20_000, 32_000)
        if all(_free(base + n) for n in range(count)):
            return base
    raise RuntimeError("no free loopback ports between 20000 and 32000")


def _free(port: int) -> bool:
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


@contextmanager
def spawn(kind: str, *, backend: str = "asyncio", answers: str = "default") -> Iterator[Any]:
    """Start a server; yields ``(process, url)`` once it accepts connections.

    Raises:
        RuntimeError: it exited, or did not listen within 30 s.
    """
    port = free_port()
    argv = [sys.executable, "-m", "benchmarks.http_servers", kind, str(port)]
    argv += ["--backend", backend, "--answers", answers]
    with listening(argv, port, f"{kind} server") as process:
        yield process, f"http://127.0.0.1:{port}/mcp"


@contextmanager
def listening(
    argv: list[str],
    port: int,
    what: str,
    env: dict[str, str] | None = None,
    within: float = _START_SECONDS,
) -> Iterator[subprocess.Popen[bytes]]:
    """Run ``argv`` (in ``env``, or this process's environment); yields the process
    once it accepts connections on ``port``, and terminates it after.

    Raises:
        RuntimeError: it exited, or did not listen within ``within`` seconds.
    """
    # The server's stderr (its shutdown line on SIGTERM, any log) is kept out of the
    # report and shown only when it fails to start.
    with tempfile.TemporaryFile() as errors:
        process = subprocess.Popen(
            argv,
            cwd=_ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=errors,
        )
        try:
            deadline = time.monotonic() + within
            while True:
                if process.poll() is not None:
                    errors.seek(0)
                    said = errors.read()[-2000:].decode(errors="replace").strip()
                    raise RuntimeError(f"{what} exited with status {process.returncode}: {said}")
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    if time.monotonic() > deadline:
                        raise RuntimeError(f"{what} did not listen within {within:g} s") from None
                    time.sleep(0.05)
            yield process
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


if __name__ == "__main__":
    main(sys.argv[1:])
