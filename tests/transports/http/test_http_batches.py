"""JSON-RPC batches of a 2025-03-26 session answered on SSE (response mode "sse"): one
stream carries every response and ends after the last (2025-03-26 basic/transports.mdx
"Sending Messages to the Server" item 6). The service runs without sockets, on asyncio
and trio; the shared adapter suite (test_http_adapters.py) covers the JSON answer."""

from __future__ import annotations

import json

import anyio
import pytest
from http_helpers import Gates, initialize, make_server
from test_http_service_fuzz import exchange, head

from mcp_core import HttpServerConfig
from transports.http.service import HttpService

pytestmark = pytest.mark.anyio


def encoded(message: object) -> bytes:
    return json.dumps(message).encode()


async def test_a_batch_answered_on_one_sse_stream() -> None:
    gates = Gates()
    service = HttpService(make_server(gates), HttpServerConfig(response_mode="sse"))
    async with service.running():
        body = encoded(initialize("2025-03-26"))
        opened = await exchange(service, head("POST", "/mcp", {}, body), body)
        session = {"mcp-session-id": opened.headers["mcp-session-id"]}
        body = encoded({"jsonrpc": "2.0", "method": "notifications/initialized"})
        assert (await exchange(service, head("POST", "/mcp", session, body), body)).status == 202

        batch = [
            {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "hang"}},
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {"name": "slow", "_meta": {"progressToken": "p"}},
            },
        ]
        body = encoded(batch)

        async def release() -> None:
            await gates.started.wait()
            gates.release.set()

        with anyio.fail_after(5):
            async with anyio.create_task_group() as tg:
                tg.start_soon(release)
                out = await exchange(service, head("POST", "/mcp", session, body), body)
        assert out.status == 200 and out.ended
        assert out.headers["content-type"] == "text/event-stream"
        events = [line[6:] for line in out.body.split(b"\n") if line.startswith(b"data: ")]
        messages = [json.loads(event) for event in events]
        answered = sorted(m["id"] for m in messages if "result" in m)
        assert answered == [1, 2]
        # Messages related to a request of the batch go on its stream, before the end.
        assert [m["method"] for m in messages if "method" in m] == [
            "notifications/progress",
            "notifications/message",
        ]
        ids = [line for line in out.body.split(b"\n") if line.startswith(b"id: ")]
        assert len(ids) == len(set(ids)) == len(messages)  # each event can be resumed
