"""Graceful shutdown of the h11 server (issue: on SIGTERM, requests in flight got EOF
and no answer). `HttpServer.shutdown()` stops accepting, lets the request in flight
finish, answers a request that comes on an open connection 503 with
`Connection: close`, closes idle connections, ends SSE streams with their last chunk
(so a 2025-11-25 client can resume elsewhere), and `serve` returns. Asyncio and
trio, from the wire; and `mcp-core serve --transport http` on SIGTERM, in a
subprocess."""

from __future__ import annotations

import signal
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
import h11
import paths
import pytest
from asgi_helpers import uvicorn_server
from http_helpers import (
    META,
    Gates,
    RawClient,
    call,
    data,
    has_response,
    make_server,
    modern_headers,
    open_session,
)
from limits import HANG
from net_helpers import port_of

from mcp_core.http.server import HttpServerConfig
from transports import connect_http
from transports.http.asgi import asgi_app
from transports.http.server import HttpServer

pytestmark = pytest.mark.anyio
LIMIT = HANG


@asynccontextmanager
async def served(gates: Gates, grace: float = 10.0) -> AsyncIterator[tuple[HttpServer, int]]:
    """The server on a free port; the block must end with it stopped (serve
    returned by itself: nothing cancels it)."""
    http = HttpServer(make_server(gates), HttpServerConfig(), shutdown_grace=grace)
    with anyio.fail_after(LIMIT):
        async with anyio.create_task_group() as tg:
            port = await tg.start(http.serve, "127.0.0.1", 0)
            yield http, port


async def begin(client: RawClient, body: dict[str, object]) -> bytes:
    """Send the first bytes of a request; the rest is returned, to send later."""
    sock = client.sock
    sent: list[bytes] = []

    class Held:
        async def send(self, data: bytes) -> None:
            sent.append(data)

    client.sock = Held()
    try:
        await client.send("POST", body)
    finally:
        client.sock = sock
    whole = b"".join(sent)
    await sock.send(whole[:20])
    return whole[20:]


async def idle_count(http: HttpServer, count: int) -> None:
    with anyio.fail_after(LIMIT):
        while len(http.idle) != count:
            await anyio.sleep(0.01)


async def test_shutdown_finishes_the_call_in_flight_and_refuses_the_rest(
    anyio_backend: str,
) -> None:
    gates = Gates()
    async with (
        served(gates) as (http, port),
        RawClient(port) as busy,
        RawClient(port) as idle,
        RawClient(port) as late,
        RawClient(port) as listening,
    ):
        session_id = await open_session(busy)
        # One connection waits for a slow tool's answer.
        await busy.send("POST", call("hang", {}, id=1), mcp_session_id=session_id)
        with anyio.fail_after(LIMIT):
            await gates.started.wait()
        # One listens on the session's GET stream.
        await listening.send("GET", mcp_session_id=session_id)
        assert (await listening.head()).status == 200
        # One is idle after a request; one has begun its next request.
        ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
        for client in (idle, late):
            await client.send("POST", ping, mcp_session_id=session_id)
            assert (await client.answer()).status == 200
        started = await begin(late, ping)
        await idle_count(http, 1)

        http.shutdown()

        assert await idle.closed()  # closed without a word
        await listening.events()  # the GET stream ends with its last chunk
        assert listening.h11.their_state is h11.DONE
        with pytest.raises(OSError):
            await anyio.connect_tcp("127.0.0.1", port)  # no longer accepting
        await late.sock.send(started)
        refused = await late.answer()
        assert refused.status == 503
        assert refused.headers["connection"] == "close"
        assert await late.closed()

        gates.release.set()
        # The call in flight is answered (on the SSE stream it began before the
        # shutdown), and then its connection is closed.
        assert (await busy.head()).status == 200
        answer = data(await busy.events())[-1]
        assert answer["id"] == 1 and answer["result"]["content"][0]["text"] == "released"
        assert await busy.closed()
    # served() ended: serve returned once the last connection closed.


async def listen(client: RawClient) -> None:
    """Open a 2026-07-28 subscriptions/listen stream; return once acknowledged."""
    params = {"notifications": {"toolsListChanged": True}, "_meta": META}
    request = {"jsonrpc": "2.0", "id": 5, "method": "subscriptions/listen", "params": params}
    await client.send("POST", request, **modern_headers("subscriptions/listen"))
    assert (await client.head()).status == 200
    (ack,) = data(await client.events(lambda got: bool(got)))
    assert ack["method"] == "notifications/subscriptions/acknowledged"


