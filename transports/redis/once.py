"""Single-use ``requestState`` across workers: one script per claim.

The store's memory is named by an epoch key (random bytes, renewed whenever a
state is sealed, for twice the states' lifetime). A Redis that restarts empty
has none: the next seal makes a new one, and every state sealed before carries
the old epoch, so its claim is refused ("store restarted") instead of being
taken as a first use (mcp_core/server/request_state.py, "Epoch"). Claims do
not create the key: a claim after a loss and before any seal is refused too.
"""

from __future__ import annotations

import math

from mcp_core.server.request_state import StateRejected, new_epoch

from .connection import RedisConnection

__all__ = ["RedisOnceStore"]


class RedisOnceStore:
    """A `mcp_core.server.OnceStore` on Redis: a nonce is claimed by creating its
    key, which expires with the token (2026-07-28 basic/patterns/mrtr.mdx
    "Server Requirements": single use is the server's to enforce)."""

    def __init__(self, connection: RedisConnection) -> None:
        self.connection = connection

    @property
    def _epoch_key(self) -> str:
        return f"{self.connection.prefix}:once-epoch"

    async def current_epoch(self, *, ttl: float) -> bytes:
        # Twice the states' lifetime: the key outlives every state sealed under
        # it, clocks of workers and Redis a little apart included.
        ttl_ms = max(1, math.ceil(ttl * 2000))
        return await self.connection.set_default(self._epoch_key, new_epoch(), ttl_ms)

    async def claim(self, nonce: bytes, expiry: float, *, now: float, epoch: bytes) -> bool:
        ttl_ms = math.ceil((expiry - now) * 1000)
        if ttl_ms <= 0:
            return False
        key = self.connection.key("once", None, nonce.hex())
        done = await self.connection.script(_CLAIM, [self._epoch_key, key], [epoch, ttl_ms])
        if done == -1:
            raise StateRejected("store restarted")
        return bool(done)


# -1: sealed under another epoch (or none is left); 1: claimed; 0: already was.
_CLAIM = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end
if redis.call('SET', KEYS[2], '1', 'NX', 'PX', ARGV[2]) then return 1 end
return 0
"""
