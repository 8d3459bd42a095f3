# PKCE (RFC 7636) with the S256 method, which MCP clients MUST use
# (2025-11-25 basic/authorization.mdx "Authorization Code Protection").

from __future__ import annotations

import base64
import hashlib
import secrets

__all__ = ["b64url", "new_state", "new_verifier", "s256_challenge"]


def b64url(data: bytes) -> str:
    """Base64url without padding (RFC 7636 appendix A)."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def new_verifier() -> str:
    """A code verifier: 43 characters of the unreserved set from 32 random bytes
    (RFC 7636 section 4.1 recommends exactly this)."""
    return b64url(secrets.token_bytes(32))


def new_state() -> str:
    """An unguessable `state` value (OAuth 2.1 section 7.12)."""
    return b64url(secrets.token_bytes(24))


def s256_challenge(verifier: str) -> str:
    """BASE64URL(SHA256(verifier)) (RFC 7636 section 4.2)."""
    return b64url(hashlib.sha256(verifier.encode("ascii")).digest())
