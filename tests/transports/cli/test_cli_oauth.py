"""``mcp-core call URL TOOL --auth headless``: the command line reaches a server
protected by a real authorization server (tests/oauth_server.py) after a pasted
redirect, and the next command finds the stored token."""

from __future__ import annotations

import re
import sys
import urllib.request
from functools import partial
from pathlib import Path

import anyio.from_thread
import pytest
from net_helpers import LIMIT
from oauth_server import authorization_server

from mcp_core import Server
from transports.cli import main
from transports.http.oauth_cli import stable_redirect_uri
from transports.http.server import serve_http


def adder() -> Server:
    server = Server("adder", "1.0")

    @server.tool
    def add(a: int, b: int) -> int:
        """Add."""
        return a + b

    return server


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None


class PastingUser:
    """stdin for the headless prompt: reads the URL printed on stderr, opens it
    (approved at once), and 'pastes' where it redirects."""

    def __init__(self) -> None:
        self.pastes = 0

    def readline(self) -> str:
        printed = sys.stderr.getvalue()  # type: ignore[attr-defined]
        url = re.findall(r"^  (http\S+)$", printed, re.MULTILINE)[-1]
        self.pastes += 1
        try:
            urllib.request.build_opener(_NoRedirect).open(url, timeout=LIMIT)
        except urllib.request.HTTPError as redirect:
            return str(redirect.headers["location"]) + "\n"
        raise AssertionError("no redirect")


def test_call_with_auth_after_a_pasted_redirect(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    user = PastingUser()
    monkeypatch.setattr(sys, "stdin", user)
    monkeypatch.setenv("MCP_CORE_OAUTH_DIR", str(tmp_path))
    with (
        anyio.from_thread.start_blocking_portal() as portal,
        portal.wrap_async_context_manager(authorization_server()) as auth,
    ):
        future, port = portal.start_task(
            partial(serve_http, adder(), port=0, authenticate=auth.check)
        )
        url = f"http://127.0.0.1:{port}/mcp"
        auth.resource = url
        try:
            args = ["call", url, "add", "--arg", "a=2", "--arg", "b=3", "--timeout", "20"]
            status = main([*args, "--auth", "headless"])
            captured = capsys.readouterr()
            assert (status, captured.out) == (0, "5\n"), captured.err
            assert "Open this URL to authorize" in captured.err
            status = main(["list", url, "--auth", "headless", "--timeout", "20"])
            assert status == 0 and "add" in capsys.readouterr().out
        finally:
            future.cancel()
    assert user.pastes == 1  # the second command used the stored token
    redirect = auth.store.authorizations[0]["redirect_uri"]
    assert redirect == stable_redirect_uri(url)
    assert [path.stat().st_mode & 0o777 for path in tmp_path.iterdir()] == [0o600]


def test_auth_is_for_http_servers_only(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["list", "server.py", "--auth"])
    assert status == 2 and "--auth only applies to an http" in capsys.readouterr().err
