"""Our Client with OAuth against our server protected by a real authorization server
(authlib, tests/oauth_server.py): discovery from the challenge, registration, the
code flow with PKCE in headless mode (the URL printed, the redirect pasted back),
then a refresh, on asyncio and trio."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from net_helpers import LIMIT
from oauth_e2e_helpers import User, protected, tool_server
from oauth_server import SCOPE

from transports import Client, connect_http
from transports.http.oauth import OAuth
from transports.http.oauth_store import FileStore
from transports.http.oauth_user import headless_agent
from transports.memory import pipe

pytestmark = pytest.mark.anyio


async def test_code_flow_with_pkce_then_refresh(tmp_path: Path) -> None:
    user = User()
    clock = [1_800_000_000.0]
    oauth = OAuth(
        client_name="e2e",
        store=FileStore(tmp_path / "tokens"),
        user_agent=headless_agent(out=user.screen, read_line=user.paste),
        clock=lambda: clock[0],
    )
    with anyio.fail_after(LIMIT * 3):
        async with protected() as (auth, url), connect_http(url, auth=oauth) as client:
            result = await client.call_tool("add", {"a": 2, "b": 3})
            assert result.structured_content == {"result": 5}
            clock[0] += 3600  # the token is past its lifetime: refreshed first
            result = await client.call_tool("add", {"a": 4, "b": 5})
            assert result.structured_content == {"result": 9}
    assert len(user.pasted) == 1
    (authorization,) = auth.store.authorizations
    assert authorization["code_challenge_method"] == "S256"
    assert authorization["scope"] == SCOPE and authorization["resource"] == url
    kinds = [grant["grant_type"] for grant in auth.store.grants]
    assert kinds == ["authorization_code", "refresh_token"]
    assert all(grant["resource"] == url for grant in auth.store.grants)
    (stored,) = (tmp_path / "tokens").iterdir()
    assert stored.stat().st_mode & 0o777 == 0o600
    assert (tmp_path / "tokens").stat().st_mode & 0o777 == 0o700


async def test_stored_credentials_serve_the_next_process(tmp_path: Path) -> None:
    user = User()
    store = FileStore(tmp_path)
    with anyio.fail_after(LIMIT * 3):
        async with protected() as (auth, url):
            for _ in range(2):
                oauth = OAuth(store=store, user_agent=headless_agent(user.screen, user.paste))
                async with Client(url, auth=oauth) as client:  # the URL form of Client
                    await client.list_tools()
    assert len(user.pasted) == 1  # the second client found the token in the store
    assert len(auth.store.authorizations) == 1


async def test_a_user_who_never_comes_back_fails_the_request_in_time() -> None:
    async def never(url: str, redirect_uri: str) -> str:
        await anyio.sleep_forever()
        raise AssertionError

    oauth = OAuth(user_agent=never, user_timeout=0.2)
    with anyio.fail_after(LIMIT):
        async with protected() as (_, url):
            with pytest.raises(Exception, match="did not come back"):
                async with connect_http(url, auth=oauth) as client:
                    await client.list_tools()


def test_auth_goes_with_a_url() -> None:
    with pytest.raises(ValueError, match="auth= goes with a URL"):
        Client(pipe(tool_server()), auth=OAuth())
