"""A 2026-07-28 client of the gateway answers an upstream's questions through the
retries of its call, while the upstream's call waits, parked: the tool starts
once (``interview`` counts its starts), whatever era the upstream speaks. A
requestState that names no waiting call (expired, replayed, unknown) gets the
Server's -32602; cancelling the retry cancels the upstream call. Upstreams in
other processes; asyncio and trio."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest
from manager_helpers import LIMIT, MANAGER_SERVER, stdio
from msgspec import UNSET
from runtime_helpers import only_text

from mcp_core import McpError
from mcp_core.manager import TraceEntry
from mcp_core.session import ProgressReceived
from mcp_core.types import (
    CallToolRequestParams,
    CreateMessageResult,
    InputRequiredResult,
    TextContent,
)
from mcp_core.wire import INVALID_PARAMS
from transports import Client
from transports.manager import Manager, gateway_server
from transports.memory import pipe

pytestmark = pytest.mark.anyio

UPSTREAM_ERAS = pytest.mark.parametrize("upstream_era", ["2026-07-28", "2025-11-25"])
INTERVIEW = "m.interview"


def _sampling(params: Any) -> CreateMessageResult:
    text = f"s-{params.messages[0].content.text}"
    return CreateMessageResult(role="assistant", content=TextContent(text=text), model="m")


def _answer(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": {"type": "text", "text": text}, "model": "m"}


@asynccontextmanager
async def _client(
    upstream_era: str, on_trace: Callable[[TraceEntry], None] | None = None, **options: Any
) -> AsyncIterator[Client]:
    """A 2026-07-28 client (it can sample) of a gateway over one upstream."""
    manager = Manager(
        [stdio("m", MANAGER_SERVER)],
        client_options={"revisions": (upstream_era,)},
        trace=on_trace is not None,
        on_trace=on_trace,
    )
    gateway = gateway_server(manager, **options)
    async with manager:
        await manager.wait_ready()
        async with Client(pipe(gateway), revisions=("2026-07-28",), sampling=_sampling) as c:
            yield c


async def _call(
    c: Client, arguments: dict[str, Any], answers: Any = UNSET, state: Any = UNSET
) -> Any:
    """One round trip of a call of ``interview``: its result, as it came."""
    params = CallToolRequestParams(
        name=INTERVIEW, arguments=arguments, input_responses=answers, request_state=state
    )
    return await c.request("tools/call", params)


def _question(result: Any) -> tuple[str, str, str]:
    """The one question of an InputRequiredResult: its key, text and requestState."""
    assert type(result) is InputRequiredResult
    assert isinstance(result.input_requests, dict) and isinstance(result.request_state, str)
    ((key, request),) = result.input_requests.items()
    return key, request.params.messages[0].content.text, result.request_state


async def _refused(reason: str, *round_trip: Any) -> None:
    with pytest.raises(McpError) as caught:
        await _call(*round_trip)
    assert caught.value.code == INVALID_PARAMS
    assert caught.value.data == {"reason": reason}


@UPSTREAM_ERAS
async def test_two_rounds_of_questions_and_the_tool_starts_once(upstream_era: str) -> None:
    with anyio.fail_after(LIMIT):
        async with _client(upstream_era) as c:
            arguments = {"rounds": 2}
            key, text, state = _question(await _call(c, arguments))
            assert text == "q1"
            # A retry without the answer is asked again (2026-07-28
            # basic/patterns/mrtr.mdx "Error Handling"), the call still waiting.
            again = _question(await _call(c, arguments, {}, state))
            assert again[:2] == (key, "q1")
            second, text, state = _question(
                await _call(c, arguments, {key: _answer("a1")}, again[2])
            )
            assert (text, second != key) == ("q2", True)
            final = await _call(c, arguments, {second: _answer("a2")}, state)
            assert only_text(final) == "a1 a2 started=1"
            # The client's own multi round-trip loop: a second call, a second start.
            result = await c.call_tool(INTERVIEW, arguments)
            assert only_text(result) == "s-q1 s-q2 started=2"


@UPSTREAM_ERAS
@pytest.mark.parametrize("guard", ["default", "none"])
async def test_a_replayed_or_unknown_state_is_refused(upstream_era: str, guard: str) -> None:
    with anyio.fail_after(LIMIT):
        # Without the Server's replay guard, the gateway's own record refuses it.
        options = {"replay_guard": None} if guard == "none" else {}
        async with _client(upstream_era, **options) as c:
            arguments = {"rounds": 2}
            key, _, state = _question(await _call(c, arguments))
            first = (c, arguments, {key: _answer("a1")}, state)
            second, _, state = _question(await _call(*first))
            await _refused("replayed", *first)
            last = (c, arguments, {second: _answer("a2")}, state)
            assert only_text(await _call(*last)) == "a1 a2 started=1"
            # The call is over: its last state names nothing waiting.
            await _refused("replayed" if guard == "default" else "unknown", *last)


async def test_an_expired_state_is_refused_and_its_call_cancelled() -> None:
    with anyio.fail_after(LIMIT):
        cancelled = anyio.Event()

        def on_trace(entry: TraceEntry) -> None:
            if entry.direction == "sent" and entry.method == "notifications/cancelled":
                cancelled.set()

        async with _client("2025-11-25", on_trace, parked_ttl=0.5) as c:
            arguments = {"rounds": 1}
            key, _, state = _question(await _call(c, arguments))
            await cancelled.wait()  # the parked call expired: the upstream is told
            await _refused("expired", c, arguments, {key: _answer("a1")}, state)
            # A new call starts afresh.
            assert only_text(await c.call_tool(INTERVIEW, arguments)) == "s-q1 started=2"


@UPSTREAM_ERAS
async def test_cancelling_the_retry_cancels_the_upstream_call(upstream_era: str) -> None:
    with anyio.fail_after(LIMIT):
        answered = anyio.Event()
        cancelled = anyio.Event()

        def on_trace(entry: TraceEntry) -> None:
            if entry.direction != "sent":
                return
            params = entry.message.get("params") or {}
            # The answer reached the upstream: a response to its request, or
            # (2026-07-28) the retry of its call that carries it.
            if entry.type == "response" or "inputResponses" in params:
                answered.set()
            if entry.method == "notifications/cancelled":
                cancelled.set()

        async with _client(upstream_era, on_trace) as c:
            arguments = {"rounds": 1, "block": True}
            key, _, state = _question(await _call(c, arguments))
            async with anyio.create_task_group() as tg:
                tg.start_soon(_call, c, arguments, {key: _answer("a1")}, state)
                await answered.wait()  # the upstream goes on, and blocks
                tg.cancel_scope.cancel()
            await cancelled.wait()
            assert only_text(await c.call_tool("m.whoami")) == "manager-server"


async def test_parked_calls_are_bounded() -> None:
    with anyio.fail_after(LIMIT):
        async with _client("2026-07-28", max_parked=1) as c:
            arguments = {"rounds": 1}
            key, _, state = _question(await _call(c, arguments))
            # One call waits already: the next one's question is refused.
            with pytest.raises(McpError, match="holds as many calls"):
                await _call(c, arguments)
            final = await _call(c, arguments, {key: _answer("a1")}, state)
            assert only_text(final) == "a1 started=2"


@UPSTREAM_ERAS
async def test_progress_of_a_call_that_may_be_parked(upstream_era: str) -> None:
    with anyio.fail_after(LIMIT):
        async with _client(upstream_era) as c:
            seen: list[tuple[float, float | None, str | None]] = []

            def progress(event: ProgressReceived) -> None:
                seen.append((event.progress, event.total, event.message))

            result = await c.call_tool("m.count", {"n": 2}, on_progress=progress)
            assert only_text(result) == "counted 2"
            assert seen == [(1, 2, "step 1"), (2, 2, "step 2")]
