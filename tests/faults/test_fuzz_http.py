"""Fuzzing the h11 server from the socket: arbitrary bytes on a connection, and
back must come only whole, valid HTTP/1.1 responses (none a 500: 501 is right for
a transfer coding other than chunked, RFC 9112 section 6.1), then the end of the
connection; nothing escapes (the server goes on: a request after each example
is answered) and nothing hangs (each example is bounded in time).

The bytes are one to three requests written back to back (pipelined) from the
parts of real ones, each part right or wrong: request lines with other methods,
targets and versions; the MCP header fields with good and bad values; framing by
Content-Length, chunked, both (smuggling), neither, or a wrong length; bodies that
are JSON-RPC, not JSON, or nothing; and now and then bytes cut or spliced in. The
service behind is fuzzed without sockets in tests/transports/http/
test_http_service_fuzz.py; this target is about reading requests off the wire.
See tests/fuzz_helpers.py to run it longer.
"""

from __future__ import annotations

import json

import anyio
import h11
import pytest
from fuzz_helpers import fuzz_settings
from http_helpers import META, Gates, initialize, make_server
from hypothesis import given
from hypothesis import strategies as st
from limits import HANG

from mcp_core.http.server import HttpServerConfig
from transports.http.server import HttpServer, HttpTimeouts

LIMIT = HANG
TIMEOUTS = HttpTimeouts(keep_alive=1.0, head=1.0, body=1.0, write=1.0)

BODIES = [
    json.dumps(message).encode()
    for message in (
        initialize(),
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "echo", "arguments": {"text": "hi"}, "_meta": META},
        },
        {"jsonrpc": "2.0", "id": 3, "method": "server/discover", "params": {"_meta": META}},
        {"jsonrpc": "2.0", "id": 4, "method": "ping"},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
    )
] + [b"", b"{", b"[]", b"\xff\xfe", b"[" * 300 + b"]" * 300]

HEADERS = {
    "host": ["127.0.0.1", "127.0.0.1:8000", "evil.example", "", "[::1]"],
    "content-type": ["application/json", "text/plain", ""],
    "accept": ["application/json, text/event-stream", "text/event-stream", "*/*", "x"],
    "mcp-protocol-version": ["2026-07-28", "2025-11-25", "1999-01-01"],
    "mcp-method": ["tools/call", "server/discover", "ping", ""],
    "mcp-name": ["echo", "nope"],
    "mcp-session-id": ["nope", "\x7f", ""],
    "origin": ["http://127.0.0.1", "http://evil.example", "null"],
    "last-event-id": ["0", "1-1", "x"],
    "connection": ["close", "keep-alive", "upgrade"],
    "expect": ["100-continue"],
    "transfer-encoding": ["chunked", "gzip", "identity"],
}
header_text = st.text(
    st.characters(min_codepoint=0, max_codepoint=255, blacklist_characters="\r\n"), max_size=10
)


@st.composite
def request(draw: st.DrawFn) -> bytes:
    method = draw(st.sampled_from(["POST", "GET", "DELETE", "PUT", "OPTIONS", "PATCH", "P OST"]))
    target = draw(st.sampled_from(["/mcp", "/sse", "/messages?session_id=x", "/", "*", "/%zz"]))
    version = draw(st.sampled_from(["HTTP/1.1", "HTTP/1.1", "HTTP/1.0", "HTTP/2.0", "HTTP/9"]))
    fields = [("host", "127.0.0.1")] if draw(st.integers(0, 4)) else []
    for _ in range(draw(st.integers(0, 5))):
        name = draw(st.sampled_from(sorted(HEADERS)))
        value = draw(st.one_of(st.sampled_from(HEADERS[name]), header_text))
        fields.append((name, value))
    if draw(st.integers(0, 8)) == 0:
        fields.append((draw(header_text), draw(header_text)))  # any name, even none
    body = draw(st.one_of(st.sampled_from(BODIES), st.binary(max_size=64)))
    framing = draw(st.sampled_from(["length", "length", "chunked", "both", "none", "wrong"]))
    if framing in ("length", "both"):
        fields.append(("content-length", str(len(body))))
    if framing == "wrong":
        fields.append(("content-length", draw(st.sampled_from(["-1", "1e3", "99", "0", "x"]))))
    if framing in ("chunked", "both"):
        fields.append(("transfer-encoding", "chunked"))
        body = (b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body)) if body else b"0\r\n\r\n"
    head = f"{method} {target} {version}\r\n" + "".join(f"{n}: {v}\r\n" for n, v in fields)
    return head.encode("latin-1") + b"\r\n" + body


