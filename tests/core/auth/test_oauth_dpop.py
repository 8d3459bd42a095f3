"""DPoP (RFC 9449): proofs on token requests and resource requests, and the nonces
an authorization server or an MCP server may ask for."""

from __future__ import annotations

import base64
import hashlib
import json
from typing import Any

from oauth_helpers import ISSUER, NOW, SERVER, World, new_flow

from mcp_core.auth.actions import Authorized, Failed, SendRequest
from mcp_core.auth.dpop import DPoPKey, dpop_proof

KEY = DPoPKey(
    jwk={"kty": "EC", "crv": "P-256", "x": "X", "y": "Y"}, alg="ES256", sign=lambda d: b"s"
)
TOKEN_URL = f"{ISSUER}/token"


def part(jwt: str, index: int) -> dict[str, Any]:
    piece = jwt.split(".")[index]
    return dict(json.loads(base64.urlsafe_b64decode(piece + "=" * (-len(piece) % 4))))


def proofs_to_token_endpoint(world: World) -> list[dict[str, Any]]:
    return [part(dict(r.headers)["dpop"], 1) for r in world.requests if r.url == TOKEN_URL]


def test_a_proof_names_the_request_and_binds_the_token() -> None:
    proof = dpop_proof(KEY, "POST", "https://mcp.example.com/mcp?x=1#f", NOW, access_token="tok")
    header, claims = part(proof, 0), part(proof, 1)
    assert header == {"typ": "dpop+jwt", "alg": "ES256", "jwk": KEY.jwk}
    assert claims["htm"] == "POST" and claims["htu"] == "https://mcp.example.com/mcp"
    digest = hashlib.sha256(b"tok").digest()
    assert claims["ath"] == base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
    assert claims["iat"] == int(NOW) and "nonce" not in claims
    other = part(dpop_proof(KEY, "POST", SERVER, NOW, nonce="n"), 1)
    assert other["jti"] != claims["jti"] and other["nonce"] == "n"


def dpop_world(**metadata: Any) -> World:
    world = World.standard(dpop_signing_alg_values_supported=["ES256"], **metadata)
    world.tokens = {"token_type": "DPoP"}
    return world


def test_a_dpop_bound_token_goes_with_a_fresh_proof() -> None:
    world = dpop_world()
    flow = new_flow(dpop=KEY)
    assert world.challenge(flow) == Authorized("token-1")
    (claims,) = proofs_to_token_endpoint(world)
    assert claims["htm"] == "POST" and claims["htu"] == TOKEN_URL
    headers = dict(flow.resource_headers("POST", SERVER, NOW))
    assert headers["authorization"] == "DPoP token-1"
    assert part(headers["dpop"], 1)["htu"] == SERVER and "ath" in part(headers["dpop"], 1)


def test_the_authorization_server_nonce_is_echoed_once() -> None:
    world = dpop_world()
    flow = new_flow(dpop=KEY)
    answers = iter([(400, {"error": "use_dpop_nonce"}), None])
    original = world.answer

    def answer(request: SendRequest) -> tuple[int, list[tuple[str, str]], bytes]:
        if request.url == TOKEN_URL and (scripted := next(answers)) is not None:
            world.requests.append(request)
            status, body = scripted
            return status, [("dpop-nonce", "as-nonce")], json.dumps(body).encode()
        return original(request)

    world.answer = answer  # type: ignore[method-assign]
    assert world.challenge(flow) == Authorized("token-1")
    first, second = proofs_to_token_endpoint(world)
    assert "nonce" not in first and second["nonce"] == "as-nonce"


def test_the_mcp_server_nonce_retries_with_the_same_token() -> None:
    world = dpop_world()
    flow = new_flow(dpop=KEY)
    assert world.challenge(flow) == Authorized("token-1")
    header = 'DPoP error="use_dpop_nonce", resource_metadata="ftp://x"'
    assert flow.challenged(401, header, NOW, "rs-nonce") == [Authorized("token-1")]
    proof = dict(flow.resource_headers("POST", SERVER, NOW))["dpop"]
    assert part(proof, 1)["nonce"] == "rs-nonce"
    # The same nonce refused again is a real refusal: the flow starts over.
    result = flow.challenged(401, header, NOW, "rs-nonce")
    assert isinstance(result[0], Failed) and "not an http(s) URL" in result[0].reason


def test_no_dpop_where_the_server_does_not_advertise_it() -> None:
    world = World.standard()
    flow = new_flow(dpop=KEY)
    assert world.challenge(flow) == Authorized("token-1")
    assert all("dpop" not in dict(r.headers) for r in world.requests)
    assert flow.resource_headers("POST", SERVER, NOW) == [("authorization", "Bearer token-1")]
    world = World.standard()
    world.tokens = {"token_type": "DPoP"}
    result = world.challenge(new_flow())
    assert isinstance(result, Failed) and "only Bearer" in result.reason
