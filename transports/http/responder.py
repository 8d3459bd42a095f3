# What the HTTP service asks of a server adapter to write one response (the h11
# server's connection and the ASGI adapter each implement `Responder`).

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Protocol

import anyio

from mcp_core.http.decisions import Headers, Reply

__all__ = ["PeerGone", "Responder"]


class PeerGone(Exception):
    """The client closed the connection, broke it, or stopped reading."""


class Responder(Protocol):
    """How the service writes one response; every method raises `PeerGone` when
    the client is gone.

    A responder may also have ``peer``, the other end of its connection as
    (address, port): telemetry reads it, when on, for the conventions'
    ``client.address`` and ``client.port`` (the h11 server's and the ASGI
    adapter's have it), so it may cost a look-up."""

    async def reply(self, reply: Reply) -> None:
        """Send a whole response with a known length."""

    async def start(
        self, status: int, headers: Headers, data: bytes = b"", end: bool = False
    ) -> None:
        """Send the head of a streamed response, and ``data``, the start of its
        body; with ``end``, all of it."""

    async def send(self, data: bytes) -> None:
        """Send a part of a streamed response's body."""

    async def end(self, data: bytes = b"") -> None:
        """End a streamed response, after ``data``, the last part of its body."""

    async def watched(self, write: Callable[[], Awaitable[None]]) -> None:
        """Run ``write`` while watching for the client to hang up (from the first
        `watch` on, at the latest); if it does, cancel ``write`` and raise
        `PeerGone`."""

    async def ending(self, write: Callable[[], Awaitable[None]]) -> None:
        """As `watched`, for the last thing a connection owes nobody anything
        after: a hang-up (or `gone`) may instead end the connection there and
        then, ``write`` with it (the h11 server cancels the connection's own
        scope, not one of the write's: what unwinds is a cancellation, not
        `PeerGone`, so nothing above may count on catching `PeerGone`)."""

    def closing(self) -> anyio.CancelScope | None:
        """The cancel scope whose cancelling ends this response's connection
        (the h11 server's own), or None if there is none to share: a request
        whose cancellation may end the connection is served in it, instead of
        a scope of its own."""

    def watch(self) -> bool:
        """Watch for a hang-up from now on, if not already: a responder may wait
        for this until ``write`` first waits, as a hang-up matters only to what
        waits (a write that fails raises `PeerGone` anyway). Returns True."""

    def gone(self) -> None:
        """The client cannot be written to any more (another task's write
        failed): cancel what `watched` runs, which then raises `PeerGone`."""
