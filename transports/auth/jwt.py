# Access tokens that are JWTs, signed with keys the authorization server
# publishes at a JWKS URL (RFC 7517, RFC 9068 "JWT Profile for OAuth 2.0 Access
# Tokens").
#
# Order of the checks, cheapest and least trusting first: the header (an allowed
# asymmetric algorithm, so never "none" and never an HMAC keyed with a public key;
# a JWT `typ`; no `crit` extension we would not honour), then the issuer read
# from the unverified payload, all before any key is looked up or fetched; then
# the signature with the key named by `kid`, then the claims (`iss`, `aud` equal
# to our resource (RFC 8707; 2026-07-28 basic/authorization/index.mdx "Token
# Handling": MUST), `exp` and `nbf` with some leeway for clock skew, `sub`).
#
# The JWKS is cached. An unknown `kid` refetches it (the authorization server
# rotated its keys) but at most once per `min_refetch_interval`, whoever asks and
# however often: a flood of tokens naming made-up keys costs the authorization
# server one request per interval. PyJWT with cryptography (the `auth` extra)
# does the JOSE part.

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Final

import anyio
import jwt

from mcp_core.auth import Principal, TokenRefusal

from .fetch import Fetched, FetchError, fetch

__all__ = ["ASYMMETRIC_ALGORITHMS", "DEFAULT_ALGORITHMS", "JwtVerifier"]

log = logging.getLogger("mcp_core.auth")

