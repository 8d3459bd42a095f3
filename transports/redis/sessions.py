"""The registry of legacy sessions on Redis: one key per session, with its TTL."""

from __future__ import annotations

from mcp_core.http.shared import SessionRecord, decode_record, encode_record

from .connection import RedisConnection

__all__ = ["RedisSessionRegistry"]


class RedisSessionRegistry:
    """A `mcp_core.http.shared.SessionRegistry` on Redis."""

    def __init__(self, connection: RedisConnection) -> None:
        self.connection = connection

    def _key(self, principal: str | None, session_id: str) -> str:
        return self.connection.key("session", principal, session_id)

    async def put(self, record: SessionRecord, ttl: float) -> None:
        key = self._key(record.principal, record.session_id)
        client = self.connection.client
        await self.connection.run(
            client.set(key, encode_record(record), px=max(1, int(ttl * 1000)))
        )

    async def get(self, principal: str | None, session_id: str) -> SessionRecord | None:
        client = self.connection.client
        data = await self.connection.run(client.get(self._key(principal, session_id)))
        return None if data is None else decode_record(data)

    async def drop(self, principal: str | None, session_id: str) -> None:
        client = self.connection.client
        await self.connection.run(client.delete([self._key(principal, session_id)]))
