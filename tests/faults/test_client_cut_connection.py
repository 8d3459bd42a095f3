"""A proxy cuts the connection while a tool runs: the HTTP client re-sent the POST
on a new connection, so the tool ran twice and the caller saw success. A POST that
may have been received is never sent again (RFC 9112 section 9.3.1): the call fails
with `OutcomeUnknownError`, and the tool started once (a 2026-07-28 call and a
2025-11-25 call answered with JSON; asyncio and trio)."""

from __future__ import annotations

import anyio
import pytest
from fault_helpers import Counted, failed_work
from net_helpers import LIMIT, Proxy, port_of, serving

from transports import connect_http

pytestmark = pytest.mark.anyio

REVISIONS = {"modern": ("2026-07-28",), "legacy": ("2025-11-25",)}


@pytest.mark.parametrize("era", ["modern", "legacy"])
async def test_a_cut_call_is_not_sent_again(anyio_backend: str, era: str) -> None:
    tool = Counted()
    with anyio.fail_after(LIMIT):
        async with (
            serving(tool.server(), response_mode="json") as (_, url),
            Proxy(port_of(url)).running() as proxy,
            connect_http(
                f"http://127.0.0.1:{proxy.port}/mcp",
                revisions=REVISIONS[era],
                standalone_stream=False,
            ) as client,
        ):
            # The work call goes on a kept-alive connection, the case that was retried.
            await client.call_tool("quick")

            async def cut() -> None:
                await tool.started.wait()
                proxy.cut()
                tool.release.set()  # a second start would now run to the end

            failed = await failed_work(client, cut)
            assert tool.starts == 1
            assert failed.startswith("POST ")
            assert "outcome is unknown" in failed
            # The connection is fine for what comes next.
            assert (await client.call_tool("quick")).content
