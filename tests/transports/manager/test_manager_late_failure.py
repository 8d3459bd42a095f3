"""A call's failure on a connection that is already gone arrives after the link has
connected again: it belongs to the old connection, and leaves the new one alone.

A 2026-07-28 upstream asks its question inside the answer to the call, so the
call's task waits in the question (here: the gateway client's sampling answer)
with no request in flight; meanwhile the upstream is killed (or reconnected by
hand) and the link connects a new process. The answer then comes (once the new
connection is up, or while it opens), the call's retry fails on the old, closed
client, and the gateway's next call must find the link connected, not "not
connected (failed)". Upstream in another process; asyncio and trio.
"""

from __future__ import annotations

import os
import signal
from typing import Any

import anyio
import pytest
from manager_helpers import FAST, LIMIT, MANAGER_SERVER, stdio
from runtime_helpers import only_text

from mcp_core.types import CreateMessageResult, TextContent
from transports import Client
from transports.manager import Manager, ServerStatus, gateway_server
from transports.memory import pipe

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize(
    ("cut", "answered"),
    [("killed", "connected"), ("reconnected", "connected"), ("killed", "connecting")],
)
async def test_a_late_failure_of_the_old_connection(cut: str, answered: str) -> None:
    asked, answer = anyio.Event(), anyio.Event()

    async def sampling(params: Any) -> CreateMessageResult:
        asked.set()
        await answer.wait()
        return CreateMessageResult(role="assistant", content=TextContent(text="a"), model="m")

    # Reconnected by hand: no automatic retry, so a loss of the new connection
    # would leave the link "failed" (what the gateway was seen to say).
    config = stdio("m", MANAGER_SERVER, auto_reconnect=cut == "killed")
    after: list[str] = []  # the states once the answer is given

    def on_status(status: ServerStatus) -> None:
        if answer.is_set():
            after.append(status.state)

    manager = Manager(
        [config],
        backoff=FAST,
        on_status=on_status,
        client_options={"revisions": ("2026-07-28",)},
    )
    gateway = gateway_server(manager)
    outcome: list[str] = []
    done = anyio.Event()

    async def first_call(client: Client) -> None:
        result = await client.call_tool("m.interview", {"rounds": 1})
        outcome.append(only_text(result))
        done.set()

    with anyio.fail_after(LIMIT):
        async with (
            manager,
            Client(pipe(gateway), revisions=("2025-11-25",), sampling=sampling) as client,
            anyio.create_task_group() as tg,
        ):
            await manager.wait_for("m", "connected")
            old = manager.status_of("m").pid
            assert old is not None
            tg.start_soon(first_call, client)
            await asked.wait()  # the call's task waits for the answer
            if cut == "killed":
                os.kill(old, signal.SIGKILL)
                await manager.wait_until(lambda: manager.status_of("m").state != "connected")
            else:
                manager.reconnect("m")
            # The new connection is up, or (answered while connecting) its
            # attempt has begun: a new process starting, its handshake to come.
            await manager.wait_for("m", answered)
            answer.set()  # the retry goes to the old, closed connection
            await done.wait()
            # The call itself broke with its connection, and says so.
            assert "broke while the call of tool 'interview' was in flight" in outcome[0]
            await manager.wait_for("m", "connected")
            # The new connection was neither cut nor abandoned for it, and the
            # gateway uses it.
            assert [state for state in after if state != "connected"] == []
            status = manager.status_of("m")
            assert (status.state, status.last_error) == ("connected", None)
            assert status.pid != old
            result = await client.call_tool("m.whoami")
            assert only_text(result) == "manager-server"
