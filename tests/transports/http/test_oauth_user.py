"""Sending the user to the authorization server: the browser with a loopback
listener, and the headless prompt."""

from __future__ import annotations

import io
import threading
import urllib.request

import anyio
import pytest
from net_helpers import LIMIT

from benchmarks.http_servers import free_port
from transports.http.oauth_user import browser_agent, headless_agent, wait_for_redirect

pytestmark = pytest.mark.anyio


async def test_the_browser_comes_back_to_the_loopback_listener() -> None:
    port = free_port()
    redirect = f"http://127.0.0.1:{port}/callback"
    opened: list[str] = []

    def browser(url: str) -> None:
        opened.append(url)
        # A stray request first (a favicon), then the redirect.
        with pytest.raises(urllib.request.HTTPError):
            urllib.request.urlopen(f"http://127.0.0.1:{port}/favicon.ico", timeout=LIMIT)
        with urllib.request.urlopen(f"{redirect}?code=abc&state=s", timeout=LIMIT) as page:
            assert b"close this window" in page.read()

    with anyio.fail_after(LIMIT):
        back = await browser_agent(browser)("https://auth.example/authorize?x=1", redirect)
    assert back == f"{redirect}?code=abc&state=s"
    assert opened == ["https://auth.example/authorize?x=1"]


async def test_the_listener_binds_loopback_redirect_uris_only() -> None:
    with pytest.raises(ValueError, match="loopback"):
        await wait_for_redirect("https://example.com:8443/callback", lambda: None)
    with pytest.raises(ValueError, match="loopback"):
        await wait_for_redirect("http://127.0.0.1/callback", lambda: None)


async def test_headless_prints_the_url_and_reads_the_paste() -> None:
    screen = io.StringIO()
    agent = headless_agent(screen, lambda: "  http://127.0.0.1:1/cb?code=x&state=y \n")
    with anyio.fail_after(LIMIT):
        back = await agent("https://auth.example/authorize?a=b", "http://127.0.0.1:1/cb")
    assert back == "http://127.0.0.1:1/cb?code=x&state=y"
    assert "https://auth.example/authorize?a=b" in screen.getvalue()


async def test_a_prompt_nobody_answers_is_abandoned_on_cancel() -> None:
    release = threading.Event()

    def nobody() -> str:
        release.wait(LIMIT)
        return ""

    agent = headless_agent(io.StringIO(), nobody)
    try:
        with anyio.fail_after(LIMIT), anyio.move_on_after(0.2) as scope:
            await agent("https://auth.example/authorize", "http://127.0.0.1:1/cb")
        assert scope.cancelled_caught
    finally:
        release.set()
