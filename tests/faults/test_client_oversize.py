"""An answer longer than the client reads. Over stdio the line was dropped (a -32700
sent back) and the call waited forever. Now the client reads the id from the head
of the line and fails that call, and the connection goes on; a line whose id it
cannot read fails the connection, saying why. Over legacy HTTP the call failed with
the misleading "resuming the stream failed: HTTP 400"; now it says the answer is
over the client's limit. Small limits keep these fast (asyncio and trio)."""

from __future__ import annotations

import sys

import anyio
import paths
import pytest
from net_helpers import LIMIT, serving
from runtime_helpers import only_text

from mcp_core import McpError, Server
from transports import Client, ConnectionClosed, OutcomeUnknownError, connect_http
from transports.stdio import stdio_connector

pytestmark = pytest.mark.anyio

ECHO = [sys.executable, str(paths.SERVERS / "stdio_echo.py")]
ENV = {"PYTHONPATH": str(paths.ROOT)}
CAP = 2000

# A server whose answers to tools/call put the id last, after a long result: the
# client cannot tell which request such a line answers.
ID_LAST = """
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        continue
    if message["method"] == "initialize":
        result = {"protocolVersion": message["params"]["protocolVersion"],
                  "capabilities": {"tools": {}}, "serverInfo": {"name": "x", "version": "1"}}
    else:
        result = {"content": [{"type": "text", "text": "x" * 5000}]}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "result": result, "id": message["id"]}))
    sys.stdout.write("\\n")
    sys.stdout.flush()
"""


async def test_a_stdio_answer_over_the_limit_fails_its_call(anyio_backend: str) -> None:
    connector = stdio_connector(
        [*ECHO, anyio_backend], env=ENV, stderr=lambda line: None, max_line_bytes=CAP
    )
    with anyio.fail_after(LIMIT):
        async with Client(connector, revisions=("2025-11-25",)) as client:
            with pytest.raises(McpError) as failed:
                await client.call_tool("big", {"size": 3 * CAP})
            assert failed.value.code == -32700
            assert f"message longer than {CAP} bytes" in failed.value.message
            assert only_text(await client.call_tool("echo", {"text": "after"})) == "after"


async def test_a_stdio_line_over_the_limit_without_a_readable_id_fails_the_connection(
    anyio_backend: str,
) -> None:
    connector = stdio_connector(
        [sys.executable, "-c", ID_LAST], stderr=lambda line: None, max_line_bytes=CAP
    )
    with anyio.fail_after(LIMIT), pytest.raises(ConnectionClosed) as failed:
        async with Client(connector, revisions=("2025-11-25",)) as client:
            await client.call_tool("anything")
    assert f"longer than {CAP} bytes" in str(failed.value)
    assert "which request it answers cannot be read" in str(failed.value)


@pytest.mark.parametrize("mode", ["sse", "json"])
async def test_a_legacy_http_answer_over_the_limit_says_so(anyio_backend: str, mode: str) -> None:
    server = Server("big", "1")

    @server.tool
    def big(size: int) -> str:
        return "x" * size

    @server.tool
    def echo(text: str) -> str:
        return text

    with anyio.fail_after(LIMIT):
        async with (
            serving(server, response_mode=mode) as (_, url),
            connect_http(url, revisions=("2025-11-25",), max_answer_bytes=CAP) as client,
        ):
            with pytest.raises(ConnectionClosed) as failed:
                await client.call_tool("big", {"size": 3 * CAP})
            assert not isinstance(failed.value, OutcomeUnknownError)
            limit = "max_event_bytes" if mode == "sse" else "max_answer_bytes"
            assert f"the answer is over {CAP} bytes, the client's limit ({limit})" in str(
                failed.value
            )
            assert only_text(await client.call_tool("echo", {"text": "after"})) == "after"
