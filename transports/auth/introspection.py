# Access tokens checked by asking the authorization server (RFC 7662 "OAuth 2.0
# Token Introspection"), for opaque tokens.
#
# Each distinct token is introspected once and its answer cached, bounded twice:
# in time (`cache_ttl`, and never past the token's `exp`, so that a revoked token
# is refused again within `cache_ttl`) and in size (`max_cached` tokens, the least
# recently used dropped first). Tokens are cached under their SHA-256, so the
# cache holds no usable token.

from __future__ import annotations

import base64
import hashlib
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping
from typing import Any
from urllib.parse import quote, urlencode

from mcp_core.auth import Principal, TokenRefusal

from .fetch import Fetched, fetch

__all__ = ["IntrospectionVerifier"]

Post = Callable[[str, tuple[tuple[str, str], ...], bytes], Awaitable[Fetched]]


def _post(url: str, headers: tuple[tuple[str, str], ...], body: bytes) -> Awaitable[Fetched]:
    return fetch("POST", url, headers=headers, body=body)


class IntrospectionVerifier:
    """Verifies tokens with an RFC 7662 introspection endpoint.

    Args:
        url: the introspection endpoint.
        audience: our resource URI: an answer's ``aud`` must name it (RFC 8707);
            None turns the check off (introspection answers often omit ``aud``,
            as the server answers only about tokens for its resource servers).
        issuer: when given, an answer's ``iss``, if present, must equal it.
        client_id: how the resource server authenticates to the endpoint
            (HTTP Basic, RFC 7662 section 2.1), with ``client_secret``.
        client_secret: see ``client_id``.
        cache_ttl: seconds an answer is reused at most.
        max_cached: answers kept at most.
        post: how to POST (``post(url, headers, body)``); tests may replace it.
        clock: seconds since the epoch, for expiry and the cache.
    """

    def __init__(
        self,
        url: str,
        *,
        audience: str | None,
        issuer: str | None = None,
        client_id: str | None = None,
        client_secret: str | None = None,
        cache_ttl: float = 60.0,
        max_cached: int = 10_000,
        post: Post = _post,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.url = url
        self.audience = audience
        self.issuer = issuer
        self.cache_ttl = cache_ttl
        self.max_cached = max_cached
        self._post = post
        self._clock = clock
        headers = [
            ("content-type", "application/x-www-form-urlencoded"),
            ("accept", "application/json"),
        ]
        if client_id is not None:
            # RFC 6749 section 2.3.1: form-encode both parts before Base64.
            pair = f"{quote(client_id, safe='')}:{quote(client_secret or '', safe='')}"
            headers.append(("authorization", "Basic " + base64.b64encode(pair.encode()).decode()))
        self._headers = tuple(headers)
        self._cache: OrderedDict[bytes, tuple[float, Principal | TokenRefusal]] = OrderedDict()
        #: How many times the endpoint was asked.
        self.requests = 0

    async def verify(self, token: str) -> Principal | TokenRefusal:
        """See `TokenVerifier.verify`.

        Raises:
            FetchError: the endpoint could not be asked, or answered nonsense.
        """
        key = hashlib.sha256(token.encode()).digest()
        now = self._clock()
        cached = self._cache.get(key)
        if cached is not None and cached[0] > now:
            self._cache.move_to_end(key)
            return cached[1]
        self.requests += 1
        body = urlencode({"token": token, "token_type_hint": "access_token"}).encode()
        answer = await self._post(self.url, self._headers, body)
        document = answer.json_object(f"POST {self.url}")
        verdict = self._judge(document, now)
        until = now + self.cache_ttl
        if isinstance(verdict, Principal) and verdict.expires_at is not None:
            until = min(until, verdict.expires_at)
        self._cache[key] = (until, verdict)
        self._cache.move_to_end(key)
        while len(self._cache) > self.max_cached:
            self._cache.popitem(last=False)
        return verdict

    def _judge(self, answer: Mapping[str, Any], now: float) -> Principal | TokenRefusal:
        # RFC 7662 section 2.2: "active" is the one required member; an inactive
        # token gets no other information.
        if answer.get("active") is not True:
            return TokenRefusal("the access token is not active")
        if self.issuer is not None and answer.get("iss", self.issuer) != self.issuer:
            return TokenRefusal("the access token is from another issuer")
        if self.audience is not None:
            aud = answer.get("aud")
            named = aud if isinstance(aud, list) else [aud]
            if self.audience not in named:
                return TokenRefusal("the access token is for another resource")
        exp = answer.get("exp")
        if exp is not None and (not isinstance(exp, int | float) or exp <= now):
            return TokenRefusal("the access token has expired")
        nbf = answer.get("nbf")
        if isinstance(nbf, int | float) and nbf > now:
            return TokenRefusal("the access token is not valid yet")
        client = answer.get("client_id")
        client = client if isinstance(client, str) else None
        subject = answer.get("sub", client)
        if not isinstance(subject, str) or not subject:
            return TokenRefusal("the access token names no subject")
        scope = answer.get("scope")
        iss = answer.get("iss")
        return Principal(
            subject=subject,
            scopes=frozenset(scope.split()) if isinstance(scope, str) else frozenset(),
            client_id=client,
            expires_at=float(exp) if exp is not None else None,
            issuer=iss if isinstance(iss, str) else None,
        )
