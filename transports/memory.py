"""In-memory pipes: a client and a server in one process, with no I/O at all.

Two modes, both on the real sessions:

* bytes (the default): every message is encoded to JSON and decoded by the other
  side, exactly as a wire would carry it. Honest for tests and benchmarks.
* objects: Message objects are handed over as they are, with no encoding; the
  fast path for embedding a server in the same process.

The two drivers are coupled directly: what one session sends is fed to the other
as soon as it is flushed, in the same task, with no queue and no writer task.
Handlers still run in their own tasks, so cancellation and concurrency behave as
over any other transport.

Testing a server takes three lines::

    async def test_echo():
        async with connect(server) as client:
            assert (await client.call_tool("echo", {"text": "hi"})).content[0].text == "hi"
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio

from mcp_core import REVISIONS, Limits, Server
from mcp_core.wire import DEFAULT_LIMITS, Message, RequestId

from .client import Client, Connector
from .driver import Driver, Sink
from .pump import encode_for_peer
from .server_connection import ServerConnection

__all__ = ["connect_in_memory", "couple", "pipe"]


def couple(a: Driver, b: Driver, *, objects: bool = False) -> None:
    """Wire two drivers to each other: what one sends, the other receives at once."""
    a.attach(_feeding(b, objects))
    b.attach(_feeding(a, objects))


def _feeding(peer: Driver, objects: bool) -> Sink:
    # A sink that feeds ``peer`` each message, as it is or as its JSON.
    def feed(messages: list[Message], related: RequestId | None) -> None:
        for message in messages:
            peer.feed(message if objects else encode_for_peer(message))

    return feed


def pipe(
    server: Server,
    *,
    objects: bool = False,
    revisions: tuple[str, ...] = REVISIONS,
    limits: Limits = DEFAULT_LIMITS,
    principal: str | None = None,
) -> Connector:
    """A connector that serves ``server`` in this process, for a `Client`.

    Args:
        server: the application to serve.
        objects: hand Message objects over without encoding (see the module doc).
        revisions: the revisions the server side speaks (e.g. only legacy ones,
            to test a client against an old server).
        limits: the server side's message limits.
        principal: the principal the server sees for every request.
    """

    @asynccontextmanager
    async def connect_driver(client: Driver) -> AsyncIterator[ServerConnection]:
        async with server.running(), anyio.create_task_group() as tg:
            connection = ServerConnection(
                server, tg, revisions=revisions, limits=limits, principal=principal, objects=objects
            )
            couple(client, connection.driver, objects=objects)
            try:
                yield connection
            finally:
                client.close("the server went away")
                connection.close()
                tg.cancel_scope.cancel()

    return connect_driver


def connect_in_memory(
    server: Server,
    *,
    objects: bool = False,
    server_revisions: tuple[str, ...] = REVISIONS,
    **client_options: Any,
) -> Client:
    """A `Client` connected to ``server`` in this process; use it with ``async with``.

    Args:
        server: the application to serve.
        objects: skip encoding (see the module doc).
        server_revisions: the revisions the server side speaks.
        client_options: anything `Client` takes (callbacks, revisions, timeout...).
    """
    return Client(pipe(server, objects=objects, revisions=server_revisions), **client_options)
