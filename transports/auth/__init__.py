"""OAuth for the transports: the resource server's hook (`BearerAuth`), and token
verifiers in modules of their own: `transports.auth.jwt.JwtVerifier` (JWTs signed
with keys from a JWKS URL; needs the ``auth`` extra, PyJWT with cryptography) and
`transports.auth.introspection.IntrospectionVerifier` (RFC 7662)."""

from .bearer import BearerAuth

__all__ = ["BearerAuth"]
