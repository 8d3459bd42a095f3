"""The ASGI adapter, mounted in a Starlette app under a real uvicorn on loopback.

uvicorn runs in the test's own event loop (asyncio: uvicorn has no trio support)
on a socket bound and listening before it starts, so clients connect at once and
are answered once the lifespan has started. The same raw h11 client as the h11
server's tests talks to it. The app itself is backend-neutral: one test drives it
with hand-written ASGI messages on asyncio and trio.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

import anyio
import pytest
from asgi_helpers import uvicorn_serving
from http_helpers import (
    LIMIT,
    META,
    Gates,
    RawClient,
    call,
    data,
    initialize,
    make_server,
    modern_headers,
    open_session,
)
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Mount, Route

from mcp_core import Server
from transports.http.asgi import AsgiApp, asgi_app

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    """uvicorn runs on asyncio only."""
    return "asyncio"


async def health(request: Request) -> PlainTextResponse:
    return PlainTextResponse("ok")


def starlette_app(mcp: AsgiApp) -> Starlette:
    """The MCP app mounted under /api beside a route of the outer app; Starlette
    does not pass lifespan events to mounted apps, so its lifespan runs ours."""
    return Starlette(
        routes=[Route("/health", health), Mount("/api", app=mcp)],
        lifespan=lambda app: mcp.running(),
    )


@contextlib.asynccontextmanager
async def mounted(server: Server) -> AsyncIterator[int]:
    async with uvicorn_serving(starlette_app(asgi_app(server))) as port:
        yield port


def client(port: int) -> RawClient:
    return RawClient(port, target="/api/mcp")


async def test_initialize_and_a_json_tools_call() -> None:
    async with mounted(make_server(Gates())) as port, client(port) as raw:
        session_id = await open_session(raw, "2025-06-18")
        await raw.send("POST", call("echo", {"text": "hi"}), mcp_session_id=session_id)
        answer = await raw.answer()
        assert answer.status == 200 and answer.headers["content-type"] == "application/json"
        assert answer.headers["mcp-session-id"] == session_id
        assert answer.json()["result"]["content"] == [{"type": "text", "text": "hi"}]
        # The outer app still serves its own routes, on the same connection.
        raw.target = "/health"
        await raw.send("GET")
        assert (await raw.answer()).body == b"ok"


async def test_a_tools_call_answered_on_sse() -> None:
    async with mounted(make_server(Gates())) as port, client(port) as raw:
        session_id = await open_session(raw)  # 2025-11-25: SSE with a priming event
        request = call("slow", {}, id=4, _meta={"progressToken": "p"})
        await raw.send("POST", request, mcp_session_id=session_id)
        head = await raw.head()
        assert head.status == 200 and head.headers["content-type"] == "text/event-stream"
        assert head.headers["mcp-session-id"] == session_id
        events = await raw.events()  # to the end of the stream
        assert events[0].data == "" and events[0].id and events[0].retry is not None
        methods = [m.get("method", m.get("id")) for m in data(events)]
        assert methods == ["notifications/progress", "notifications/message", 4]


async def test_the_get_stream_and_delete() -> None:
    server = make_server(Gates())
    async with mounted(server) as port, client(port) as raw, client(port) as get:
        session_id = await open_session(raw)
        await get.send("GET", mcp_session_id=session_id)
        assert (await get.head()).headers["content-type"] == "text/event-stream"
        (priming,) = await get.events(lambda events: bool(events))
        assert priming.data == ""
        server.add_tool(lambda: "new", name="added")
        events = await get.events(lambda events: bool(events))
        assert data(events) == [{"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}]

        await raw.send("DELETE", mcp_session_id=session_id)
        assert (await raw.answer()).status == 200
        assert await get.events() == []  # the session's end ends its GET stream
        await raw.send("POST", call("echo", {"text": "x"}), mcp_session_id=session_id)
        assert (await raw.answer()).status == 404


async def test_a_modern_request() -> None:
    async with mounted(make_server(Gates())) as port, client(port) as raw:
        request = call("echo", {"text": "now"}, id=3, _meta=META)
        await raw.send("POST", request, **modern_headers("tools/call", "echo"))
        answer = await raw.answer()
        assert answer.status == 200 and "mcp-session-id" not in answer.headers
        assert answer.json()["result"]["content"][0]["text"] == "now"
        unknown = {"jsonrpc": "2.0", "id": 4, "method": "nothing/here", "params": {"_meta": META}}
        await raw.send("POST", unknown, **modern_headers("nothing/here"))
        assert (await raw.answer()).status == 404


async def test_a_disconnect_cancels_a_modern_request() -> None:
    gates = Gates()
    async with mounted(make_server(gates)) as port:
        async with client(port) as raw:
            request = call("hang", {}, id=5, _meta=META)
            await raw.send("POST", request, **modern_headers("tools/call", "hang"))
            with anyio.fail_after(LIMIT):
                await gates.started.wait()
        with anyio.fail_after(LIMIT):
            await gates.cancelled.wait()


async def test_a_dropped_legacy_stream_is_resumed_with_last_event_id() -> None:
    # A disconnection is not a cancellation before 2026-07-28: the response comes
    # on the GET that resumes the stream.
    gates = Gates()
    async with mounted(make_server(gates)) as port:
        async with client(port) as raw:
            session_id = await open_session(raw)
            await raw.send("POST", call("hang", {}, id=8), mcp_session_id=session_id)
            await raw.head()
            (priming,) = await raw.events(lambda events: bool(events))
            with anyio.fail_after(LIMIT):
                await gates.started.wait()
        gates.release.set()
        async with client(port) as again:
            await again.send("GET", mcp_session_id=session_id, last_event_id=priming.id or "")
            assert (await again.head()).status == 200
            (response,) = data(await again.events())
            assert response["id"] == 8
            assert response["result"]["content"] == [{"type": "text", "text": "released"}]
        assert not gates.cancelled.is_set()


async def test_refusals() -> None:
    async with mounted(make_server(Gates())) as port, client(port) as raw:
        await raw.send("POST", initialize(), origin="http://evil.example.com")
        assert (await raw.answer()).status == 403
        await raw.send("POST", initialize(), host="evil.example.com")
        assert (await raw.answer()).status == 421
        raw.target = "/api/other"
        await raw.send("POST", initialize())
        assert (await raw.answer()).status == 404


async def test_as_the_whole_application() -> None:
    # uvicorn runs the app's own lifespan; it answers at /mcp.
    async with uvicorn_serving(asgi_app(make_server(Gates()))) as port, RawClient(port) as raw:
        session_id = await open_session(raw, "2025-06-18")
        await raw.send("POST", call("echo", {"text": "whole"}), mcp_session_id=session_id)
        assert (await raw.answer()).json()["result"]["content"][0]["text"] == "whole"


# --- without an ASGI server ---------------------------------------------------------------


class Exchange:
    """One HTTP request for an ASGI app, and what it sends back."""

    def __init__(self, method: str, body: bytes = b"", **headers: str) -> None:
        pairs = {"host": "127.0.0.1", **{k.replace("_", "-"): v for k, v in headers.items()}}
        self.scope = {
            "type": "http",
            "method": method,
            "path": "/mcp",
            "root_path": "",
            "query_string": b"",
            "headers": [(k.encode(), v.encode()) for k, v in pairs.items()],
        }
        self.incoming = [{"type": "http.request", "body": body, "more_body": False}]
        self.sent: list[dict[str, Any]] = []
        self.done = anyio.Event()

    async def receive(self) -> dict[str, Any]:
        if self.incoming:
            return self.incoming.pop(0)
        await self.done.wait()
        return {"type": "http.disconnect"}

    async def send(self, message: dict[str, Any]) -> None:
        self.sent.append(message)
        if message["type"] == "http.response.body" and not message.get("more_body"):
            self.done.set()

    @property
    def status(self) -> int:
        return int(self.sent[0]["status"])

    @property
    def body(self) -> bytes:
        return b"".join(m.get("body", b"") for m in self.sent[1:])


@pytest.mark.parametrize("anyio_backend", ["asyncio", "trio"])
async def test_lifespan_and_a_request_on_any_backend(anyio_backend: str) -> None:
    app = asgi_app(make_server(Gates()))
    before = Exchange("GET", accept="text/event-stream")
    await app(before.scope, before.receive, before.send)  # type: ignore[arg-type]
    assert before.status == 503

    lifespan_in: list[str] = ["lifespan.startup"]
    lifespan_out: list[str] = []
    startup_done = anyio.Event()
    shutdown = anyio.Event()

    async def receive() -> dict[str, Any]:
        if lifespan_in:
            return {"type": lifespan_in.pop()}
        await shutdown.wait()
        return {"type": "lifespan.shutdown"}

    async def send(message: dict[str, Any]) -> None:
        lifespan_out.append(message["type"])
        startup_done.set()

    with anyio.fail_after(LIMIT):
        async with anyio.create_task_group() as tg:
            tg.start_soon(app, {"type": "lifespan"}, receive, send)
            await startup_done.wait()
            assert lifespan_out == ["lifespan.startup.complete"]
            body = initialize("2025-06-18")
            post = Exchange(
                "POST",
                json.dumps(body).encode(),
                accept="application/json, text/event-stream",
                content_type="application/json",
            )
            await app(post.scope, post.receive, post.send)  # type: ignore[arg-type]
            assert post.status == 200
            assert b'"protocolVersion":"2025-06-18"' in post.body
            assert len(app.service.sessions) == 1
            shutdown.set()
    assert lifespan_out == ["lifespan.startup.complete", "lifespan.shutdown.complete"]
    assert app.service.sessions == {} and not app.service.is_running
