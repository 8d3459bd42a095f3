"""The ASGI adapter, mounted in a Starlette app under a real uvicorn on loopback:
what only it does; what every adapter does is test_http_adapters.py.

uvicorn runs in the test's own event loop (asyncio: uvicorn has no trio support)
on a socket bound and listening before it starts, so clients connect at once and
are answered once the lifespan has started. The same raw h11 client as the h11
server's tests talks to it. The app itself is backend-neutral: one test drives it
with hand-written ASGI messages on asyncio and trio.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest
from asgi_helpers import mounted, uvicorn_serving
from http_helpers import (
    LIMIT,
    META,
    Gates,
    RawClient,
    call,
    initialize,
    make_server,
    modern_headers,
    open_session,
)

from transports.http.asgi import asgi_app

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    """uvicorn runs on asyncio only."""
    return "asyncio"


async def test_the_outer_app_serves_its_own_routes_beside_it() -> None:
    async with mounted(make_server(Gates())) as port, client(port) as raw:
        session_id = await open_session(raw, "2025-06-18")
        await raw.send("POST", call("echo", {"text": "hi"}), mcp_session_id=session_id)
        assert (await raw.answer()).json()["result"]["content"][0]["text"] == "hi"
        raw.target = "/health"  # the same connection
        await raw.send("GET")
        assert (await raw.answer()).body == b"ok"


def client(port: int) -> RawClient:
    return RawClient(port, target="/api/mcp")


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


@pytest.mark.parametrize("anyio_backend", ["asyncio", "trio"])
async def test_lifespan_shutdown_ends_a_listen_stream_with_its_completion_result(
    anyio_backend: str,
) -> None:
    # Issue 30 item 7: a 2026-07-28 listen stream open at lifespan shutdown was
    # cancelled mid-body. 2026-07-28 basic/patterns/subscriptions.mdx "Graceful
    # Closure": it gets the completion result, then its body ends.
    app = asgi_app(make_server(Gates()))
    params = {"notifications": {"toolsListChanged": True}, "_meta": META}
    listen = {"jsonrpc": "2.0", "id": 4, "method": "subscriptions/listen", "params": params}
    stream = Exchange(
        "POST",
        json.dumps(listen).encode(),
        accept="application/json, text/event-stream",
        content_type="application/json",
        **{k.replace("_", "-"): v for k, v in modern_headers("subscriptions/listen").items()},
    )
    with anyio.fail_after(LIMIT):
        async with anyio.create_task_group() as tg:
            async with app.running():
                tg.start_soon(app, stream.scope, stream.receive, stream.send)
                while b"acknowledged" not in stream.body:
                    await anyio.sleep(0.01)  # polled: the exchange wakes nobody
            await stream.done.wait()  # the last body message, more_body False
    end = json.loads(stream.body.split(b"data: ")[-1])
    assert end == {
        "jsonrpc": "2.0",
        "id": 4,
        "result": {
            "resultType": "complete",
            "_meta": {"io.modelcontextprotocol/subscriptionId": 4},
        },
    }
