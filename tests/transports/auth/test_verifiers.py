"""The token verifiers against endpoints on 127.0.0.1: JWTs with keys from a
JWKS (algorithms, headers, claims, key rotation and the refetch interval, a JWKS
that fails), RFC 7662 introspection (answers, the bounded cache), and the bounded
fetch they share. asyncio and trio; every wait bounded by LIMIT."""

from __future__ import annotations

import base64
import json
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import jwt
import pytest
from auth_helpers import (
    EC_KEY,
    ISSUER,
    OTHER_KEY,
    RESOURCE,
    RSA_KEY,
    Endpoint,
    introspection_endpoint,
    jwks_endpoint,
    public_jwk,
    token,
)
from http_helpers import LIMIT
from net_helpers import RawConnection, response, scripted

from mcp_core.auth import Principal, TokenRefusal
from transports.auth.fetch import FetchError, fetch
from transports.auth.introspection import IntrospectionVerifier
from transports.auth.jwt import JwtVerifier

pytestmark = pytest.mark.anyio


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


class Clock:
    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@asynccontextmanager
async def jwks(*keys: dict[str, Any]) -> AsyncIterator[tuple[Endpoint, list[dict[str, Any]]]]:
    """A JWKS endpoint serving the list it yields (change it to rotate keys)."""
    served = list(keys)
    with anyio.fail_after(LIMIT):
        async with jwks_endpoint(lambda: served) as endpoint:
            yield endpoint, served


def refused(verdict: Principal | TokenRefusal, words: str) -> bool:
    return isinstance(verdict, TokenRefusal) and words in verdict.reason


# --- JWT ----------------------------------------------------------------------------------


async def test_a_good_token_gives_its_principal() -> None:
    async with jwks(public_jwk(EC_KEY, "k1")) as (endpoint, _):
        verifier = JwtVerifier(endpoint.url, issuer=ISSUER, audience=RESOURCE)
        value = token(scope=None, scp=["mcp", "files"], client_id=None, azp="app", exp=2**31)
        assert await verifier.verify(value) == Principal(
            "alice", frozenset({"mcp", "files"}), "app", float(2**31) + 30, ISSUER
        )
        # typ "at+jwt" (RFC 9068) is accepted as "JWT" is.
        typed = jwt.encode(
            {**jwt.decode(value, options={"verify_signature": False})},
            EC_KEY,
            algorithm="ES256",
            headers={"kid": "k1", "typ": "at+jwt"},
        )
        assert isinstance(await verifier.verify(typed), Principal)


async def test_rs256_with_the_only_key_when_there_is_no_kid() -> None:
    async with jwks(public_jwk(RSA_KEY, "r")) as (endpoint, served):
        verifier = JwtVerifier(endpoint.url, issuer=ISSUER, audience=RESOURCE)
        assert isinstance(await verifier.verify(token(RSA_KEY, "RS256", kid=None)), Principal)
        # With two keys, a token must say which.
        served.append(public_jwk(EC_KEY, "k1"))
        fresh = JwtVerifier(endpoint.url, issuer=ISSUER, audience=RESOURCE)
        assert refused(await fresh.verify(token(RSA_KEY, "RS256", kid=None)), "unknown key")


def test_only_asymmetric_algorithms_may_be_allowed() -> None:
    for algorithms in (("HS256",), ("none",), ()):
        with pytest.raises(ValueError, match="asymmetric"):
            JwtVerifier("http://x/jwks", issuer=ISSUER, audience=RESOURCE, algorithms=algorithms)


async def test_headers_are_checked_before_any_key_is_fetched() -> None:
    async with jwks(public_jwk(EC_KEY, "k1")) as (endpoint, _):
        verifier = JwtVerifier(endpoint.url, issuer=ISSUER, audience=RESOURCE)
        payload = {"iss": ISSUER, "sub": "a", "aud": RESOURCE, "exp": 2**31}
        # HMAC keyed with what an attacker knows (the public key): never.
        hmac = jwt.encode(
            payload,
            "public-key-bytes-of-the-server-0123456789",
            algorithm="HS256",
            headers={"kid": "k1"},
        )
        assert refused(await verifier.verify(hmac), "'HS256' is not accepted")
        # An allowed algorithm that this verifier was not told to accept.
        assert refused(await verifier.verify(token(RSA_KEY, "PS256")), "'PS256'")
        for extra, words in (
            ({"typ": "JWS"}, "typ"),
            ({"typ": 5}, "typ"),
            # PyJWT refuses unknown critical extensions as malformed already.
            ({"crit": ["exp"]}, "the access token"),
        ):
            headers = {"kid": "k1", **extra}
            value = jwt.encode(payload, EC_KEY, algorithm="ES256", headers=headers)
            assert refused(await verifier.verify(value), words), extra
        # A kid that is no string (PyJWT will not write one; by hand, then).
        parts = [{"alg": "ES256", "kid": 7}, payload]
        encoded = [base64.urlsafe_b64encode(json.dumps(p).encode()).rstrip(b"=") for p in parts]
        assert refused(
            await verifier.verify(b".".join([*encoded, b"c2ln"]).decode()), "well-formed"
        )
        assert refused(await verifier.verify("a.b.c"), "well-formed")
        assert endpoint.requests == [] and verifier.fetches == 0


