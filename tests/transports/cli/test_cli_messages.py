"""What the command line tells a newcomer: the install hints name the distribution
(``mcp-sansio``), and each error is one clear message.

Run in this process through `main` (output captured) where nothing is spawned by
the test itself, and as ``python -m transports`` where the process matters.
"""

from __future__ import annotations

import sys

import paths
import pytest

from transports.cli import main

ROOT = paths.ROOT
SHOP = str(ROOT / "tests" / "servers" / "shop.py")


def run_main(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


# --- the distribution's name ----------------------------------------------------------------


def test_redis_without_the_extra_names_the_distribution(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "transports.redis", None)  # as if not installed
    found = run_main(
        capsys, "serve", SHOP, "--transport", "http", "--port", "0", "--redis", "redis://x"
    )
    assert found == (
        2,
        "",
        "mcp-core: error: --redis needs the redis extra: pip install 'mcp-sansio[redis]'\n",
    )


def test_auth_without_the_extra_names_the_distribution(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "transports.auth.jwt", None)
    status, out, err = run_main(
        capsys,
        "serve",
        SHOP,
        "--transport",
        "http",
        "--port",
        "8123",
        "--auth-jwks",
        "http://127.0.0.1:1/jwks",
        "--auth-issuer",
        "http://127.0.0.1:1",
    )
    assert (status, out) == (2, "")
    assert err == "mcp-core: error: --auth-jwks needs the 'auth' extra: pip install 'mcp-sansio[auth]'\n"
