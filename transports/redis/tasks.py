"""The `TaskStore` on Redis: any worker creates, reads and changes any task.

Each task is a hash ``{r: record JSON, v: version}`` under a key of its principal,
expiring with the task (its ``ttl_ms`` from creation, or ``max_ttl``); each
principal has a sorted set of its task ids by creation time, for listing. Every
operation is one round trip (a Lua script where it reads and writes), so a
compare-and-set is atomic across workers.
"""

from __future__ import annotations

import msgspec

from mcp_core.tasks import TaskRecord

from .connection import RedisConnection

__all__ = ["RedisTaskStore"]

_CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'r', ARGV[1], 'v', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[5])
redis.call('PEXPIRE', KEYS[2], ARGV[6])
return 1
"""

_SWAP = """
if redis.call('HGET', KEYS[1], 'v') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'r', ARGV[2], 'v', ARGV[3])
return 1
"""

# The ids after ARGV[1] (or from the start), ARGV[2] at most, with their records;
# ids whose task expired are dropped from the index on the way.
_PAGE = """
local start = 0
if ARGV[1] ~= '' then
  local rank = redis.call('ZRANK', KEYS[1], ARGV[1])
  if not rank then return {} end
  start = rank + 1
end
local found = {}
local limit = tonumber(ARGV[2])
while #found < limit do
  local ids = redis.call('ZRANGE', KEYS[1], start, start + limit - 1)
  if #ids == 0 then break end
  for _, id in ipairs(ids) do
    local record = redis.call('HGET', ARGV[3] .. id, 'r')
    if record then
      if #found < limit then table.insert(found, record) end
    else
      redis.call('ZREM', KEYS[1], id)
      start = start - 1
    end
  end
  start = start + #ids
end
return found
"""

DEFAULT_MAX_TTL = 86_400.0


class RedisTaskStore:
    """A `mcp_core.tasks.TaskStore` on Redis.

    Args:
        connection: the worker's `RedisConnection`.
        max_ttl: seconds a task without a TTL of its own is kept (every key
            expires).
    """

    def __init__(self, connection: RedisConnection, *, max_ttl: float = DEFAULT_MAX_TTL) -> None:
        self.connection = connection
        self.max_ttl_ms = int(max_ttl * 1000)

    def _key(self, principal: str, task_id: str) -> str:
        return self.connection.key("task", principal, task_id)

    async def create(self, record: TaskRecord, now: float) -> None:
        ttl_ms = self.max_ttl_ms if record.ttl_ms is None else min(record.ttl_ms, self.max_ttl_ms)
        ttl_ms = max(1, ttl_ms - int((now - record.created_at) * 1000))
        created = await self.connection.script(
            _CREATE,
            [self._key(record.principal, record.task_id), self._index(record.principal)],
            [
                msgspec.json.encode(record),
                record.version,
                ttl_ms,
                record.created_at,
                record.task_id,
                self.max_ttl_ms,
            ],
        )
        if not created:
            raise ValueError(f"task {record.task_id!r} exists already")

    def _index(self, principal: str) -> str:
        return self.connection.key("tasks", principal, "index")

    async def get(self, principal: str, task_id: str) -> TaskRecord | None:
        client = self.connection.client
        data = await self.connection.run(client.hget(self._key(principal, task_id), "r"))
        return None if data is None else msgspec.json.decode(data, type=TaskRecord)

    async def swap(self, old: TaskRecord, new: TaskRecord) -> bool:
        done = await self.connection.script(
            _SWAP,
            [self._key(old.principal, old.task_id)],
            [old.version, msgspec.json.encode(new), new.version],
        )
        return bool(done)

    async def page(self, principal: str, after: str | None, limit: int) -> list[TaskRecord]:
        prefix = self._key(principal, "")
        found = await self.connection.script(
            _PAGE, [self._index(principal)], [after or "", limit, prefix]
        )
        return [msgspec.json.decode(data, type=TaskRecord) for data in found]

    async def expire(self, now: float) -> list[TaskRecord]:
        # Redis drops a task when its key's TTL elapses; nothing to sweep.
        return []
