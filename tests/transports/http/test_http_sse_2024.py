"""The deprecated HTTP+SSE transport (2024-11-05 basic/transports.mdx "HTTP with
SSE"), from the wire: raw HTTP/1.1 against the h11 server (asyncio and trio) and
against the ASGI app mounted under /api in Starlette under uvicorn (asyncio).

A GET on /sse opens the session's stream; its first event, ``endpoint``, names
the URI to POST to; POSTs get 202 and their answers come on the stream as
``message`` events. Every wait is bounded by LIMIT.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest
from adapter_flavours import by_flavour, flavour_fixture  # noqa: F401
from asgi_helpers import uvicorn_serving
from http_helpers import LIMIT, Gates, RawClient, call, initialize, make_server

from mcp_core import HttpServerConfig, Server
from mcp_core.wire import ServerSentEvent
from transports.http.asgi import asgi_app
from transports.http.server import serve_http

pytestmark = pytest.mark.anyio


@dataclasses.dataclass
class Served:
    port: int
    prefix: str  # where the app is mounted: "" for h11, "/api" under Starlette

    def client(self, path: str) -> RawClient:
        return RawClient(self.port, target=f"{self.prefix}{path}")


@asynccontextmanager
async def serving(
    flavour: tuple[str, str],
    server: Server,
    config: HttpServerConfig | None = None,
    **options: Any,
) -> AsyncIterator[Served]:
    """Serve ``server`` the ``flavour`` way; ``options`` go to serve_http or asgi_app
    (authenticate, timeouts)."""
    config = config or HttpServerConfig()
    if flavour[1] == "asgi":
        from starlette.applications import Starlette
        from starlette.routing import Mount

        mcp = asgi_app(server, config=config, **options)
        app = Starlette(routes=[Mount("/api", app=mcp)], lifespan=lambda _: mcp.running())
        async with uvicorn_serving(app) as port:
            yield Served(port, "/api")
        return
    async with anyio.create_task_group() as tg:
        port = await tg.start(
            lambda task_status: serve_http(
                server, port=0, config=config, task_status=task_status, **options
            )
        )
        try:
            yield Served(port, "")
        finally:
            tg.cancel_scope.cancel()


class Stream:
    """An open /sse stream: its endpoint URI and the messages that follow."""

    def __init__(self, raw: RawClient) -> None:
        self.raw = raw
        self.endpoint = ""
        self.pending: list[ServerSentEvent] = []

    async def open(self) -> Stream:
        await self.raw.send("GET")
        head = await self.raw.head()
        assert head.status == 200, head.status
        assert head.headers["content-type"] == "text/event-stream"
        (first,) = await self.raw.events(lambda got: bool(got))
        assert first.event == "endpoint"
        self.endpoint = first.data
        return self

    async def message(self) -> Any:
        """The next ``message`` event's JSON."""
        while not self.pending:
            self.pending += await self.raw.events(lambda got: bool(got))
        event = self.pending.pop(0)
        assert event.event == "message", event
        return json.loads(event.data)


async def post(served: Served, target: str, body: Any, **headers: str) -> Any:
    async with RawClient(served.port, target=target) as raw:
        await raw.send("POST", body, **headers)
        return await raw.answer()


async def start(served: Served, stream: Stream) -> None:
    """initialize and notifications/initialized over the POST endpoint."""
    accepted = await post(served, stream.endpoint, initialize())
    assert (accepted.status, accepted.body) == (202, b"")
    result = await stream.message()
    assert result["id"] == 0 and result["result"]["protocolVersion"] == "2025-11-25"
    done = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert (await post(served, stream.endpoint, done)).status == 202


async def test_the_first_event_names_the_post_uri_with_the_session(
    flavour: tuple[str, str],
) -> None:
    async with serving(flavour, make_server(Gates())) as served:
        async with served.client("/sse") as raw:
            stream = await Stream(raw).open()
        assert stream.endpoint.startswith(f"{served.prefix}/messages?session_id=")
        assert len(stream.endpoint.rsplit("=", 1)[1]) >= 32


