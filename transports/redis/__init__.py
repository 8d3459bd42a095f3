"""Shared state on Redis, for several server processes behind a load balancer.

Each class is the Redis backend of one interface of the core (the in-memory
default stays the default): `RedisOnceStore` (single-use ``requestState``,
`mcp_core.server.OnceStore`), `RedisTaskStore` (`mcp_core.tasks.TaskStore`),
`RedisSessionRegistry` and `RedisEventLog` (`mcp_core.http.shared`), and
`RedisBus` (pub/sub between workers). They share one `RedisConnection`.

Needs the ``redis`` extra (coredis, an anyio-native client: asyncio and trio).
Keys start with the connection's prefix, carry a digest of the principal, hold
raw JSON bytes, and every key has a TTL.
"""

from .bus import RedisBus
from .connection import RedisConnection, check_fingerprint, principal_scope
from .events import RedisEventLog
from .once import RedisOnceStore
from .serving import SharedState, share_on_redis
from .sessions import RedisSessionRegistry
from .tasks import RedisTaskStore

__all__ = [
    "RedisBus",
    "RedisConnection",
    "RedisEventLog",
    "RedisOnceStore",
    "RedisSessionRegistry",
    "RedisTaskStore",
    "SharedState",
    "check_fingerprint",
    "principal_scope",
    "share_on_redis",
]
