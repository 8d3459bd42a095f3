"""Test helpers: a client session piped into a server session, in memory."""

from __future__ import annotations

from typing import Any

from mcp_core.session.client import ClientConfig, ClientSession
from mcp_core.session.events import Event
from mcp_core.session.server import ServerConfig, ServerSession
from mcp_core.types.base import Implementation, ServerCapabilities
from mcp_core.wire import encode_message


class SessionPair:
    """A ClientSession and a ServerSession that exchange bytes through the codec.

    ``flush()`` moves every queued message across, both ways, until both are
    quiet, and returns the events each side saw. Every message goes through
    encode_message and receive_bytes, so what arrives is what the wire carries.
    """

    def __init__(
        self,
        client: ClientSession | None = None,
        server: ServerSession | None = None,
        *,
        revisions: tuple[str, ...] | None = None,
        capabilities: ServerCapabilities | None = None,
    ) -> None:
        client_config = ClientConfig(client_info=Implementation(name="test-client", version="1"))
        server_config = ServerConfig(
            server_info=Implementation(name="test-server", version="2"),
            capabilities=capabilities or ServerCapabilities(tools={}),
        )
        if revisions is not None:
            import msgspec

            client_config = msgspec.structs.replace(client_config, revisions=revisions)
        self.client = client or ClientSession(client_config)
        self.server = server or ServerSession(server_config)
        self.now = 0.0
        self.wire: list[tuple[str, bytes]] = []

    def flush(self) -> tuple[list[Event], list[Event]]:
        client_events: list[Event] = []
        server_events: list[Event] = []
        while True:
            to_server = self.client.messages_to_send()
            to_client = self.server.messages_to_send()
            if not to_server and not to_client:
                return client_events, server_events
            for message in to_server:
                data = encode_message(message)
                self.wire.append(("c->s", data))
                server_events.extend(self.server.receive_bytes(data, self.now))
            for message in to_client:
                data = encode_message(message)
                self.wire.append(("s->c", data))
                client_events.extend(self.client.receive_bytes(data, self.now))

    def open(self, timeout: float | None = None) -> tuple[list[Event], list[Event]]:
        self.client.start(now=self.now, timeout=timeout)
        return self.flush()


def only(events: list[Any], kind: type) -> Any:
    matching = [e for e in events if isinstance(e, kind)]
    assert len(matching) == 1, events
    return matching[0]
