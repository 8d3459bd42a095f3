# Finding the authorization server, per revision, and checking what it says.
#
# Protected Resource Metadata (RFC 9728), 2025-06-18 onwards: the `resource_metadata`
# URL of the challenge when there is one, else the path-inserted well-known URL, then
# the root one (2025-11-25 basic/authorization.mdx "Protected Resource Metadata
# Discovery Requirements"; 2026-07-28 basic/authorization/authorization-server-
# discovery.mdx, same words).
#
# Authorization server metadata: `AS_METADATA_ORDER` says which well-known URLs each
# revision tries, in order (2025-06-18 basic/authorization.mdx "Server Metadata
# Discovery": RFC 8414 only; 2025-11-25 basic/authorization.mdx "Authorization Server
# Metadata Discovery": RFC 8414 path-inserted, OpenID Connect path-inserted, OpenID
# Connect appended). A server with no Protected Resource Metadata is a 2025-03-26 one:
# the metadata sits at its origin, and without it the endpoints are /authorize,
# /token and /register there (2025-03-26 basic/authorization.mdx "Authorization Base
# URL", "Fallbacks for Servers without Metadata Discovery").

from __future__ import annotations

from typing import Final, TypeVar
from urllib.parse import urlsplit, urlunsplit

import msgspec

__all__ = [
    "AS_METADATA_ORDER",
    "MetadataError",
    "ResourceMetadata",
    "ServerMetadata",
    "as_metadata_urls",
    "canonical_resource",
    "decode_metadata",
    "legacy_metadata",
    "legacy_metadata_url",
    "origin_of",
    "prm_urls",
    "resource_matches",
]


class MetadataError(Exception):
    """A metadata document that cannot be used; the message says why."""


class ResourceMetadata(msgspec.Struct, kw_only=True):
    """Protected Resource Metadata (RFC 9728 section 2), the fields MCP reads."""

    resource: str | None = None
    authorization_servers: list[str] = msgspec.field(default_factory=list)
    scopes_supported: list[str] | None = None


class ServerMetadata(msgspec.Struct, kw_only=True):
    """Authorization server metadata (RFC 8414 section 2; OpenID Connect Discovery
    section 3), the fields MCP reads."""

    issuer: str
    authorization_endpoint: str | None = None
    token_endpoint: str | None = None
    registration_endpoint: str | None = None
    scopes_supported: list[str] | None = None
    grant_types_supported: list[str] | None = None
    code_challenge_methods_supported: list[str] | None = None
    token_endpoint_auth_methods_supported: list[str] | None = None
    token_endpoint_auth_signing_alg_values_supported: list[str] | None = None
    client_id_metadata_document_supported: bool = False
    authorization_response_iss_parameter_supported: bool = False
    dpop_signing_alg_values_supported: list[str] | None = None


AS_METADATA_ORDER: Final[dict[str, tuple[str, ...]]] = {
    "2025-06-18": ("oauth-inserted",),
    "2025-11-25": ("oauth-inserted", "oidc-inserted", "oidc-appended"),
    "2026-07-28": ("oauth-inserted", "oidc-inserted", "oidc-appended"),
}
"""Which well-known URLs of an issuer each revision tries, in order."""

_OAUTH: Final = "/.well-known/oauth-authorization-server"
_OIDC: Final = "/.well-known/openid-configuration"
_PRM: Final = "/.well-known/oauth-protected-resource"

_T = TypeVar("_T")


def origin_of(url: str) -> str:
    """scheme://host[:port] of an absolute URL, scheme and host in lower case."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), "", "", ""))


def _path(url: str) -> str:
    return urlsplit(url).path.rstrip("/")


def canonical_resource(url: str) -> str:
    """The canonical URI of an MCP server (RFC 8707 section 2; 2025-11-25
    basic/authorization.mdx "Canonical Server URI"): lower-case scheme and host, no
    query or fragment, no trailing slash."""
    return origin_of(url) + _path(url)


def prm_urls(server_url: str, challenged: str | None) -> list[str]:
    """Where to look for Protected Resource Metadata, in order."""
    if challenged:
        return [challenged]
    origin, path = origin_of(server_url), _path(server_url)
    root = origin + _PRM
    return [origin + _PRM + path, root] if path else [root]


def as_metadata_urls(issuer: str, revision: str) -> list[str]:
    """The well-known URLs of ``issuer``'s metadata that ``revision`` tries, in order
    (a revision not in the table tries those of the newest)."""
    order = AS_METADATA_ORDER.get(revision) or AS_METADATA_ORDER["2026-07-28"]
    origin, path = origin_of(issuer), _path(issuer)
    urls = {
        "oauth-inserted": origin + _OAUTH + path,
        "oidc-inserted": origin + _OIDC + path,
        "oidc-appended": origin + path + _OIDC,
    }
    found: list[str] = []
    for kind in order:
        if urls[kind] not in found:  # without a path, inserted and appended are one
            found.append(urls[kind])
    return found


def legacy_metadata_url(server_url: str) -> str:
    """2025-03-26: the metadata of the server's origin ("Authorization Base URL")."""
    return origin_of(server_url) + _OAUTH


def legacy_metadata(server_url: str) -> ServerMetadata:
    """2025-03-26 "Fallbacks for Servers without Metadata Discovery": the default
    endpoints at the server's origin."""
    base = origin_of(server_url)
    return ServerMetadata(
        issuer=base,
        authorization_endpoint=base + "/authorize",
        token_endpoint=base + "/token",
        registration_endpoint=base + "/register",
        code_challenge_methods_supported=["S256"],
    )


def decode_metadata(body: bytes, kind: type[_T], url: str) -> _T:
    """A JSON metadata document.

    Raises:
        MetadataError: not JSON (an HTML page, say), or not the document's shape.
    """
    if body.lstrip()[:1] == b"<":
        raise MetadataError(f"{url} answered with HTML, not a JSON metadata document")
    try:
        return msgspec.json.decode(body, type=kind)
    except msgspec.ValidationError as exc:
        raise MetadataError(f"{url}: the metadata is invalid: {exc}") from None
    except msgspec.DecodeError:
        raise MetadataError(f"{url} did not answer with JSON") from None


def resource_matches(resource: str, server_url: str) -> bool:
    """Whether the PRM `resource` names the server we talk to: same origin, and the
    server's path is the resource's path or below it (RFC 9728 section 3.3 has the
    client check the resource against the URL it asked; metadata at the root names
    the origin, which covers every path of it)."""
    if origin_of(resource) != origin_of(server_url) or urlsplit(resource).fragment:
        return False
    ours, theirs = _path(server_url), _path(resource)
    return ours == theirs or ours.startswith(theirs + "/")
