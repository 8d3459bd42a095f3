"""SSE polling, the server's half (2025-11-25 basic/transports.mdx "Sending Messages to
the Server" item 6: after an event id and a `retry`, the server MAY close the
connection; "Resumability and Redelivery": the client resumes with GET and
Last-Event-ID). With ``HttpServerConfig(sse_poll_after=0)`` the answer to a call ends
right after its priming event; the call's result reaches the client through its GET.

Served by the h11 server (asyncio, trio) and by the ASGI app under uvicorn; the
clients: raw HTTP, ours, and the official SDK's streamable-HTTP client (``mcp`` 2.3).
The tool answers only once the client came back with a GET naming Last-Event-ID,
which the server sees through its authentication hook: so each test shows the POST's
stream ended before the result, and the result arrived on the GET.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Final

import anyio
import pytest
from adapter_flavours import by_flavour, flavour_fixture  # noqa: F401
from asgi_helpers import starlette_app, uvicorn_serving
from http_helpers import RawClient, call, data, open_session
from limits import HANG
from mcp import Client as SdkClient

from mcp_core import Context, HttpServerConfig, Server
from mcp_core.http import HttpRequest
from transports import connect_http
from transports.http.asgi import asgi_app
from transports.http.server import serve_http

pytestmark = pytest.mark.anyio

LIMIT: Final = HANG
POLLING: Final = HttpServerConfig(sse_poll_after=0, sse_retry_ms=20)


class Resumes:
    """Sees every request head (as the authentication hook); ``resumed`` is set by
    the first GET that carries Last-Event-ID."""

    def __init__(self) -> None:
        self.resumed = anyio.Event()
        self.last_event_ids: list[str] = []

    def __call__(self, head: HttpRequest) -> None:
        last = head.headers.get("last-event-id")
        if head.method == "GET" and last is not None:
            self.last_event_ids.append(last)
            self.resumed.set()


def polled_server(resumes: Resumes) -> Server:
    server = Server("polling", "1.0")

    @server.tool
    async def wait_for_poll(ctx: Context) -> str:
        """Log, then answer once the client polled back."""
        await ctx.info("working")
        await resumes.resumed.wait()
        return "after the poll"

    return server


@asynccontextmanager
async def serving(flavour: tuple[str, str], resumes: Resumes) -> AsyncIterator[tuple[int, str]]:
    """Serve the polled server; yields its port and the endpoint's path."""
    server = polled_server(resumes)
    if flavour[1] == "asgi":
        app = asgi_app(server, config=POLLING, authenticate=resumes)
        async with uvicorn_serving(starlette_app(app)) as port:
            yield port, "/api/mcp"
        return
    async with anyio.create_task_group() as tg:
        port = await tg.start(
            lambda task_status: serve_http(
                server, port=0, config=POLLING, authenticate=resumes, task_status=task_status
            )
        )
        try:
            yield port, "/mcp"
        finally:
            tg.cancel_scope.cancel()


async def test_the_wire(flavour: tuple[str, str]) -> None:
    resumes = Resumes()
    with anyio.fail_after(LIMIT):
        async with (
            serving(flavour, resumes) as (port, path),
            RawClient(port, target=path) as raw,
            RawClient(port, target=path) as get,
        ):
            session_id = await open_session(raw)
            await raw.send("POST", call("wait_for_poll", {}, id=5), mcp_session_id=session_id)
            head = await raw.head()
            assert head.status == 200 and head.headers["content-type"] == "text/event-stream"
            assert head.headers["connection"] == "close"
            events = await raw.events()  # the stream ends: no response on it
            assert events[0].data == "" and events[0].id and events[0].retry == 20
            assert all("id" not in message for message in data(events))
            assert not resumes.resumed.is_set()

            last = [e.id for e in events if e.id][-1]  # the last event it got
            await get.send("GET", mcp_session_id=session_id, last_event_id=last)
            assert (await get.head()).headers["content-type"] == "text/event-stream"
            rest = await get.events()  # the replay, then the live stream to its end
            messages = data(rest)
            assert messages[-1]["id"] == 5
            assert messages[-1]["result"]["content"][0]["text"] == "after the poll"
            assert [m["method"] for m in data(events) + messages[:-1]] == ["notifications/message"]
            ids = [e.id for e in events + rest if e.data]
            assert len(ids) == len(set(ids))  # each message once, on one stream or the other


async def test_our_client(flavour: tuple[str, str]) -> None:
    resumes = Resumes()
    with anyio.fail_after(LIMIT):
        async with serving(flavour, resumes) as (port, path):
            url = f"http://127.0.0.1:{port}{path}"
            async with connect_http(url, revisions=("2025-11-25",)) as client:
                assert client.revision == "2025-11-25"
                result = await client.call_tool("wait_for_poll", {})
                assert result.content[0].text == "after the poll"  # type: ignore[union-attr]
                assert resumes.last_event_ids  # it came back with GET and Last-Event-ID


async def test_the_official_sdk_client(flavour: tuple[str, str]) -> None:
    resumes = Resumes()
    with anyio.fail_after(LIMIT):
        async with serving(flavour, resumes) as (port, path):
            url = f"http://127.0.0.1:{port}{path}"
            async with SdkClient(url, mode="legacy") as client:
                result = await client.call_tool("wait_for_poll", {})
                assert result.content[0].text == "after the poll"  # type: ignore[union-attr]
                assert resumes.last_event_ids
