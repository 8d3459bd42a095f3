# A protected MCP server: its metadata, and what each request's token earns.
#
# Theory of operation. The MCP server is an OAuth 2.1 resource server (2026-07-28
# basic/authorization/index.mdx "Roles"). `ProtectedResource` holds its rules; an
# adapter asks it, for every request head and before reading the body:
#
#   metadata(request)   is this a request for the Protected Resource Metadata
#                       (RFC 9728)? Then here is the answer.
#   token(request)      the bearer token, or the refusal: 401 with a challenge
#                       and no error when there is none, 400 when malformed.
#   admit(request, verdict, now)
#                       given what a `TokenVerifier` said of the token: the
#                       principal, or 401 invalid_token (refused, expired), or
#                       403 insufficient_scope when the request's `Mcp-Method` /
#                       `Mcp-Name` headers (2026-07-28) name an operation the
#                       token's scopes do not cover.
#
# and, once the body is decoded, `check(message, scopes)`: the same scope rule on
# the method and tool the body names, for requests whose head did not say (every
# legacy request); `HttpEndpoint.receive` calls it. The principal's subject binds
# legacy sessions and 2026-07-28 requestState as any authenticated principal does.
#
# "Strict by default": every request needs a valid token (2026-07-28 "Access Token
# Usage": "authorization MUST be included in every HTTP request"), tokens are
# taken from the Authorization header only ("MUST NOT be included in the URI query
# string"), and expiry is checked here with the adapter's clock as well as by the
# verifier, so that a cached verdict cannot outlive its token.

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Final
from urllib.parse import parse_qsl, urlsplit

import msgspec
from msgspec import UNSET

from ..http.decisions import JSON_HEADER, AuthRefusal, HttpRequest, Reply, refuse
from ..http.headers import decode_header_value
from ..wire.jsonrpc import Message, Request
from .challenges import INSUFFICIENT_SCOPE, INVALID_REQUEST, INVALID_TOKEN, bearer_challenge
from .scopes import ScopePolicy
from .verifier import Principal, TokenRefusal

__all__ = ["WELL_KNOWN", "ProtectedResource", "ResourceConfig"]

WELL_KNOWN: Final = "/.well-known/oauth-protected-resource"
"""The well-known path of Protected Resource Metadata (RFC 9728 section 3)."""

# RFC 6750 section 2.1: b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+"
# / "/" ) *"=".
_B64TOKEN: Final = re.compile(r"[A-Za-z0-9\-._~+/]+=*")

# Public metadata: any page may read it (CORS), as the official SDKs serve it.
_CORS: Final = (
    ("access-control-allow-origin", "*"),
    ("access-control-allow-methods", "GET, OPTIONS"),
    ("access-control-allow-headers", "mcp-protocol-version"),
)


@dataclass(frozen=True, slots=True)
class ResourceConfig:
    """What a protected MCP server says about itself, and what it asks of tokens.

    Attributes:
        resource: this server's canonical URI (2026-07-28 "Canonical Server URI"),
            e.g. ``https://mcp.example.com/mcp``: the ``resource`` of the metadata
            and the audience tokens must name (RFC 8707).
        authorization_servers: issuer URLs of the authorization servers whose
            tokens are accepted; at least one (2026-07-28
            authorization-server-discovery.mdx "Authorization Server Location").
        scopes: the scopes each operation needs.
        scopes_supported: the metadata's ``scopes_supported``; None leaves it
            out. Should not list ``offline_access`` (2026-07-28 "Refresh Tokens").
        resource_name: a name for people (RFC 9728 section 2), or None.
        resource_documentation: a URL of documentation for developers, or None.
        metadata_max_age: seconds clients and caches may keep the metadata.
    """

    resource: str
    authorization_servers: tuple[str, ...]
    scopes: ScopePolicy = field(default_factory=ScopePolicy)
    scopes_supported: tuple[str, ...] | None = None
    resource_name: str | None = None
    resource_documentation: str | None = None
    metadata_max_age: int = 3600

    def __post_init__(self) -> None:
        parts = urlsplit(self.resource)
        # 2026-07-28 "Canonical Server URI": absolute, with a scheme, no fragment.
        if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
            raise ValueError(f"resource {self.resource!r} is not an absolute http(s) URI")
        if parts.fragment or self.resource.endswith("#"):
            raise ValueError(f"resource {self.resource!r} has a fragment")
        if not self.authorization_servers:
            raise ValueError("name at least one authorization server")


class _Named(msgspec.Struct):
    # What a scope check reads of params: the tool's name.
    name: Any = None


_named: Final = msgspec.json.Decoder(_Named)


