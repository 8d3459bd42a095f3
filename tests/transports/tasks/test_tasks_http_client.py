"""Our client's task handle over streamable HTTP (the h11 server), both eras,
asyncio and trio. Over HTTP a 2026-07-28 ``tasks/*`` request carries
``Mcp-Name: <taskId>`` (experimental-ext-tasks tasks.mdx "Streamable HTTP:
Routing Headers": the client MUST set it, the server refuses it missing)."""

from __future__ import annotations

import anyio
import pytest
from net_helpers import serving
from runtime_helpers import BOTH_ERAS, ERAS, only_text
from test_tasks_client import make_server

from transports import connect_http

pytestmark = pytest.mark.anyio


@BOTH_ERAS
async def test_a_handle_over_http(era: str) -> None:
    with anyio.fail_after(20):
        async with (
            serving(make_server()) as (_, url),
            connect_http(url, revisions=ERAS[era]) as client,
        ):
            handle = await client.call_tool("slow", {"seconds": 0.05}, task=True)
            assert handle.task_id is not None
            await handle.refresh()
            assert only_text(await handle.result()) == "slept 0.05"
            assert handle.status == "completed"
            cancelled = await client.call_tool("forever", task=True)
            await cancelled.cancel()
            assert cancelled.status == "cancelled"
