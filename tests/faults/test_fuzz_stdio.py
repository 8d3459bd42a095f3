"""Fuzzing the stdio server: arbitrary lines in, and out must come only valid
JSON-RPC, one line each, with every request that has a readable id answered once;
no exception escapes and nothing hangs (each example is bounded in time).

The server runs in this process on a pair of pipes, as `serve_stdio` runs it on
fds 0 and 1: `StdioStream` and `serve_stream`. The lines mix the messages of a
real session (initialize, initialized, ping, tools/list, tools/call of a tool that
answers, one that raises, one that waits) with mangled ones: other ids and
params, wrong types, unknown methods, batches, deep nesting, junk bytes, CRs,
blank lines. See tests/fuzz_helpers.py to run it longer.
"""

from __future__ import annotations

import json
import os
from typing import Any

import anyio
import pytest
from fuzz_helpers import fuzz_settings
from hypothesis import given
from hypothesis import strategies as st
from limits import HANG

from mcp_core import Server
from transports.server_connection import serve_stream
from transports.stdio_streams import StdioStream

LIMIT = HANG
VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", "2026-07-28", "1.0"]


def make_server() -> Server:
    server = Server("fuzz", "1")

    @server.tool
    def echo(text: str) -> str:
        return text

    @server.tool
    def fail() -> str:
        raise RuntimeError("a tool that raises")

    @server.tool
    async def nap(seconds: float) -> str:
        await anyio.sleep(min(abs(seconds), 0.05))
        return "rested"

    return server


def line(message: Any) -> bytes:
    return json.dumps(message).encode()


ids = st.one_of(st.integers(-(2**53), 2**53), st.text(max_size=8))
junk = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False),
    st.text(max_size=8),
    st.lists(st.integers(), max_size=3),
)
INITIALIZE = {
    "protocolVersion": "2025-11-25",
    "capabilities": {},
    "clientInfo": {"name": "fuzz", "version": "1"},
}
params = st.sampled_from(
    [
        INITIALIZE,
        {"name": "echo", "arguments": {"text": "hi"}},
        {"name": "echo", "arguments": {"text": 5}},
        {"name": "fail", "arguments": {}},
        {"name": "nap", "arguments": {"seconds": 0.01}},
        {"name": "nope"},
        {"requestId": 1},
        {"level": "debug"},
        {"cursor": "x"},
        {},
    ]
)
methods = st.sampled_from(
    [
        "initialize",
        "notifications/initialized",
        "ping",
        "tools/list",
        "tools/call",
        "notifications/cancelled",
        "logging/setLevel",
        "resources/list",
        "prompts/get",
        "server/discover",
        "no/such/method",
    ]
)


@st.composite
def messages(draw: st.DrawFn) -> tuple[bytes, Any]:
    """One line, and the id of the well-formed request it is (else None)."""
    kind = draw(st.sampled_from(["request", "notification", "response", "mangled", "bytes"]))
    if kind == "bytes":
        return draw(st.binary(max_size=40)).replace(b"\n", b""), None
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": draw(methods)}
    if draw(st.booleans()):
        the_params = dict(draw(params))
        if draw(st.booleans()):
            the_params["protocolVersion"] = draw(st.sampled_from(VERSIONS))
        message["params"] = the_params
    if kind != "notification":
        message["id"] = draw(ids)
    if kind == "response":
        del message["method"]
        message["result"] = {}
    if kind == "mangled":
        key = draw(st.sampled_from(["jsonrpc", "id", "method", "params", "extra"]))
        message[key] = draw(junk)
    shape = draw(st.integers(0, 40))
    if shape == 0:
        return b"[" + line(message) + b"]", None
    if shape == 1:
        return b"[" * 200 + b"]" * 200, None
    if shape == 2:
        return line(message) + b"\r", message.get("id") if kind == "request" else None
    return line(message), message.get("id") if kind == "request" else None


HANDSHAKE = [
    line({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": INITIALIZE}),
    line({"jsonrpc": "2.0", "method": "notifications/initialized"}),
]


async def serve_lines(lines: list[bytes]) -> bytes:
    """Everything the server writes for ``lines``, until it ends at our EOF."""
    to_server, ours_in = os.pipe()
    ours_out, from_server = os.pipe()
    os.set_blocking(ours_in, False)
    os.set_blocking(ours_out, False)
    stream = StdioStream(to_server, from_server)  # closes both when done
    data = memoryview(b"".join(one + b"\n" for one in lines))
    out = bytearray()

    async def feed() -> None:
        nonlocal data
        try:
            while data:
                try:
                    data = data[os.write(ours_in, data) :]
                except BlockingIOError:
                    await anyio.wait_writable(ours_in)
        finally:
            os.close(ours_in)

    async def drain() -> None:
        while True:
            try:
                chunk = os.read(ours_out, 65536)
            except BlockingIOError:
                await anyio.wait_readable(ours_out)
                continue
            if not chunk:
                return
            out.extend(chunk)

    try:
        with anyio.fail_after(LIMIT):
            async with anyio.create_task_group() as tg:
                tg.start_soon(feed)
                tg.start_soon(drain)
                await serve_stream(make_server(), stream)
    finally:
        os.close(ours_out)
    return bytes(out)


def check_message(message: Any) -> None:
    """A valid JSON-RPC 2.0 message from a server."""
    assert isinstance(message, dict) and message.get("jsonrpc") == "2.0", message
    if "method" in message:
        assert isinstance(message["method"], str)
        return
    assert "id" in message and (message["id"] is None or type(message["id"]) in (int, str))
    assert ("result" in message) != ("error" in message), message
    if "error" in message:
        error = message["error"]
        assert type(error["code"]) is int and isinstance(error["message"], str), error


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
@fuzz_settings(30)
@given(drawn=st.lists(messages(), max_size=12), handshake=st.booleans())
def test_arbitrary_lines_get_valid_answers(
    backend: str, drawn: list[tuple[bytes, Any]], handshake: bool
) -> None:
    lines = [one for one, _ in drawn]
    if handshake:
        lines = HANDSHAKE + lines
    written = anyio.run(serve_lines, lines, backend=backend)
    assert written.endswith(b"\n") or not written
    answers = [json.loads(one) for one in written.split(b"\n")[:-1]]
    for answer in answers:
        check_message(answer)
    # Each well-formed request is answered; no id is answered more often than
    # a line carried it.
    answered = [a["id"] for a in answers if "method" not in a and a["id"] is not None]
    asked = [request_id for _, request_id in drawn if request_id is not None]
    if handshake:
        asked.append("init")
    key = json.dumps
    assert {key(i) for i in asked} <= {key(i) for i in answered}
    carried = [key(i) for one in lines for i in ids_in(one)]
    for request_id in set(map(key, answered)):
        assert [key(i) for i in answered].count(request_id) <= carried.count(request_id)


def ids_in(one: bytes) -> list[Any]:
    """The ids a line carries (those of a batch's members too)."""
    try:
        message = json.loads(one)
    except ValueError:
        return []
    members = message if isinstance(message, list) else [message]
    return [m["id"] for m in members if isinstance(m, dict) and "id" in m]
