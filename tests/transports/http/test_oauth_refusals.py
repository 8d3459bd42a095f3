"""Bad authorization servers give a clear error, in time: HTML instead of metadata,
another issuer, a redirect to another origin, a token endpoint that never answers."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import anyio
import pytest
from net_helpers import LIMIT, RawConnection, RawRequest, response, scripted

from mcp_core import Server
from mcp_core.http.decisions import AuthRefusal, HttpRequest
from mcp_core.http.server import HttpServerConfig
from transports import connect_http
from transports.http.client import HttpError, HttpStatusError, OutcomeUnknownError
from transports.http.oauth import OAuth
from transports.http.server import HttpServer

pytestmark = pytest.mark.anyio

Script = Callable[[RawRequest, dict[str, str]], bytes | None]
"""The authorization server's answer to a request, given the URLs of the world
("as", "mcp"); None: never answer."""


def as_json(document: dict[str, object], status: int = 200) -> bytes:
    return response(status, {"content-type": "application/json"}, json.dumps(document).encode())


def honest(request: RawRequest, urls: dict[str, str]) -> bytes | None:
    base = urls["as"]
    if request.target == "/prm":
        return as_json({"resource": urls["mcp"], "authorization_servers": [base]})
    if request.target == "/.well-known/oauth-authorization-server":
        return as_json(
            {
                "issuer": base,
                "authorization_endpoint": f"{base}/authorize",
                "token_endpoint": f"{base}/token",
                "code_challenge_methods_supported": ["S256"],
            }
        )
    return as_json({"error": "not_found"}, 404)


@asynccontextmanager
async def world(script: Script) -> AsyncIterator[str]:
    async def handle(connection: RawConnection) -> None:
        while (request := await connection.request()) is not None:
            data = script(request, urls)
            if data is None:
                await anyio.sleep_forever()
            await connection.write(data)

    urls: dict[str, str] = {}

    def refuse(request: HttpRequest) -> AuthRefusal:
        header = f'Bearer resource_metadata="{urls["as"]}/prm"'
        return AuthRefusal(401, "no", (("www-authenticate", header),))

    async with scripted(handle) as port:
        urls["as"] = f"http://127.0.0.1:{port}"
        http = HttpServer(Server("s", "1"), HttpServerConfig(), authenticate=refuse)
        async with anyio.create_task_group() as tg:
            mcp_port = await tg.start(http.serve, "127.0.0.1", 0)
            urls["mcp"] = f"http://127.0.0.1:{mcp_port}/mcp"
            yield urls["mcp"]
            tg.cancel_scope.cancel()


async def fails_with(script: Script, words: str, timeout: float = 5.0) -> None:
    async def user(url: str, redirect_uri: str) -> str:
        state = url.split("state=")[1].split("&")[0]
        return f"{redirect_uri}?code=c&state={state}"

    oauth = OAuth(client_id="pre", user_agent=user, timeout=timeout)
    with anyio.fail_after(LIMIT):
        async with world(script) as url:
            with pytest.raises(HttpError, match=words) as failed:
                async with connect_http(url, auth=oauth) as client:
                    await client.list_tools()
    # Issue 30 item 8: the server refused the request (401) before anything ran,
    # which is no OutcomeUnknownError ("may have acted on it").
    error = failed.value
    assert isinstance(error, HttpStatusError) and error.status == 401, repr(error)
    assert not isinstance(error, OutcomeUnknownError)


async def test_html_instead_of_metadata() -> None:
    def script(request: RawRequest, urls: dict[str, str]) -> bytes | None:
        if request.target == "/prm":
            return response(200, {"content-type": "text/html"}, b"<html>sign in</html>")
        return honest(request, urls)

    await fails_with(script, "answered with HTML")


async def test_metadata_of_another_issuer() -> None:
    def script(request: RawRequest, urls: dict[str, str]) -> bytes | None:
        if request.target.startswith("/.well-known/"):
            return as_json({"issuer": "https://honest.example", "token_endpoint": "x"})
        return honest(request, urls)

    await fails_with(script, "describes issuer 'https://honest.example'")


async def test_a_redirect_to_another_origin() -> None:
    def script(request: RawRequest, urls: dict[str, str]) -> bytes | None:
        if request.target == "/prm":
            return response(302, {"location": "https://elsewhere.example/prm"})
        return honest(request, urls)

    await fails_with(script, "redirected to another origin")


async def test_a_token_endpoint_that_hangs() -> None:
    def script(request: RawRequest, urls: dict[str, str]) -> bytes | None:
        if request.target == "/token":
            return None
        return honest(request, urls)

    await fails_with(script, "authorization failed: .*/token: timed out", timeout=0.3)
