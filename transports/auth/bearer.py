# The authentication hook of a protected MCP server: bearer tokens, checked by a
# `TokenVerifier`, judged by the rules of `mcp_core.auth.ProtectedResource`.

from __future__ import annotations

import time
from collections.abc import Callable

from mcp_core.auth import Principal, ProtectedResource, ResourceConfig, TokenVerifier
from mcp_core.http import AuthRefusal, HttpRequest

__all__ = ["BearerAuth"]


class BearerAuth:
    """An ``authenticate=`` hook for `serve_http` and `asgi_app` that makes the
    server an OAuth resource server: it also serves the Protected Resource
    Metadata and checks each operation's scopes (see `ScopePolicy`).

    Args:
        resource: the resource's metadata and scope policy.
        verifier: checks tokens (`JwtVerifier`, `IntrospectionVerifier`, or yours).
        clock: the time in seconds since the epoch, for token expiry.
    """

    def __init__(
        self,
        resource: ResourceConfig | ProtectedResource,
        verifier: TokenVerifier,
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if isinstance(resource, ResourceConfig):
            resource = ProtectedResource(resource)
        self.resource = resource
        self.verifier = verifier
        self.clock = clock

    async def __call__(self, head: HttpRequest) -> Principal | AuthRefusal:
        token = self.resource.token(head)
        if isinstance(token, AuthRefusal):
            return token
        verdict = await self.verifier.verify(token)
        return self.resource.admit(head, verdict, self.clock())
