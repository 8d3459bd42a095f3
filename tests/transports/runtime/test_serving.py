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
import socket
import threading
import time
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
from transports import backend, serve_stream, serving, threads
from transports.serving import _first_step
from transports.stdio_streams import StdioStream

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


def line(id: int, name: str, text: str | None = None) -> bytes:
    text = f"{name} {id}" if text is None else text
    return json.dumps(call(name, {"text": text}, id=id)).encode()


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


# --- a read of several over stdio: batched thread jobs against their reference -----------
#
# A stdio server (a `BatchStream`) on a SOCK_SEQPACKET socket pair: what the test
# sends in one packet is one read of the server, so each case puts several
# requests in one read. Three ways must answer alike: the thread jobs of a read
# batched (`serving.BATCHED`), each waiting on its own (the reference), and no
# hand stepping at all (`serving.HAND_STEPPED` False).

WAYS = ("batched", "unbatched", "plain")


class Gates:
    """Plain functions blocked until the test opens their gate, and whether each
    saw its request cancelled (`threads.cancelled`) once let through."""

    def __init__(self) -> None:
        self.gates = {"first": threading.Event(), "second": threading.Event()}
        self.entered = {"first": threading.Event(), "second": threading.Event()}
        self.saw: dict[str, bool] = {}
        self.done = {"first": threading.Event(), "second": threading.Event()}

    def block(self, name: str) -> str:
        self.entered[name].set()
        self.gates[name].wait(LIMIT)
        self.saw[name] = threads.cancelled()
        self.done[name].set()
        return name


def make_threaded_server(gates: Gates) -> Server:
    server = make_server()  # and its async def tools

    @server.tool
    def echo(text: str) -> str:
        return text.upper()

    @server.tool
    def blocks(text: str) -> str:
        return gates.block(text)  # outlasts any brief wait: the gate is shut

    @server.tool
    def breaks(text: str) -> str:
        raise ValueError(text)

    @server.tool
    def late(text: str) -> str:
        time.sleep(threads.BRIEF_WAIT * 3)
        return text

    @server.tool
    async def both(text: str, ctx: Context) -> str:
        # Its own thread job, awaited in its own code: never moved to another task.
        with anyio.fail_after(LIMIT):
            return await ctx.run_sync(text.upper)

    return server


def cancel(id: int) -> bytes:
    params = {"requestId": id}
    return json.dumps({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": params})


class Packets:
    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock

    def send(self, *lines: bytes | str) -> None:
        """One packet: one read of the server."""
        self.sock.sendall(
            b"".join((x if isinstance(x, bytes) else x.encode()) + b"\n" for x in lines)
        )

    async def until(self, ids: set[int]) -> list[Any]:
        """Messages until the answers to ``ids`` have come, sorted (order is the
        scheduler's)."""
        got: list[Any] = []
        while not ids <= {m.get("id") for m in got}:
            await anyio.wait_readable(self.sock)
            got += [json.loads(x) for x in self.sock.recv(1 << 20).splitlines()]
        return sorted(got, key=lambda m: (m.get("id") is None, str(m)))


@asynccontextmanager
async def over_stdio(gates: Gates) -> AsyncIterator[Packets]:
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    with ours, theirs:
        theirs.setblocking(False)
        stream = StdioStream(ours.fileno(), ours.fileno(), close_fds=False)
        peer = Packets(theirs)
        async with anyio.create_task_group() as tg:
            tg.start_soon(serve_stream, make_threaded_server(gates), stream)
            peer.send(INITIALIZE)
            await peer.until({0})
            peer.send(INITIALIZED)
            yield peer
            theirs.shutdown(socket.SHUT_WR)


async def read_answers(pooled: bool) -> list[Any]:
    gates = Gates()
    got: list[Any] = []
    with anyio.fail_after(LIMIT):
        async with over_stdio(gates) as peer:
            id = 100
            for names in (
                ["echo"] * 8,
                ["echo", "now", "echo", "later", "echo", "breaks", "echo", "fails"],
                ["later", "echo", "echo", "now"],
                ["late", "echo", "late", "echo"],
                ["both", "echo", "both", "now"],
                ["echo", "breaks", "echo"] * 3,
            ):
                ids = list(range(id, id + len(names)))
                peer.send(*[line(i, name) for i, name in zip(ids, names, strict=True)])
                got += await peer.until(set(ids))
                id += 100
            # A blocked job stalls nothing else of its read; its answer comes later.
            peer.send(line(id, "blocks", "first"), line(id + 1, "echo"), line(id + 2, "now"))
            got += await peer.until({id + 1, id + 2})
            gates.gates["first"].set()
            got += await peer.until({id})
            # A request cancelled later in its own read: no answer, only it.
            id += 100
            peer.send(line(id, "echo"), line(id + 1, "echo"), cancel(id + 1), line(id + 2, "echo"))
            peer.send(line(id + 3, "now"))
            answered = await peer.until({id, id + 2, id + 3})
            assert id + 1 not in {m.get("id") for m in answered}
            got += answered
            # A blocked job cancelled in its own read is abandoned, as it would be
            # alone: it never runs if no worker took it yet (the scheduler's
            # choice), else it is told (`threads.cancelled`) and its answer dropped.
            id += 100
            peer.send(line(id, "blocks", "second"), cancel(id), line(id + 1, "echo"))
            got += await peer.until({id + 1})
            gates.gates["second"].set()
            if gates.entered["second"].is_set():
                await anyio.to_thread.run_sync(gates.done["second"].wait, LIMIT)
            peer.send(line(id + 2, "echo"))
            answered = await peer.until({id + 2})
            assert id not in {m.get("id") for m in answered}
            got += answered
            # (`threads.cancelled` tells only in the runtime's pool.)
            assert gates.saw.get("second", True) or not pooled
            assert gates.saw["first"] is False
    return got


@pytest.mark.parametrize("pool", ["pool", "no pool", "plain anyio", "no brief wait"])
async def test_a_read_of_several_answers_alike_every_way(
    monkeypatch: pytest.MonkeyPatch, anyio_backend: str, pool: str
) -> None:
    monkeypatch.setattr(backend, "native", pool != "plain anyio")
    threads.use_pool(pool != "no pool")
    threads.use_brief_wait(pool != "no brief wait")
    batches: list[int] = []
    wait_batch = threads.wait_batch

    def counted(calls: list[threads.Batched]) -> None:
        batches.append(len(calls))
        wait_batch(calls)

    monkeypatch.setattr(threads, "wait_batch", counted)
    try:
        seen = []
        for way in WAYS:
            batches.clear()
            monkeypatch.setattr(serving, "BATCHED", way == "batched")
            monkeypatch.setattr(serving, "HAND_STEPPED", way != "plain")
            seen.append(await read_answers(pool in ("pool", "no brief wait")))
            # Batched only with the pool and its brief wait (the first read: 8 at once).
            assert (batches[:1] == [8]) is (way == "batched" and pool == "pool")
    finally:
        threads.use_pool(True)
        threads.use_brief_wait(True)
    assert seen[0] == seen[1] == seen[2]
    assert len(seen[0]) == 8 + 8 + 4 + 4 + 4 + 9 + 3 + 3 + 1 + 1
    texts = [m["result"]["content"][0]["text"] for m in seen[0] if "result" in m]
    assert "ECHO 100" in texts and "BOTH 500" in texts
