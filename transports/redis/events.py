"""SSE events on Redis Streams: one stream per session, capped in length.

Beside it, a hash per session names the request each SSE stream answers, and a
key per worker, renewed while it runs, says it is alive.

An event is a stream entry ``{s: stream id, e: event id, m: message}`` (no ``m``
for a priming event); the worker that sent it named it (2025-11-25
basic/transports.mdx "Resumability and Redelivery"). Appending is one round trip
(XADD with an exact MAXLEN, and the key's TTL renewed); a replay reads the
session's stream (at most ``max_events`` entries) once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mcp_core.http.shared import replay_from

from .connection import RedisConnection

__all__ = ["RedisEventLog"]

_APPEND = """
local id
if ARGV[4] == '1' then
  id = redis.call('XADD', KEYS[1], 'MAXLEN', '=', ARGV[1], '*', 's', ARGV[2], 'e', ARGV[6],
    'm', ARGV[3])
else
  id = redis.call('XADD', KEYS[1], 'MAXLEN', '=', ARGV[1], '*', 's', ARGV[2], 'e', ARGV[6])
end
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return id
"""


# Several events at once, and names of streams: ARGV[1] the length cap, ARGV[2] the
# TTL in ms, ARGV[3] how many events; then the events in groups of five (stream,
# event id, has message, message, index of its key), then the names in groups of
# three (stream, request id, index of its key): one round trip.
_APPEND_MANY = """
local i = 4
for _ = 1, tonumber(ARGV[3]) do
  local key = KEYS[tonumber(ARGV[i + 4])]
  if ARGV[i + 2] == '1' then
    redis.call('XADD', key, 'MAXLEN', '=', ARGV[1], '*', 's', ARGV[i], 'e', ARGV[i + 1],
      'm', ARGV[i + 3])
  else
    redis.call('XADD', key, 'MAXLEN', '=', ARGV[1], '*', 's', ARGV[i], 'e', ARGV[i + 1])
  end
  redis.call('PEXPIRE', key, ARGV[2])
  i = i + 5
end
while i <= #ARGV do
  local key = KEYS[tonumber(ARGV[i + 2])]
  redis.call('HSET', key, ARGV[i], ARGV[i + 1])
  redis.call('PEXPIRE', key, ARGV[2])
  i = i + 3
end
return 1
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
        self,
        principal: str | None,
        session_id: str,
        stream_id: str,
        event_id: str,
        message: bytes | None,
    ) -> None:
        await self.connection.script(
            _APPEND,
            [self._key(principal, session_id)],
            [
                self.max_events,
                stream_id,
                message or b"",
                "0" if message is None else "1",
                self.ttl_ms,
                event_id,
            ],
        )

    async def append_many(
        self,
        events: Sequence[tuple[str | None, str, str, str, bytes | None]],
        streams: Sequence[tuple[str | None, str, str, bytes]] = (),
    ) -> None:
        keys: list[str] = []

        def index(key: str) -> int:
            if key not in keys:
                keys.append(key)
            return keys.index(key) + 1

        args: list[Any] = [self.max_events, self.ttl_ms, len(events)]
        for principal, session_id, stream_id, event_id, message in events:
            has = "0" if message is None else "1"
            at = index(self._key(principal, session_id))
            args += [stream_id, event_id, has, message or b"", at]
        for principal, session_id, stream_id, request_id in streams:
            args += [stream_id, request_id, index(self._streams_key(principal, session_id))]
        if keys:
            await self.connection.script(_APPEND_MANY, keys, args)

    def _streams_key(self, principal: str | None, session_id: str) -> str:
        return self.connection.key("streams", principal, session_id)

    async def request_of(
        self, principal: str | None, session_id: str, stream_id: str
    ) -> bytes | None:
        client = self.connection.client
        found = await self.connection.run(
            client.hget(self._streams_key(principal, session_id), stream_id)
        )
        return None if found is None else _raw(found)

    async def beat(self, worker: str, ttl: float) -> None:
        key = self.connection.key("worker", None, worker)
        client = self.connection.client
        await self.connection.run(client.set(key, b"1", px=max(1, int(ttl * 1000))))

    async def alive(self, worker: str) -> bool:
        client = self.connection.client
        found = await self.connection.run(
            client.exists([self.connection.key("worker", None, worker)])
        )
        return bool(found)

    async def after(
        self, principal: str | None, session_id: str, event_id: str
    ) -> tuple[str, list[tuple[str, bytes]]] | None:
        client = self.connection.client
        found = await self.connection.run(
            client.xrange(self._key(principal, session_id), start="-", end="+")
        )
        events = [
            (
                _text(item.field_values.get(b"s")),
                _text(item.field_values.get(b"e")),
                None if b"m" not in item.field_values else _raw(item.field_values[b"m"]),
            )
            for item in found
        ]
        return replay_from(events, event_id)

    async def drop(self, principal: str | None, session_id: str) -> None:
        client = self.connection.client
        keys = [self._key(principal, session_id), self._streams_key(principal, session_id)]
        await self.connection.run(client.delete(keys))


def _text(value: str | bytes | None) -> str:
    return value.decode() if isinstance(value, bytes) else (value or "")


def _raw(value: str | bytes) -> bytes:
    return value if isinstance(value, bytes) else value.encode()
