"""The HTTP server over real loopback sockets, on asyncio and trio.

Requests are written with h11's client side (raw HTTP/1.1 bytes on a TCP
stream) and answers are read back the same way; SSE bodies go through
`mcp_core.SSEParser`. Every wait is bounded by LIMIT; nothing sleeps to
synchronise.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any, Final

import anyio
import h11
import pytest
from runtime_helpers import anyio_backend  # noqa: F401

from mcp_core import HEADER_MISMATCH, Context, Server, ServerSentEvent, SSEParser
from transports.http_server import HttpTimeouts, serve_http

pytestmark = pytest.mark.anyio

LIMIT: Final = 5.0
MODERN: Final = "2026-07-28"
META: Final = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
}


class Gates:
    """Events a test and its tools share."""

    def __init__(self) -> None:
        self.started = anyio.Event()
        self.release = anyio.Event()
        self.cancelled = anyio.Event()


def make_server(gates: Gates) -> Server:
    server = Server("http-test", "1.0")

    @server.tool
    def echo(text: str) -> str:
        """Say it back."""
        return text

    @server.tool
    async def slow(ctx: Context) -> str:
        """Report progress, then answer."""
        await ctx.report_progress(1, 2)
        await ctx.info("halfway")
        return "done"

    @server.tool
    async def hang() -> str:
        """Wait for the test, noting a cancellation."""
        gates.started.set()
        try:
            await gates.release.wait()
        except anyio.get_cancelled_exc_class():
            gates.cancelled.set()
            raise
        return "released"

    return server


@asynccontextmanager
async def running(server: Server, timeouts: HttpTimeouts | None = None) -> AsyncIterator[int]:
    async with anyio.create_task_group() as tg:
        port = await tg.start(
            lambda task_status: serve_http(
                server, port=0, timeouts=timeouts or HttpTimeouts(), task_status=task_status
            )
        )
        try:
            yield port
        finally:
            tg.cancel_scope.cancel()


class Answer:
    def __init__(self, status: int, headers: dict[str, str], body: bytes) -> None:
        self.status = status
        self.headers = headers
        self.body = body

    def json(self) -> Any:
        return json.loads(self.body)


class RawClient:
    """HTTP/1.1 over one TCP connection, with h11's client side."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.h11 = h11.Connection(h11.CLIENT)
        self.sock: Any = None
        self.parser = SSEParser()

    async def __aenter__(self) -> RawClient:
        self.sock = await anyio.connect_tcp("127.0.0.1", self.port)
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.sock.aclose()

    async def send(self, method: str, body: Any = None, **headers: str) -> None:
        if self.h11.our_state is h11.DONE:
            self.h11.start_next_cycle()
        data = b"" if body is None else json.dumps(body).encode()
        pairs = [("host", f"127.0.0.1:{self.port}"), ("content-length", str(len(data)))]
        if method == "POST":
            pairs += [
                ("content-type", "application/json"),
                ("accept", "application/json, text/event-stream"),
            ]
        elif method == "GET":
            pairs.append(("accept", "text/event-stream"))
        pairs += [(k.replace("_", "-"), v) for k, v in headers.items()]
        out = self.h11.send(h11.Request(method=method, target="/mcp", headers=pairs))
        out += self.h11.send(h11.Data(data=data)) if data else b""
        out += self.h11.send(h11.EndOfMessage())
        await self.sock.send(out)

    async def _event(self) -> Any:
        with anyio.fail_after(LIMIT):
            while True:
                event = self.h11.next_event()
                if event is not h11.NEED_DATA:
                    return event
                try:
                    self.h11.receive_data(await self.sock.receive())
                except anyio.EndOfStream:
                    self.h11.receive_data(b"")

    async def head(self) -> Answer:
        event = await self._event()
        assert isinstance(event, h11.Response), event
        headers = {k.decode(): v.decode() for k, v in event.headers}
        self.parser = SSEParser()
        return Answer(event.status_code, headers, b"")

    async def answer(self) -> Answer:
        answer = await self.head()
        chunks = []
        while not isinstance(event := await self._event(), h11.EndOfMessage):
            chunks.append(bytes(event.data))
        answer.body = b"".join(chunks)
        return answer

    async def events(
        self, until: Callable[[list[ServerSentEvent]], bool] = lambda events: False
    ) -> list[ServerSentEvent]:
        """SSE events until ``until`` holds or the stream ends."""
        got: list[ServerSentEvent] = []
        while not until(got):
            event = await self._event()
            if isinstance(event, h11.EndOfMessage):
                break
            got += self.parser.feed(event.data)
        return got

    async def closed(self) -> bool:
        """Whether the server closes the connection (within LIMIT)."""
        with anyio.fail_after(LIMIT):
            try:
                return await self.sock.receive() == b""
            except (anyio.EndOfStream, anyio.BrokenResourceError):
                return True


