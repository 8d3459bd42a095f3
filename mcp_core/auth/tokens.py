# Token requests and their answers (OAuth 2.1 sections 3.2 and 4; RFC 6749 section 5).
#
# Client authentication at the token endpoint is exactly the method chosen
# (`registration.choose_auth_method`): `client_secret_basic` sends the id and secret
# in an Authorization header, form-encoded first (RFC 6749 section 2.3.1), and
# nothing of them in the body; `client_secret_post` sends both in the body; `none`
# sends only `client_id`; `private_key_jwt` sends a signed assertion (RFC 7523
# section 2.2). Every request names the MCP server in `resource` (RFC 8707; 2025-11-25
# basic/authorization.mdx "Resource Parameter Implementation": MUST, in both the
# authorization and the token request).

from __future__ import annotations

import base64
from collections.abc import Callable
from urllib.parse import quote, urlencode

import msgspec

from .discovery import MetadataError, decode_metadata

__all__ = [
    "JWT_BEARER_ASSERTION",
    "TokenError",
    "Tokens",
    "client_auth",
    "form_body",
    "read_token_error",
    "read_tokens",
]

JWT_BEARER_ASSERTION = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
"""`client_assertion_type` of a JWT client assertion (RFC 7523 section 2.2)."""


class Tokens(msgspec.Struct, kw_only=True, omit_defaults=True):
    """An access token and what came with it.

    Attributes:
        access_token: the token.
        resource: the MCP server it was asked for.
        scope: the scopes granted (as the server said, else as asked).
        refresh_token: to get the next one, if the server gave one.
        expires_at: when it expires on the caller's clock; 0 when unknown.
        token_type: "Bearer", or "DPoP" for a token bound to the client's DPoP
            key (RFC 9449 section 5).
    """

    access_token: str
    resource: str
    scope: str | None = None
    refresh_token: str | None = None
    expires_at: float = 0.0
    token_type: str = "Bearer"

    def fresh(self, now: float, margin: float = 30.0) -> bool:
        """Usable for ``margin`` seconds more (refresh before expiry)."""
        return not self.expires_at or now + margin < self.expires_at


class _TokenResponse(msgspec.Struct, kw_only=True):
    access_token: str
    token_type: str
    expires_in: float | None = None
    refresh_token: str | None = None
    scope: str | None = None


class _TokenError(msgspec.Struct, kw_only=True):
    error: str
    error_description: str | None = None


class TokenError(Exception):
    """The token endpoint refused (RFC 6749 section 5.2).

    Attributes:
        error: the error code (`invalid_grant`...).
    """

    def __init__(self, message: str, error: str) -> None:
        super().__init__(message)
        self.error = error


def read_tokens(
    body: bytes,
    *,
    url: str,
    now: float,
    resource: str,
    asked_scope: str | None,
    previous: Tokens | None = None,
    dpop: bool = False,
) -> Tokens:
    """The tokens of a successful token response. A refresh that brings no new
    refresh token keeps the old one (RFC 6749 section 6).

    Raises:
        MetadataError: not a token response, or a token type other than Bearer.
    """
    answer = decode_metadata(body, _TokenResponse, url)
    allowed = ("bearer", "dpop") if dpop else ("bearer",)
    if answer.token_type.lower() not in allowed:
        kinds = " or ".join(kind.capitalize() for kind in allowed)
        raise MetadataError(f"{url} issued a {answer.token_type!r} token; only {kinds} is used")
    if not answer.access_token:
        raise MetadataError(f"{url} issued an empty access token")
    refresh = answer.refresh_token or (previous.refresh_token if previous else None)
    return Tokens(
        access_token=answer.access_token,
        resource=resource,
        scope=answer.scope if answer.scope is not None else asked_scope,
        refresh_token=refresh,
        expires_at=now + answer.expires_in if answer.expires_in else 0.0,
        token_type="DPoP" if answer.token_type.lower() == "dpop" else "Bearer",
    )


def read_token_error(status: int, body: bytes, url: str) -> TokenError:
    """A refusal of the token endpoint, as an exception to raise."""
    try:
        answer = msgspec.json.decode(body, type=_TokenError)
    except msgspec.DecodeError:
        return TokenError(f"{url} refused the token request with HTTP {status}", "")
    detail = f": {answer.error_description}" if answer.error_description else ""
    return TokenError(f"{url} refused the token request: {answer.error}{detail}", answer.error)


def client_auth(
    method: str,
    client_id: str,
    client_secret: str | None,
    form: dict[str, str],
    *,
    assertion: Callable[[], str] | None = None,
) -> list[tuple[str, str]]:
    """Add the client's authentication to a token request ``form`` (in place) and
    return the headers it needs.

    Raises:
        MetadataError: the method needs a secret or a signer the client lacks.
    """
    if method == "client_secret_basic":
        if client_secret is None:
            raise MetadataError("client_secret_basic needs a client secret")
        pair = f"{quote(client_id, safe='')}:{quote(client_secret, safe='')}"
        token = base64.b64encode(pair.encode()).decode("ascii")
        return [("authorization", f"Basic {token}")]
    form["client_id"] = client_id
    if method == "client_secret_post":
        if client_secret is None:
            raise MetadataError("client_secret_post needs a client secret")
        form["client_secret"] = client_secret
    elif method == "private_key_jwt":
        if assertion is None:
            raise MetadataError("private_key_jwt needs a signing key")
        form["client_assertion_type"] = JWT_BEARER_ASSERTION
        form["client_assertion"] = assertion()
    return []


def form_body(form: dict[str, str]) -> bytes:
    """application/x-www-form-urlencoded, as token requests are sent."""
    return urlencode(form).encode("ascii")
