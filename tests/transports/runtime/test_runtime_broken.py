"""The runtime over a broken session: the driver closes the connection cleanly and
fails what waits with a clear reason; and the in-flight cap end to end in memory.
Every test runs under asyncio and trio."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest
from runtime_helpers import BOTH_ERAS, ERAS, LIMIT, Hang

from mcp_core import Limits, McpError, Server, SessionState
from transports import Client, ConnectionClosed, Driver, ServerConnection, pipe

pytestmark = pytest.mark.anyio


def make_server(hangs: list[Hang]) -> Server:
    server = Server("broken", "1.0")

    @server.tool
    async def stall(n: int) -> str:
        await hangs[n]()
        return "never"

    @server.tool
    def echo(text: str) -> str:
        return text

    return server


def keeping(server: Server, connections: list[ServerConnection], **options: Any) -> Any:
    """pipe(server), keeping the server side's connection for the test."""
    base = pipe(server, **options)

    @asynccontextmanager
    async def connector(driver: Driver) -> AsyncIterator[ServerConnection]:
        async with base(driver) as connection:
            connections.append(connection)
            yield connection

    return connector


@BOTH_ERAS
async def test_a_failed_write_fails_the_waiting_calls_with_its_reason(era: str) -> None:
    hangs = [Hang()]
    failures: list[BaseException] = []

    async def call(client: Client) -> None:
        try:
            await client.call_tool("stall", {"n": 0})
        except ConnectionClosed as exc:
            failures.append(exc)

    with anyio.fail_after(LIMIT):
        async with Client(pipe(make_server(hangs)), revisions=ERAS[era]) as client:
            async with anyio.create_task_group() as tg:
                tg.start_soon(call, client)
                await hangs[0].started.wait()
                assert client._driver is not None
                client._driver.send_failed("the pipe broke")
            assert [str(f) for f in failures] == ["the pipe broke"]
            assert client.session.state is SessionState.ERROR
            with pytest.raises(ConnectionClosed, match="the pipe broke"):
                await client.call_tool("echo", {"text": "after"})


@BOTH_ERAS
async def test_a_broken_server_session_cancels_its_handlers(era: str) -> None:
    hangs = [Hang()]
    connections: list[ServerConnection] = []
    connector = keeping(make_server(hangs), connections)
    with anyio.fail_after(LIMIT):
        async with (
            Client(connector, revisions=ERAS[era]) as client,
            anyio.create_task_group() as tg,
        ):
            tg.start_soon(client.call_tool, "stall", {"n": 0})
            await hangs[0].started.wait()
            (connection,) = connections
            connection.driver.receive_failed("the framing is lost")
            await hangs[0].ended.wait()
            assert hangs[0].cancelled
            assert connection.session.state is SessionState.ERROR
            assert connection.driver.closed
            assert connection.driver.close_reason == "the framing is lost"
            tg.cancel_scope.cancel()


async def test_a_version_the_client_cannot_speak_closes_the_connection() -> None:
    # 2025-11-25 basic/lifecycle.mdx: a client that does not support the server's
    # version SHOULD disconnect.
    client = Client(pipe(make_server([]), revisions=("2025-11-25",)), revisions=("2025-06-18",))
    with anyio.fail_after(LIMIT), pytest.raises(McpError, match="handshake failed"):
        async with client:
            pass  # pragma: no cover - the opening fails
    assert client.session.state is SessionState.ERROR
    assert client._driver is not None and client._driver.closed
    assert client._driver.close_reason.startswith("the session is broken: server chose")


async def test_feeding_a_session_broken_elsewhere_closes_the_driver() -> None:
    with anyio.fail_after(LIMIT):
        async with Client(pipe(make_server([])), revisions=ERAS["legacy"]) as client:
            driver = client._driver
            assert driver is not None
            client.session.send_failed("broken by hand")
            driver.feed(b'{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}')
            assert driver.closed
            assert driver.close_reason == "the session is broken: broken by hand"
            driver.send_failed("ignored once closed")
            driver.receive_failed("ignored once closed")
            assert client.session.error_reason == "broken by hand"


@BOTH_ERAS
async def test_requests_over_the_cap_are_refused_and_the_connection_goes_on(era: str) -> None:
    hangs = [Hang(), Hang()]
    server = make_server(hangs)
    limits = Limits(max_requests_in_flight=2)
    with anyio.fail_after(LIMIT):
        async with Client(pipe(server, limits=limits), revisions=ERAS[era]) as client:
            async with anyio.create_task_group() as tg:
                for n in range(2):
                    tg.start_soon(client.call_tool, "stall", {"n": n})
                for hang in hangs:
                    await hang.started.wait()
                with pytest.raises(McpError) as refused:
                    await client.call_tool("echo", {"text": "one too many"})
                assert refused.value.code == -32603
                assert refused.value.data == {"maxRequestsInFlight": 2}
                tg.cancel_scope.cancel()  # the two stalled calls, cancelled at the server
            for hang in hangs:
                await hang.ended.wait()
            result = await client.call_tool("echo", {"text": "room again"})
            assert result.content[0].text == "room again"  # type: ignore[union-attr]
