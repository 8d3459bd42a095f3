"""The resource server rules, sans I/O: Protected Resource Metadata (RFC 9728),
bearer challenges (RFC 6750), what a verifier's verdict earns, and the per-method
and per-tool scopes, on request heads and on decoded bodies (2026-07-28
basic/authorization/index.mdx "Scope Challenge Handling")."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mcp_core.auth import (
    Principal,
    ProtectedResource,
    ResourceConfig,
    ScopePolicy,
    TokenRefusal,
    bearer_challenge,
)
from mcp_core.http.decisions import AuthRefusal, Dispatch, HttpRequest, Reply
from mcp_core.http.server import HttpEndpoint
from mcp_core.wire.jsonrpc import decode_message


def request(method: str = "POST", target: str = "/mcp", **headers: str) -> HttpRequest:
    base = {"host": "127.0.0.1:8000"}
    if method == "POST":
        base |= {
            "accept": "application/json, text/event-stream",
            "content-type": "application/json",
        }
    base |= {k.replace("_", "-"): v for k, v in headers.items()}
    return HttpRequest.from_pairs(method, target, base.items())


def body(method: str, id: int = 1, **params: Any) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).encode()


def header(reply: Reply, name: str) -> str | None:
    return dict(reply.headers).get(name)


def error_of(reply: Reply) -> dict[str, Any]:
    error: dict[str, Any] = json.loads(reply.body)["error"]
    return error


INITIALIZE = body(
    "initialize",
    id=0,
    protocolVersion="2025-11-25",
    capabilities={},
    clientInfo={"name": "t", "version": "1"},
)
RESOURCE = "https://mcp.example.com/mcp"
METADATA_URL = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
POLICY = ScopePolicy(
    required=("mcp",),
    methods={"tools/call": ("tools",)},
    tools={"delete": ("files:write", "files:admin")},
    implies={"files": ("files:rw",), "files:rw": ("files:write", "files:admin")},
)


def protected(**config: Any) -> ProtectedResource:
    options: dict[str, Any] = {
        "resource": RESOURCE,
        "authorization_servers": ("https://auth.example.com",),
        "scopes": POLICY,
        "scopes_supported": ("mcp", "tools"),
    }
    return ProtectedResource(ResourceConfig(**(options | config)))


def challenge_of(refusal: AuthRefusal | Reply) -> str:
    found = dict(refusal.headers)["www-authenticate"]
    return found


def principal(*scopes: str, expires_at: float | None = 1000.0) -> Principal:
    return Principal("alice", frozenset(scopes), "client", expires_at, "https://auth.example.com")


# --- the metadata --------------------------------------------------------------------------


def test_the_metadata_is_served_path_inserted_and_at_the_root() -> None:
    rules = protected(resource_name="Files", resource_documentation="https://docs.example.com")
    assert rules.metadata_url == METADATA_URL
    for target in (
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
    ):
        reply = rules.metadata(request("GET", target))
        assert reply is not None and reply.status == 200
        assert json.loads(reply.body) == {
            "resource": RESOURCE,
            "authorization_servers": ["https://auth.example.com"],
            "bearer_methods_supported": ["header"],
            "scopes_supported": ["mcp", "tools"],
            "resource_name": "Files",
            "resource_documentation": "https://docs.example.com",
        }
        assert header(reply, "content-type") == "application/json"
        assert header(reply, "access-control-allow-origin") == "*"
    assert rules.metadata(request("GET", "/mcp")) is None
    assert rules.metadata(request("GET", "/.well-known/oauth-protected-resource?x=1")) is not None
    assert rules.metadata(request("GET", "/.well-known/oauth-protected-resource/other")) is None


def test_the_metadata_path_follows_the_resource_uri() -> None:
    # RFC 9728 section 3.1: a lone slash after the host goes; a query stays.
    root = protected(resource="https://mcp.example.com/")
    assert root.metadata_targets == ("/.well-known/oauth-protected-resource",)
    assert root.metadata_url == "https://mcp.example.com/.well-known/oauth-protected-resource"
    tenant = protected(resource="https://mcp.example.com/t/mcp?tenant=a")
    assert tenant.metadata_targets[0] == "/.well-known/oauth-protected-resource/t/mcp?tenant=a"
    assert tenant.metadata(request("GET", tenant.metadata_targets[0])) is not None
    assert tenant.metadata(request("GET", "/.well-known/oauth-protected-resource/t/mcp")) is None
    # Mounted below the root: the whole path counts.
    mounted = HttpRequest.from_pairs(
        "GET", "/oauth-protected-resource/mcp", [], prefix="/.well-known"
    )
    assert root.metadata(mounted) is None and protected().metadata(mounted) is not None


def test_the_metadata_answers_get_and_preflight_only() -> None:
    rules = protected()
    target = "/.well-known/oauth-protected-resource"
    preflight = rules.metadata(request("OPTIONS", target))
    assert preflight is not None and preflight.status == 204
    post = rules.metadata(request("POST", target))
    assert post is not None and post.status == 405 and header(post, "allow") == "GET"


def test_a_resource_config_is_checked() -> None:
    with pytest.raises(ValueError, match="absolute"):
        protected(resource="mcp.example.com")
    with pytest.raises(ValueError, match="fragment"):
        protected(resource="https://mcp.example.com/mcp#x")
    with pytest.raises(ValueError, match="authorization server"):
        protected(authorization_servers=())


def test_an_optional_metadata_field_is_left_out() -> None:
    reply = protected(scopes_supported=None).metadata(
        request("GET", "/.well-known/oauth-protected-resource")
    )
    assert reply is not None and "scopes_supported" not in json.loads(reply.body)


# --- the token -----------------------------------------------------------------------------


def test_no_token_gets_401_with_metadata_and_scopes_and_no_error() -> None:
    rules = protected()
    for headers in ({}, {"authorization": "Basic YWxpY2U6c2VjcmV0"}):
        refusal = rules.token(request(**headers))
        assert isinstance(refusal, AuthRefusal) and refusal.status == 401
        # RFC 6750 section 3.1: no error code when no token came.
        assert challenge_of(refusal) == (f'Bearer resource_metadata="{METADATA_URL}", scope="mcp"')
    # Without required scopes, the challenge points at scopes_supported.
    bare = protected(scopes=ScopePolicy())
    refusal = bare.token(request())
    assert isinstance(refusal, AuthRefusal)
    assert challenge_of(refusal).endswith('scope="mcp tools"')
    # And names nothing when there is nothing to name.
    refusal = protected(scopes=ScopePolicy(), scopes_supported=None).token(request())
    assert isinstance(refusal, AuthRefusal)
    assert challenge_of(refusal) == f'Bearer resource_metadata="{METADATA_URL}"'


def test_a_modern_head_names_the_scopes_of_its_operation() -> None:
    head = request(mcp_method="tools/call", mcp_name="delete")
    refusal = protected().token(head)
    assert isinstance(refusal, AuthRefusal)
    assert 'scope="mcp tools files:write files:admin"' in challenge_of(refusal)
    # Mcp-Name in the Base64 sentinel reads as its value.
    encoded = request(mcp_method="tools/call", mcp_name="=?base64?ZGVsZXRl?=")
    assert protected().needed(encoded) == ("mcp", "tools", "files:write", "files:admin")


def test_the_bearer_token_is_read_from_the_authorization_header() -> None:
    rules = protected()
    assert rules.token(request(authorization="Bearer abc.DEF-_~+/==")) == "abc.DEF-_~+/=="
    assert rules.token(request(authorization="bearer abc")) == "abc"
    assert rules.token(request(authorization="Bearer   abc ")) == "abc"


@pytest.mark.parametrize(
    "value", ["Bearer", "Bearer a b", "Bearer a,b", "Bearer a, Bearer b", 'Bearer "a"']
)
def test_a_malformed_authorization_header_gets_400(value: str) -> None:
    refusal = protected().token(request(authorization=value))
    assert isinstance(refusal, AuthRefusal) and refusal.status == 400
    assert challenge_of(refusal).startswith('Bearer error="invalid_request"')


def test_a_token_in_the_query_is_refused() -> None:
    refusal = protected().token(request(target="/mcp?access_token=abc", authorization="Bearer a"))
    assert isinstance(refusal, AuthRefusal) and refusal.status == 400
    assert "query" in refusal.message


# --- the verdict ---------------------------------------------------------------------------


def test_a_refused_token_gets_401_invalid_token() -> None:
    refusal = protected().admit(request(), TokenRefusal('the "token" expired'), 10.0)
    assert isinstance(refusal, AuthRefusal) and refusal.status == 401
    assert challenge_of(refusal) == (
        f'Bearer error="invalid_token", resource_metadata="{METADATA_URL}", scope="mcp", '
        'error_description="the ?token? expired"'
    )
    assert refusal.reply().status == 401


def test_an_expired_principal_gets_401_whatever_the_verifier_cached() -> None:
    rules = protected()
    assert rules.admit(request(), principal("mcp", expires_at=10.0), 9.9) == principal(
        "mcp", expires_at=10.0
    )
    refusal = rules.admit(request(), principal("mcp", expires_at=10.0), 10.0)
    assert isinstance(refusal, AuthRefusal) and refusal.status == 401
    assert 'error="invalid_token"' in challenge_of(refusal)
    assert rules.admit(request(), principal("mcp", expires_at=None), 1e12) is not None


def test_missing_scopes_get_403_naming_all_the_operation_needs() -> None:
    rules = protected()
    head = request(mcp_method="tools/call", mcp_name="delete")
    refusal = rules.admit(head, principal("mcp", "tools", "files:write"), 0.0)
    assert isinstance(refusal, AuthRefusal) and refusal.status == 403
    assert challenge_of(refusal).startswith(
        'Bearer error="insufficient_scope", '
        f'resource_metadata="{METADATA_URL}", scope="mcp tools files:write files:admin"'
    )
    # A broader scope implies the narrower ones, transitively.
    assert isinstance(rules.admit(head, principal("mcp", "tools", "files"), 0.0), Principal)
    # Without the required scope, even a plain request is refused.
    plain = rules.admit(request(), principal("tools"), 0.0)
    assert isinstance(plain, AuthRefusal) and plain.status == 403


# --- the body ------------------------------------------------------------------------------


def call(name: Any, id: int = 7) -> Any:
    return decode_message(body("tools/call", id=id, name=name, arguments={}))


def test_a_body_is_checked_for_the_scopes_of_its_operation() -> None:
    rules = protected()
    refusal = rules.check(call("delete"), frozenset({"mcp", "tools"}))
    assert refusal is not None and refusal.status == 403
    assert json.loads(refusal.body)["id"] == 7
    assert "files:write files:admin" in error_of(refusal)["message"]
    assert 'scope="mcp tools files:write files:admin"' in challenge_of(refusal)
    assert rules.check(call("delete"), frozenset({"mcp", "tools", "files"})) is None
    assert rules.check(call("echo"), frozenset({"mcp", "tools"})) is None
    # A name that is no string names no tool; the method's scopes still count.
    assert rules.check(call(5), frozenset({"mcp", "tools"})) is None
    assert rules.check(call(5), frozenset({"mcp"})) is not None
    # Notifications need no more than the head did.
    note = decode_message(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
    assert rules.check(note, frozenset()) is None
    bad = decode_message(b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":[1]}')
    assert rules.check(bad, frozenset({"mcp"})) is not None


def test_the_endpoint_serves_the_metadata_and_checks_bodies() -> None:
    endpoint = HttpEndpoint(resource=protected())
    served = endpoint.check_head(request("GET", "/.well-known/oauth-protected-resource/mcp"))
    assert served is not None and served.status == 200
    # Without a resource the same path is not found.
    assert HttpEndpoint().check_head(request("GET", "/.well-known/oauth-protected-resource")) == (
        HttpEndpoint().check_head(request("GET", "/elsewhere"))
    )
    # A token without "mcp" opens no session.
    refused = endpoint.receive(request(), INITIALIZE, 0.0, "alice", scopes=frozenset())
    assert isinstance(refused, Reply) and refused.status == 403 and not endpoint.sessions
    opened = endpoint.receive(request(), INITIALIZE, 0.0, "alice", scopes=frozenset({"mcp"}))
    assert isinstance(opened, Dispatch) and opened.session_id in endpoint.sessions
    # A legacy tools/call is checked when its body is read.
    sid = opened.session_id
    assert sid is not None
    delete = body("tools/call", name="delete", arguments={})
    head = request(mcp_session_id=sid)
    denied = endpoint.receive(head, delete, 0.0, "alice", scopes=frozenset({"mcp", "tools"}))
    assert isinstance(denied, Reply) and denied.status == 403
    # scopes=None: the principal came from a plain hook; nothing is checked.
    assert isinstance(endpoint.receive(head, delete, 0.0, "alice"), Dispatch)


def test_a_modern_body_is_checked_too() -> None:
    endpoint = HttpEndpoint(resource=protected())
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    message = body("tools/call", name="delete", arguments={}, _meta=meta)
    head = request(mcp_protocol_version="2026-07-28", mcp_method="tools/call", mcp_name="delete")
    refused = endpoint.receive(head, message, 0.0, "alice", scopes=frozenset({"mcp", "tools"}))
    assert isinstance(refused, Reply) and refused.status == 403
    granted = frozenset({"mcp", "tools", "files"})
    assert isinstance(endpoint.receive(head, message, 0.0, "alice", scopes=granted), Dispatch)


def test_an_http_sse_post_is_checked_too() -> None:
    endpoint = HttpEndpoint(resource=protected())
    head = HttpRequest.from_pairs(
        "GET", "/sse", [("host", "localhost:1"), ("accept", "text/event-stream")]
    )
    opened = endpoint.receive(head, b"", 0.0, "alice", scopes=frozenset({"mcp"}))
    endpoint_event = opened.first.decode()  # type: ignore[union-attr]
    target = endpoint_event.split("data: ")[1].strip()
    post = request(target=target)
    delete = body("tools/call", name="delete", arguments={})
    denied = endpoint.receive(post, delete, 0.0, "alice", scopes=frozenset({"mcp", "tools"}))
    assert isinstance(denied, Reply) and denied.status == 403
    garbage = endpoint.receive(post, b"{", 0.0, "alice", scopes=frozenset({"mcp"}))
    assert isinstance(garbage, Reply) and garbage.status != 403


def test_a_challenge_leaves_out_what_a_quoted_string_cannot_carry() -> None:
    value = bearer_challenge(
        'https://x/"m', ("ok", 'bad"scope', "", "also\\bad"), "invalid_token", "é"
    )
    assert value == (
        'Bearer error="invalid_token", resource_metadata="https://x/%m", scope="ok", '
        'error_description="?"'
    )