ASYMMETRIC_ALGORITHMS: Final = frozenset(
    {"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}
)
"""The algorithms a JWKS-verified token may use: signatures with public keys."""

DEFAULT_ALGORITHMS: Final = ("RS256", "ES256")
"""Accepted unless told otherwise: what authorization servers sign with (RS256 is
the OpenID Connect default, ES256 the common smaller one)."""

# RFC 9068 section 2.1 asks for "at+jwt"; many servers still send "JWT".
_TYPES: Final = frozenset({"jwt", "at+jwt", "application/at+jwt"})

Fetch = Callable[[str, str], Awaitable[Fetched]]


def _get(method: str, url: str) -> Awaitable[Fetched]:
    return fetch(method, url, headers=(("accept", "application/json"),))


class JwtVerifier:
    """Verifies JWT access tokens with the keys of one authorization server.

    Args:
        jwks_url: where the authorization server publishes its keys.
        issuer: its issuer identifier; ``iss`` must equal it.
        audience: our resource URI; ``aud`` must name it. None turns the
            audience check off: only for tokens checked otherwise.
        algorithms: the signature algorithms accepted (asymmetric only).
        leeway: seconds of clock skew allowed on ``exp``, ``nbf`` and ``iat``.
        min_refetch_interval: seconds between two fetches of the JWKS at least.
        max_age: seconds a fetched JWKS is used before it is fetched again.
        fetch: how to GET the JWKS (``fetch(method, url)``); tests may replace it.
        clock: a monotonic clock in seconds, for the two intervals.

    Raises:
        ValueError: an algorithm is not an asymmetric signature algorithm.
    """

    def __init__(
        self,
        jwks_url: str,
        *,
        issuer: str,
        audience: str | None,
        algorithms: tuple[str, ...] = DEFAULT_ALGORITHMS,
        leeway: float = 30.0,
        min_refetch_interval: float = 60.0,
        max_age: float = 3600.0,
        fetch: Fetch = _get,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        unsafe = [a for a in algorithms if a not in ASYMMETRIC_ALGORITHMS]
        if unsafe or not algorithms:
            raise ValueError(f"not asymmetric signature algorithms: {unsafe or 'none given'}")
        self.jwks_url = jwks_url
        self.issuer = issuer
        self.audience = audience
        self.algorithms = frozenset(algorithms)
        self.leeway = leeway
        self.min_refetch_interval = min_refetch_interval
        self.max_age = max_age
        self._fetch = fetch
        self._clock = clock
        self._keys: dict[str, dict[str, Any]] | None = None
        self._keys_at = -1.0
        self._tried_at: float | None = None
        self._lock: anyio.Lock | None = None
        self._parsed: dict[tuple[str, str], jwt.PyJWK] = {}
        #: How many times the JWKS was fetched (successfully or not).
        self.fetches = 0

    async def verify(self, token: str) -> Principal | TokenRefusal:
        """See `TokenVerifier.verify`.

        Raises:
            FetchError: no JWKS could be had yet.
        """
        try:
            header = jwt.get_unverified_header(token)
            payload = jwt.decode(token, options={"verify_signature": False})
        except jwt.PyJWTError:
            return TokenRefusal("the access token is not a well-formed JWT")
        refusal = self._check_header(header)
        if refusal is not None:
            return refusal
        if payload.get("iss") != self.issuer:
            return TokenRefusal("the access token is from another issuer")
        alg: str = header["alg"]
        kid = header.get("kid")
        key = await self._key(kid if isinstance(kid, str) else None, alg)
        if key is None:
            return TokenRefusal("the access token is signed with an unknown key")
        try:
            claims = jwt.decode(
                token,
                key,
                algorithms=[alg],
                audience=self.audience,
                issuer=self.issuer,
                leeway=self.leeway,
                options={
                    "require": ["exp", "iss", "sub", *(["aud"] if self.audience else [])],
                    "verify_aud": self.audience is not None,
                },
            )
        except jwt.PyJWTError as exc:
            return TokenRefusal(_reason(exc))
        # The principal lasts as long as this verifier accepts its token: `exp` plus
        # the leeway, else `ProtectedResource.admit` refuses what PyJWT let through.
        return _principal(claims, self.leeway)

    def _check_header(self, header: Mapping[str, Any]) -> TokenRefusal | None:
        alg = header.get("alg")
        if alg not in self.algorithms:
            return TokenRefusal(f"the access token's algorithm {alg!r} is not accepted")
        typ = header.get("typ")
        if typ is not None and (not isinstance(typ, str) or typ.lower() not in _TYPES):
            return TokenRefusal("the access token's typ is not a JWT")
        if "crit" in header:
            # RFC 7515 section 4.1.11: extensions we do not understand MUST fail.
            return TokenRefusal("the access token names critical extensions")
        # A kid that is no string PyJWT refuses as malformed.
        return None

    # --- keys -------------------------------------------------------------------------------

    async def _key(self, kid: str | None, alg: str) -> jwt.PyJWK | None:
        now = self._clock()
        stale = self._keys is None or now - self._keys_at >= self.max_age
        if stale or self._find(kid) is None:
            await self._refetch(now)
        jwk = self._find(kid)
        if jwk is None:
            return None
        if jwk.get("alg", alg) != alg:
            # The key is for another algorithm: refuse rather than reinterpret.
            return None
        cache_key = (str(jwk.get("kid", "")), alg)
        parsed = self._parsed.get(cache_key)
        if parsed is None:
            try:
                parsed = jwt.PyJWK(jwk, algorithm=alg)
            except jwt.PyJWTError:
                return None
            self._parsed[cache_key] = parsed
        return parsed

    def _find(self, kid: str | None) -> dict[str, Any] | None:
        keys = self._keys or {}
        if kid is not None:
            return keys.get(kid)
        # No kid: only a JWKS of exactly one key says which key that is.
        return next(iter(keys.values())) if len(keys) == 1 else None

    async def _refetch(self, asked_at: float) -> None:
        if self._lock is None:
            self._lock = anyio.Lock()
        async with self._lock:
            tried = self._tried_at
            if tried is not None and (
                tried >= asked_at or self._clock() - tried < self.min_refetch_interval
            ):
                # Fetched meanwhile (by the request we waited for), or too recently.
                if self._keys is None:
                    raise FetchError(f"no JWKS from {self.jwks_url} yet")
                return
            self._tried_at = self._clock()
            self.fetches += 1
            try:
                keys = await self._load()
            except FetchError:
                if self._keys is None:
                    raise
                log.warning("could not refresh the JWKS of %s; keeping the old keys", self.issuer)
                return
            self._keys = keys
            self._keys_at = self._clock()
            self._parsed.clear()

    async def _load(self) -> dict[str, dict[str, Any]]:
        answer = await self._fetch("GET", self.jwks_url)
        found = answer.json_object(f"GET {self.jwks_url}").get("keys")
        if not isinstance(found, list):
            raise FetchError(f"GET {self.jwks_url}: no keys")
        keys: dict[str, dict[str, Any]] = {}
        for index, jwk in enumerate(found):
            # RFC 7517 section 4.2: "use", when given, says "sig" for signing keys.
            if isinstance(jwk, dict) and jwk.get("use", "sig") == "sig" and "kty" in jwk:
                kid = jwk.get("kid")
                keys[kid if isinstance(kid, str) else f"#{index}"] = jwk
        return keys


def _reason(exc: jwt.PyJWTError) -> str:
    # Words for the client (error_description): what is wrong, not the token.
    if isinstance(exc, jwt.ExpiredSignatureError):
        return "the access token has expired"
    if isinstance(exc, jwt.ImmatureSignatureError):
        return "the access token is not valid yet"
    if isinstance(exc, jwt.InvalidAudienceError):
        return "the access token is for another resource"
    if isinstance(exc, jwt.InvalidIssuerError):
        return "the access token is from another issuer"
    if isinstance(exc, jwt.MissingRequiredClaimError):
        return f"the access token has no {exc.claim!r} claim"
    if isinstance(exc, jwt.InvalidSignatureError):
        return "the access token's signature does not verify"
    return "the access token is not valid"


def _principal(claims: Mapping[str, Any], leeway: float) -> Principal:
    # RFC 9068 section 2.2.3: "scope", space-separated; some servers send "scp".
    scope = claims.get("scope", claims.get("scp", ""))
    scopes = scope.split() if isinstance(scope, str) else scope if isinstance(scope, list) else []
    client = claims.get("client_id", claims.get("azp"))
    return Principal(
        subject=str(claims["sub"]),
        scopes=frozenset(s for s in scopes if isinstance(s, str)),
        client_id=client if isinstance(client, str) else None,
        expires_at=float(claims["exp"]) + leeway,
        issuer=str(claims["iss"]),
    )
