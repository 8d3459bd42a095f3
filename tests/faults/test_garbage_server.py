"""A "server" that writes nothing but garbage (`yes`): the stdio client answered each
line with -32700, looped at full CPU and ended with 'no answer in time'. Now it
answers none and fails the connection at once, saying the server wrote no JSON-RPC
(asyncio and trio)."""

from __future__ import annotations

import sys

import anyio
import pytest

from transports import ConnectionClosed, connect_stdio

pytestmark = pytest.mark.anyio


YES = [sys.executable, "-c", "import sys\nwhile True: sys.stdout.write('y\\n')"]
"""What `yes` does, in Python: a line of garbage after another, reading nothing."""


async def test_a_server_that_writes_garbage_fails_the_connection_at_once(
    anyio_backend: str,
) -> None:
    with anyio.fail_after(5), pytest.raises(ConnectionClosed) as failed:
        async with connect_stdio(YES):
            raise AssertionError("a handshake with yes cannot succeed")
    assert "messages in a row that are not JSON-RPC" in str(failed.value)
