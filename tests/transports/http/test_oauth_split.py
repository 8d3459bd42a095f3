"""An authorization begun in one process and finished in another (`OAuth.start`,
`OAuth.finish`): separate `OAuth` objects and clients that share only a directory
of credentials, against our protected server and a real authorization server
(authlib), on asyncio and trio."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlsplit

import anyio
import pytest
from net_helpers import LIMIT
from oauth_e2e_helpers import approve, protected
from oauth_server import SCOPE

from transports import Client
from transports.http.oauth import AuthorizationError, OAuth
from transports.http.oauth_store import FileStore, MemoryStore

pytestmark = pytest.mark.anyio


async def never_asked(url: str, redirect_uri: str) -> str:
    raise AssertionError("no user agent is used when the authorization is split")


def process(directory: Path) -> OAuth:
    """What a new process builds: its own `OAuth` over the shared directory."""
    return OAuth(
        client_name="split",
        store=FileStore(directory),
        user_agent=never_asked,
    )


async def test_start_in_one_process_finish_in_another(tmp_path: Path) -> None:
    with anyio.fail_after(LIMIT * 3):
        async with protected() as (auth, url):
            authorization_url = await process(tmp_path).start(url)
            assert authorization_url is not None
            assert list(tmp_path.glob("pending-*.json"))  # kept for the other process

            redirect = await anyio.to_thread.run_sync(approve, authorization_url)
            assert await process(tmp_path).finish(redirect) == url
            assert not list(tmp_path.glob("pending-*"))  # used once

            async with Client(url, auth=process(tmp_path)) as client:
                result = await client.call_tool("add", {"a": 2, "b": 3})
            assert result.structured_content == {"result": 5}
            assert await process(tmp_path).start(url) is None  # the stored token serves
    (authorization,) = auth.store.authorizations
    assert authorization["code_challenge_method"] == "S256"
    assert authorization["scope"] == SCOPE and authorization["resource"] == url
    assert [grant["grant_type"] for grant in auth.store.grants] == ["authorization_code"]


async def test_a_redirect_finishes_once(tmp_path: Path) -> None:
    with anyio.fail_after(LIMIT * 3):
        async with protected() as (auth, url):
            authorization_url = await process(tmp_path).start(url)
            assert authorization_url is not None
            redirect = await anyio.to_thread.run_sync(approve, authorization_url)
            await process(tmp_path).finish(redirect)
            with pytest.raises(AuthorizationError, match="no pending authorization"):
                await process(tmp_path).finish(redirect)
            with pytest.raises(AuthorizationError, match="no pending authorization"):
                await process(tmp_path).finish(url + "?code=x&state=unknown")
            with pytest.raises(AuthorizationError, match="no pending authorization"):
                await process(tmp_path).finish(url + "?code=x")
    assert len(auth.store.grants) == 1


async def test_a_refusal_ends_the_pending_authorization(tmp_path: Path) -> None:
    with anyio.fail_after(LIMIT * 3):
        async with protected() as (auth, url):
            authorization_url = await process(tmp_path).start(url)
            assert authorization_url is not None
            query = parse_qs(urlsplit(authorization_url).query)
            refusal = {"error": "access_denied", "state": query["state"][0], "iss": auth.url}
            redirect_uri = query["redirect_uri"][0]
            with pytest.raises(AuthorizationError, match="refused: access_denied"):
                await process(tmp_path).finish(f"{redirect_uri}?{urlencode(refusal)}")
            approved = await anyio.to_thread.run_sync(approve, authorization_url)
            with pytest.raises(AuthorizationError, match="no pending authorization"):
                await process(tmp_path).finish(approved)
    assert auth.store.grants == []


async def test_a_server_that_cannot_be_reached_fails_start(tmp_path: Path) -> None:
    listener = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=0)
    port = listener.extra(anyio.abc.SocketAttribute.local_port)
    await listener.aclose()  # nothing listens there now
    with (
        anyio.fail_after(LIMIT),
        pytest.raises(AuthorizationError, match=rf"127\.0\.0\.1:{port}/mcp"),
    ):
        await process(tmp_path).start(f"http://127.0.0.1:{port}/mcp")


async def test_a_store_without_pending_authorizations_is_refused() -> None:
    class CredentialsOnly:
        async def load(self, issuer: str) -> None:
            return None

        async def save(self, credentials: object) -> None:
            raise AssertionError

    oauth = OAuth(store=CredentialsOnly(), user_agent=never_asked)  # type: ignore[arg-type]
    with anyio.fail_after(LIMIT), pytest.raises(TypeError, match="no pending"):
        await oauth.finish("http://127.0.0.1/callback?code=x&state=y")
    memory = OAuth(store=MemoryStore(), user_agent=never_asked)
    with anyio.fail_after(LIMIT), pytest.raises(AuthorizationError, match="no pending"):
        await memory.finish("http://127.0.0.1/callback?code=x&state=y")
