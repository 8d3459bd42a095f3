"""OAuth 2.1 for MCP, sans I/O, as the spec revisions describe it (2025-03-26 to
2026-07-28 basic/authorization).

Client side, all pure: `flow` is the state machine an adapter drives (`OAuthFlow`,
configured by `config.OAuthConfig`, answering with the actions of `actions`), built
on `flow_state` (what it remembers, the rules of its HTTP requests),
`flow_discovery` (from a challenge to the issuer's metadata) and `flow_tokens`
(client ids, the user's authorization, grants, refresh, token answers);
`discovery` finds and checks the metadata; `registration` obtains a client id;
`tokens` builds token requests and reads their answers; `grants` the grants with no
user (client credentials, jwt-bearer, token exchange); `pkce` makes the code
verifier; `www_authenticate` reads challenges; `assertions` and `dpop` build the
JWTs a client signs (the signature is the caller's function).

Resource server side (a protected MCP server): `resource` (`ProtectedResource`:
the Protected Resource Metadata, the bearer token of a request, what a verifier's
verdict earns), `challenges` (RFC 6750 ``WWW-Authenticate`` values), `scopes`
(`ScopePolicy`: the scopes each operation needs), `verifier` (`Principal`,
`TokenRefusal`, the `TokenVerifier` interface the adapters implement).
"""

# --- resource server ---
from .challenges import bearer_challenge
from .resource import WELL_KNOWN, ProtectedResource, ResourceConfig
from .scopes import ScopePolicy
from .verifier import Principal, TokenRefusal, TokenVerifier

__all__ = [
    # --- resource server ---
    "WELL_KNOWN",
    "Principal",
    "ProtectedResource",
    "ResourceConfig",
    "ScopePolicy",
    "TokenRefusal",
    "TokenVerifier",
    "bearer_challenge",
]
