# How an OAuth client presents itself and what it asks for (`OAuthConfig`).

from __future__ import annotations

from dataclasses import dataclass

from .assertions import Signer
from .dpop import DPoPKey

__all__ = ["IdentityExchange", "OAuthConfig"]


@dataclass(frozen=True, slots=True)
class IdentityExchange:
    """An enterprise identity provider that trades the user's ID token for an
    Identity Assertion JWT Authorization Grant (ID-JAG) by token exchange (RFC
    8693; SEP-990, the enterprise-managed authorization extension).

    Attributes:
        token_endpoint: the identity provider's token endpoint.
        id_token: the user's ID token there.
        client_id: this client's id at the identity provider.
        client_secret: its secret there, if it has one (sent in the body).
    """

    token_endpoint: str
    id_token: str
    client_id: str
    client_secret: str | None = None


@dataclass(frozen=True, slots=True)
class OAuthConfig:
    """How the client presents itself and what it asks for.

    Attributes:
        client_name: the name registered (Dynamic Client Registration).
        redirect_uri: where the authorization server sends the user back.
        client_id, client_secret: pre-registered client information; used first.
        client_issuer: the issuer the pre-registered id belongs to; another
            server is refused (None: whichever the server names).
        client_auth_method: how the pre-registered client authenticates at the
            token endpoint ("" chooses from the server's metadata).
        client_metadata_url: an https URL of this client's Client ID Metadata
            Document, used as client id where the server supports it.
        scopes: scopes to ask for when the challenge names none (None: all of the
            resource metadata's `scopes_supported`, else none).
        offline_access: ask for `offline_access` when the authorization server
            lists it (2026-07-28 basic/authorization/index.mdx "Refresh Tokens":
            MAY).
        grant: "authorization_code" (a user, a browser), "client_credentials"
            (the client on its own behalf), or "jwt_bearer" (RFC 7523: an
            assertion from a workload identity, SEP-1933, or an ID-JAG from an
            enterprise identity provider, SEP-990).
        assertion: the JWT the "jwt_bearer" grant presents (workload identity).
        identity: an enterprise identity provider to exchange an ID token with
            for an ID-JAG, which the "jwt_bearer" grant then presents.
        signer, signing_alg: sign client assertions (`private_key_jwt`).
        dpop: a DPoP key, used where the authorization server advertises its
            algorithm in `dpop_signing_alg_values_supported` (RFC 9449).
        revision: the protocol revision whose discovery order applies.
        application_type: "native" (loopback redirect) or "web".
        max_authorizations: authorization requests allowed, step-ups included.
    """

    client_name: str = "mcp-core"
    redirect_uri: str = "http://127.0.0.1:33418/callback"
    client_id: str | None = None
    client_secret: str | None = None
    client_issuer: str | None = None
    client_auth_method: str = ""
    client_metadata_url: str | None = None
    scopes: tuple[str, ...] | None = None
    offline_access: bool = True
    grant: str = "authorization_code"
    assertion: str | None = None
    identity: IdentityExchange | None = None
    signer: Signer | None = None
    signing_alg: str = "ES256"
    dpop: DPoPKey | None = None
    revision: str = "2026-07-28"
    application_type: str = "native"
    max_authorizations: int = 3
