"""Raw HTTP/1.1 for the HTTP server tests: a client written with h11's client side
and the JSON-RPC bodies the tests send. Every wait is bounded by LIMIT."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any, Final

import anyio
import h11
from limits import HANG

from mcp_core import Context, Server
from mcp_core.http.server import HttpServerConfig
from mcp_core.wire import ServerSentEvent, SSEParser
from transports.http.server import HttpTimeouts, serve_http

LIMIT: Final = HANG
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

    async def hold(self) -> str:
        """A handler's wait: say it started, wait for ``release`` (noting a
        cancellation), then answer "released"."""
        self.started.set()
        try:
            await self.release.wait()
        except anyio.get_cancelled_exc_class():
            self.cancelled.set()
            raise
        return "released"


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
        return await gates.hold()

    return server


class Answer:
    def __init__(self, status: int, headers: dict[str, str], body: bytes) -> None:
        self.status = status
        self.headers = headers
        self.body = body

    def json(self) -> Any:
        return json.loads(self.body)


class RawClient:
    """HTTP/1.1 over one TCP connection, with h11's client side."""

    def __init__(self, port: int, target: str = "/mcp") -> None:
        self.port = port
        self.target = target
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
        # bytes go as they are (malformed bodies); anything else as JSON.
        data = (
            body if isinstance(body, bytes) else b"" if body is None else json.dumps(body).encode()
        )
        pairs = {"host": f"127.0.0.1:{self.port}", "content-length": str(len(data))}
        if method == "POST":
            pairs["content-type"] = "application/json"
            pairs["accept"] = "application/json, text/event-stream"
        elif method == "GET":
            pairs["accept"] = "text/event-stream"
        pairs.update((k.replace("_", "-"), v) for k, v in headers.items())
        out = self.h11.send(
            h11.Request(method=method, target=self.target, headers=list(pairs.items()))
        )
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


def modern_headers(method: str, name: str | None = None) -> dict[str, str]:
    headers = {"mcp_protocol_version": MODERN, "mcp_method": method}
    if name is not None:
        headers["mcp_name"] = name
    return headers


@asynccontextmanager
async def running(
    server: Server, timeouts: HttpTimeouts | None = None, config: HttpServerConfig | None = None
) -> AsyncIterator[int]:
    async with anyio.create_task_group() as tg:
        port = await tg.start(
            lambda task_status: serve_http(
                server,
                port=0,
                timeouts=timeouts or HttpTimeouts(),
                config=config,
                task_status=task_status,
            )
        )
        try:
            yield port
        finally:
            tg.cancel_scope.cancel()


async def reply_of(raw: RawClient) -> dict[str, Any]:
    """The response to the request just sent, as JSON or at the end of a stream."""
    head = await raw.head()
    if head.headers["content-type"] == "text/event-stream":
        messages = data(await raw.events())
        return next(m for m in messages if "result" in m or "error" in m)
    chunks = []
    while not isinstance(event := await raw._event(), h11.EndOfMessage):
        chunks.append(bytes(event.data))
    reply: dict[str, Any] = json.loads(b"".join(chunks))
    return reply
