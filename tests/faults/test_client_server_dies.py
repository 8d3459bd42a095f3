"""The server dies while a 2025-11-25 call runs on its SSE stream: the client
resumed with GET and Last-Event-ID, and a GET that could not connect was neither
failed nor retried, so the call hung forever (also when the server came back).
Now resumption has a bounded number of attempts with backoff from the server's
`retry`; then the call fails with `OutcomeUnknownError`. A server that comes back
without the session answers 404: the call fails with "session lost", and the
next call opens a new session (asyncio and trio)."""

from __future__ import annotations

import anyio
import pytest
from fault_helpers import Counted, Killable, failed_work
from net_helpers import LIMIT, Proxy

from transports import connect_http

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("comes_back", [False, True], ids=["stays-dead", "restarted"])
async def test_a_call_whose_server_dies_fails_in_bounded_time(
    anyio_backend: str, comes_back: bool
) -> None:
    tool = Counted()
    http = Killable(tool.server(), sse_retry_ms=20)
    with anyio.fail_after(LIMIT):
        async with anyio.create_task_group() as tg:
            await http.start(tg)
            # The proxy only watches: the call's stream has begun (its priming
            # event, with an id to resume from, reached the client).
            async with (
                Proxy(http.port).running() as proxy,
                connect_http(
                    f"http://127.0.0.1:{proxy.port}/mcp",
                    revisions=("2025-11-25",),
                    max_reconnects=4,
                    max_retry_delay=0.1,
                ) as client,
            ):
                url = f"http://127.0.0.1:{proxy.port}/mcp"

                async def kill() -> None:
                    await tool.started.wait()
                    await proxy.wait_for(b"working")
                    await http.kill()
                    if comes_back:
                        await http.start(tg)

                failed = await failed_work(client, kill)
                if comes_back:
                    assert str(failed).startswith(f"GET {url}: session lost")
                    tool.release.set()
                    assert (await client.call_tool("quick")).content
                else:
                    assert "resuming the stream failed 4 times in a row" in str(failed)
            assert tool.starts == 1
            tg.cancel_scope.cancel()