def initialize(version: str = "2025-11-25") -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": version,
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"},
        },
    }


def call(name: str, arguments: dict[str, Any], id: int = 1, **params: Any) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": id,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments, **params},
    }


async def open_session(client: RawClient, version: str = "2025-11-25") -> str:
    await client.send("POST", initialize(version))
    answer = await client.answer()
    assert answer.status == 200 and answer.headers["content-type"] == "application/json"
    assert answer.json()["result"]["protocolVersion"] == version
    session_id = answer.headers["mcp-session-id"]
    initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    await client.send("POST", initialized, mcp_session_id=session_id)
    accepted = await client.answer()
    assert accepted.status == 202 and accepted.body == b""
    return session_id


def data(events: list[ServerSentEvent]) -> list[Any]:
    return [json.loads(e.data) for e in events if e.data]


def has_response(events: list[ServerSentEvent]) -> bool:
    return any("result" in m or "error" in m for m in data(events))


# --- the legacy era ----------------------------------------------------------------------------


async def test_initialize_then_a_json_answer_on_a_2025_06_18_session() -> None:
    async with running(make_server(Gates())) as port, RawClient(port) as client:
        session_id = await open_session(client, "2025-06-18")
        await client.send("POST", call("echo", {"text": "hi"}), mcp_session_id=session_id)
        answer = await client.answer()
        assert answer.status == 200 and answer.headers["content-type"] == "application/json"
        assert answer.json()["result"]["content"][0]["text"] == "hi"


async def test_a_2025_11_25_session_answers_on_sse_after_a_priming_event() -> None:
    async with running(make_server(Gates())) as port, RawClient(port) as client:
        session_id = await open_session(client)
        await client.send("POST", call("echo", {"text": "hi"}), mcp_session_id=session_id)
        head = await client.head()
        assert head.status == 200
        assert head.headers["content-type"] == "text/event-stream"
        assert head.headers["cache-control"] == "no-cache"
        assert head.headers["x-accel-buffering"] == "no"
        events = await client.events()  # to the end of the stream
        assert events[0].data == "" and events[0].id and events[0].retry is not None
        (response,) = data(events)
        assert response["id"] == 1 and response["result"]["content"][0]["text"] == "hi"
        assert len({e.id for e in events}) == len(events)


async def test_progress_and_logs_come_on_the_requests_stream_before_the_response() -> None:
    async with running(make_server(Gates())) as port, RawClient(port) as client:
        session_id = await open_session(client, "2025-06-18")
        request = call("slow", {}, id=4, _meta={"progressToken": "p"})
        await client.send("POST", request, mcp_session_id=session_id)
        head = await client.head()
        # Something came before the response, so the answer is a stream.
        assert head.headers["content-type"] == "text/event-stream"
        methods = [m.get("method", m.get("id")) for m in data(await client.events())]
        assert methods == ["notifications/progress", "notifications/message", 4]


