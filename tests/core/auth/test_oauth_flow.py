"""The OAuth client flow end to end against a scripted authorization server."""

from __future__ import annotations

import base64
import json
from typing import Any

import msgspec
import pytest
from oauth_helpers import (
    ISSUER,
    NOW,
    SERVER,
    World,
    as_metadata,
    form_of,
    new_flow,
    prm,
    query_of,
    s256,
)

from mcp_core.auth.actions import (
    Authorized,
    AuthorizeUser,
    Credentials,
    Failed,
    PendingAuthorization,
    SendRequest,
)
from mcp_core.auth.config import IdentityExchange, OAuthConfig
from mcp_core.auth.flow import OAuthFlow
from mcp_core.auth.registration import ClientInfo
from mcp_core.auth.tokens import Tokens

PRM_URL = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"


def token_requests(world: World) -> list[dict[str, str]]:
    return [form_of(r.body) for r in world.requests if r.url == f"{ISSUER}/token"]


def test_code_flow_with_registration_pkce_and_resource() -> None:
    world = World.standard()
    flow = new_flow()
    action = world.challenge(flow, header='Bearer scope="files:read"', user=False)
    assert isinstance(action, AuthorizeUser)
    registration = json.loads(world.requests[-1].body)
    assert registration["grant_types"] == ["authorization_code", "refresh_token"]
    assert registration["application_type"] == "native"
    assert registration["redirect_uris"] == ["http://127.0.0.1:33418/callback"]
    query = query_of(action.url)
    pending = flow.pending()
    assert pending is not None
    assert query["client_id"] == "dyn-client"
    assert query["code_challenge_method"] == "S256"
    assert query["code_challenge"] == s256(pending.verifier)
    assert query["resource"] == SERVER and query["scope"] == "files:read"
    result = world.run(flow, flow.redirected(world.redirect_for(action), NOW))
    assert result == Authorized("token-1")
    (form,) = token_requests(world)
    assert form["grant_type"] == "authorization_code"
    assert form["code_verifier"] == pending.verifier
    assert form["resource"] == SERVER and form["client_id"] == "dyn-client"
    assert flow.token(NOW) == "token-1"
    record = world.store[ISSUER]
    assert record.client is not None and record.client.issuer == ISSUER
    assert record.tokens[SERVER].access_token == "token-1"


@pytest.mark.parametrize(
    ("prm_scopes", "as_scopes", "challenge", "expected"),
    [
        (["a", "b"], None, "Bearer", "a b"),
        (None, None, "Bearer", None),
        (["a"], None, 'Bearer scope="c"', "c"),
        (["a"], ["a", "offline_access"], "Bearer", "a offline_access"),
        (None, ["a", "offline_access"], "Bearer", None),
    ],
)
def test_scope_selection(
    prm_scopes: list[str] | None, as_scopes: list[str] | None, challenge: str, expected: str | None
) -> None:
    world = World.standard(scopes_supported=as_scopes)
    if prm_scopes is not None:
        world.answers[PRM_URL] = (200, prm(scopes_supported=prm_scopes))
    action = world.challenge(new_flow(), header=challenge, user=False)
    assert isinstance(action, AuthorizeUser)
    assert query_of(action.url).get("scope") == expected


@pytest.mark.parametrize(
    ("method", "secret_in_body", "client_id_in_body", "basic"),
    [
        ("client_secret_basic", False, False, True),
        ("client_secret_post", True, True, False),
        ("none", False, True, False),
    ],
)
def test_token_endpoint_authentication(
    method: str, secret_in_body: bool, client_id_in_body: bool, basic: bool
) -> None:
    world = World.standard(token_endpoint_auth_methods_supported=[method])
    registered = {"client_id": "c:1", "token_endpoint_auth_method": method}
    if method != "none":
        registered["client_secret"] = "s e/cret"
    world.answers[f"{ISSUER}/register"] = (201, registered)
    assert isinstance(world.challenge(new_flow()), Authorized)
    request = next(r for r in world.requests if r.url.endswith("/token"))
    form = form_of(request.body)
    assert ("client_secret" in form) is secret_in_body
    assert ("client_id" in form) is client_id_in_body
    headers = dict(request.headers)
    assert ("authorization" in headers) is basic
    if basic:
        decoded = base64.b64decode(headers["authorization"].removeprefix("Basic ")).decode()
        assert decoded == "c%3A1:s%20e%2Fcret"


