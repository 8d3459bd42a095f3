# JWT client assertions (RFC 7523 section 3), for `private_key_jwt` client
# authentication and the client_credentials grant (SEP-1046). The claims and the
# encoding are here; the signature comes from a function the caller gives
# (`Signer`), so the core needs no cryptography library.

from __future__ import annotations

import secrets
from collections.abc import Callable

import msgspec

from .pkce import b64url

__all__ = ["Signer", "client_assertion", "signed_jwt"]

Signer = Callable[[bytes], bytes]
"""Signs the JWS signing input; returns the raw signature (for ES256, r || s)."""


def client_assertion(
    *, client_id: str, audience: str, alg: str, sign: Signer, now: float, lifetime: float = 300.0
) -> str:
    """A signed client assertion: `iss` and `sub` the client id, `aud` the
    authorization server's issuer (RFC 7523bis: the issuer identifier), a fresh
    `jti`, valid for ``lifetime`` seconds from ``now`` (Unix time)."""
    claims = {
        "iss": client_id,
        "sub": client_id,
        "aud": audience,
        "iat": int(now),
        "exp": int(now + lifetime),
        "jti": b64url(secrets.token_bytes(16)),
    }
    return signed_jwt({"alg": alg, "typ": "JWT"}, claims, sign)


def signed_jwt(header: dict[str, object], claims: dict[str, object], sign: Signer) -> str:
    """A compact JWS of ``claims`` (RFC 7515 section 7.1), signed by ``sign``."""
    encode = msgspec.json.encode
    signing_input = f"{b64url(encode(header))}.{b64url(encode(claims))}".encode("ascii")
    return f"{signing_input.decode('ascii')}.{b64url(sign(signing_input))}"
