"""Tasks over stdio with our client, both eras, asyncio and trio: a child server
process (tests/servers/task_server.py), a handle with status messages, and a
transparent call."""

from __future__ import annotations

import sys

import anyio
import paths
import pytest
from runtime_helpers import BOTH_ERAS, ERAS, only_text

from transports import connect_stdio

pytestmark = pytest.mark.anyio

SERVER = [sys.executable, str(paths.ROOT / "tests" / "servers" / "task_server.py")]
ENV = {"PYTHONPATH": str(paths.ROOT)}


@BOTH_ERAS
async def test_tasks_over_stdio(era: str) -> None:
    with anyio.fail_after(30):
        async with connect_stdio(SERVER, env=ENV, revisions=ERAS[era]) as client:
            assert client.era == era
            handle = await client.call_tool("count", {"to": 2}, task=True)
            assert handle.task_id is not None
            assert only_text(await handle.result()) == "counted to 2"
            assert handle.status == "completed"
            if era == "modern":
                # The server made a task of a plain call; the client followed it.
                assert only_text(await client.call_tool("count", {"to": 1})) == "counted to 1"
