# Who a request comes from: the authentication hook an application gives the HTTP
# service, and what `HttpService.admit` makes of its answer.

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeAlias

from msgspec import Struct

from mcp_core.auth import Principal
from mcp_core.http.decisions import AuthRefusal, HttpRequest

__all__ = ["Admitted", "AuthResult", "Authenticate"]


AuthResult: TypeAlias = str | Principal | AuthRefusal | None
Authenticate: TypeAlias = Callable[[HttpRequest], AuthResult | Awaitable[AuthResult]]
"""An authentication hook: given a request head (method, target, headers), the
principal it comes from (a str, or a `Principal` with a token's scopes; None for
anonymous), or an `AuthRefusal` (400, 401 or 403). It may be a plain or an
``async`` function; it runs before the body is read, on every request of every
transport, so it should be quick. `transports.auth.BearerAuth` is one for OAuth."""


class Admitted(Struct, frozen=True):
    """A request head that passed `HttpService.admit`, who sent it, and the scopes
    of its access token (None: not a token's)."""

    principal: str | None = None
    scopes: frozenset[str] | None = None
