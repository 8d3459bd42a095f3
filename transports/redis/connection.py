"""One Redis connection pool for every shared-state backend of a worker.

Every command runs under a time limit: a Redis that is down or slow makes the
command fail with `SharedStateUnavailable` (the HTTP adapter answers 503) after
at most ``timeout`` seconds, never a hang. coredis reconnects by itself once
Redis is back.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import AsyncIterator, Awaitable
from typing import Any, TypeVar

import anyio
import coredis
import coredis.exceptions
from coredis.tokens import PureToken

from mcp_core.http.shared import SharedStateUnavailable

from ..telemetry import REDIS_ROUND_TRIPS, hooks

__all__ = ["RedisConnection", "check_fingerprint", "principal_scope"]

T = TypeVar("T")

_OK = {"outcome": "ok"}
_FAILED = {"outcome": "failed"}

DEFAULT_PREFIX = "mcp"
DEFAULT_TIMEOUT = 2.0


def principal_scope(principal: str | None) -> str:
    """The part of a key that names its principal: a digest, so that a principal
    (an email, a subject URL) never appears in a key, and "-" for nobody."""
    if principal is None:
        return "-"
    return hashlib.sha256(principal.encode("utf-8")).hexdigest()[:32]


class RedisConnection:
    """A Redis client for the backends, entered as an async context manager.

    Args:
        url: ``redis://host:port/db``.
        prefix: the first part of every key (several deployments on one Redis).
        timeout: seconds a command may take before it fails (connecting
            included).
    """

    def __init__(
        self, url: str, *, prefix: str = DEFAULT_PREFIX, timeout: float = DEFAULT_TIMEOUT
    ) -> None:
        self.url = url
        self.prefix = prefix
        self.timeout = timeout
        self._client: coredis.Redis[bytes] = coredis.Redis.from_url(
            url,
            decode_responses=False,
            stream_timeout=timeout,
            connect_timeout=timeout,
            pool_timeout=timeout,
        )
        self._stack: contextlib.AsyncExitStack | None = None

    async def __aenter__(self) -> RedisConnection:
        stack = contextlib.AsyncExitStack()
        await stack.enter_async_context(self._client)
        self._stack = stack
        return self

    async def __aexit__(self, *exc: object) -> None:
        stack, self._stack = self._stack, None
        if stack is not None:
            await stack.aclose()

    @property
    def client(self) -> coredis.Redis[bytes]:
        """The coredis client (inside ``async with``)."""
        return self._client

    def key(self, kind: str, principal: str | None, name: str) -> str:
        """``prefix:kind:scope:name``."""
        return f"{self.prefix}:{kind}:{principal_scope(principal)}:{name}"

    async def run(self, command: Awaitable[T]) -> T:
        """Await one command within the time limit.

        Raises:
            SharedStateUnavailable: Redis did not answer (down, slow, or refused
                the connection).
        """
        meters = hooks.meters
        try:
            with anyio.fail_after(self.timeout):
                result = await command
        except TimeoutError:
            error = SharedStateUnavailable(
                f"the shared state store (Redis at {self.url}) did not answer "
                f"within {self.timeout:g} s"
            )
        except (coredis.exceptions.ConnectionError, OSError) as exc:
            error = SharedStateUnavailable(
                f"the shared state store (Redis at {self.url}) is unreachable: {exc}"
            )
        else:
            if meters is not None:
                meters.add(REDIS_ROUND_TRIPS, 1, _OK)
            return result
        if meters is not None:
            meters.add(REDIS_ROUND_TRIPS, 1, _FAILED)
        raise error from None

    async def script(self, source: str, keys: list[str], args: list[Any]) -> Any:
        """Run a Lua script (one round trip, atomic)."""
        return await self.run(self._client.eval(source, keys, args))

    async def set_once(self, key: str, value: bytes, ttl_ms: int) -> bool:
        """``SET key value NX PX ttl``: True when the key was not there."""
        done = await self.run(
            self._client.set(key, value, condition=PureToken.NX, px=max(1, ttl_ms))
        )
        return bool(done)

    async def set_default(self, key: str, value: bytes, ttl_ms: int) -> bytes:
        """Set ``key`` to ``value`` unless it has a value, renew it for
        ``ttl_ms`` and return its value: one round trip."""
        found = await self.script(_SET_DEFAULT, [key], [value, max(1, ttl_ms)])
        return bytes(found)

    @contextlib.asynccontextmanager
    async def opened(self) -> AsyncIterator[RedisConnection]:
        """The same as ``async with self``, for an exit stack."""
        async with self:
            yield self


async def check_fingerprint(connection: RedisConnection, fingerprint: str, ttl: float) -> None:
    """Fail loudly when this worker seals ``requestState`` with another key than
    the workers already running (2026-07-28 basic/patterns/mrtr.mdx: a state
    sealed on one worker must open on any).

    The first worker registers its fingerprint (`Server.state_fingerprint`); the
    others compare. The key expires ``ttl`` seconds after the last worker started.

    Raises:
        RuntimeError: the fingerprints differ.
        SharedStateUnavailable: Redis cannot be reached.
    """
    key = f"{connection.prefix}:state-key"
    ttl_ms = max(1, int(ttl * 1000))
    found = await connection.set_default(key, fingerprint.encode(), ttl_ms)
    if found != fingerprint.encode():
        raise RuntimeError(
            "this worker's requestState key differs from the one the other workers use "
            f"(fingerprint {fingerprint}, theirs {bytes(found).decode()}): give every worker "
            "the same MCP_CORE_STATE_KEY"
        )


# SET NX, then renew and return what is there: one round trip.
_SET_DEFAULT = """
redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return redis.call('GET', KEYS[1])
"""
