"""Where the flow looks for metadata, per revision, and what it refuses in it."""

from __future__ import annotations

import pytest
from oauth_helpers import ISSUER, SERVER, World, as_metadata, new_flow, prm

from mcp_core.auth.actions import Authorized, AuthorizeUser, Failed
from mcp_core.auth.discovery import (
    as_metadata_urls,
    canonical_resource,
    prm_urls,
    resource_matches,
)
from mcp_core.auth.www_authenticate import bearer_challenge, parse_challenges

PRM_INSERTED = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
PRM_ROOT = "https://mcp.example.com/.well-known/oauth-protected-resource"


def test_challenges_are_parsed_with_quotes_escapes_and_several_schemes() -> None:
    header = (
        'Basic realm="x", Bearer error="insufficient_scope", scope="a b", '
        'resource_metadata="https://m/.well-known/x", error_description="say \\"no\\""'
    )
    basic, bearer = parse_challenges(header)
    assert basic.scheme == "basic" and basic.params == {"realm": "x"}
    assert bearer.scopes == ("a", "b")
    assert bearer.params["resource_metadata"] == "https://m/.well-known/x"
    assert bearer.params["error_description"] == 'say "no"'
    assert bearer_challenge("Negotiate abc==, Bearer") is not None
    assert bearer_challenge("Bearer").params == {}  # type: ignore[union-attr]
    assert bearer_challenge(None) is None
    assert bearer_challenge('Bearer scope="unterminated') is not None


def test_prm_urls_challenge_first_else_path_inserted_then_root() -> None:
    assert prm_urls(SERVER, "https://elsewhere/prm") == ["https://elsewhere/prm"]
    assert prm_urls(SERVER, None) == [PRM_INSERTED, PRM_ROOT]
    assert prm_urls("https://mcp.example.com/", None) == [PRM_ROOT]


@pytest.mark.parametrize(
    ("revision", "issuer", "expected"),
    [
        (
            "2025-11-25",
            "https://a.example/tenant1",
            [
                "https://a.example/.well-known/oauth-authorization-server/tenant1",
                "https://a.example/.well-known/openid-configuration/tenant1",
                "https://a.example/tenant1/.well-known/openid-configuration",
            ],
        ),
        (
            "2026-07-28",
            "https://a.example",
            [
                "https://a.example/.well-known/oauth-authorization-server",
                "https://a.example/.well-known/openid-configuration",
            ],
        ),
        (
            "2025-06-18",
            "https://a.example/tenant1",
            ["https://a.example/.well-known/oauth-authorization-server/tenant1"],
        ),
    ],
)
def test_server_metadata_order_per_revision(
    revision: str, issuer: str, expected: list[str]
) -> None:
    assert as_metadata_urls(issuer, revision) == expected


def test_canonical_resource_and_matching() -> None:
    assert canonical_resource("HTTPS://MCP.Example.com/mcp/?q=1#f") == "https://mcp.example.com/mcp"
    assert resource_matches("https://mcp.example.com", SERVER)
    assert resource_matches("https://mcp.example.com/mcp/", SERVER)
    assert not resource_matches("https://mcp.example.com/mc", SERVER)
    assert not resource_matches("https://evil.example.com/mcp", SERVER)


def test_discovery_walks_each_list_in_order_through_the_flow() -> None:
    issuer = "https://auth.example.com/tenant1"
    world = World()
    world.answers[PRM_ROOT] = (200, prm(resource="https://mcp.example.com", issuer=issuer))
    appended = f"{issuer}/.well-known/openid-configuration"
    world.answers[appended] = (200, as_metadata(issuer=issuer))
    world.answers[f"{issuer}/register"] = (201, {"client_id": "c"})
    result = world.challenge(new_flow(revision="2025-11-25"))
    assert isinstance(result, Authorized)
    assert world.urls()[:5] == [
        PRM_INSERTED,
        PRM_ROOT,
        "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
        "https://auth.example.com/.well-known/openid-configuration/tenant1",
        appended,
    ]


def test_the_challenge_names_the_resource_metadata() -> None:
    world = World.standard()
    world.answers["https://mcp.example.com/prm.json"] = world.answers.pop(PRM_INSERTED)
    header = 'Bearer resource_metadata="https://mcp.example.com/prm.json"'
    assert isinstance(world.challenge(new_flow(), header=header), Authorized)
    assert world.urls()[0] == "https://mcp.example.com/prm.json"


def test_2025_06_18_tries_rfc8414_only() -> None:
    world = World.standard()
    world.answers.pop(f"{ISSUER}/.well-known/oauth-authorization-server")
    world.answers[f"{ISSUER}/.well-known/openid-configuration"] = (200, as_metadata())
    result = world.challenge(new_flow(revision="2025-06-18"))
    assert isinstance(result, Failed) and "no authorization server metadata" in result.reason


