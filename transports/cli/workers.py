"""``mcp-core serve --transport http --workers N --redis URL``: N worker processes.

Each worker is ``mcp-core serve`` itself on its own port (PORT, PORT+1, ...),
sharing its state on the Redis at URL and sealing ``requestState`` with one key:
``MCP_CORE_STATE_KEY`` (hex, 32+ bytes) from the environment, or a random one
made here and handed to the workers. A load balancer (examples/redis/haproxy.cfg)
spreads requests over the ports. SIGTERM or SIGINT here is passed to every
worker, which shut down gracefully. A worker that exits otherwise (a crash,
``kill -9``) is reported on stderr with its status and started again on its
port after a backoff (`mcp_core.manager.Restarts`: 1, 2, 4, 8, 16 seconds times
``--restart-delay``); one that dies within 30 s of starting five times in a
row after that is left down, reported, and this command exits with its status
once no worker is left.
"""

from __future__ import annotations

import os
import random
import secrets
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from types import FrameType

from mcp_core.manager import Backoff, Restarts

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


POLL_INTERVAL = 0.05
"""Seconds between looks at the workers: a supervisor's pace, not a request's."""


@dataclass
class _Worker:
    number: int
    port: int
    command: list[str]
    restarts: Restarts
    process: subprocess.Popen[bytes] | None = None
    started: float = 0.0
    due: float | None = None  # when to start it again; None: running or left down
    status: int | None = None  # how it ended, once left down or stopped


def _describe(status: int) -> str:
    if status < 0:
        try:
            return f"signal {signal.Signals(-status).name}"
        except ValueError:
            return f"signal {-status}"
    return f"status {status}"


def _say(text: str) -> None:
    print(f"mcp-core: {text}", file=sys.stderr, flush=True)


def run_workers(
    arguments: list[str],
    workers: int,
    port: int,
    *,
    restart_delay: float = 1.0,
    metrics: tuple[str, int] | None = None,
) -> int:
    """Run ``workers`` copies of ``mcp-core serve`` with ``arguments`` (without
    ``--workers`` and ``--port``), on ``port`` and the next ones, restarting
    any that exits until a signal asks them all to stop.

    Args:
        restart_delay: seconds before the first restart (the backoff's start).
        metrics: (host, port) of ``--metrics`` (not in ``arguments``): worker n
            serves its scrape on port + n.

    Returns:
        0 when every worker stopped cleanly on the signal, else the first
        failing status (a worker left down, or one that failed to stop).
    """
    env = dict(os.environ)
    env.setdefault(STATE_KEY_ENV, secrets.token_bytes(32).hex())
    backoff = Backoff(initial=restart_delay, maximum=16 * restart_delay)
    pool = [
        _Worker(
            n + 1,
            port + n,
            [
                *(sys.executable, "-m", "transports", *arguments, "--port", str(port + n)),
                *(() if metrics is None else ("--metrics", f"{metrics[0]}:{metrics[1] + n}")),
            ],
            Restarts(backoff, random=random.random),
        )
        for n in range(workers)
    ]
    stopping = False

    def start(worker: _Worker) -> None:
        worker.process = subprocess.Popen(worker.command, env=env)
        worker.started, worker.due = time.monotonic(), None

    def forward(signum: int, frame: FrameType | None) -> None:
        nonlocal stopping
        stopping = True
        for worker in pool:
            if worker.process is not None and worker.process.poll() is None:
                worker.process.send_signal(signum)

    previous = {s: signal.signal(s, forward) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        for worker in pool:
            start(worker)
        while any(w.process is not None or (w.due is not None and not stopping) for w in pool):
            now = time.monotonic()
            for worker in pool:
                if worker.process is not None:
                    status = worker.process.poll()
                    if status is not None:
                        worker.process = None
                        _exited(worker, status, now - worker.started, stopping)
                elif worker.due is not None and not stopping and now >= worker.due:
                    start(worker)
            time.sleep(POLL_INTERVAL)
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    statuses = [w.status for w in pool if w.status is not None]
    return next((s for s in statuses if s not in (0, 130, -signal.SIGTERM, -signal.SIGINT)), 0)


def _exited(worker: _Worker, status: int, uptime: float, stopping: bool) -> None:
    what = f"worker {worker.number} (port {worker.port}) exited with {_describe(status)}"
    worker.status = status
    if stopping:
        if status not in (0, 130):
            _say(f"{what} while stopping")
        return
    delay = worker.restarts.exited(uptime)
    if delay is None:
        _say(
            f"{what} after {uptime:.1f} s; it keeps exiting soon after starting "
            f"({worker.restarts.quick_exits} restarts in a row did not help): "
            "not restarting it"
        )
        return
    worker.status = None
    worker.due = time.monotonic() + delay
    _say(f"{what} after {uptime:.1f} s; restarting it in {delay:.1f} s")


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
