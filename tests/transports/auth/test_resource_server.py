"""A protected MCP server from the wire: raw HTTP/1.1 with hand-made JWTs against
the h11 server (asyncio and trio) and the ASGI app under uvicorn, the keys served
as a JWKS by a test endpoint on 127.0.0.1. Every wait is bounded by LIMIT.

2026-07-28 basic/authorization/ (index.mdx "Token Handling", "Scope Challenge
Handling"; authorization-server-discovery.mdx), RFC 6750 section 3, RFC 9728."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest
from auth_helpers import (
    EC_KEY,
    ISSUER,
    OTHER_KEY,
    RESOURCE,
    Endpoint,
    bearer,
    introspection_endpoint,
    jwks_endpoint,
    protecting,
    public_jwk,
    token,
)
from http_helpers import LIMIT, META, RawClient, call, initialize, modern_headers

from transports.auth.introspection import IntrospectionVerifier
from transports.auth.jwt import JwtVerifier

pytestmark = pytest.mark.anyio

METADATA_URL = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"


@asynccontextmanager
async def served(
    flavour: tuple[str, str], **options: Any
) -> AsyncIterator[tuple[Callable[[str], RawClient], Endpoint, JwtVerifier]]:
    with anyio.fail_after(LIMIT * 2):
        async with jwks_endpoint(lambda: [public_jwk(EC_KEY, "k1")]) as jwks:
            verifier = JwtVerifier(jwks.url, issuer=ISSUER, audience=RESOURCE, **options)
            async with protecting(flavour[1], verifier) as client:
                yield client, jwks, verifier


def challenge(answer: Any) -> str:
    value: str = answer.headers["www-authenticate"]
    return value


async def test_the_metadata_needs_no_token(flavour: tuple[str, str]) -> None:
    async with served(flavour) as (client, jwks, _):
        for target in (
            "/.well-known/oauth-protected-resource/mcp",
            "/.well-known/oauth-protected-resource",
        ):
            async with client(target) as raw:
                await raw.send("GET")
                answer = await raw.answer()
                assert answer.status == 200
                assert answer.json()["resource"] == RESOURCE
                assert answer.json()["authorization_servers"] == [ISSUER]
        assert jwks.requests == []


async def test_no_token_gets_401_with_the_metadata_url(flavour: tuple[str, str]) -> None:
    async with served(flavour) as (client, jwks, _), client("/mcp") as raw:
        await raw.send("POST", initialize())
        answer = await raw.answer()
        assert answer.status == 401
        assert challenge(answer) == f'Bearer resource_metadata="{METADATA_URL}", scope="mcp"'
        assert answer.json()["error"]["message"] == "Unauthorized: a bearer token is required"
        # The GET stream and the HTTP+SSE transport are protected alike.
        await raw.send("GET")
        assert (await raw.answer()).status == 401
        assert jwks.requests == []


@pytest.mark.parametrize(
    ("bad", "reason"),
    [
        ({"exp": 1_000_000}, "has expired"),
        ({"aud": "https://other.example.com/mcp"}, "another resource"),
        ({"aud": None}, "no 'aud' claim"),
        ({"sub": None}, "no 'sub' claim"),
        ({"key": OTHER_KEY}, "signature does not verify"),
    ],
    ids=["expired", "wrong-audience", "no-audience", "no-subject", "wrong-key"],
)
async def test_an_invalid_token_gets_401_invalid_token(
    flavour: tuple[str, str], bad: dict[str, Any], reason: str
) -> None:
    async with served(flavour) as (client, _, _), client("/mcp") as raw:
        await raw.send("POST", initialize(), **bearer(token(**bad)))
        answer = await raw.answer()
        assert answer.status == 401
        assert challenge(answer).startswith('Bearer error="invalid_token"')
        assert reason in challenge(answer)


async def test_a_token_just_expired_is_within_the_clock_skew_allowance(
    flavour: tuple[str, str],
) -> None:
    # README "Limits": 30 s of clock skew on `exp` as on `nbf` (issue 30 item 9).
    now = int(time.time())
    async with served(flavour) as (client, _, _), client("/mcp") as raw:
        for exp in (now - 2, now - 25):
            await raw.send("POST", initialize(), **bearer(token(exp=exp)))
            assert (await raw.answer()).status == 200
        await raw.send("POST", initialize(), **bearer(token(exp=now - 60)))
        answer = await raw.answer()
        assert answer.status == 401 and "has expired" in challenge(answer)


async def test_wrong_issuer_and_alg_none_are_refused_before_any_key_fetch(
    flavour: tuple[str, str],
) -> None:
    unsigned = token(key=None, alg="none")
    other_issuer = token(iss="https://evil.example.com")
    async with served(flavour) as (client, jwks, _), client("/mcp") as raw:
        for value, reason in ((unsigned, "'none' is not accepted"), (other_issuer, "issuer")):
            await raw.send("POST", initialize(), **bearer(value))
            answer = await raw.answer()
            assert answer.status == 401 and reason in challenge(answer)
        await raw.send("POST", initialize(), **bearer("not-a-jwt"))
        assert (await raw.answer()).status == 401
        assert jwks.requests == []


async def test_a_valid_token_opens_a_session_of_its_subject(flavour: tuple[str, str]) -> None:
    async with served(flavour) as (client, jwks, _), client("/mcp") as raw:
        alice = bearer(token())
        await raw.send("POST", initialize(), **alice)
        opened = await raw.answer()
        assert opened.status == 200
        sid = opened.headers["mcp-session-id"]
        done = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        await raw.send("POST", done, mcp_session_id=sid, **alice)
        assert (await raw.answer()).status == 202
        await raw.send("POST", call("whoami", {}), mcp_session_id=sid, **alice)
        assert b'"text":"alice"' in (await raw.answer()).body
        # Bob's valid token on Alice's session: no such session for him.
        await raw.send("POST", call("whoami", {}), mcp_session_id=sid, **bearer(token(sub="bob")))
        assert (await raw.answer()).status == 404
        # A later token of Alice's (refreshed, more scopes) keeps her session.
        again = bearer(token(scope="mcp files"))
        await raw.send("POST", call("whoami", {}), mcp_session_id=sid, **again)
        assert b'"text":"alice"' in (await raw.answer()).body
        assert len(jwks.requests) == 1


async def test_a_modern_request_gets_the_step_up_challenge_from_its_head(
    flavour: tuple[str, str],
) -> None:
    async with served(flavour) as (client, _, _), client("/mcp") as raw:
        # The body is no JSON-RPC request at all (it would get 400): the 403
        # comes from Mcp-Method / Mcp-Name alone.
        headers = modern_headers("tools/call", "delete")
        await raw.send("POST", "not a request", **headers, **bearer(token()))
        answer = await raw.answer()
        assert answer.status == 403
        assert challenge(answer) == (
            'Bearer error="insufficient_scope", '
            f'resource_metadata="{METADATA_URL}", scope="mcp files:write files:admin", '
            'error_description="the access token lacks a scope this needs"'
        )
        # Other tools need only "mcp".
        echo = call("echo", {"text": "hi"}, id=3, _meta=META)
        await raw.send("POST", echo, **modern_headers("tools/call", "echo"), **bearer(token()))
        assert (await raw.answer()).json()["result"]["content"][0]["text"] == "hi"
        # With the scopes (a broader one implies them), the call goes through.
        delete = call("delete", {"path": "/tmp/x"}, id=4, _meta=META)
        await raw.send("POST", delete, **headers, **bearer(token(scope="mcp files")))
        assert (await raw.answer()).json()["result"]["content"][0]["text"] == "deleted /tmp/x"


async def test_a_legacy_call_is_checked_when_its_body_is_read(flavour: tuple[str, str]) -> None:
    async with served(flavour) as (client, _, _), client("/mcp") as raw:
        alice = bearer(token())
        await raw.send("POST", initialize(), **alice)
        sid = (await raw.answer()).headers["mcp-session-id"]
        await raw.send("POST", call("delete", {"path": "x"}, id=9), mcp_session_id=sid, **alice)
        answer = await raw.answer()
        assert answer.status == 403 and answer.json()["id"] == 9
        assert 'scope="mcp files:write files:admin"' in challenge(answer)
        stepped_up = bearer(token(scope="mcp files:write files:admin"))
        await raw.send(
            "POST", call("delete", {"path": "x"}, id=10), mcp_session_id=sid, **stepped_up
        )
        assert b"deleted x" in (await raw.answer()).body


async def test_every_member_of_a_2025_03_26_batch_is_checked(flavour: tuple[str, str]) -> None:
    # A batch is served whole or refused whole, so one member the token may not
    # run refuses it before any member runs.
    async with served(flavour) as (client, _, _), client("/mcp") as raw:
        alice = bearer(token())
        await raw.send("POST", initialize("2025-03-26"), **alice)
        sid = (await raw.answer()).headers["mcp-session-id"]
        version = {"mcp_session_id": sid, "mcp_protocol_version": "2025-03-26"}
        initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        await raw.send("POST", initialized, **version, **alice)
        assert (await raw.answer()).status == 202
        ping = {"jsonrpc": "2.0", "id": 11, "method": "ping"}
        batch = [ping, call("delete", {"path": "x"}, id=12)]
        await raw.send("POST", batch, **version, **alice)
        answer = await raw.answer()
        assert answer.status == 403
        assert 'scope="mcp files:write files:admin"' in challenge(answer)
        stepped_up = bearer(token(scope="mcp files:write files:admin"))
        await raw.send("POST", batch, **version, **stepped_up)
        served_batch = await raw.answer()
        assert served_batch.status == 200
        assert sorted(item["id"] for item in served_batch.json()) == [11, 12]


async def test_an_unknown_kid_flood_fetches_the_jwks_once_per_interval(
    flavour: tuple[str, str],
) -> None:
    async with served(flavour, min_refetch_interval=3600) as (client, jwks, verifier):
        async with client("/mcp") as raw:
            await raw.send("POST", initialize(), **bearer(token()))
            assert (await raw.answer()).status == 200
        assert len(jwks.requests) == 1

        async def flood(index: int) -> None:
            async with client("/mcp") as raw:
                await raw.send("POST", initialize(), **bearer(token(kid=f"made-up-{index}")))
                answer = await raw.answer()
                assert answer.status == 401 and "unknown key" in challenge(answer)

        async with anyio.create_task_group() as tg:
            for index in range(20):
                tg.start_soon(flood, index)
        assert len(jwks.requests) == 1 and verifier.fetches == 1


async def test_a_jwks_that_cannot_be_fetched_is_a_500_not_a_401(
    flavour: tuple[str, str],
) -> None:
    verifier = JwtVerifier("http://127.0.0.1:1/jwks", issuer=ISSUER, audience=RESOURCE)
    with anyio.fail_after(LIMIT * 2):
        async with protecting(flavour[1], verifier) as client, client("/mcp") as raw:
            await raw.send("POST", initialize(), **bearer(token()))
            assert (await raw.answer()).status == 500


async def test_opaque_tokens_are_introspected_once(flavour: tuple[str, str]) -> None:
    answers = {
        "opaque-alice": {"active": True, "sub": "alice", "scope": "mcp", "aud": RESOURCE},
        "opaque-revoked": {"active": False},
    }
    with anyio.fail_after(LIMIT * 2):
        async with introspection_endpoint(answers) as endpoint:
            verifier = IntrospectionVerifier(endpoint.url, audience=RESOURCE)
            async with protecting(flavour[1], verifier) as client, client("/mcp") as raw:
                for _ in range(2):
                    await raw.send("POST", initialize(), **bearer("opaque-alice"))
                    assert (await raw.answer()).status == 200
                await raw.send("POST", initialize(), **bearer("opaque-revoked"))
                answer = await raw.answer()
                assert answer.status == 401 and "not active" in challenge(answer)
            assert len(endpoint.requests) == 2


async def test_a_request_state_is_bound_to_the_token_subject(flavour: tuple[str, str]) -> None:
    meta = {**META, "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}
    headers = modern_headers("tools/call", "confirm")
    async with served(flavour) as (client, _, _), client("/mcp") as raw:
        await raw.send("POST", call("confirm", {}, id=1, _meta=meta), **headers, **bearer(token()))
        asked = (await raw.answer()).json()["result"]
        assert asked["resultType"] == "input_required"
        (key,) = asked["inputRequests"]
        retry: dict[str, Any] = {
            "_meta": meta,
            "requestState": asked["requestState"],
            "inputResponses": {key: {"action": "accept", "content": {}}},
        }
        # Bob replays Alice's requestState with his own valid token.
        bob = bearer(token(sub="bob"))
        await raw.send("POST", call("confirm", {}, id=2, **retry), **headers, **bob)
        error = (await raw.answer()).json()["error"]
        assert error["data"] == {"reason": "wrong principal"}
        await raw.send("POST", call("confirm", {}, id=3, **retry), **headers, **bearer(token()))
        result = (await raw.answer()).json()["result"]
        assert result["content"][0]["text"] == "alice said accept"
