"""``mcp-core serve --workers N --redis URL``: what the command line checks
before it starts anything, and what it does when a worker dies (the workers
themselves: test_balancer)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from balancer_helpers import LIMIT, WORKERS, Deployment, Modern
from paths import EXAMPLES, ROOT
from redis_helpers import RedisProcess, free_ports

from transports.cli import main
from transports.cli.workers import STATE_KEY_ENV, state_keys_from_env, without

APP = str(EXAMPLES / "redis" / "app.py")


def test_workers_need_redis(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", APP, "--transport", "http", "--workers", "2"]) == 2
    assert "--workers needs --redis" in capsys.readouterr().err


def test_a_short_state_key_is_refused_before_serving(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(STATE_KEY_ENV, "ab" * 16)
    status = main(["serve", APP, "--transport", "http", "--redis", "redis://127.0.0.1:1/0"])
    assert status == 2
    assert "at least 32 bytes" in capsys.readouterr().err


def test_the_keyring_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(STATE_KEY_ENV, raising=False)
    assert state_keys_from_env() is None
    monkeypatch.setenv(STATE_KEY_ENV, f"{'01' * 32}, {'02' * 40}")
    assert state_keys_from_env() == [b"\x01" * 32, b"\x02" * 40]
    monkeypatch.setenv(STATE_KEY_ENV, "zz")
    with pytest.raises(ValueError):
        state_keys_from_env()


def test_each_worker_gets_the_arguments_but_its_port() -> None:
    arguments = ["serve", "app.py", "--workers", "3", "--port=8001", "--redis", "r"]
    assert without(arguments, "--workers", "--port") == ["serve", "app.py", "--redis", "r"]


async def test_a_worker_killed_with_9_is_reported_and_restarted(
    anyio_backend: str, redis_server: RedisProcess, tmp_path: Path
) -> None:
    # The supervisor logs the exit with its status and starts the worker again
    # on its port; the balancer's checks bring it back.
    log = tmp_path / "serve.log"
    running = Deployment(redis_server.url, WORKERS, log, "--restart-delay", "0.1")
    running.start()
    try:
        port = running.worker_ports[1]
        victim = int(await Modern(port).text("worker"))
        os.kill(victim, signal.SIGKILL)
        with anyio.fail_after(LIMIT * 2):
            while True:
                try:
                    again = int(await Modern(port).text("worker"))
                    break
                except (OSError, anyio.BrokenResourceError, anyio.EndOfStream):
                    await anyio.sleep(0.05)  # not listening yet
        assert again != victim
        text = log.read_text()
        assert f"worker 2 (port {port}) exited with signal SIGKILL" in text
        assert "restarting it in" in text
    finally:
        running.stop()


def test_a_worker_that_dies_at_once_is_left_down(tmp_path: Path) -> None:
    # A target that does not exist: each worker fails as it starts. After five
    # restarts in a row, the supervisor leaves each down, says so, and exits
    # with a failure once none is left.
    port = free_ports(2)
    log = tmp_path / "serve.log"
    with log.open("ab") as stderr:
        serve = subprocess.Popen(
            [
                sys.executable, "-m", "transports", "serve", str(tmp_path / "missing.py"),
                "--transport", "http", "--workers", "2", "--port", str(port),
                "--restart-delay", "0.01", "--redis", "redis://127.0.0.1:1/0",
            ],
            env=dict(os.environ, PYTHONPATH=str(ROOT)),
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )  # fmt: skip
        try:
            status = serve.wait(120)
        finally:
            if serve.poll() is None:
                serve.kill()
                serve.wait(LIMIT)
    text = log.read_text()
    assert status == 2  # the workers' own status
    for number in (1, 2):
        worker = f"worker {number} (port {port + number - 1}) exited with status 2"
        assert text.count(worker) == 6, text
    assert text.count("not restarting it") == 2


def test_a_bad_trusted_proxy_is_refused_before_serving(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", APP, "--transport", "http", "--trusted-proxy", "nonsense"]) == 2
    assert "--trusted-proxy" in capsys.readouterr().err
    assert main(["serve", APP, "--trusted-proxy", "10.0.0.1"]) == 2  # stdio: HTTP only
    assert "--trusted-proxy" in capsys.readouterr().err
