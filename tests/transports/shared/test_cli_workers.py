"""``mcp-core serve --workers N --redis URL``: what the command line checks
before it starts anything (the workers themselves: test_balancer)."""

from __future__ import annotations

import pytest
from paths import EXAMPLES

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
