# What the parts of the HTTP client endpoint need of it.
#
# `HttpClientEndpoint` (client) is made of parts: an `AnswerReader`
# (client_answers) that reads what comes back of each exchange, and a
# `FallbackPlanner` (client_fallbacks) that recovers when the first plan fails.
# Each part owns its own state; what they share (exchanges, pending requests,
# held messages, the gate) is a `ClientState` (client_exchange) handed to each at
# construction, and what they ask the endpoint to do goes through `ClientHost`,
# the interface below, which the endpoint implements. So the parts import
# neither the endpoint nor each other's module in a circle: client -> parts ->
# client_host -> records.

from __future__ import annotations

from typing import Protocol

from ..wire.jsonrpc import Message
from ..wire.sse import ServerSentEvent
from .client_actions import ClientAction, SendHttp
from .client_config import HttpClientConfig
from .client_exchange import ClientSseStream, HttpExchange, Kind

__all__ = ["ClientHost"]


class ClientHost(Protocol):
    """The endpoint as its parts see it: what it knows of the server, and what
    they may ask it to do (each returns the actions to carry out)."""

    config: HttpClientConfig
    url: str
    transport: str
    endpoint: str | None
    session_id: str | None
    revision: str | None
    closed: bool
    tool_headers: dict[str, dict[str, tuple[str, ...]]]

    def dispatch(self, message: Message, body: bytes) -> list[ClientAction]:
        """Send one message now (it is its turn)."""
        ...

    def release(self) -> list[ClientAction]:
        """Open the gate and send what was held."""
        ...

    def post(
        self, message: Message, body: bytes, *, session: bool = True, kind: Kind = Kind.POST
    ) -> SendHttp:
        """A POST of ``body``."""
        ...

    def get(self, kind: Kind, stream: ClientSseStream | None, delay: float = 0.0) -> SendHttp:
        """A GET of an SSE stream."""
        ...

    def deliver(self, message: Message) -> list[ClientAction]:
        """Hand a message from the server to the session."""
        ...

    def fail(
        self, exchange: HttpExchange, reason: str, body: bytes = b"", *, unknown: bool = False
    ) -> list[ClientAction]:
        """Fail the request an exchange carries."""
        ...

    def fail_held(self, reason: str, status: int | None = None) -> list[ClientAction]:
        """Fail every request that is held."""
        ...

    def stream_event(self, exchange: HttpExchange, event: ServerSentEvent) -> list[ClientAction]:
        """One event of a stream that carries the server's messages."""
        ...

    def session_lost(self, exchange: HttpExchange) -> list[ClientAction]:
        """A request of our session got 404."""
        ...

    def handshake_lost(self, exchange: HttpExchange) -> list[ClientAction]:
        """notifications/initialized got 404: the session ended mid-handshake."""
        ...

    def fall_back(self, exchange: HttpExchange) -> list[ClientAction]:
        """initialize was refused as an older server would: try HTTP+SSE."""
        ...

    def reopened(self, answer: object) -> list[ClientAction]:
        """The answer to the initialize that replaces a lost session."""
        ...