@st.composite
def connection_bytes(draw: st.DrawFn) -> bytes:
    data = b"".join(draw(st.lists(request(), min_size=1, max_size=3)))
    mangle = draw(st.sampled_from(["none", "none", "none", "cut", "splice", "noise"]))
    at = draw(st.integers(0, len(data)))
    if mangle == "cut":
        data = data[:at]
    elif mangle == "splice":
        data = data[:at] + draw(st.binary(min_size=1, max_size=8)) + data[at:]
    elif mangle == "noise":
        data = draw(st.binary(max_size=200))
    return data


def responses(data: bytes) -> list[int]:
    """The statuses of the whole HTTP/1.1 responses ``data`` is made of, followed
    by the end of the connection (or cut short in an SSE stream, which is endless
    until the client leaves); fails on anything else."""
    client = h11.Connection(h11.CLIENT)
    client.receive_data(data)
    client.receive_data(b"")
    statuses: list[int] = []
    while True:
        if client.our_state is h11.IDLE:
            if not client.trailing_data[0]:
                return statuses  # closed between two responses
            client.send(h11.Request(method="POST", target="/", headers=[("host", "x")]))
            client.send(h11.EndOfMessage())
        event = client.next_event()
        if isinstance(event, h11.ConnectionClosed):
            return statuses
        assert isinstance(event, h11.Response), event
        statuses.append(event.status_code)
        stream = (b"content-type", b"text/event-stream") in event.headers
        try:
            while not isinstance(event := client.next_event(), h11.EndOfMessage):
                assert isinstance(event, h11.Data), event
        except h11.RemoteProtocolError:
            # An SSE stream ends when its client leaves, as ours did (send_eof).
            if stream:
                return statuses
            raise
        if client.their_state is h11.DONE:
            client.start_next_cycle()


async def exchange(port: int, data: bytes) -> bytes:
    """Send ``data``, then the end; everything the server writes until it closes."""
    answer = b""
    async with await anyio.connect_tcp("127.0.0.1", port) as sock:
        try:
            await sock.send(data)
            await sock.send_eof()
        except (anyio.BrokenResourceError, OSError):
            pass  # the server closed first: what it wrote is still to be read
        while True:
            try:
                answer += await sock.receive()
            except (anyio.EndOfStream, anyio.BrokenResourceError):
                return answer


GOOD = (
    b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
    b"Accept: application/json, text/event-stream\r\nMcp-Protocol-Version: 2026-07-28\r\n"
    b"Mcp-Method: server/discover\r\nContent-Length: %d\r\n\r\n%s"
) % (len(BODIES[2]), BODIES[2])


async def fuzz(data: bytes) -> None:
    http = HttpServer(make_server(Gates()), HttpServerConfig(), timeouts=TIMEOUTS)
    with anyio.fail_after(LIMIT):
        async with anyio.create_task_group() as tg:
            port = await tg.start(http.serve, "127.0.0.1", 0)
            statuses = responses(await exchange(port, data))
            assert all(100 <= status < 600 and status != 500 for status in statuses), statuses
            assert responses(await exchange(port, GOOD)) == [200]  # still serving
            tg.cancel_scope.cancel()


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
@fuzz_settings(30)
@given(data=connection_bytes())
def test_arbitrary_bytes_get_valid_http_responses(backend: str, data: bytes) -> None:
    anyio.run(fuzz, data, backend=backend)
