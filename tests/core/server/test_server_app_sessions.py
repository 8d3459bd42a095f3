"""Server.dispatch between real sessions: what arrives is what the wire carries."""

from __future__ import annotations

from typing import Any

import pytest
from helpers import SessionPair, only
from server_app_helpers import KEY, FakePeer

from mcp_core.server.app import Server
from mcp_core.server.context import Context, McpError
from mcp_core.session.client import ClientConfig, ClientSession
from mcp_core.session.events import ErrorReceived, InputRequired, RequestReceived, ResponseReceived
from mcp_core.session.server import ServerSession
from mcp_core.types.base import ClientCapabilities, ElicitationCapability, Implementation
from mcp_core.types.content import TextContent
from mcp_core.types.methods import REVISIONS
from mcp_core.types.server import CallToolRequestParams, CallToolResult


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def make_app() -> Server:
    app = Server("app", "1.0", state_key=KEY)

    @app.tool
    async def greet(greeting: str, ctx: Context) -> str:
        answer = await ctx.elicit(
            "Name?", {"type": "object", "properties": {"name": {"type": "string"}}}
        )
        return f"{greeting}, {answer.content['name']}"  # type: ignore[index]

    return app


def make_pair(app: Server, revisions: tuple[str, ...] | None = None) -> SessionPair:
    config = ClientConfig(
        client_info=Implementation(name="c", version="0"),
        capabilities=ClientCapabilities(elicitation=ElicitationCapability()),
        revisions=revisions or REVISIONS,
    )
    return SessionPair(client=ClientSession(config), server=ServerSession(app.config()))


async def serve(app: Server, pair: SessionPair, peer: FakePeer | None = None) -> list[Any]:
    """Dispatch every request the server session reports; return the client's events."""
    client_events, server_events = pair.flush()
    for event in server_events:
        if isinstance(event, RequestReceived):
            try:
                result = await app.dispatch(event, Context(event, peer or FakePeer(), now=1.0))
            except McpError as exc:
                pair.server.send_error(event.id, exc.code, exc.message, exc.data)
            else:
                pair.server.send_response(event.id, result)
    more, _ = pair.flush()
    return client_events + more


@pytest.mark.anyio
async def test_modern_round_trips_over_sessions() -> None:
    app = make_app()
    pair = make_pair(app)
    pair.open()
    arguments = {"greeting": "Hi"}
    pair.client.send_request("tools/call", CallToolRequestParams(name="greet", arguments=arguments))
    asked = only(await serve(app, pair), InputRequired)
    state = asked.result.request_state
    pair.client.send_request(
        "tools/call",
        CallToolRequestParams(
            name="greet",
            arguments=arguments,
            input_responses={"1": {"action": "accept", "content": {"name": "Ada"}}},
            request_state=state,
        ),
    )
    done = only(await serve(app, pair), ResponseReceived)
    assert isinstance(done.result, CallToolResult)
    assert done.result.content[0] == TextContent(text="Hi, Ada")
    pair.client.send_request("tools/call", CallToolRequestParams(name="nope"))
    failed = only(await serve(app, pair), ErrorReceived)
    assert (failed.error.code, failed.error.message) == (-32602, "Unknown tool: nope")


@pytest.mark.anyio
async def test_legacy_elicitation_goes_through_the_peer() -> None:
    app = make_app()
    pair = make_pair(app, revisions=("2025-11-25",))
    pair.open()
    pair.client.send_request(
        "tools/call", CallToolRequestParams(name="greet", arguments={"greeting": "Yo"})
    )
    peer = FakePeer({"elicitation/create": {"action": "accept", "content": {"name": "Bo"}}})
    done = only(await serve(app, pair, peer), ResponseReceived)
    assert done.result.content[0].text == "Yo, Bo"
    assert [m for m, _ in peer.requests] == ["elicitation/create"]