def test_registration_order_pre_registered_then_metadata_document_then_dcr() -> None:
    world = World.standard(client_id_metadata_document_supported=True)
    url = "https://client.example/metadata.json"
    action = world.challenge(new_flow(client_metadata_url=url), user=False)
    assert isinstance(action, AuthorizeUser) and query_of(action.url)["client_id"] == url
    assert not any(r.url.endswith("/register") for r in world.requests)

    world = World.standard(client_id_metadata_document_supported=True)
    flow = new_flow(client_metadata_url=url, client_id="pre", client_secret="s")
    action = world.challenge(flow, user=False)
    assert isinstance(action, AuthorizeUser) and query_of(action.url)["client_id"] == "pre"


def test_no_registration_possible_is_a_failure() -> None:
    world = World.standard(registration_endpoint=None)
    result = world.challenge(new_flow())
    assert isinstance(result, Failed) and "give a client id" in result.reason


def test_pre_registered_credentials_stay_with_their_issuer() -> None:
    world = World.standard()
    result = world.challenge(new_flow(client_id="pre", client_issuer="https://other.example"))
    assert isinstance(result, Failed) and "other.example" in result.reason
    assert not world.authorizations


def test_stored_client_of_another_issuer_is_not_used() -> None:
    world = World.standard()
    stranger = ClientInfo(client_id="old", issuer="https://old.example")
    world.store[ISSUER] = Credentials(issuer=ISSUER, client=stranger)
    action = world.challenge(new_flow(), user=False)
    assert isinstance(action, AuthorizeUser)
    assert query_of(action.url)["client_id"] == "dyn-client"


def test_a_stored_fresh_token_is_used_without_asking_the_user() -> None:
    world = World.standard()
    tokens = Tokens(access_token="kept", resource=SERVER, expires_at=NOW + 3600)
    world.store[ISSUER] = Credentials(issuer=ISSUER, tokens={SERVER: tokens})
    assert world.challenge(new_flow()) == Authorized("kept")
    assert not world.authorizations


def test_step_up_asks_for_the_union_and_stops_after_three_authorizations() -> None:
    world = World.standard()
    flow = new_flow()
    assert isinstance(world.challenge(flow, header='Bearer scope="read"'), Authorized)
    header = 'Bearer error="insufficient_scope", scope="write"'
    assert isinstance(world.challenge(flow, 403, header), Authorized)
    assert query_of(world.authorizations[1])["scope"] == "read write"
    assert isinstance(world.challenge(flow, 403, header), Authorized)
    result = world.challenge(flow, 403, header)
    assert isinstance(result, Failed) and "gave up after 3" in result.reason
    assert len(world.authorizations) == 3


def test_403_without_insufficient_scope_is_a_failure() -> None:
    result = new_flow().challenged(403, 'Bearer error="invalid_token"', NOW)
    assert isinstance(result[0], Failed)


def test_refresh_before_expiry_and_on_401() -> None:
    world = World.standard()
    world.tokens = {"expires_in": 60, "refresh_token": "r1"}
    flow = new_flow()
    assert world.challenge(flow) == Authorized("token-1")
    assert flow.token(NOW) == "token-1"
    later = NOW + 45  # within the 30 s margin of expiry
    assert flow.token(later) is None
    world.now = later
    assert world.run(flow, flow.refresh(later)) == Authorized("token-2")
    refresh = token_requests(world)[-1]
    assert refresh["grant_type"] == "refresh_token" and refresh["refresh_token"] == "r1"
    assert refresh["resource"] == SERVER
    # A refresh answer without a refresh token keeps the old one.
    world.tokens = {"expires_in": 60}
    assert world.challenge(flow) == Authorized("token-3")
    assert token_requests(world)[-1]["grant_type"] == "refresh_token"
    assert world.store[ISSUER].tokens[SERVER].refresh_token == "r1"
    # The refreshed token refused again: a full authorization, not another refresh.
    assert world.challenge(flow) == Authorized("token-4")
    assert token_requests(world)[-1]["grant_type"] == "authorization_code"


def test_a_refused_refresh_falls_back_to_authorization() -> None:
    world = World.standard()
    world.tokens = {"refresh_token": "r1"}
    flow = new_flow()
    assert world.challenge(flow) == Authorized("token-1")
    world.answers[f"{ISSUER}/token"] = (400, {"error": "invalid_grant"})
    assert flow.refresh(NOW)  # starts the refresh
    result = world.run(flow, flow.challenged(401, "Bearer", NOW))
    assert isinstance(result, Failed)  # the scripted token endpoint now refuses all
    assert "invalid_grant" in result.reason
    assert len(world.authorizations) == 2


