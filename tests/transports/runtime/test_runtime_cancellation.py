"""Cancellation end to end: by the caller's cancel scope, by a timeout, of what the
server asked the client, and of requests waiting for a concurrency slot.

Every hanging handler records in a `finally` that it ended (runtime_helpers.Hang),
so a test sees the cancellation arrive at the other side instead of assuming it.
"""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from runtime_helpers import (
    BOTH_ERAS,
    ERAS,
    LIMIT,
    Hang,
    Inbox,
    Tap,
    connected,
    only_text,
    over_streams,
)

from mcp_core import REVISIONS, Context, Server
from mcp_core.types import ElicitRequestParams
from transports import Client

pytestmark = [pytest.mark.anyio, BOTH_ERAS]


def hanging_server(hang: Hang) -> Server:
    server = Server("hanging", "1.0")

    @server.tool
    async def stall() -> str:
        await hang()
        return "never"

    @server.tool
    def echo(text: str) -> str:
        return text

    @server.tool
    async def ask(ctx: Context) -> str:
        answer = await ctx.elicit("Well?", {"type": "object", "properties": {}})
        return answer.action

    return server


@pytest.mark.parametrize("objects", [False, True])
async def test_cancelling_the_caller_cancels_the_handler(era: str, objects: bool) -> None:
    hang = Hang()
    tap = Tap(hanging_server(hang), objects=objects)
    with anyio.fail_after(LIMIT):
        async with Client(tap, revisions=ERAS[era]) as client:
            async with anyio.create_task_group() as tg:
                tg.start_soon(client.call_tool, "stall")
                await hang.started.wait()
                tg.cancel_scope.cancel()
            # notifications/cancelled reached the server, which cancelled the handler.
            await hang.ended.wait()
            assert hang.cancelled
            (call,) = tap.requests("tools/call")
            (cancelled,) = tap.notifications("notifications/cancelled")
            assert cancelled.request_id == call.id
            assert only_text(await client.call_tool("echo", {"text": "ok"})) == "ok"


async def test_cancelling_a_call_cancels_the_question_it_asked(era: str) -> None:
    # Legacy: the server's elicitation/create request is cancelled at the client
    # in turn. 2026-07-28: the callback runs in the caller's own task.
    hang = Hang()

    async def elicitation(params: ElicitRequestParams) -> dict[str, Any]:
        await hang()
        return {"action": "accept"}

    async with connected(hanging_server(Hang()), era, elicitation=elicitation) as client:
        async with anyio.create_task_group() as tg:
            tg.start_soon(client.call_tool, "ask")
            await hang.started.wait()
            tg.cancel_scope.cancel()
        await hang.ended.wait()
        assert hang.cancelled
        assert only_text(await client.call_tool("echo", {"text": "ok"})) == "ok"


async def test_a_call_timeout_cancels_the_handler(era: str) -> None:
    hang = Hang()
    async with connected(hanging_server(hang), era) as client:
        with pytest.raises(TimeoutError):
            await client.call_tool("stall", timeout=0.05)
        await hang.ended.wait()
        assert hang.cancelled
        assert only_text(await client.call_tool("echo", {"text": "after"})) == "after"


async def test_a_timeout_after_some_progress(era: str) -> None:
    hang = Hang()
    server = hanging_server(hang)

    @server.tool
    async def slow(ctx: Context) -> str:
        await ctx.report_progress(1, 3, "started")
        await hang()
        return "never"

    progress = Inbox()
    async with connected(server, era) as client:
        with pytest.raises(TimeoutError):
            # Long enough for the handler to start and report, even on a busy machine.
            await client.call_tool("slow", timeout=0.25, on_progress=progress)
        await hang.ended.wait()
    assert hang.cancelled
    assert [(p.progress, p.message) for p in progress.items] == [(1, "started")]


async def test_the_client_timeout_applies_to_every_call(era: str) -> None:
    hang = Hang()
    async with connected(hanging_server(hang), era, timeout=0.05) as client:
        with pytest.raises(TimeoutError):
            await client.call_tool("stall")
        await hang.ended.wait()
        assert hang.cancelled
        # A call can give itself longer than the default.
        assert only_text(await client.call_tool("echo", {"text": "x"}, timeout=LIMIT)) == "x"


async def test_a_hanging_handler_blocks_nobody(era: str) -> None:
    hang = Hang()
    async with connected(hanging_server(hang), era) as client:
        async with anyio.create_task_group() as tg:
            tg.start_soon(client.call_tool, "stall")
            await hang.started.wait()
            for index in range(20):
                result = await client.call_tool("echo", {"text": str(index)})
                assert only_text(result) == str(index)
            assert not hang.ended.is_set()
            tg.cancel_scope.cancel()
        await hang.ended.wait()


async def test_cancelling_a_request_that_waits_for_a_slot(era: str) -> None:
    # The server serves at most two requests at once; the rest queue for a slot.
    server = Server("limited", "1.0")
    gate = anyio.Event()
    running: set[int] = set()
    started: list[int] = []
    peak = 0

    @server.tool
    async def work(n: int) -> int:
        nonlocal peak
        running.add(n)
        started.append(n)
        peak = max(peak, len(running))
        try:
            await gate.wait()
        finally:
            running.discard(n)
        return n * 10

    connector, _ = over_streams(server, revisions=REVISIONS, max_concurrency=2)
    results: dict[int, int] = {}
    scopes = {n: anyio.CancelScope() for n in range(5)}

    async def call(client: Client, n: int) -> None:
        with scopes[n]:
            results[n] = (await client.call_tool("work", {"n": n})).structured_content["result"]

    with anyio.fail_after(LIMIT):
        async with (
            Client(connector, revisions=ERAS[era]) as client,
            anyio.create_task_group() as tg,
        ):
            for n in range(5):
                tg.start_soon(call, client, n)
            await anyio.wait_all_tasks_blocked()
            assert len(running) == 2
            waiting = [n for n in range(5) if n not in running]
            scopes[waiting[0]].cancel()
            await anyio.wait_all_tasks_blocked()
            gate.set()
    assert peak == 2
    assert waiting[0] not in started
    assert results == {n: n * 10 for n in range(5) if n != waiting[0]}
