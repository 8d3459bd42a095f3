# What a resource server learns from an access token, and who tells it.
#
# The core never checks a signature or asks an introspection endpoint: that takes
# keys, a clock and I/O, which are the adapter's. A `TokenVerifier` (the adapter
# layer has one for JWTs signed with keys from a JWKS URL, and one for RFC 7662
# introspection) turns the token into a `Principal` or a `TokenRefusal`; the rules
# of `ProtectedResource` (resource.py) turn that verdict into an answer.
#
# 2026-07-28 basic/authorization/index.mdx "Token Handling": servers MUST validate
# access tokens (OAuth 2.1 section 5.2), MUST check that the token was issued for
# them (RFC 8707 audience), and answer an invalid or expired one with 401.

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

__all__ = ["Principal", "TokenRefusal", "TokenVerifier"]


@dataclass(frozen=True, slots=True)
class Principal:
    """Who a valid access token speaks for.

    ``subject`` is the principal the transports bind sessions and 2026-07-28
    ``requestState`` to (`Context.principal`): a token of another subject finds
    none of its sessions.

    Attributes:
        subject: the resource owner (the token's ``sub``), unique per issuer.
        scopes: the scopes the token grants.
        client_id: the OAuth client it was issued to, when known.
        expires_at: when it stops being accepted, in seconds since the epoch (a
            verifier adds its clock-skew allowance to the token's ``exp``); None:
            unknown.
        issuer: the authorization server that issued it, when known.
    """

    subject: str
    scopes: frozenset[str] = frozenset()
    client_id: str | None = None
    expires_at: float | None = None
    issuer: str | None = None


@dataclass(frozen=True, slots=True)
class TokenRefusal:
    """A token that is not valid here (bad signature, expired, another audience,
    inactive...). ``reason`` goes to the client as ``error_description``: say what
    is wrong, never echo the token."""

    reason: str


class TokenVerifier(Protocol):
    """Checks an access token: the adapter layer implements it (with I/O)."""

    async def verify(self, token: str) -> Principal | TokenRefusal:
        """The principal ``token`` speaks for, or why it is refused.

        Raises:
            Exception: the verifier could not decide (a key or introspection
                endpoint unreachable); the request is answered 500, not 401, so
                that clients do not throw away good tokens.
        """
        ...
