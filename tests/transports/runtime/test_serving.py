"""`Serving`'s hand-stepped first step against its plain reference.

`transports.serving` takes a handler's first step by hand to learn whether it
waits (`_first_step`, behind `Serving.start`); the reference assumes it does
(the coroutine itself, unstepped). The two must serve alike: the same outcome
for every kind of handler, and from the wire the same answers over a byte
stream (stdio's path) and over HTTP (both eras). Only where the work went may
differ.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from contextlib import asynccontextmanager
from typing import Any

import anyio
import h11
import pytest
from anyio.streams.stapled import StapledObjectStream
from http_helpers import META, RawClient, call, data, modern_headers, open_session, running
from runtime_helpers import INITIALIZE, INITIALIZED, LIMIT

from mcp_core import Context, McpError, Server
from transports import serve_stream, serving
from transports.serving import _first_step

pytestmark = pytest.mark.anyio


# --- the two side by side, on coroutines --------------------------------------------------


Stepper = Callable[[Coroutine[Any, Any, None]], Awaitable[None] | None]


def _plain(coro: Coroutine[Any, Any, None]) -> Awaitable[None] | None:
    return coro  # what `Serving.start` does without hand stepping


async def at_once() -> None:
    return None


async def waits_once() -> None:
    await anyio.lowlevel.checkpoint()


async def raises_at_once() -> None:
    raise ValueError("at once")


async def raises_after_waiting() -> None:
    await anyio.lowlevel.checkpoint()
    raise ValueError("later")


async def outcome(stepper: Stepper, body: Callable[[], Any]) -> tuple[str, bool]:
    # (how it ended, whether the caller was told to pass on)
    passed_on = False
    try:
        rest = stepper(body())
        if rest is not None:
            passed_on = True
            await rest
    except ValueError as exc:
        return f"raised {exc}", passed_on
    return "returned", passed_on


@pytest.mark.parametrize(
    ("body", "waits"),
    [(at_once, False), (waits_once, True), (raises_at_once, False), (raises_after_waiting, True)],
)
async def test_both_end_alike_and_the_fast_one_tells_exactly_when_it_waited(
    body: Callable[[], Any], waits: bool
) -> None:
    fast = await outcome(_first_step, body)
    plain = await outcome(_plain, body)
    assert fast[0] == plain[0]
    assert fast[1] == waits  # passed on only if it waited
    assert plain[1]  # the reference always assumes it waits


@pytest.mark.parametrize("stepper", [_first_step, _plain])
async def test_a_cancellation_reaches_a_handler_stepped_either_way(stepper: Stepper) -> None:
    ended: list[str] = []

    async def hangs() -> None:
        try:
            await anyio.sleep_forever()
        finally:
            ended.append("cancelled")

    with anyio.fail_after(LIMIT):
        with anyio.CancelScope() as scope:
            rest = stepper(hangs())
            assert rest is not None
            scope.cancel()
            await rest
    assert ended == ["cancelled"] and scope.cancelled_caught


# --- from the wire ------------------------------------------------------------------------


def make_server() -> Server:
    server = Server("serving", "1")

    @server.tool
    async def now(text: str) -> str:
        return text

    @server.tool
    async def later(text: str) -> str:
        await anyio.lowlevel.checkpoint()
        return text

    @server.tool
    def threaded(text: str) -> str:
        return text.upper()

    @server.tool
    async def chatty(text: str, ctx: Context) -> str:
        await ctx.info("about to answer")
        await anyio.lowlevel.checkpoint()
        return text

    @server.tool
    async def fails(text: str) -> str:
        raise ValueError(text)

    @server.tool
    async def refuses(text: str) -> str:
        await anyio.lowlevel.checkpoint()
        raise McpError(-32001, text)

    return server


TOOLS = ("now", "later", "threaded", "chatty", "fails", "refuses")


def line(id: int, name: str) -> bytes:
    return json.dumps(call(name, {"text": f"{name} {id}"}, id=id)).encode()


@asynccontextmanager
async def over_a_stream() -> AsyncIterator[tuple[Any, Any]]:
    to_server, server_in = anyio.create_memory_object_stream[bytes](64)
    server_out, from_server = anyio.create_memory_object_stream[bytes](64)
    async with anyio.create_task_group() as tg:
        tg.start_soon(serve_stream, make_server(), StapledObjectStream(server_out, server_in))
        await to_server.send(INITIALIZE)
        await from_server.receive()
        await to_server.send(INITIALIZED)
        yield to_server, from_server
        await to_server.aclose()


async def stream_answers(in_flight: int) -> list[Any]:
    got: list[Any] = []
    with anyio.fail_after(LIMIT):
        async with over_a_stream() as (send, receive):
            id = 1
            for _ in range(3):
                for name in TOOLS:
                    batch = [line(id + i, name) for i in range(in_flight)]
                    for item in batch:
                        await send.send(item)
                    id += in_flight
                    answers: list[Any] = []
                    while sum("id" in m for m in answers) < in_flight:
                        answers.append(json.loads(await receive.receive()))
                    # Side by side, the order of the answers is the scheduler's.
                    got += sorted(answers, key=lambda m: (m.get("id") is None, str(m)))
    return got


@pytest.mark.parametrize("in_flight", [1, 4])
async def test_a_byte_stream_answers_alike(monkeypatch: pytest.MonkeyPatch, in_flight: int) -> None:
    seen = []
    for hand_stepped in (True, False):
        monkeypatch.setattr(serving, "HAND_STEPPED", hand_stepped)
        seen.append(await stream_answers(in_flight))
    assert seen[0] == seen[1]
    assert len(seen[0]) == 3 * len(TOOLS) * in_flight + 3 * in_flight  # chatty's logs too


async def body_of(raw: RawClient) -> bytes:
    chunks = []
    while not isinstance(event := await raw._event(), h11.EndOfMessage):
        chunks.append(bytes(event.data))
    return b"".join(chunks)


async def http_answers(era: str) -> list[Any]:
    got: list[Any] = []
    with anyio.fail_after(LIMIT):
        async with running(make_server()) as port, RawClient(port) as raw:
            headers: dict[str, str] = {}
            if era == "legacy":
                headers["mcp_session_id"] = await open_session(raw)
            for id, name in enumerate(TOOLS * 3, start=1):
                body = call(name, {"text": f"{name} {id}"}, id=id)
                if era == "modern":
                    body["params"]["_meta"] = META
                    headers = modern_headers("tools/call", name)
                await raw.send("POST", body, **headers)
                head = await raw.head()
                if head.headers["content-type"] == "text/event-stream":
                    got.append(("sse", data(await raw.events())))
                else:
                    got.append(("json", json.loads(await body_of(raw))))
    return got


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_http_answers_alike(monkeypatch: pytest.MonkeyPatch, era: str) -> None:
    seen = []
    for hand_stepped in (True, False):
        monkeypatch.setattr(serving, "HAND_STEPPED", hand_stepped)
        seen.append(await http_answers(era))
    assert seen[0] == seen[1]
    assert len(seen[0]) == 3 * len(TOOLS)
