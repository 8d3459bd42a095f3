# DPoP proofs (RFC 9449; SEP-1932, the DPoP extension of MCP authorization).
#
# A client with a DPoP key proves possession of it on each token request and each
# request to the MCP server: a JWT of type `dpop+jwt` carrying the public key
# (`jwk`), signed by the private one, naming the request (`htm`, `htu` without
# query or fragment: RFC 9449 section 4.2), fresh (`jti`, `iat`), bound to the
# access token on resource requests (`ath`: section 4.2), and echoing a server's
# nonce when one asked for it (sections 8 and 9). The key pair is the caller's;
# the core only encodes.

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass, field
from urllib.parse import urlsplit, urlunsplit

from .assertions import Signer, signed_jwt
from .pkce import b64url

__all__ = ["DPoPKey", "dpop_proof"]


@dataclass(frozen=True, slots=True)
class DPoPKey:
    """A DPoP key pair: the public key as a JWK (no private members), its JWS
    algorithm, and a function signing with the private key."""

    jwk: dict[str, str]
    alg: str
    sign: Signer = field(repr=False)


def dpop_proof(
    key: DPoPKey,
    method: str,
    url: str,
    now: float,
    *,
    nonce: str | None = None,
    access_token: str | None = None,
) -> str:
    """A proof for one request (RFC 9449 section 4.2)."""
    parts = urlsplit(url)
    claims: dict[str, object] = {
        "jti": b64url(secrets.token_bytes(16)),
        "htm": method,
        "htu": urlunsplit((parts.scheme, parts.netloc, parts.path, "", "")),
        "iat": int(now),
    }
    if nonce is not None:
        claims["nonce"] = nonce
    if access_token is not None:
        claims["ath"] = b64url(hashlib.sha256(access_token.encode("ascii")).digest())
    header: dict[str, object] = {"typ": "dpop+jwt", "alg": key.alg, "jwk": key.jwk}
    return signed_jwt(header, claims, key.sign)
