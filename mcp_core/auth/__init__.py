"""OAuth 2.1 for MCP, sans I/O.

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
