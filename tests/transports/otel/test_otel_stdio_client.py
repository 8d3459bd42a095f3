"""Our client spawning a server over stdio: its spans say ``network.transport``
``pipe`` (the conventions' value for stdio), carry the revision and no session
id (stdio has none), and its session duration says pipe too. Both eras, asyncio
and trio; the child is tests/servers/task_server.py."""

from __future__ import annotations

import sys

import anyio
import paths
import pytest
from otel_helpers import recorded
from runtime_helpers import BOTH_ERAS, ERAS

from transports import connect_stdio

pytestmark = pytest.mark.anyio

SERVER = [sys.executable, str(paths.ROOT / "tests" / "servers" / "task_server.py")]
ENV = {"PYTHONPATH": str(paths.ROOT)}


@BOTH_ERAS
async def test_client_spans_over_stdio_are_on_a_pipe(era: str) -> None:
    with recorded() as record, anyio.fail_after(30):
        async with connect_stdio(SERVER, env=ENV, revisions=ERAS[era]) as client:
            await client.list_tools()
            revision = client.revision
        metrics = record.metrics()
    (listed,) = record.named("tools/list")
    assert listed.kind.name == "CLIENT"
    attributes = dict(listed.attributes or {})
    assert attributes["network.transport"] == "pipe"
    assert attributes["mcp.protocol.version"] == revision
    assert not {"mcp.session.id", "server.address", "server.port"} & set(attributes)
    (session,) = metrics["mcp.client.session.duration"]
    assert session.attributes["network.transport"] == "pipe"