async def test_time_claims_allow_some_leeway() -> None:
    async with jwks(public_jwk(EC_KEY, "k1")) as (endpoint, _):
        verifier = JwtVerifier(endpoint.url, issuer=ISSUER, audience=RESOURCE, leeway=30)
        now = int(time.time())
        assert isinstance(await verifier.verify(token(exp=now - 10)), Principal)
        assert refused(await verifier.verify(token(exp=now - 60)), "expired")
        # The principal lasts as long as the token is accepted (issue 30 item 9).
        accepted = await verifier.verify(token(exp=now - 10))
        assert isinstance(accepted, Principal) and accepted.expires_at == now + 20
        assert isinstance(await verifier.verify(token(nbf=now + 10)), Principal)
        assert refused(await verifier.verify(token(nbf=now + 60)), "not valid yet")
        assert refused(await verifier.verify(token(exp=None)), "'exp'")


async def test_the_audience_check_is_off_only_when_told() -> None:
    async with jwks(public_jwk(EC_KEY, "k1")) as (endpoint, _):
        strict = JwtVerifier(endpoint.url, issuer=ISSUER, audience=RESOURCE)
        lax = JwtVerifier(endpoint.url, issuer=ISSUER, audience=None)
        assert refused(await strict.verify(token(aud=None)), "'aud'")
        assert isinstance(await lax.verify(token(aud=None)), Principal)
        # An audience list naming us is fine.
        assert isinstance(await strict.verify(token(aud=["x", RESOURCE])), Principal)


async def test_a_key_for_another_algorithm_is_not_used() -> None:
    async with jwks(public_jwk(EC_KEY, "k1", alg="ES384")) as (endpoint, _):
        verifier = JwtVerifier(endpoint.url, issuer=ISSUER, audience=RESOURCE)
        assert refused(await verifier.verify(token()), "unknown key")


async def test_keys_rotate_within_the_refetch_interval() -> None:
    clock = Clock()
    async with jwks(public_jwk(EC_KEY, "k1")) as (endpoint, served):
        verifier = JwtVerifier(
            endpoint.url, issuer=ISSUER, audience=RESOURCE, min_refetch_interval=60, clock=clock
        )
        assert isinstance(await verifier.verify(token()), Principal)
        served.append(public_jwk(OTHER_KEY, "k2"))
        rotated = token(OTHER_KEY, kid="k2")
        # Too soon after the last fetch: the new key is not looked for yet.
        clock.now += 59
        assert refused(await verifier.verify(rotated), "unknown key")
        assert verifier.fetches == 1
        clock.now += 1
        assert isinstance(await verifier.verify(rotated), Principal)
        assert verifier.fetches == 2 and len(endpoint.requests) == 2
        # Known keys cost no fetch; a stale JWKS (max_age) is fetched again.
        assert isinstance(await verifier.verify(token()), Principal)
        clock.now += 3600
        assert isinstance(await verifier.verify(token()), Principal)
        assert verifier.fetches == 3


async def test_a_jwks_that_fails_raises_until_keys_are_had() -> None:
    answers = [response(500), response(200, {}, b"<html>"), response(200, {}, b'{"keys": 1}')]

    async def handle(connection: RawConnection) -> None:
        if await connection.request() is not None:
            await connection.write(answers.pop(0) if answers else response(200, {}, b"{}"))

    clock = Clock()
    with anyio.fail_after(LIMIT):
        async with scripted(handle) as port:
            verifier = JwtVerifier(
                f"http://127.0.0.1:{port}/jwks", issuer=ISSUER, audience=RESOURCE, clock=clock
            )
            for words in ("status 500", "not JSON", "no keys"):
                with pytest.raises(FetchError, match=words):
                    await verifier.verify(token())
                # Within the interval nothing is fetched, and there are no keys.
                with pytest.raises(FetchError, match="no JWKS"):
                    await verifier.verify(token())
                clock.now += 60
            assert verifier.fetches == 3


async def test_old_keys_are_kept_when_a_refresh_fails() -> None:
    clock = Clock()
    async with jwks(public_jwk(EC_KEY, "k1")) as (endpoint, _):
        verifier = JwtVerifier(endpoint.url, issuer=ISSUER, audience=RESOURCE, clock=clock)
        assert isinstance(await verifier.verify(token()), Principal)
    # The JWKS endpoint is gone; the keys went stale.
    clock.now += 4000
    assert isinstance(await verifier.verify(token()), Principal)
    assert verifier.fetches == 2


# --- introspection ------------------------------------------------------------------------

ACTIVE = {
    "active": True,
    "sub": "alice",
    "client_id": "app",
    "scope": "mcp files",
    "aud": [RESOURCE],
    "iss": ISSUER,
    "exp": 2**31,
}