class ProtectedResource:
    """The rules of one protected MCP endpoint (see the module comment).

    Args:
        config: the resource's metadata and scope policy.
    """

    def __init__(self, config: ResourceConfig) -> None:
        self.config = config
        parts = urlsplit(config.resource)
        # RFC 9728 section 3.1: the well-known path goes between the host and the
        # path (a lone terminating slash after the host removed), the query kept.
        path = "" if parts.path == "/" else parts.path
        inserted = WELL_KNOWN + path + (f"?{parts.query}" if parts.query else "")
        #: Where the metadata is served: the path-inserted URI, then the root one
        #: (2026-07-28 authorization-server-discovery.mdx "Well-Known URI").
        self.metadata_targets = tuple(dict.fromkeys((inserted, WELL_KNOWN)))
        self._with_query = bool(parts.query)
        #: The URL the challenges name in ``resource_metadata``.
        self.metadata_url = f"{parts.scheme}://{parts.netloc}{inserted}"
        document: dict[str, Any] = {
            "resource": config.resource,
            "authorization_servers": list(config.authorization_servers),
            # 2026-07-28 "Access Token Usage": the Authorization header only.
            "bearer_methods_supported": ["header"],
        }
        if config.scopes_supported is not None:
            document["scopes_supported"] = list(config.scopes_supported)
        if config.resource_name is not None:
            document["resource_name"] = config.resource_name
        if config.resource_documentation is not None:
            document["resource_documentation"] = config.resource_documentation
        self._metadata = Reply(
            200,
            (JSON_HEADER, ("cache-control", f"public, max-age={config.metadata_max_age}"), *_CORS),
            msgspec.json.encode(document),
        )

    # --- the metadata ---------------------------------------------------------------------

    def metadata(self, request: HttpRequest) -> Reply | None:
        """The answer to a request for the Protected Resource Metadata, or None
        when the request is for something else.

        Matched on the whole path (``prefix`` included): an app mounted below the
        root sees these requests only if the outer app routes them to it.
        """
        # A query matters only when the resource URI has one.
        target = request.prefix + (request.target if self._with_query else request.path)
        if target not in self.metadata_targets:
            return None
        if request.method == "GET":
            return self._metadata
        if request.method == "OPTIONS":
            return Reply(204, _CORS)
        return refuse(405, f"{request.method} is not served here", headers=(("allow", "GET"),))

    # --- a request's token ----------------------------------------------------------------

    def needed(self, request: HttpRequest) -> tuple[str, ...]:
        """The scopes a request needs by its head: the required ones, and those of
        the operation its ``Mcp-Method`` / ``Mcp-Name`` headers name (2026-07-28
        basic/transports/streamable-http.mdx "Request Metadata"). The endpoint
        checks these headers against the body, so a request cannot name one
        operation here and do another."""
        headers = request.headers
        method = headers.get("mcp-method")
        raw = headers.get("mcp-name")
        name = decode_header_value(raw) if raw is not None else None
        return self.config.scopes.needed(method, name)

    def token(self, request: HttpRequest) -> str | AuthRefusal:
        """The bearer token of a request, or the refusal to send.

        No ``Authorization: Bearer`` header: 401 with ``resource_metadata`` and
        the scopes needed, no error (RFC 6750 section 3.1). A malformed one, or a
        token in the query string too (RFC 6750 section 2.3 is not supported:
        2026-07-28 "Access tokens MUST NOT be included in the URI query
        string"): 400 invalid_request.
        """
        if any(key == "access_token" for key, _ in parse_qsl(request.query)):
            return self._refusal(
                400, request, INVALID_REQUEST, "access tokens are not accepted in the query"
            )
        value = request.headers.get("authorization")
        # RFC 9110 section 11.4: the scheme, one or more spaces, the token68.
        scheme, _, token = (value or "").strip().partition(" ")
        token = token.lstrip(" ")
        if scheme.lower() != "bearer":
            # Absent, or another scheme: no bearer token was offered.
            return self._refusal(401, request, None, "a bearer token is required")
        if _B64TOKEN.fullmatch(token) is None:
            # Several Authorization headers (joined with ", ") land here too.
            return self._refusal(400, request, INVALID_REQUEST, "malformed Authorization header")
        return token

    def admit(
        self, request: HttpRequest, verdict: Principal | TokenRefusal, now: float
    ) -> Principal | AuthRefusal:
        """Who the request comes from, or the refusal to send.

        Args:
            request: the request head.
            verdict: what the verifier said of its token.
            now: the time, in seconds since the epoch (as ``expires_at``).
        """
        if isinstance(verdict, TokenRefusal):
            # 2026-07-28 "Token Handling": invalid tokens MUST get 401.
            return self._refusal(401, request, INVALID_TOKEN, verdict.reason)
        if verdict.expires_at is not None and now >= verdict.expires_at:
            return self._refusal(401, request, INVALID_TOKEN, "the access token has expired")
        needed = self.needed(request)
        if not self.config.scopes.allows(needed, verdict.scopes):
            return self._refusal(
                403, request, INSUFFICIENT_SCOPE, "the access token lacks a scope this needs"
            )
        return verdict

    def _refusal(
        self, status: int, request: HttpRequest, error: str | None, reason: str
    ) -> AuthRefusal:
        scopes = self.needed(request)
        if not scopes and error is None:
            # Nothing in particular is needed: point at what basic use takes.
            scopes = self.config.scopes_supported or ()
        challenge = bearer_challenge(
            self.metadata_url, scopes, error, reason if error is not None else None
        )
        return AuthRefusal(status, reason, (("www-authenticate", challenge),))

    # --- a request's body -----------------------------------------------------------------

    def check(self, message: Message, scopes: frozenset[str]) -> Reply | None:
        """The 403 a decoded message earns when the operation it names needs
        scopes that ``scopes`` (the admitted token's) do not cover, else None.

        2026-07-28 basic/authorization/index.mdx "Runtime Insufficient Scope
        Errors": 403, ``error="insufficient_scope"``, every scope the operation
        needs, and ``resource_metadata``.
        """
        if type(message) is not Request:
            return None
        name = None
        if message.params is not UNSET:
            try:
                found = _named.decode(message.params).name
            except (msgspec.DecodeError, UnicodeDecodeError):
                found = None
            name = found if isinstance(found, str) else None
        policy = self.config.scopes
        needed = policy.needed(message.method, name)
        if policy.allows(needed, scopes):
            return None
        reason = f"{message.method} needs the scopes {' '.join(needed)}"
        challenge = bearer_challenge(self.metadata_url, needed, INSUFFICIENT_SCOPE, reason)
        return refuse(
            403, reason, request_id=message.id, headers=(("www-authenticate", challenge),)
        )
