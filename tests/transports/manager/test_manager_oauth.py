"""A manager's server protected by OAuth (``"auth": {"type": "oauth", ...}``),
against our protected server and a real authorization server (authlib): the
command line's ``call --config`` authorizing in headless mode (the URL on stderr,
the redirect pasted on stdin), then the manager finding the stored token, on
asyncio and trio."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from anyio.streams.text import TextReceiveStream
from net_helpers import LIMIT
from oauth_e2e_helpers import approve, protected

from mcp_core.manager import server_config
from transports.http.oauth import OAuth
from transports.http.oauth_cli import oauth_directory, stable_redirect_uri
from transports.http.oauth_store import FileStore
from transports.manager import Manager
from transports.manager.oauth import server_oauth

pytestmark = pytest.mark.anyio


def oauth_entry(url: str, store: Path, **more: Any) -> dict[str, Any]:
    auth = {"type": "oauth", "mode": "headless", "store": str(store), **more}
    return {"url": url, "auth": auth}


async def never_asked(url: str, redirect_uri: str) -> str:
    raise AssertionError("the stored token should have served")


async def test_call_config_authorizes_headless(tmp_path: Path) -> None:
    store = tmp_path / "oauth"
    config = tmp_path / "servers.json"
    with anyio.fail_after(LIMIT * 4):
        async with protected() as (auth, url):
            entry = oauth_entry(url, store, scopes=["mcp"], redirectPort=33999)
            config.write_text(json.dumps({"mcpServers": {"files": entry}}))
            argv = [sys.executable, "-m", "transports", "call", "--config", str(config)]
            argv += ["files.add", "--arg", "a=2", "--arg", "b=3"]
            async with await anyio.open_process(argv) as process:
                assert process.stdin and process.stdout and process.stderr
                screen = ""
                async for text in TextReceiveStream(process.stderr):
                    screen += text
                    if "paste the URL" in screen:
                        break
                (authorization_url,) = re.findall(r"^  (http\S+)$", screen, re.MULTILINE)
                redirect = await anyio.to_thread.run_sync(approve, authorization_url)
                await process.stdin.send(redirect.encode() + b"\n")
                output = b"".join([chunk async for chunk in process.stdout])
                assert await process.wait() == 0
            assert output.decode().strip() == "5"
            assert redirect.startswith("http://127.0.0.1:33999/callback?")

            # The manager, in this process, finds the token the command stored.
            server = server_config("files", oauth_entry(url, store))
            async with Manager([server]) as manager:
                await manager.wait_ready()
                result = await manager.call_tool("files.add", {"a": 4, "b": 5})
            assert result.structured_content == {"result": 9}
    (authorization,) = auth.store.authorizations
    assert authorization["scope"] == "mcp"
    assert [p.suffix for p in store.iterdir()] == [".json"]  # one issuer's record


async def test_the_manager_uses_a_token_stored_by_another_process(tmp_path: Path) -> None:
    store = tmp_path / "oauth"
    with anyio.fail_after(LIMIT * 3):
        async with protected() as (auth, url):
            first = OAuth(store=FileStore(store), user_agent=never_asked)
            authorization_url = await first.start(url)
            assert authorization_url is not None
            await first.finish(await anyio.to_thread.run_sync(approve, authorization_url))

            # Were the token not used, the headless prompt would read pytest's
            # empty stdin, and the connection fail.
            server = server_config("files", oauth_entry(url, store))
            async with Manager([server]) as manager:
                await manager.wait_ready()
                assert manager.status()[0].state == "connected"
                result = await manager.call_tool("files.add", {"a": 1, "b": 1})
            assert result.structured_content == {"result": 2}
    assert len(auth.store.authorizations) == 1


def test_the_oauth_entry_maps_onto_the_adapter(tmp_path: Path) -> None:
    url = "https://files.example.com/mcp"
    entry = oauth_entry(url, tmp_path, clientId="app", scopes=["a", "b"], redirectPort=8123)
    oauth = server_oauth(server_config("files", entry))
    assert oauth is not None
    assert oauth.config.client_id == "app" and oauth.config.scopes == ("a", "b")
    assert oauth.config.redirect_uri == "http://127.0.0.1:8123/callback"
    assert isinstance(oauth.store, FileStore) and oauth.store.directory == tmp_path
    assert oauth.user_agent.__qualname__.startswith("headless_agent")
    derived = server_oauth(server_config("files", {"url": url, "auth": {"type": "oauth"}}))
    assert derived is not None
    assert derived.config.redirect_uri == stable_redirect_uri(url)
    assert isinstance(derived.store, FileStore) and derived.store.directory == oauth_directory()
    assert server_oauth(server_config("files", {"url": url})) is None