async def test_posts_get_202_and_answers_come_as_message_events(
    flavour: tuple[str, str],
) -> None:
    async with serving(flavour, make_server(Gates())) as served, served.client("/sse") as raw:
        stream = await Stream(raw).open()
        await start(served, stream)
        answer = await post(served, stream.endpoint, call("echo", {"text": "hi"}, id=7))
        assert (answer.status, answer.body) == (202, b"")
        response = await stream.message()
        assert response["id"] == 7
        assert response["result"]["content"] == [{"type": "text", "text": "hi"}]
        # Progress and logs of a request come on the same stream, before it.
        request = call("slow", {}, id=8, _meta={"progressToken": "p"})
        assert (await post(served, stream.endpoint, request)).status == 202
        methods = []
        while "id" not in (message := await stream.message()):
            methods.append(message["method"])
        assert methods == ["notifications/progress", "notifications/message"]
        assert message["id"] == 8


async def test_an_unknown_or_missing_session_is_refused(flavour: tuple[str, str]) -> None:
    async with serving(flavour, make_server(Gates())) as served:
        target = f"{served.prefix}/messages"
        unknown = await post(served, f"{target}?session_id=nope", initialize())
        assert unknown.status == 404 and unknown.json()["error"]["message"].endswith("not found")
        missing = await post(served, target, initialize())
        assert missing.status == 400
        async with served.client("/sse") as raw:
            stream = await Stream(raw).open()
            broken = await post(served, stream.endpoint, "{")
            assert broken.status == 400
            async with RawClient(served.port, target=stream.endpoint) as other:
                await other.send("GET")
                assert (await other.answer()).status == 405


async def test_host_and_origin_are_checked(flavour: tuple[str, str]) -> None:
    async with serving(flavour, make_server(Gates())) as served, served.client("/sse") as raw:
        await raw.send("GET", host="evil.example.com")
        assert (await raw.answer()).status == 421
        await raw.send("GET", origin="http://evil.example.com")
        assert (await raw.answer()).status == 403
        await raw.send("POST", initialize())
        assert (await raw.answer()).status == 405


async def test_the_session_ends_with_its_stream(flavour: tuple[str, str]) -> None:
    gates = Gates()
    async with serving(flavour, make_server(gates)) as served:
        async with served.client("/sse") as raw:
            stream = await Stream(raw).open()
            await start(served, stream)
            assert (await post(served, stream.endpoint, call("hang", {}, id=3))).status == 202
            with anyio.fail_after(LIMIT):
                await gates.started.wait()
        # The client closed the stream: the session and its requests end with it.
        with anyio.fail_after(LIMIT):
            await gates.cancelled.wait()
        gone = await post(served, stream.endpoint, call("echo", {"text": "x"}))
        assert gone.status == 404


async def test_requests_beyond_the_in_flight_cap_get_an_error_on_the_stream(
    flavour: tuple[str, str],
) -> None:
    gates = Gates()
    config = HttpServerConfig(max_requests_in_flight=1)
    server = make_server(gates)
    async with serving(flavour, server, config) as served, served.client("/sse") as raw:
        stream = await Stream(raw).open()
        await start(served, stream)
        assert (await post(served, stream.endpoint, call("hang", {}, id=3))).status == 202
        with anyio.fail_after(LIMIT):
            await gates.started.wait()
        refused = await post(served, stream.endpoint, call("echo", {"text": "x"}, id=4))
        assert refused.status == 202
        error = await stream.message()
        assert error["id"] == 4 and "Too Many Requests" in error["error"]["message"]
        gates.release.set()
        assert (await stream.message())["id"] == 3


async def test_it_can_be_turned_off(flavour: tuple[str, str]) -> None:
    config = HttpServerConfig(sse_path=None)
    server = make_server(Gates())
    async with serving(flavour, server, config) as served, served.client("/sse") as raw:
        await raw.send("GET")
        assert (await raw.answer()).status == 404
