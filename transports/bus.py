"""The in-process `Bus` (mcp_core.http.shared): every listener of a topic gets
each message published on it while it listens. One process only; several
workers use `transports.redis.RedisBus`."""

from __future__ import annotations

import contextlib
import math
from collections.abc import AsyncIterator

import anyio
from anyio.streams.memory import MemoryObjectSendStream

__all__ = ["MemoryBus"]


class MemoryBus:
    """Topics in memory; a slow listener only delays its own messages."""

    def __init__(self) -> None:
        self._listeners: dict[str, set[MemoryObjectSendStream[bytes]]] = {}

    async def publish(self, topic: str, message: bytes) -> None:
        for send in list(self._listeners.get(topic, ())):
            send.send_nowait(message)

    @contextlib.asynccontextmanager
    async def listen(self, topic: str) -> AsyncIterator[AsyncIterator[bytes]]:
        send, receive = anyio.create_memory_object_stream[bytes](math.inf)
        listeners = self._listeners.setdefault(topic, set())
        listeners.add(send)
        try:
            async with receive:
                yield receive.__aiter__()
        finally:
            listeners.discard(send)
            if not listeners:
                self._listeners.pop(topic, None)
            send.close()