@asynccontextmanager
async def introspecting(**answers: dict[str, Any]) -> AsyncIterator[Endpoint]:
    with anyio.fail_after(LIMIT):
        async with introspection_endpoint(answers) as endpoint:
            yield endpoint


async def test_an_active_token_gives_its_principal() -> None:
    async with introspecting(good=ACTIVE) as endpoint:
        verifier = IntrospectionVerifier(
            endpoint.url, audience=RESOURCE, issuer=ISSUER, client_id="rs:1", client_secret="s&"
        )
        assert await verifier.verify("good") == Principal(
            "alice", frozenset({"mcp", "files"}), "app", float(2**31), ISSUER
        )
        (request,) = endpoint.requests
        assert (
            request.method == "POST" and request.body == b"token=good&token_type_hint=access_token"
        )
        # RFC 6749 section 2.3.1: each part form-encoded, then Base64.
        basic = base64.b64encode(b"rs%3A1:s%26").decode()
        assert request.headers["authorization"] == f"Basic {basic}"


@pytest.mark.parametrize(
    ("answer", "words"),
    [
        ({"active": False}, "not active"),
        ({"active": "true"}, "not active"),
        ({**ACTIVE, "aud": "https://other.example.com"}, "another resource"),
        ({**ACTIVE, "iss": "https://evil.example.com"}, "another issuer"),
        ({**ACTIVE, "exp": 5}, "expired"),
        ({**ACTIVE, "exp": "soon"}, "expired"),
        ({**ACTIVE, "nbf": 2**31}, "not valid yet"),
        ({"active": True, "aud": RESOURCE}, "no subject"),
    ],
)
async def test_an_answer_is_checked(answer: dict[str, Any], words: str) -> None:
    async with introspecting(t=answer) as endpoint:
        verifier = IntrospectionVerifier(endpoint.url, audience=RESOURCE, issuer=ISSUER)
        assert refused(await verifier.verify("t"), words)


async def test_a_client_credentials_token_is_its_client() -> None:
    answer = {"active": True, "client_id": "robot", "scope": "mcp"}
    async with introspecting(t=answer) as endpoint:
        verifier = IntrospectionVerifier(endpoint.url, audience=None)
        found = await verifier.verify("t")
        assert isinstance(found, Principal) and found.subject == "robot"
        assert found.expires_at is None and found.issuer is None


async def test_answers_are_cached_for_a_while_and_up_to_a_size() -> None:
    clock = Clock(time.time())
    answers = {name: ACTIVE for name in ("a", "b", "c")}
    async with introspecting(**answers) as endpoint:
        verifier = IntrospectionVerifier(
            endpoint.url, audience=RESOURCE, cache_ttl=60, max_cached=2, clock=clock
        )
        for name in ("a", "a", "b", "a", "zzz", "zzz"):
            await verifier.verify(name)
        assert verifier.requests == 3  # a, b, zzz (an inactive answer is cached too)
        # "b" was the least recently used of three: dropped.
        await verifier.verify("a")
        await verifier.verify("b")
        assert verifier.requests == 4
        clock.now += 61
        await verifier.verify("a")
        assert verifier.requests == 5 == len(endpoint.requests)


async def test_a_cached_answer_ends_with_its_token() -> None:
    clock = Clock(1000.0)
    async with introspecting(t={**ACTIVE, "exp": 1010}) as endpoint:
        verifier = IntrospectionVerifier(endpoint.url, audience=RESOURCE, clock=clock)
        assert isinstance(await verifier.verify("t"), Principal)
        clock.now = 1010
        assert refused(await verifier.verify("t"), "expired")
        assert verifier.requests == 2


async def test_an_endpoint_that_fails_raises() -> None:
    async def handle(connection: RawConnection) -> None:
        if await connection.request() is not None:
            await connection.write(response(503))

    with anyio.fail_after(LIMIT):
        async with scripted(handle) as port:
            verifier = IntrospectionVerifier(f"http://127.0.0.1:{port}/i", audience=None)
            with pytest.raises(FetchError, match="status 503"):
                await verifier.verify("t")


# --- fetch --------------------------------------------------------------------------------


async def test_a_fetch_is_bounded_in_time_and_size() -> None:
    async def silent(connection: RawConnection) -> None:
        await connection.request()
        await anyio.sleep_forever()

    async def flood(connection: RawConnection) -> None:
        await connection.request()
        await connection.write(response(200, {}, b"x" * 5000))

    with anyio.fail_after(LIMIT):
        async with scripted(silent) as port:
            with pytest.raises(FetchError, match="timed out"):
                await fetch("GET", f"http://127.0.0.1:{port}/", timeout=0.2)
        async with scripted(flood) as port:
            with pytest.raises(FetchError, match="exceeds 1000 bytes"):
                await fetch("GET", f"http://127.0.0.1:{port}/", max_bytes=1000)
            small = await fetch("GET", f"http://127.0.0.1:{port}/")
            assert small.status == 200 and len(small.body) == 5000
        with pytest.raises(FetchError, match="not an http"):
            await fetch("GET", "ftp://127.0.0.1/")
