"""Signing JWT client assertions with a private key (`private_key_jwt`, RFC 7523),
for `OAuthConfig.signer`. Needs the `cryptography` package (the `auth` extra)."""

from __future__ import annotations

from typing import Any

from mcp_core.auth.assertions import Signer
from mcp_core.auth.dpop import DPoPKey
from mcp_core.auth.pkce import b64url

__all__ = ["new_dpop_key", "pem_signer"]

_CURVES = {"ES256": 32, "ES384": 48, "ES512": 66}


def pem_signer(pem: str | bytes, alg: str = "ES256") -> Signer:
    """A signer for ``alg`` (ES256/ES384/ES512 or RS256) from a PEM private key.

    Raises:
        ValueError: an algorithm this function does not know, or a key of another kind.
    """
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
    from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

    key: Any = serialization.load_pem_private_key(
        pem.encode() if isinstance(pem, str) else pem, password=None
    )
    digests: dict[str, hashes.HashAlgorithm] = {
        "ES256": hashes.SHA256(),
        "ES384": hashes.SHA384(),
        "ES512": hashes.SHA512(),
    }
    if alg in _CURVES and isinstance(key, ec.EllipticCurvePrivateKey):
        size, digest = _CURVES[alg], digests[alg]

        def sign_ec(data: bytes) -> bytes:
            r, s = decode_dss_signature(key.sign(data, ec.ECDSA(digest)))
            return r.to_bytes(size, "big") + s.to_bytes(size, "big")

        return sign_ec
    if alg == "RS256" and isinstance(key, rsa.RSAPrivateKey):

        def sign_rsa(data: bytes) -> bytes:
            signature: bytes = key.sign(data, padding.PKCS1v15(), hashes.SHA256())
            return signature

        return sign_rsa
    raise ValueError(f"cannot sign {alg} with a {type(key).__name__}")


def new_dpop_key() -> DPoPKey:
    """A fresh P-256 key pair for DPoP proofs (ES256; RFC 9449)."""
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

    key = ec.generate_private_key(ec.SECP256R1())
    numbers = key.public_key().public_numbers()
    jwk = {
        "kty": "EC",
        "crv": "P-256",
        "x": b64url(numbers.x.to_bytes(32, "big")),
        "y": b64url(numbers.y.to_bytes(32, "big")),
    }

    def sign(data: bytes) -> bytes:
        r, s = decode_dss_signature(key.sign(data, ec.ECDSA(hashes.SHA256())))
        return r.to_bytes(32, "big") + s.to_bytes(32, "big")

    return DPoPKey(jwk=jwk, alg="ES256", sign=sign)
