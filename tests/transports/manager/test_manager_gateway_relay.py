"""The gateway relays an upstream's sampling, elicitation and roots requests during
a call to the gateway client that made the call: a handshake-era client is asked
with requests, a 2026-07-28 one through the retries of its call (the parked calls
of test_manager_gateway_parked.py). Upstreams of both eras, in other processes;
asyncio and trio."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest
from manager_helpers import LIMIT, MANAGER_SERVER, stdio
from runtime_helpers import only_text

from mcp_core import McpError
from mcp_core.manager import TraceEntry
from mcp_core.types import CreateMessageResult, ElicitResult, ListRootsResult, Root, TextContent
from transports import Client
from transports.manager import Manager, gateway_server
from transports.memory import pipe

pytestmark = pytest.mark.anyio

UPSTREAM_ERAS = pytest.mark.parametrize("upstream_era", ["2026-07-28", "2025-11-25"])


def _callbacks(who: str) -> dict[str, Any]:
    def sampling(params: Any) -> CreateMessageResult:
        text = f"{who}-sampled-{params.messages[0].content.text}"
        return CreateMessageResult(role="assistant", content=TextContent(text=text), model="m")

    def roots() -> ListRootsResult:
        return ListRootsResult(roots=[Root(uri=f"file:///{who}")])

    def elicitation(params: Any) -> ElicitResult:
        return ElicitResult(action="accept", content={"who": f"{who}-user"})

    return {"sampling": sampling, "roots": roots, "elicitation": elicitation}


@asynccontextmanager
async def _gateway(upstream_era: str, **options: Any) -> AsyncIterator[tuple[Client, Client]]:
    """Two handshake-era clients, a and b, of a gateway over one upstream."""
    manager = Manager(
        [stdio("m", MANAGER_SERVER)], client_options={"revisions": (upstream_era,)}, **options
    )
    gateway = gateway_server(manager)  # before connecting: upstreams see the capabilities
    async with manager:
        await manager.wait_ready()
        legacy = ("2025-11-25",)
        async with (
            Client(pipe(gateway), revisions=legacy, **_callbacks("a")) as a,
            Client(pipe(gateway), revisions=legacy, **_callbacks("b")) as b,
        ):
            yield a, b


@UPSTREAM_ERAS
async def test_a_handshake_era_client_is_asked(upstream_era: str) -> None:
    with anyio.fail_after(LIMIT):
        async with _gateway(upstream_era) as (a, b):
            # Each client is asked about its own call, one after the other.
            first = await a.call_tool("m.shout", {"text": "hi"})
            assert only_text(first) == "a-sampled-hi ['file:///a'] a-user"
            second = await b.call_tool("m.shout", {"text": "yo"})
            assert only_text(second) == "b-sampled-yo ['file:///b'] b-user"


@UPSTREAM_ERAS
async def test_a_2026_client_is_asked_through_its_retries(upstream_era: str) -> None:
    with anyio.fail_after(LIMIT):
        manager = Manager(
            [stdio("m", MANAGER_SERVER)], client_options={"revisions": (upstream_era,)}
        )
        gateway = gateway_server(manager)
        async with manager:
            await manager.wait_ready()
            async with Client(pipe(gateway), revisions=("2026-07-28",), **_callbacks("c")) as c:
                # Three questions, three round trips of c's, one call of the tool
                # (test_manager_gateway_parked.py counts the starts).
                result = await c.call_tool("m.shout", {"text": "hi"})
                assert only_text(result) == "c-sampled-hi ['file:///c'] c-user"
                # A client that declared none of the capabilities cannot be
                # asked: a handshake-era upstream is told (its tool fails), a
                # 2026-07-28 one's input request fails the call.
                async with Client(pipe(gateway), revisions=("2026-07-28",)) as d:
                    try:
                        refused = await d.call_tool("m.shout", {"text": "hi"})
                        assert refused.is_error is True
                        text = only_text(refused)
                    except McpError as exc:
                        text = str(exc)
                    assert "requires the sampling capability" in text


@UPSTREAM_ERAS
async def test_calls_of_two_clients_at_once(upstream_era: str) -> None:
    with anyio.fail_after(LIMIT):
        blocking = anyio.Event()

        def on_trace(entry: TraceEntry) -> None:
            if entry.type == "request" and entry.message["params"].get("name") == "block":
                blocking.set()

        async with (
            _gateway(upstream_era, trace=True, on_trace=on_trace) as (a, b),
            anyio.create_task_group() as tg,
        ):
            tg.start_soon(b.call_tool, "m.block")
            await blocking.wait()  # b's call is in flight on the same upstream
            if upstream_era == "2026-07-28":
                # The upstream asks inside the answer to a's own call: a is asked.
                result = await a.call_tool("m.shout", {"text": "hi"})
                assert only_text(result) == "a-sampled-hi ['file:///a'] a-user"
            else:
                # A handshake-era upstream's request says nothing of the call it
                # is for: with calls of two clients in flight, nobody is asked.
                with pytest.raises(McpError, match="cannot tell which of its clients"):
                    await a.call_tool("m.shout", {"text": "hi"})
            tg.cancel_scope.cancel()
