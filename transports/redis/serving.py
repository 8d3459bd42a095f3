"""Serve one worker of a deployment whose shared state is on Redis.

`share_on_redis` points a `Server`'s shared stores at Redis and wraps its
lifespan so that the connection opens when serving starts (any transport) and
closes when it ends, after checking that this worker seals ``requestState`` with
the same key as the others. The HTTP transport takes the session registry, the
event log and the bus from `SharedState`.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any

from mcp_core.server import Server

from .bus import RedisBus
from .connection import DEFAULT_PREFIX, DEFAULT_TIMEOUT, RedisConnection, check_fingerprint
from .events import RedisEventLog
from .once import RedisOnceStore
from .sessions import RedisSessionRegistry
from .tasks import RedisTaskStore

__all__ = ["SharedState", "share_on_redis"]


@dataclass(frozen=True)
class SharedState:
    """The Redis backends of one worker."""

    connection: RedisConnection
    once: RedisOnceStore
    tasks: RedisTaskStore
    sessions: RedisSessionRegistry
    events: RedisEventLog
    bus: RedisBus


def share_on_redis(
    server: Server,
    url: str,
    *,
    prefix: str = DEFAULT_PREFIX,
    timeout: float = DEFAULT_TIMEOUT,
    state_keys: Sequence[bytes] | None = None,
) -> SharedState:
    """Make ``server`` keep its shared state on the Redis at ``url``.

    Call before serving; every worker of the deployment calls it with the same
    ``url``, ``prefix`` and ``state_keys`` (None keeps the Server's own
    ``state_key``, which must then be the same everywhere).

    Returns:
        The backends (for the HTTP transport's sessions, events and bus).
    """
    connection = RedisConnection(url, prefix=prefix, timeout=timeout)
    shared = SharedState(
        connection,
        RedisOnceStore(connection),
        RedisTaskStore(connection),
        RedisSessionRegistry(connection),
        RedisEventLog(connection),
        RedisBus(connection),
    )
    server.share_state(
        once=shared.once,
        tasks=shared.tasks,
        sessions=shared.sessions,
        bus=shared.bus,
        state_keys=state_keys,
    )
    inner = server.lifespan

    @contextlib.asynccontextmanager
    async def lifespan(app: Server) -> AsyncIterator[Any]:
        async with connection:
            await check_fingerprint(connection, app.state_fingerprint, ttl=86_400.0)
            if inner is None:
                yield None
            else:
                async with inner(app) as value:
                    yield value

    server.lifespan = lifespan
    return shared
