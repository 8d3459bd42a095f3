"""Single-use ``requestState`` across workers: one ``SET NX PX`` per claim."""

from __future__ import annotations

import math

from .connection import RedisConnection

__all__ = ["RedisOnceStore"]


class RedisOnceStore:
    """A `mcp_core.server.OnceStore` on Redis: a nonce is claimed by creating its
    key, which expires with the token (2026-07-28 basic/patterns/mrtr.mdx
    "Server Requirements": single use is the server's to enforce)."""

    def __init__(self, connection: RedisConnection) -> None:
        self.connection = connection

    async def claim(self, nonce: bytes, expiry: float, *, now: float) -> bool:
        ttl_ms = math.ceil((expiry - now) * 1000)
        if ttl_ms <= 0:
            return False
        key = self.connection.key("once", None, nonce.hex())
        return await self.connection.set_once(key, b"1", ttl_ms)
