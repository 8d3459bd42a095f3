"""The official SDK's client (``mcp``) against our protected server: with a
bearer token in its HTTP client's headers it calls tools, in both eras; without
one it gets the 401 and fails. Every conversation bounded by LIMIT."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Final

import anyio
import httpx2
import pytest
from auth_helpers import EC_KEY, ISSUER, RESOURCE, jwks_endpoint, protecting, public_jwk, token
from limits import HANG
from mcp import Client as SdkClient
from mcp import MCPError
from mcp.client.streamable_http import streamable_http_client

from transports.auth.jwt import JwtVerifier

pytestmark = pytest.mark.anyio

LIMIT: Final = HANG


@asynccontextmanager
async def protected_url(flavour: tuple[str, str]) -> AsyncIterator[str]:
    async with jwks_endpoint(lambda: [public_jwk(EC_KEY, "k1")]) as jwks:
        verifier = JwtVerifier(jwks.url, issuer=ISSUER, audience=RESOURCE)
        async with protecting(flavour[1], verifier) as client:
            yield f"http://127.0.0.1:{client('/mcp').port}/mcp"


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_the_sdk_client_calls_a_protected_server_with_a_token(
    flavour: tuple[str, str], era: str
) -> None:
    with anyio.fail_after(LIMIT):
        async with protected_url(flavour) as url:
            headers = {"Authorization": f"Bearer {token(sub='sdk')}"}
            async with (
                httpx2.AsyncClient(headers=headers, timeout=LIMIT) as http,
                SdkClient(
                    streamable_http_client(url, http_client=http),
                    mode="legacy" if era == "legacy" else "auto",
                ) as client,
            ):
                result = await client.call_tool("whoami", {})
                assert result.content[0].text == "sdk"  # type: ignore[union-attr]


def leaves(error: BaseException) -> list[BaseException]:
    if isinstance(error, BaseExceptionGroup):
        return [leaf for inner in error.exceptions for leaf in leaves(inner)]
    return [error]


async def test_the_sdk_client_gets_the_401_without_one(flavour: tuple[str, str]) -> None:
    statuses: list[tuple[int, str]] = []

    async def record(answer: httpx2.Response) -> None:
        statuses.append((answer.status_code, answer.headers.get("www-authenticate", "")))

    with anyio.fail_after(LIMIT):
        async with protected_url(flavour) as url, httpx2.AsyncClient(timeout=LIMIT) as http:
            http.event_hooks = {"response": [record]}
            with pytest.raises(BaseExceptionGroup) as failed:
                async with SdkClient(streamable_http_client(url, http_client=http)) as client:
                    await client.call_tool("whoami", {})
    (error,) = leaves(failed.value)
    assert isinstance(error, MCPError) and "a bearer token is required" in str(error)
    status, challenge = statuses[0]
    assert status == 401 and challenge.startswith("Bearer resource_metadata=")