def test_no_resource_metadata_means_the_2025_03_26_rules() -> None:
    world = World()
    world.answers["https://mcp.example.com/register"] = (201, {"client_id": "legacy"})
    flow = new_flow()
    action = world.challenge(flow, user=False)
    assert isinstance(action, AuthorizeUser)
    assert action.url.startswith("https://mcp.example.com/authorize?")
    legacy = world.requests[2]
    assert legacy.url == "https://mcp.example.com/.well-known/oauth-authorization-server"
    assert ("mcp-protocol-version", "2025-03-26") in legacy.headers
    assert world.urls()[:2] == [PRM_INSERTED, PRM_ROOT]


def test_2025_03_26_metadata_at_the_origin_is_used_as_is() -> None:
    world = World()
    legacy = as_metadata(issuer="https://mcp.example.com/oauth")
    world.answers["https://mcp.example.com/.well-known/oauth-authorization-server"] = (200, legacy)
    world.answers["https://mcp.example.com/oauth/register"] = (201, {"client_id": "x"})
    action = world.challenge(new_flow(revision="2025-03-26"), user=False)
    assert isinstance(action, AuthorizeUser)
    assert action.url.startswith("https://mcp.example.com/oauth/authorize?")
    assert world.urls()[0] == "https://mcp.example.com/.well-known/oauth-authorization-server"


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"issuer": "https://attacker.example"}, "describes issuer"),
        ({"code_challenge_methods_supported": None}, "does not advertise PKCE"),
        ({"code_challenge_methods_supported": ["plain"]}, "does not advertise PKCE"),
        ({"authorization_endpoint": None}, "no authorization endpoint"),
    ],
)
def test_server_metadata_refusals(change: dict[str, object], words: str) -> None:
    world = World.standard()
    url = f"{ISSUER}/.well-known/oauth-authorization-server"
    document = as_metadata()
    document.update(change)
    world.answers[url] = (200, {k: v for k, v in document.items() if v is not None})
    result = world.challenge(new_flow())
    assert isinstance(result, Failed) and words in result.reason
    assert not world.authorizations


def test_2025_06_18_proceeds_without_advertised_pkce() -> None:
    world = World.standard(code_challenge_methods_supported=None)
    assert isinstance(world.challenge(new_flow(revision="2025-06-18")), Authorized)


def test_a_resource_of_another_server_aborts_before_authorization() -> None:
    world = World.standard()
    world.answers[PRM_INSERTED] = (200, prm(resource="https://evil.example.com/mcp"))
    result = world.challenge(new_flow())
    assert isinstance(result, Failed) and "authorization aborted" in result.reason
    assert world.urls() == [PRM_INSERTED]


@pytest.mark.parametrize(
    ("answer", "words"),
    [
        ((200, b"<html><body>login</body></html>"), "HTML"),
        ((200, b"not json"), "did not answer with JSON"),
        ((200, {"authorization_servers": "x"}), "invalid"),
        ((500, {}), "HTTP 500"),
        ((200, {"resource": SERVER, "authorization_servers": []}), "names no authorization server"),
    ],
)
def test_bad_resource_metadata_is_a_clear_failure(answer: tuple[int, object], words: str) -> None:
    world = World.standard()
    world.answers[PRM_INSERTED] = answer
    result = world.challenge(new_flow())
    assert isinstance(result, Failed) and words in result.reason


def test_redirects_are_followed_on_the_same_origin_only() -> None:
    world = World.standard()
    moved = "https://mcp.example.com/moved-prm"
    world.answers[moved] = world.answers[PRM_INSERTED]
    world.answers[PRM_INSERTED] = (301, ([("location", "/moved-prm")], b""))
    assert isinstance(world.challenge(new_flow()), Authorized)
    assert world.urls()[:2] == [PRM_INSERTED, moved]

    world = World.standard()
    world.answers[PRM_INSERTED] = (302, ([("location", "https://evil.example/prm")], b""))
    result = world.challenge(new_flow())
    assert isinstance(result, Failed) and "another origin" in result.reason


def test_a_transport_failure_names_the_url() -> None:
    flow = new_flow()
    flow.challenged(401, "Bearer", 0.0)
    result = flow.request_failed("timed out")
    assert result == [Failed(f"{PRM_INSERTED}: timed out")]


def test_a_relative_resource_metadata_url_is_resolved_against_the_server() -> None:
    world = World.standard()
    world.answers["https://mcp.example.com/prm.json"] = world.answers.pop(PRM_INSERTED)
    assert isinstance(
        world.challenge(new_flow(), header='Bearer resource_metadata="/prm.json"'), Authorized
    )
    assert world.urls()[0] == "https://mcp.example.com/prm.json"
