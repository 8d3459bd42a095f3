"""Shared pieces of the runtime tests: backends, eras, a bounded client, an inbox.

Every runtime test runs under asyncio and trio (the `anyio_backend` fixture, to
import into each test module) and, where the feature exists in both, in both eras
(the `BOTH_ERAS` mark).
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from functools import partial
from typing import Any, Final

import anyio
import pytest
from anyio.streams.stapled import StapledObjectStream
from limits import HANG

from mcp_core import REVISIONS, Server
from mcp_core.types import LEGACY_REVISIONS, CallToolResult, ContentBlock, TextContent
from mcp_core.wire import Message, Notification, Request, RequestId, encode_message
from transports import (
    Client,
    Connector,
    Driver,
    ServerConnection,
    connect_in_memory,
    pump,
    serve_stream,
)
from transports.driver import DEFAULT_MAX_CONCURRENCY

LEGACY: Final = "2025-11-25"
MODERN: Final = "2026-07-28"

ERAS: Final = {"legacy": LEGACY_REVISIONS, "modern": (MODERN,)}
"""The client revisions that pick each era."""

LIMIT: Final = HANG
"""Seconds any one test may wait for anything; a hang fails instead of stalling."""


BOTH_ERAS: Final = pytest.mark.parametrize("era", ["legacy", "modern"])
"""Run a test (with an ``era`` argument) in each era."""

INITIALIZE: Final = (
    b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"'
    + LEGACY.encode()
    + b'","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
)
"""A client's 2025-11-25 initialize request (id 0), for tests that speak bytes."""

INITIALIZED: Final = b'{"jsonrpc":"2.0","method":"notifications/initialized"}'
"""The notification that ends the handshake."""


@asynccontextmanager
async def connected(
    server: Server, era: str, *, objects: bool = False, **options: Any
) -> AsyncIterator[Client]:
    """A client of ``server`` over the in-memory pipe, in ``era``, bounded by LIMIT."""
    with anyio.fail_after(LIMIT):
        async with connect_in_memory(
            server, objects=objects, revisions=ERAS[era], **options
        ) as client:
            assert client.era == era
            yield client


def text(block: ContentBlock) -> str:
    """The text of a content block that must be TextContent."""
    assert isinstance(block, TextContent), block
    return block.text


def only_text(result: CallToolResult) -> str:
    """The text of a result with exactly one TextContent block."""
    assert len(result.content) == 1, result.content
    return text(result.content[0])


class Inbox:
    """A callback that keeps what it is given and lets a test wait for it.

    One argument is kept as is, several as a tuple (``on_notification`` gives
    ``(method, params)``).
    """

    def __init__(self) -> None:
        self.items: list[Any] = []
        self._arrived: anyio.Event | None = None

    def __call__(self, *args: Any) -> None:
        self.items.append(args[0] if len(args) == 1 else args)
        if self._arrived is not None:
            self._arrived.set()

    async def wait_for(self, count: int) -> list[Any]:
        """Wait until at least ``count`` items came; return them all."""
        with anyio.fail_after(LIMIT):
            while len(self.items) < count:
                self._arrived = anyio.Event()
                await self._arrived.wait()
        return self.items


class Hang:
    """A handler body that waits until cancelled, and says when it started and ended.

    ``started`` is set when the handler begins waiting, ``ended`` in its
    ``finally``; ``cancelled`` tells whether cancellation is what ended it.
    """

    def __init__(self) -> None:
        self.started = anyio.Event()
        self.ended = anyio.Event()
        self.cancelled = False

    async def __call__(self) -> None:
        try:
            self.started.set()
            await anyio.sleep_forever()
        except anyio.get_cancelled_exc_class():
            self.cancelled = True
            raise
        finally:
            self.ended.set()


class Tap:
    """An in-memory pipe to ``server`` that keeps what the client sent, in order,
    and can drop some of it on the way (``drop(message)`` returns True).

    Use it as a Client's connector.
    """

    def __init__(
        self,
        server: Server,
        *,
        objects: bool = False,
        revisions: tuple[str, ...] = REVISIONS,
        drop: Callable[[Message], bool] | None = None,
    ) -> None:
        self.server = server
        self.objects = objects
        self.revisions = revisions
        self.drop = drop
        self.sent: list[Message] = []

    @asynccontextmanager
    async def __call__(self, driver: Driver) -> AsyncIterator[ServerConnection]:
        carry = (lambda message: message) if self.objects else encode_message
        async with anyio.create_task_group() as tg:
            connection = ServerConnection(self.server, tg, revisions=self.revisions)

            def to_server(messages: list[Message], related: RequestId | None) -> None:
                for message in messages:
                    self.sent.append(message)
                    if self.drop is None or not self.drop(message):
                        connection.driver.feed(carry(message))

            def to_client(messages: list[Message], related: RequestId | None) -> None:
                for message in messages:
                    driver.feed(carry(message))

            driver.attach(to_server)
            connection.driver.attach(to_client)
            try:
                yield connection
            finally:
                connection.close()
                tg.cancel_scope.cancel()

    def notifications(self, method: str) -> list[Any]:
        """The params of each notification ``method`` the client sent."""
        return [m.params for m in self.sent if type(m) is Notification and m.method == method]

    def requests(self, method: str) -> list[Request]:
        """Each request ``method`` the client sent."""
        return [m for m in self.sent if type(m) is Request and m.method == method]


def over_streams(
    server: Server,
    *,
    objects: bool = False,
    revisions: tuple[str, ...] = REVISIONS,
    max_concurrency: int = DEFAULT_MAX_CONCURRENCY,
) -> tuple[Connector, anyio.CancelScope]:
    """A connector over a pair of object streams: `pump` on the client's side,
    `serve_stream` on the server's, as a byte transport would use them.

    Returns the connector and the cancel scope of the serving task; cancelling it
    is the server going away.
    """
    serving = anyio.CancelScope()

    @asynccontextmanager
    async def connector(driver: Driver) -> AsyncIterator[None]:
        to_server = anyio.create_memory_object_stream[Any](math.inf)
        to_client = anyio.create_memory_object_stream[Any](math.inf)
        client_side = StapledObjectStream(to_server[0], to_client[1])
        server_side = StapledObjectStream(to_client[0], to_server[1])

        async def serve() -> None:
            with serving:
                await serve_stream(
                    server,
                    server_side,
                    objects=objects,
                    revisions=revisions,
                    max_concurrency=max_concurrency,
                )

        async with anyio.create_task_group() as tg:
            tg.start_soon(serve)
            # Started, not just scheduled: the client sends its first request as
            # soon as the connector is entered.
            await tg.start(partial(pump, driver, client_side, objects=objects))
            try:
                yield
            finally:
                tg.cancel_scope.cancel()

    return connector, serving
