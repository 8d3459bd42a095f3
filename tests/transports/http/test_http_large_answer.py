"""A 10 MiB answer reaches our HTTP client in a 2025-11-25 session: the client's
caps on an answer and on one SSE event are both the largest message a server may
send (16 MiB, Limits.max_message_bytes)."""

from __future__ import annotations

import anyio
import pytest
from net_helpers import serving
from runtime_helpers import only_text

from mcp_core import Server
from transports import connect_http

pytestmark = pytest.mark.anyio


async def test_a_10_mib_answer_on_sse(anyio_backend: str) -> None:
    server = Server("big", "1")

    @server.tool
    async def big(size: int) -> str:
        return "x" * size

    size = 10 * 1024 * 1024
    with anyio.fail_after(30):
        async with (
            serving(server) as (_, url),
            connect_http(url, revisions=("2025-11-25",)) as client,
        ):
            assert len(only_text(await client.call_tool("big", {"size": size}))) == size