async def test_shutdown_ends_a_listen_stream_with_its_completion_result(
    anyio_backend: str,
) -> None:
    # Issue 30 item 7: a listen stream held the shutdown for the whole grace period,
    # then broke mid-body. 2026-07-28 basic/patterns/subscriptions.mdx "Graceful
    # Closure": a server that ends a subscription on its own (shutting down) SHOULD
    # answer the listen request with a completion result, then close the stream.
    # The grace period here is longer than served()'s bound: only ending the
    # stream at once lets serve return within it.
    async with served(Gates(), grace=3 * LIMIT) as (http, port), RawClient(port) as client:
        await listen(client)
        http.shutdown()
        (end,) = data(await client.events())
        assert end == {
            "jsonrpc": "2.0",
            "id": 5,
            "result": {
                "resultType": "complete",
                "_meta": {"io.modelcontextprotocol/subscriptionId": 5},
            },
        }
        assert client.h11.their_state is h11.DONE  # the whole body, its last chunk
        assert await client.closed()


@pytest.mark.parametrize("anyio_backend", ["asyncio"])  # uvicorn runs on asyncio
async def test_the_asgi_app_ends_a_listen_stream_when_uvicorn_shuts_down(
    anyio_backend: str,
) -> None:
    # The same under uvicorn, with AsgiApp.shutdown hooked into its shutdown (ASGI
    # tells an app only at lifespan shutdown, after the connections): without it
    # uvicorn waits its timeout_graceful_shutdown (1 s here), then cancels the
    # stream mid-body.
    app = asgi_app(make_server(Gates()))
    async with (
        uvicorn_server(app, on_shutdown=app.shutdown) as (port, server),
        RawClient(port) as client,
    ):
        await listen(client)
        server.should_exit = True
        (end,) = data(await client.events())
        assert end["id"] == 5 and end["result"]["resultType"] == "complete"
        assert client.h11.their_state is h11.DONE  # the whole body, its last chunk


async def test_a_client_listening_sees_the_shutdown_as_a_clean_end(anyio_backend: str) -> None:
    # Issue 30 item 7, the client's side: the block of Client.listen ends, with no
    # error (it got OutcomeUnknownError when the stream broke).
    async with (
        served(Gates(), grace=3 * LIMIT) as (http, port),
        connect_http(f"http://127.0.0.1:{port}/mcp") as client,
    ):
        assert client.era == "modern"
        async with client.listen(tools=True):
            http.shutdown()
            await anyio.sleep_forever()  # until the server ends the stream


async def test_past_the_grace_period_a_stream_in_flight_ends_cleanly(
    anyio_backend: str,
) -> None:
    gates = Gates()
    async with served(gates, grace=0.2) as (http, port), RawClient(port) as client:
        session_id = await open_session(client)
        request = call("hang", {}, id=1, _meta={"progressToken": "p"})
        await client.send("POST", request, mcp_session_id=session_id)
        with anyio.fail_after(LIMIT):
            await gates.started.wait()
        http.shutdown()
        # The handler never answers: once the grace period is over the stream
        # ends with its last chunk, its event ids kept for a resumption.
        head = await client.head()
        assert head.status == 200 and head.headers["content-type"] == "text/event-stream"
        events = await client.events()
        assert not has_response(events) and not data(events)
        assert events and all(event.id for event in events)
        assert client.h11.their_state in (h11.DONE, h11.MUST_CLOSE)  # the whole response
        assert await client.closed()


async def test_sigterm_lets_mcp_core_serve_finish_the_call_and_exit_0(anyio_backend: str) -> None:
    argv = [
        *(sys.executable, "-m", "transports", "serve", f"{paths.SERVERS / 'slow_tool.py'}:server"),
        *("--transport", "http", "--port", "0", "--backend", anyio_backend),
    ]
    with anyio.fail_after(4 * LIMIT):
        async with await anyio.open_process(argv, cwd=paths.ROOT) as process:
            try:
                assert process.stderr is not None
                said = b""
                while b"\n" not in said:
                    said += await process.stderr.receive()
                url = said.decode().split(" on ", 1)[1].split()[0]
                async with RawClient(port_of(url)) as client:
                    request = call(
                        "work", {"seconds": 1}, id=7, _meta={**META, "progressToken": "p"}
                    )
                    await client.send("POST", request, **modern_headers("tools/call", "work"))
                    assert (await client.head()).status == 200
                    started = await client.events(lambda got: bool(got))
                    assert data(started)[0]["method"] == "notifications/progress"
                    process.send_signal(signal.SIGTERM)
                    answer = data(await client.events())[-1]
                assert answer["id"] == 7 and answer["result"]["content"][0]["text"] == "finished"
                assert await process.wait() == 0
            finally:
                if process.returncode is None:
                    process.kill()
