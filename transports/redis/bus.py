"""Messages between workers on Redis pub/sub.

A topic is a channel under the connection's prefix. Pub/sub keeps nothing (no
key, so nothing to expire): a message reaches the workers listening when it is
published, which is what list changes, resource updates and routed replies need
(what must survive is in the event log or the task store).

A listener whose connection is lost ends with an error rather than being
subscribed again behind its back (coredis's default): what was published
meanwhile is lost to it, and only its owner can say so to its clients (the HTTP
relay listens anew and tells every open stream that the lists may have
changed).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from coredis.retry import NoRetryPolicy

from .connection import RedisConnection

__all__ = ["RedisBus"]


class RedisBus:
    """A `mcp_core.http.shared.Bus` on Redis pub/sub."""

    def __init__(self, connection: RedisConnection) -> None:
        self.connection = connection

    def _channel(self, topic: str) -> str:
        return f"{self.connection.prefix}:bus:{topic}"

    async def publish(self, topic: str, message: bytes) -> None:
        client = self.connection.client
        await self.connection.run(client.publish(self._channel(topic), message))

    @contextlib.asynccontextmanager
    async def listen(self, topic: str) -> AsyncIterator[AsyncIterator[bytes]]:
        channel = self._channel(topic).encode()
        # The confirmation may take as long as any command (coredis waits 1 s),
        # which a loaded worker's loop can exceed, and a listener that fails at
        # first is only tried again a second later.
        pubsub = self.connection.client.pubsub(
            channels=[channel],
            retry_policy=NoRetryPolicy(),
            subscription_timeout=self.connection.timeout,
        )
        async with pubsub:
            # Subscribed once the confirmation is read: from then on nothing
            # published is missed.
            async for first in pubsub:
                if first["type"] == "subscribe":
                    break

            async def messages() -> AsyncIterator[bytes]:
                async for item in pubsub:
                    data = item["data"]
                    if item["type"] == "message" and isinstance(data, bytes):
                        yield data

            yield messages()