async def test_the_get_stream_receives_a_list_changed_notification() -> None:
    server = make_server(Gates())
    async with running(server) as port, RawClient(port) as client, RawClient(port) as get:
        session_id = await open_session(client)
        await get.send("GET", mcp_session_id=session_id)
        head = await get.head()
        assert head.status == 200 and head.headers["content-type"] == "text/event-stream"
        (priming,) = await get.events(lambda events: bool(events))
        assert priming.data == ""
        server.add_tool(lambda: "new", name="added")
        events = await get.events(lambda events: bool(events))
        assert data(events) == [{"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}]


async def test_delete_ends_the_session_then_404() -> None:
    async with running(make_server(Gates())) as port, RawClient(port) as client:
        session_id = await open_session(client)
        await client.send("DELETE", mcp_session_id=session_id)
        assert (await client.answer()).status == 200
        await client.send("POST", call("echo", {"text": "x"}), mcp_session_id=session_id)
        answer = await client.answer()
        assert answer.status == 404 and answer.json()["id"] is None


async def test_a_refused_initialize_leaves_no_session() -> None:
    async with running(make_server(Gates())) as port, RawClient(port) as client:
        await client.send("POST", {"jsonrpc": "2.0", "id": 0, "method": "initialize"})
        answer = await client.answer()
        assert answer.status == 200 and answer.json()["error"]["code"] == -32602
        ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
        await client.send("POST", ping, mcp_session_id=answer.headers["mcp-session-id"])
        assert (await client.answer()).status == 404


async def test_a_bad_origin_gets_403() -> None:
    async with running(make_server(Gates())) as port, RawClient(port) as client:
        await client.send("POST", initialize(), origin="http://evil.example.com")
        answer = await client.answer()
        assert answer.status == 403 and "error" in answer.json()
        # The connection stays usable.
        await client.send("POST", initialize())
        assert (await client.answer()).status == 200


async def test_a_dropped_stream_is_resumed_with_last_event_id() -> None:
    # 2025-11-25 "Resumability and Redelivery": the client reconnects with GET and
    # Last-Event-ID and gets the response on the resumed stream.
    gates = Gates()
    async with running(make_server(gates)) as port:
        async with RawClient(port) as client:
            session_id = await open_session(client)
            await client.send("POST", call("hang", {}, id=8), mcp_session_id=session_id)
            await client.head()
            (priming,) = await client.events(lambda events: bool(events))
            with anyio.fail_after(LIMIT):
                await gates.started.wait()
        # Disconnected: not a cancellation in this era.
        gates.release.set()
        async with RawClient(port) as again:
            await again.send("GET", mcp_session_id=session_id, last_event_id=priming.id or "")
            assert (await again.head()).status == 200
            (response,) = data(await again.events())
            assert response["id"] == 8
            assert response["result"]["content"] == [{"type": "text", "text": "released"}]
        assert not gates.cancelled.is_set()


# --- the modern era ----------------------------------------------------------------------------


def modern_headers(method: str, name: str | None = None) -> dict[str, str]:
    headers = {"mcp_protocol_version": MODERN, "mcp_method": method}
    if name is not None:
        headers["mcp_name"] = name
    return headers


async def test_a_modern_request_needs_no_session() -> None:
    async with running(make_server(Gates())) as port, RawClient(port) as client:
        request = call("echo", {"text": "now"}, id=3, _meta=META)
        await client.send("POST", request, **modern_headers("tools/call", "echo"))
        answer = await client.answer()
        assert answer.status == 200 and "mcp-session-id" not in answer.headers
        result = answer.json()["result"]
        assert result["content"][0]["text"] == "now" and result["resultType"] == "complete"


async def test_a_modern_header_mismatch_gets_400() -> None:
    async with running(make_server(Gates())) as port, RawClient(port) as client:
        request = call("echo", {"text": "now"}, id=3, _meta=META)
        await client.send("POST", request, **modern_headers("tools/call", "other"))
        answer = await client.answer()
        assert answer.status == 400
        assert answer.json()["error"]["code"] == HEADER_MISMATCH and answer.json()["id"] == 3


async def test_closing_a_modern_stream_cancels_the_request() -> None:
    # 2026-07-28 streamable-http.mdx "Cancellation".
    gates = Gates()
    async with running(make_server(gates)) as port:
        async with RawClient(port) as client:
            request = call("hang", {}, id=5, _meta=META)
            await client.send("POST", request, **modern_headers("tools/call", "hang"))
            with anyio.fail_after(LIMIT):
                await gates.started.wait()
        with anyio.fail_after(LIMIT):
            await gates.cancelled.wait()


# --- the connection ----------------------------------------------------------------------------


async def test_keep_alive_serves_many_requests_on_one_connection() -> None:
    async with running(make_server(Gates())) as port, RawClient(port) as client:
        session_id = await open_session(client, "2025-06-18")
        for n in range(3):
            await client.send(
                "POST", call("echo", {"text": str(n)}, id=n), mcp_session_id=session_id
            )
            assert (await client.answer()).json()["id"] == n


async def test_a_slow_head_is_cut_off() -> None:
    timeouts = HttpTimeouts(head=0.05)
    async with running(make_server(Gates()), timeouts) as port, RawClient(port) as client:
        await client.sock.send(b"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\n")
        assert await client.closed()


async def test_an_idle_connection_is_closed() -> None:
    timeouts = HttpTimeouts(keep_alive=0.05)
    async with running(make_server(Gates()), timeouts) as port, RawClient(port) as client:
        assert await client.closed()


async def test_a_malformed_request_gets_400_and_a_close() -> None:
    async with running(make_server(Gates())) as port, RawClient(port) as client:
        await client.sock.send(b"NOT HTTP AT ALL\r\n\r\n")
        with anyio.fail_after(LIMIT):
            raw = await client.sock.receive()
        assert raw.startswith(b"HTTP/1.1 400")
        assert await client.closed()
