"""``mcp-core serve --transport http --workers N --redis URL``: N worker processes.

Each worker is ``mcp-core serve`` itself on its own port (PORT, PORT+1, ...),
sharing its state on the Redis at URL and sealing ``requestState`` with one key:
``MCP_CORE_STATE_KEY`` (hex, 32+ bytes) from the environment, or a random one
made here and handed to the workers. A load balancer (examples/redis/haproxy.cfg)
spreads requests over the ports. SIGTERM or SIGINT here is passed to every
worker, which shut down gracefully; a worker that dies is reported, not
restarted (that is the service manager's job).
"""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
from types import FrameType

__all__ = ["STATE_KEY_ENV", "run_workers", "state_keys_from_env"]

STATE_KEY_ENV = "MCP_CORE_STATE_KEY"


def state_keys_from_env() -> list[bytes] | None:
    """The keyring in ``MCP_CORE_STATE_KEY``: hex keys separated by commas, the
    first seals; None when unset.

    Raises:
        ValueError: not hex, or a key shorter than 32 bytes.
    """
    text = os.environ.get(STATE_KEY_ENV)
    if not text:
        return None
    keys = [bytes.fromhex(part.strip()) for part in text.split(",")]
    if any(len(key) < 32 for key in keys):
        raise ValueError(f"{STATE_KEY_ENV}: every key must be at least 32 bytes (64 hex digits)")
    return keys


def run_workers(arguments: list[str], workers: int, port: int) -> int:
    """Run ``workers`` copies of ``mcp-core serve`` with ``arguments`` (without
    ``--workers`` and ``--port``), on ``port`` and the next ones; wait for them.

    Returns:
        0 when every worker stopped cleanly, else the first failing status.
    """
    env = dict(os.environ)
    env.setdefault(STATE_KEY_ENV, secrets.token_bytes(32).hex())
    children = [
        subprocess.Popen(
            [sys.executable, "-m", "transports", *arguments, "--port", str(port + n)], env=env
        )
        for n in range(workers)
    ]

    def forward(signum: int, frame: FrameType | None) -> None:
        for child in children:
            if child.poll() is None:
                child.send_signal(signum)

    previous = {s: signal.signal(s, forward) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        statuses = [child.wait() for child in children]
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    return next((s for s in statuses if s not in (0, 130)), 0)


def without(arguments: list[str], *options: str) -> list[str]:
    """``arguments`` without ``options`` and the value after each."""
    kept: list[str] = []
    skip = False
    for argument in arguments:
        if skip:
            skip = False
            continue
        name = argument.split("=", 1)[0]
        if name in options:
            skip = "=" not in argument
            continue
        kept.append(argument)
    return kept
