# The grants other than the authorization code, as token request forms.
#
# - client_credentials (OAuth 2.1 section 4.2; SEP-1046, the client credentials
#   extension): the client on its own behalf.
# - jwt-bearer (RFC 7523 section 2.1) with an assertion the client holds: a
#   workload identity's JWT (SEP-1933, workload identity federation).
# - jwt-bearer with an ID-JAG obtained first from the enterprise identity provider
#   by token exchange (RFC 8693; SEP-990, enterprise-managed authorization).

from __future__ import annotations

import msgspec

from .config import IdentityExchange
from .discovery import MetadataError, decode_metadata

__all__ = [
    "ID_JAG",
    "JWT_BEARER_GRANT",
    "TOKEN_EXCHANGE_GRANT",
    "client_credentials_form",
    "jwt_bearer_form",
    "read_exchanged",
    "token_exchange_form",
]

JWT_BEARER_GRANT = "urn:ietf:params:oauth:grant-type:jwt-bearer"
TOKEN_EXCHANGE_GRANT = "urn:ietf:params:oauth:grant-type:token-exchange"
ID_JAG = "urn:ietf:params:oauth:token-type:id-jag"
_ID_TOKEN = "urn:ietf:params:oauth:token-type:id_token"


def _with_scope(form: dict[str, str], scope: str | None) -> dict[str, str]:
    if scope is not None:
        form["scope"] = scope
    return form


def client_credentials_form(resource: str, scope: str | None) -> dict[str, str]:
    return _with_scope({"grant_type": "client_credentials", "resource": resource}, scope)


def jwt_bearer_form(assertion: str, resource: str, scope: str | None) -> dict[str, str]:
    form = {"grant_type": JWT_BEARER_GRANT, "assertion": assertion, "resource": resource}
    return _with_scope(form, scope)


def token_exchange_form(
    identity: IdentityExchange, audience: str, resource: str, scope: str | None
) -> dict[str, str]:
    """The token exchange asking the identity provider for an ID-JAG for the
    authorization server ``audience`` (its issuer) and the MCP server ``resource``."""
    form = {
        "grant_type": TOKEN_EXCHANGE_GRANT,
        "requested_token_type": ID_JAG,
        "subject_token": identity.id_token,
        "subject_token_type": _ID_TOKEN,
        "audience": audience,
        "resource": resource,
        "client_id": identity.client_id,
    }
    if identity.client_secret is not None:
        form["client_secret"] = identity.client_secret
    return _with_scope(form, scope)


class _Exchanged(msgspec.Struct, kw_only=True):
    access_token: str
    issued_token_type: str


def read_exchanged(body: bytes, url: str) -> str:
    """The ID-JAG of a token exchange response (RFC 8693 section 2.2.1).

    Raises:
        MetadataError: not a token exchange response, or not an ID-JAG.
    """
    answer = decode_metadata(body, _Exchanged, url)
    if answer.issued_token_type != ID_JAG or not answer.access_token:
        raise MetadataError(f"{url} issued a {answer.issued_token_type!r}, not an ID-JAG")
    return answer.access_token
