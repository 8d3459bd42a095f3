"""Keys for OAuth client assertions and DPoP proofs, checked by another JOSE
implementation (PyJWT)."""

from __future__ import annotations

import time

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa

from mcp_core.auth.assertions import client_assertion
from mcp_core.auth.dpop import dpop_proof
from transports.http.oauth_jwt import new_dpop_key, pem_signer


def pem(key: ec.EllipticCurvePrivateKey | rsa.RSAPrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


@pytest.mark.parametrize(
    ("alg", "key"),
    [
        ("ES256", ec.generate_private_key(ec.SECP256R1())),
        ("ES384", ec.generate_private_key(ec.SECP384R1())),
        ("RS256", rsa.generate_private_key(public_exponent=65537, key_size=2048)),
    ],
)
def test_client_assertions_verify(
    alg: str, key: ec.EllipticCurvePrivateKey | rsa.RSAPrivateKey
) -> None:
    now = time.time()
    token = client_assertion(
        client_id="svc",
        audience="https://as.example",
        alg=alg,
        sign=pem_signer(pem(key), alg),
        now=now,
    )
    claims = jwt.decode(token, key.public_key(), algorithms=[alg], audience="https://as.example")
    assert claims["iss"] == claims["sub"] == "svc"


def test_a_key_of_another_kind_is_refused() -> None:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    with pytest.raises(ValueError, match="cannot sign ES256"):
        pem_signer(pem(key), "ES256")


def test_dpop_proofs_verify_with_the_key_they_carry() -> None:
    key = new_dpop_key()
    proof = dpop_proof(key, "POST", "https://mcp.example/mcp", time.time(), access_token="t")
    header = jwt.get_unverified_header(proof)
    assert header["typ"] == "dpop+jwt" and "d" not in header["jwk"]
    public = jwt.PyJWK(header["jwk"], algorithm="ES256")
    claims = jwt.decode(proof, public.key, algorithms=["ES256"])
    assert claims["htm"] == "POST" and claims["htu"] == "https://mcp.example/mcp"