@pytest.mark.parametrize(
    ("advertised", "extra", "ok"),
    [
        (True, {"iss": ISSUER}, True),
        (True, {}, False),
        (False, {}, True),
        (False, {"iss": ISSUER}, True),
        (False, {"iss": "https://auth.example.com/"}, False),
        (True, {"iss": "HTTPS://auth.example.com"}, False),
        (False, {"iss": "https://evil.example", "error": "access_denied"}, False),
    ],
)
def test_iss_in_the_authorization_response(
    advertised: bool, extra: dict[str, str], ok: bool
) -> None:
    world = World.standard(authorization_response_iss_parameter_supported=advertised)
    world.redirect_extra = extra
    result = world.challenge(new_flow())
    assert isinstance(result, Authorized) is ok
    if not ok:
        assert not token_requests(world)  # the code never reaches a token endpoint
        assert isinstance(result, Failed) and "access_denied" not in result.reason


def test_state_mismatch_and_errors_in_the_redirect() -> None:
    world = World.standard()
    flow = new_flow()
    action = world.challenge(flow, user=False)
    assert isinstance(action, AuthorizeUser)
    bad = flow.redirected(f"{action.redirect_uri}?code=x&state=other", NOW)
    assert isinstance(bad[0], Failed) and "state" in bad[0].reason
    action = world.challenge(flow, user=False)
    assert isinstance(action, AuthorizeUser)
    state = query_of(action.url)["state"]
    refused = flow.redirected(f"{action.redirect_uri}?error=access_denied&state={state}", NOW)
    assert isinstance(refused[0], Failed) and "access_denied" in refused[0].reason
    assert isinstance(flow.redirected("http://x/?code=1", NOW)[0], Failed)  # nothing pending


@pytest.mark.parametrize(
    ("answer", "words"),
    [
        ((200, {"access_token": "t", "token_type": "DPoP"}), "only Bearer"),
        ((200, b"<html></html>"), "HTML"),
        ((400, {"error": "invalid_grant", "error_description": "used"}), "invalid_grant: used"),
        ((502, b"bad gateway"), "HTTP 502"),
    ],
)
def test_bad_token_answers(answer: tuple[int, Any], words: str) -> None:
    world = World.standard()
    world.answers[f"{ISSUER}/token"] = answer
    result = world.challenge(new_flow())
    assert isinstance(result, Failed) and words in result.reason


def test_a_pending_authorization_finishes_in_another_flow() -> None:
    world = World.standard()
    first = new_flow()
    action = world.challenge(first, user=False)
    assert isinstance(action, AuthorizeUser)
    pending = first.pending()
    saved = msgspec.json.encode(pending)
    restored = msgspec.json.decode(saved, type=PendingAuthorization)
    second = OAuthFlow.resume(OAuthConfig(), restored)
    result = world.run(second, second.redirected(world.redirect_for(action), NOW))
    assert result == Authorized("token-1")
    assert token_requests(world)[0]["code_verifier"] == restored.verifier
    assert world.store[ISSUER].client == restored.client


def test_a_resumed_authorization_keeps_the_stored_tokens_of_other_servers() -> None:
    world = World.standard()
    first = new_flow()
    action = world.challenge(first, user=False)
    assert isinstance(action, AuthorizeUser)
    pending = first.pending()
    assert pending is not None
    other = Tokens(access_token="other", resource="https://other.example.com/mcp")
    stored = Credentials(issuer=ISSUER, tokens={"https://other.example.com/mcp": other})
    elsewhere = Credentials(issuer="https://elsewhere.example.com", tokens={"x": other})
    for record, kept in ((stored, True), (elsewhere, False), (None, False)):
        second = OAuthFlow.resume(OAuthConfig(), pending, record)
        result = world.run(second, second.redirected(world.redirect_for(action), NOW))
        assert result == Authorized(f"token-{len(token_requests(world))}")
        saved = world.store[ISSUER]
        assert ("https://other.example.com/mcp" in saved.tokens) is kept
        assert saved.client == pending.client and "x" not in saved.tokens
    assert "other" not in stored.tokens  # the caller's record is not changed


def test_client_credentials_with_a_signed_assertion() -> None:
    world = World.standard(token_endpoint_auth_methods_supported=["private_key_jwt"])
    signed: list[bytes] = []

    def sign(data: bytes) -> bytes:
        signed.append(data)
        return b"sig"

    flow = new_flow(grant="client_credentials", client_id="svc", signer=sign)
    assert world.challenge(flow) == Authorized("token-1")
    (form,) = token_requests(world)
    assert form["grant_type"] == "client_credentials" and form["resource"] == SERVER
    assert form["client_assertion_type"].endswith("client-assertion-type:jwt-bearer")
    header, claims, signature = form["client_assertion"].split(".")
    assert signature == "c2ln" and signed == [f"{header}.{claims}".encode()]
    payload = json.loads(base64.urlsafe_b64decode(claims + "=="))
    assert payload["iss"] == payload["sub"] == "svc"
    assert payload["aud"] == ISSUER and payload["exp"] > payload["iat"] == int(NOW)


