"""OAuth for the transports: the resource server's hook (`BearerAuth`) and token
verifiers (`JwtVerifier` for JWTs signed with keys from a JWKS URL,
`IntrospectionVerifier` for RFC 7662). The verifiers need the ``auth`` extra
(PyJWT with cryptography)."""

from .bearer import BearerAuth

__all__ = ["BearerAuth"]
