"""SSE events on Redis Streams: one stream per session, capped in length.

An event is a stream entry ``{s: stream id, m: message}`` (no ``m`` for a
priming event); its event id is ``<stream id>/<entry id>``, unique in the
session and naming its stream (2025-11-25 basic/transports.mdx "Resumability and
Redelivery"). Appending is one round trip (XADD with an exact MAXLEN, and the
key's TTL renewed); a replay is one XRANGE from the event named.
"""

from __future__ import annotations

from .connection import RedisConnection

__all__ = ["RedisEventLog"]

_APPEND = """
local id
if ARGV[4] == '1' then
  id = redis.call('XADD', KEYS[1], 'MAXLEN', '=', ARGV[1], '*', 's', ARGV[2], 'm', ARGV[3])
else
  id = redis.call('XADD', KEYS[1], 'MAXLEN', '=', ARGV[1], '*', 's', ARGV[2])
end
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return id
"""


class RedisEventLog:
    """A `mcp_core.http.shared.EventLog` on Redis Streams.

    Args:
        connection: the worker's `RedisConnection`.
        max_events: events kept per session (XADD MAXLEN).
        ttl: seconds a session's events are kept after its last one.
    """

    def __init__(
        self, connection: RedisConnection, *, max_events: int = 256, ttl: float = 3600.0
    ) -> None:
        self.connection = connection
        self.max_events = max_events
        self.ttl_ms = int(ttl * 1000)

    def _key(self, principal: str | None, session_id: str) -> str:
        return self.connection.key("events", principal, session_id)

    async def append(
        self, principal: str | None, session_id: str, stream_id: str, message: bytes | None
    ) -> str:
        entry = await self.connection.script(
            _APPEND,
            [self._key(principal, session_id)],
            [
                self.max_events,
                stream_id,
                message or b"",
                "0" if message is None else "1",
                self.ttl_ms,
            ],
        )
        return f"{stream_id}/{bytes(entry).decode()}"

    async def after(
        self, principal: str | None, session_id: str, event_id: str
    ) -> tuple[str, list[tuple[str, bytes]]] | None:
        stream_id, slash, entry = event_id.rpartition("/")
        if not slash or not stream_id or not _is_entry_id(entry):
            return None
        client = self.connection.client
        found = await self.connection.run(
            client.xrange(self._key(principal, session_id), start=entry, end="+")
        )
        # The first entry is the one named; gone (trimmed, expired) or never
        # issued: unknown. Trimming drops the oldest first, so when it is here,
        # every later event is too: the replay has no holes.
        entries = [(_text(item.identifier), item.field_values) for item in found]
        if not entries or entries[0][0] != entry or _text(entries[0][1].get(b"s")) != stream_id:
            return None
        later = [
            (f"{stream_id}/{ident}", _raw(fields[b"m"]))
            for ident, fields in entries[1:]
            if _text(fields.get(b"s")) == stream_id and b"m" in fields
        ]
        return stream_id, later

    async def drop(self, principal: str | None, session_id: str) -> None:
        client = self.connection.client
        await self.connection.run(client.delete([self._key(principal, session_id)]))


def _is_entry_id(text: str) -> bool:
    ms, dash, seq = text.partition("-")
    return bool(dash) and ms.isdigit() and seq.isdigit() and len(text) <= 41


def _text(value: str | bytes | None) -> str:
    return value.decode() if isinstance(value, bytes) else (value or "")


def _raw(value: str | bytes) -> bytes:
    return value if isinstance(value, bytes) else value.encode()