def test_client_credentials_with_a_secret_and_without_a_client() -> None:
    world = World.standard(token_endpoint_auth_methods_supported=["client_secret_post"])
    flow = new_flow(grant="client_credentials", client_id="svc", client_secret="s")
    assert world.challenge(flow) == Authorized("token-1")
    assert token_requests(world)[0]["client_secret"] == "s"
    result = World.standard().challenge(new_flow(grant="client_credentials"))
    assert isinstance(result, Failed) and "needs a client id" in result.reason


def test_jwt_bearer_with_a_workload_assertion() -> None:
    world = World.standard()
    flow = new_flow(grant="jwt_bearer", client_id="wl", assertion="a.b.c")
    assert world.challenge(flow) == Authorized("token-1")
    form = token_requests(world)[0]
    assert form["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer"
    assert form["assertion"] == "a.b.c" and form["client_id"] == "wl"


def test_jwt_bearer_with_an_id_jag_from_the_identity_provider() -> None:
    world = World.standard(token_endpoint_auth_methods_supported=["client_secret_basic"])
    idp = "https://idp.example/token"
    jag = "urn:ietf:params:oauth:token-type:id-jag"
    world.answers[idp] = (200, {"access_token": "the-jag", "issued_token_type": jag})
    identity = IdentityExchange(token_endpoint=idp, id_token="idt", client_id="idp-client")
    flow = new_flow(grant="jwt_bearer", client_id="c", client_secret="s", identity=identity)
    assert world.challenge(flow) == Authorized("token-1")
    exchange = form_of(next(r for r in world.requests if r.url == idp).body)
    assert exchange["subject_token"] == "idt" and exchange["audience"] == ISSUER
    assert exchange["requested_token_type"] == jag and exchange["resource"] == SERVER
    assert token_requests(world)[0]["assertion"] == "the-jag"
    world.answers[idp] = (200, {"access_token": "x", "issued_token_type": "other"})
    world.store.clear()
    result = world.challenge(
        new_flow(grant="jwt_bearer", client_id="c", client_secret="s", identity=identity)
    )
    assert isinstance(result, Failed) and "not an ID-JAG" in result.reason


def test_answers_nobody_asked_for_are_failures() -> None:
    flow = new_flow()
    assert isinstance(flow.received(200, [], b"{}", NOW)[0], Failed)
    assert isinstance(flow.loaded(None, NOW)[0], Failed)
    assert flow.refresh(NOW) == []
    assert isinstance(flow.challenged(500, None, NOW)[0], Failed)


def test_every_request_is_http_and_bounded_by_the_adapter() -> None:
    world = World.standard(token_endpoint="ftp://auth.example.com/token")
    result = world.challenge(new_flow())
    assert isinstance(result, Failed) and "not an http(s) URL" in result.reason
    assert all(isinstance(r, SendRequest) for r in world.requests)


def test_an_accepted_token_resets_the_bound_on_authorizations() -> None:
    world = World.standard()
    flow = new_flow()
    header = 'Bearer error="insufficient_scope", scope="more"'
    result = world.challenge(flow)
    for _ in range(4):
        assert isinstance(result, Authorized)
        flow.accepted(result.access_token)  # the server took it
        result = world.challenge(flow, 403, header)
    assert isinstance(result, Authorized) and len(world.authorizations) == 5
    flow.accepted("some other token")  # not ours: no reset


@pytest.mark.parametrize(
    "change",
    [
        {"token_endpoint": "http://auth.example.com/token"},
        {"authorization_endpoint": "http://auth.example.com/authorize"},
        {"registration_endpoint": "http://auth.example.com/register"},
    ],
)
def test_authorization_server_endpoints_must_be_https(change: dict[str, str]) -> None:
    world = World.standard(**change)
    world.answers["http://auth.example.com/register"] = (201, {"client_id": "c"})
    result = world.challenge(new_flow())
    assert isinstance(result, Failed) and "is not https" in result.reason


def test_loopback_authorization_servers_may_use_http() -> None:
    issuer = "http://127.0.0.1:9000"
    world = World()
    world.answers[PRM_URL] = (200, prm(issuer=issuer))
    world.answers[f"{issuer}/.well-known/oauth-authorization-server"] = (
        200,
        as_metadata(issuer=issuer),
    )
    world.answers[f"{issuer}/register"] = (201, {"client_id": "c"})
    assert isinstance(world.challenge(new_flow()), Authorized)
