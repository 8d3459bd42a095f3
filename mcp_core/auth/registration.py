# Obtaining a client id at an authorization server.
#
# The order (2026-07-28 basic/authorization/client-registration.mdx, and 2025-11-25
# basic/authorization.mdx "Client Registration Approaches"): pre-registered client
# information for this authorization server, then a Client ID Metadata Document URL
# when the server advertises `client_id_metadata_document_supported`, then Dynamic
# Client Registration (RFC 7591) when it has a `registration_endpoint`.
#
# Client information is bound to the issuer that issued it ("Authorization Server
# Binding": keyed by `issuer`, never reused with another server, re-registered when
# the server changes); a metadata document URL is portable across servers.

from __future__ import annotations

import msgspec

from .discovery import MetadataError, ServerMetadata, decode_metadata

__all__ = ["ClientInfo", "choose_auth_method", "read_registration", "registration_body"]


class ClientInfo(msgspec.Struct, kw_only=True, omit_defaults=True):
    """A client id and what goes with it, for one issuer.

    Attributes:
        client_id: the id (a URL for a metadata document).
        issuer: the authorization server it belongs to; "" for a metadata document
            URL, valid at any server.
        client_secret: the secret of a confidential client.
        token_endpoint_auth_method: how the client authenticates at the token
            endpoint ("none", "client_secret_basic", "client_secret_post",
            "private_key_jwt"); "" to choose from the server's metadata.
        secret_expires_at: when the secret expires (seconds, the caller's clock);
            0 for never.
    """

    client_id: str
    issuer: str = ""
    client_secret: str | None = None
    token_endpoint_auth_method: str = ""
    secret_expires_at: float = 0.0


class _Registered(msgspec.Struct, kw_only=True):
    client_id: str
    client_secret: str | None = None
    token_endpoint_auth_method: str | None = None
    client_secret_expires_at: int = 0


def choose_auth_method(metadata: ServerMetadata, client: ClientInfo) -> str:
    """How to authenticate at the token endpoint: the method the client was
    registered with, else the first the server supports that the client can do
    (RFC 8414 section 2: absent means `client_secret_basic`)."""
    if client.token_endpoint_auth_method:
        return client.token_endpoint_auth_method
    if client.client_secret is None:
        return "none"
    supported = metadata.token_endpoint_auth_methods_supported or ["client_secret_basic"]
    for method in ("client_secret_basic", "client_secret_post"):
        if method in supported:
            return method
    return "client_secret_basic"


def registration_body(
    metadata: ServerMetadata,
    *,
    client_name: str,
    redirect_uri: str | None,
    application_type: str,
    grant_types: list[str],
) -> bytes:
    """A Dynamic Client Registration request (RFC 7591 section 2) asking to be a
    public client when the server allows it. `application_type` is required
    (2026-07-28 basic/authorization/client-registration.mdx "Application Type and
    Redirect URI Constraints"); `refresh_token` is in `grant_types` (2026-07-28
    basic/authorization/index.mdx "Refresh Tokens": SHOULD)."""
    supported = metadata.token_endpoint_auth_methods_supported or ["client_secret_basic"]
    method = "none" if "none" in supported else supported[0]
    body: dict[str, object] = {
        "client_name": client_name,
        "grant_types": grant_types,
        "token_endpoint_auth_method": method,
        "application_type": application_type,
    }
    if redirect_uri is not None:
        body["redirect_uris"] = [redirect_uri]
        body["response_types"] = ["code"]
    return msgspec.json.encode(body)


def read_registration(body: bytes, issuer: str, url: str, now: float) -> ClientInfo:
    """The client information of a successful registration response.

    Raises:
        MetadataError: the body is not a registration response.
    """
    registered = decode_metadata(body, _Registered, url)
    if not registered.client_id:
        raise MetadataError(f"{url}: the registration response has an empty client_id")
    expires = registered.client_secret_expires_at
    return ClientInfo(
        client_id=registered.client_id,
        issuer=issuer,
        client_secret=registered.client_secret,
        token_endpoint_auth_method=registered.token_endpoint_auth_method or "",
        secret_expires_at=float(expires) if expires else 0.0,
    )
