"""The runtime end to end over the in-memory pipe: both eras, both modes, both backends."""

from __future__ import annotations

from typing import Any

import pytest

from mcp_core import Context, Server
from mcp_core.types import LEGACY_REVISIONS
from transports import connect_in_memory

pytestmark = pytest.mark.anyio

ERAS = {"legacy": LEGACY_REVISIONS, "modern": ("2026-07-28",)}


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def make_server() -> Server:
    server = Server("basic", "1.0")

    @server.tool
    def echo(text: str) -> str:
        """Say it back."""
        return text

    @server.tool
    async def greet(ctx: Context) -> str:
        answer = await ctx.elicit(
            "Name?", {"type": "object", "properties": {"name": {"type": "string"}}}
        )
        return f"Hello, {answer.content['name']}"  # type: ignore[index]

    return server


@pytest.mark.parametrize("era", ["legacy", "modern"])
@pytest.mark.parametrize("objects", [False, True])
async def test_call_and_ask_in_both_eras(era: str, objects: bool) -> None:
    def elicit(params: Any) -> dict[str, Any]:
        return {"action": "accept", "content": {"name": "Ada"}}

    async with connect_in_memory(
        make_server(), objects=objects, revisions=ERAS[era], elicitation=elicit
    ) as client:
        assert client.era == era
        assert client.revision == ERAS[era][-1]
        echoed = await client.call_tool("echo", {"text": "hi"})
        assert echoed.content[0].text == "hi"  # type: ignore[union-attr]
        greeted = await client.call_tool("greet")
        assert greeted.content[0].text == "Hello, Ada"  # type: ignore[union-attr]
        assert [tool.name async for tool in client.iter_tools()] == ["echo", "greet"]


async def test_the_server_tells_the_sink_which_request_a_message_belongs_to() -> None:
    # HTTP routes a handler's progress, logs and questions onto the stream of the
    # request being served; the driver names that request with every flush.
    from collections.abc import AsyncIterator
    from contextlib import asynccontextmanager

    import anyio

    from mcp_core.wire import Message, RequestId, encode_message
    from transports import Client, Driver, ServerConnection

    server = make_server()

    @server.tool
    async def busy(ctx: Context) -> str:
        await ctx.report_progress(1, 2)
        await ctx.info("working")
        return "done"

    seen: list[tuple[str, RequestId | None]] = []

    @asynccontextmanager
    async def connector(client: Driver) -> AsyncIterator[None]:
        async with anyio.create_task_group() as tg:
            connection = ServerConnection(server, tg)

            def to_server(messages: list[Message], related: RequestId | None) -> None:
                for message in messages:
                    connection.driver.feed(encode_message(message))

            def to_client(messages: list[Message], related: RequestId | None) -> None:
                for message in messages:
                    what = getattr(message, "method", None) or f"response {message.id}"  # type: ignore[union-attr]
                    seen.append((what, related))
                    client.feed(encode_message(message))

            client.attach(to_server)
            connection.driver.attach(to_client)
            yield
            connection.close()
            tg.cancel_scope.cancel()

    def elicit(params: Any) -> dict[str, Any]:
        return {"action": "accept", "content": {"name": "Ada"}}

    async with Client(connector, revisions=ERAS["legacy"], elicitation=elicit) as client:
        await client.set_logging_level("debug")
        seen.clear()
        result = await client.call_tool("busy", on_progress=lambda event: None)
        assert result.content[0].text == "done"  # type: ignore[union-attr]
        (call_id,) = {related for _, related in seen}
        assert [what for what, _ in seen] == [
            "notifications/progress",
            "notifications/message",
            f"response {call_id}",
        ]
        seen.clear()
        await client.call_tool("greet")
        asked = [related for what, related in seen if what == "elicitation/create"]
        assert len(asked) == 1 and asked[0] is not None
        assert seen[-1] == (f"response {asked[0]}", asked[0])
