"""Serve one worker of a deployment whose shared state is on Redis.

`share_on_redis` points a `Server`'s shared stores at Redis and wraps its
lifespan so that the connection opens when serving starts (any transport) and
closes when it ends, after checking that this worker seals ``requestState`` with
the same key as the others. The HTTP transport takes the session registry, the
event log and the bus from `SharedState`.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any

import anyio

from mcp_core.server import Server
from mcp_core.wire.errors import SharedStateUnavailable

from .bus import RedisBus
from .connection import DEFAULT_PREFIX, DEFAULT_TIMEOUT, RedisConnection, check_fingerprint
from .events import RedisEventLog
from .once import RedisOnceStore
from .sessions import RedisSessionRegistry
from .tasks import RedisTaskStore

__all__ = ["SharedState", "share_on_redis"]

log = logging.getLogger("mcp_core")


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
        events=shared.events,
        bus=shared.bus,
        state_keys=state_keys,
    )
    inner = server.lifespan

    @contextlib.asynccontextmanager
    async def lifespan(app: Server) -> AsyncIterator[Any]:
        # The fingerprint is kept as long as a state lives (after that no state
        # sealed with an old key is valid, so a new key may take over), renewed
        # while this worker runs.
        ttl = app.state_ttl
        async with connection, anyio.create_task_group() as tg:
            await check_fingerprint(connection, app.state_fingerprint, ttl=ttl)
            tg.start_soon(_renew_fingerprint, connection, app.state_fingerprint, ttl)
            try:
                if inner is None:
                    yield None
                else:
                    async with inner(app) as value:
                        yield value
            finally:
                tg.cancel_scope.cancel()

    server.lifespan = lifespan
    return shared


async def _renew_fingerprint(connection: RedisConnection, fingerprint: str, ttl: float) -> None:
    while True:
        await anyio.sleep(ttl / 3)
        try:
            await check_fingerprint(connection, fingerprint, ttl=ttl)
        except (RuntimeError, SharedStateUnavailable) as exc:
            log.error("requestState key check: %s", exc)
