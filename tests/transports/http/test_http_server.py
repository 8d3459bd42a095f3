"""The h11 HTTP server over real loopback sockets, on asyncio and trio: what only
it does (keep-alive, timeouts, malformed requests, its own sessions and streams);
what every adapter does is test_http_adapters.py.

Requests are written with h11's client side (raw HTTP/1.1 bytes on a TCP
stream) and answers are read back the same way; SSE bodies go through
`mcp_core.SSEParser`. Every wait is bounded by LIMIT; nothing sleeps to
synchronise.
"""

from __future__ import annotations

import itertools
import logging

import anyio
import h11
import pytest
from http_helpers import (
    LIMIT,
    META,
    Gates,
    RawClient,
    call,
    data,
    make_server,
    modern_headers,
    open_session,
    reply_of,
    running,
)

from mcp_core import Context, Server
from mcp_core.http.server import HttpServerConfig
from mcp_core.wire import HEADER_MISMATCH
from transports.http.server import HttpTimeouts, serve_http

pytestmark = pytest.mark.anyio

CHANGED = b"notifications/tools/list_changed"


# --- the legacy era ----------------------------------------------------------------------------


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


async def test_a_refused_initialize_leaves_no_session() -> None:
    async with running(make_server(Gates())) as port, RawClient(port) as client:
        await client.send("POST", {"jsonrpc": "2.0", "id": 0, "method": "initialize"})
        answer = await client.answer()
        assert answer.status == 200 and answer.json()["error"]["code"] == -32602
        ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
        await client.send("POST", ping, mcp_session_id=answer.headers["mcp-session-id"])
        assert (await client.answer()).status == 404


# --- the modern era ----------------------------------------------------------------------------


async def test_a_modern_header_mismatch_gets_400() -> None:
    async with running(make_server(Gates())) as port, RawClient(port) as client:
        request = call("echo", {"text": "now"}, id=3, _meta=META)
        await client.send("POST", request, **modern_headers("tools/call", "other"))
        answer = await client.answer()
        assert answer.status == 400
        assert answer.json()["error"]["code"] == HEADER_MISMATCH and answer.json()["id"] == 3


async def test_closing_a_modern_stream_cancels_the_request(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # 2026-07-28 streamable-http.mdx "Cancellation". The hang-up is an ordinary
    # end of the request, on trio too (where task groups wrap what leaves them).
    gates = Gates()
    async with running(make_server(gates)) as port:
        async with RawClient(port) as client:
            request = call("hang", {}, id=5, _meta=META)
            await client.send("POST", request, **modern_headers("tools/call", "hang"))
            with anyio.fail_after(LIMIT):
                await gates.started.wait()
        with anyio.fail_after(LIMIT):
            await gates.cancelled.wait()
        # Its connection ended with it (on h11, the connection's own scope is
        # what the hang-up cancels); the server serves the next one.
        async with RawClient(port) as client:
            request = call("echo", {"text": "next"}, id=6, _meta=META)
            await client.send("POST", request, **modern_headers("tools/call", "echo"))
            assert (await client.answer()).json()["id"] == 6
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


def _stepping(gates: Gates) -> Server:
    # The test server, with a tool that reports progress, then waits for the test.
    server = make_server(gates)

    @server.tool
    async def step(ctx: Context) -> str:
        """Report progress, then wait for the test, noting a cancellation."""
        await ctx.report_progress(1, 2)
        return await gates.hold()

    return server


async def test_a_modern_handler_streams_what_it_sends_while_it_runs() -> None:
    # Progress reaches the client while the handler still waits for the test.
    gates = Gates()
    async with running(_stepping(gates)) as port, RawClient(port) as client:
        request = call("step", {}, id=6, _meta={**META, "progressToken": "p"})
        await client.send("POST", request, **modern_headers("tools/call", "step"))
        head = await client.head()
        assert head.status == 200 and head.headers["content-type"] == "text/event-stream"
        early = await client.events(lambda events: bool(data(events)))
        assert [m["method"] for m in data(early)] == ["notifications/progress"]
        gates.release.set()
        rest = data(await client.events())
        assert [m["id"] for m in rest] == [6]
        assert rest[0]["result"]["content"][0]["text"] == "released"
        # The connection serves the next request.
        await client.send(
            "POST",
            call("echo", {"text": "next"}, id=7, _meta=META),
            **modern_headers("tools/call", "echo"),
        )
        assert (await client.answer()).json()["id"] == 7


async def test_what_a_modern_handler_sends_after_its_answer_is_dropped() -> None:
    # A request is served on a session of its own, which ends with its answer: a
    # handler that keeps its Context (a task it detached, a thread abandoned on
    # cancel) reaches no other request's answer through it, here the next
    # request's on the same connection, sent while that one runs (the first has
    # ended by then: a connection serves its requests one after another).
    kept: list[Context] = []
    gates = Gates()
    server = make_server(gates)

    @server.tool
    async def keep(ctx: Context) -> str:
        """Keep the Context for later."""
        kept.append(ctx)
        return "kept"

    meta = {**META, "progressToken": "p", "io.modelcontextprotocol/logLevel": "debug"}
    async with running(server) as port, RawClient(port) as client:
        request = call("keep", {}, id=7, _meta=meta)
        await client.send("POST", request, **modern_headers("tools/call", "keep"))
        answer = await client.answer()
        assert answer.headers["content-type"] == "application/json"
        assert answer.json()["id"] == 7
        (ctx,) = kept
        request = call("hang", {}, id=8, _meta=meta)
        await client.send("POST", request, **modern_headers("tools/call", "hang"))
        with anyio.fail_after(LIMIT):
            await gates.started.wait()
        await ctx.report_progress(1, 2)
        await ctx.info("late")
        await ctx.peer.send_notification("notifications/tools/list_changed", None)
        gates.release.set()
        answer = await client.answer()
        # Nothing came before the response: JSON, the response alone.
        assert answer.headers["content-type"] == "application/json"
        assert answer.json()["id"] == 8
        assert answer.json()["result"]["content"][0]["text"] == "released"


async def test_a_legacy_handler_streams_what_it_sends_while_it_runs() -> None:
    gates = Gates()
    async with running(_stepping(gates)) as port, RawClient(port) as client:
        session_id = await open_session(client, "2025-06-18")
        request = call("step", {}, id=9, _meta={"progressToken": "p"})
        await client.send("POST", request, mcp_session_id=session_id)
        head = await client.head()
        assert head.status == 200 and head.headers["content-type"] == "text/event-stream"
        early = await client.events(lambda events: bool(data(events)))
        assert [m["method"] for m in data(early)] == ["notifications/progress"]
        gates.release.set()
        assert [m["id"] for m in data(await client.events())] == [9]
        assert not gates.cancelled.is_set()


async def cancel_on_another_connection(port: int, session_id: str, request_id: int) -> None:
    """POST the session's notifications/cancelled for ``request_id``; it gets 202."""
    cancel = {
        "jsonrpc": "2.0",
        "method": "notifications/cancelled",
        "params": {"requestId": request_id},
    }
    async with RawClient(port) as other:
        await other.send("POST", cancel, mcp_session_id=session_id)
        assert (await other.answer()).status == 202


async def test_a_cancelled_legacy_call_ends_its_stream_without_a_response() -> None:
    # 2025-11-25 basic/utilities/cancellation.mdx: the receiver stops the
    # request and does not answer it; its stream has nothing more to carry.
    gates = Gates()
    async with running(make_server(gates)) as port, RawClient(port) as client:
        session_id = await open_session(client)
        await client.send("POST", call("hang", {}, id=4), mcp_session_id=session_id)
        with anyio.fail_after(LIMIT):
            await gates.started.wait()
            await cancel_on_another_connection(port, session_id, 4)
            head = await client.head()
            assert head.headers["content-type"] == "text/event-stream"
            assert data(await client.events()) == []
            await gates.cancelled.wait()
        # The connection serves the next request.
        await client.send("POST", call("echo", {"text": "on"}, id=5), mcp_session_id=session_id)
        assert (await reply_of(client))["result"]["content"][0]["text"] == "on"


async def test_a_cancelled_json_only_legacy_call_closes_its_connection() -> None:
    # 2025-11-25 basic/utilities/cancellation.mdx: no response for a cancelled
    # request. A JSON-only answer carries nothing but that response, so its
    # connection ends with the request (served in the connection's own scope);
    # other connections, its session and other sessions go on.
    gates = Gates()
    config = HttpServerConfig(response_mode="json")
    async with (
        running(make_server(gates), config=config) as port,
        RawClient(port) as client,
        RawClient(port) as bystander,
    ):
        session_id = await open_session(client)
        await bystander.send("POST", call("echo", {"text": "a"}, id=2), mcp_session_id=session_id)
        assert (await reply_of(bystander))["result"]["content"][0]["text"] == "a"
        await client.send("POST", call("hang", {}, id=4), mcp_session_id=session_id)
        with anyio.fail_after(LIMIT):
            await gates.started.wait()
        await cancel_on_another_connection(port, session_id, 4)
        with anyio.fail_after(LIMIT):
            await gates.cancelled.wait()
        # Closed, and not a byte of a response first.
        assert await client.closed()
        await bystander.send("POST", call("echo", {"text": "b"}, id=5), mcp_session_id=session_id)
        assert (await reply_of(bystander))["result"]["content"][0]["text"] == "b"
        async with RawClient(port) as fresh:
            other_id = await open_session(fresh)
            await fresh.send("POST", call("echo", {"text": "c"}, id=6), mcp_session_id=other_id)
            assert (await reply_of(fresh))["result"]["content"][0]["text"] == "c"
        # The request id is free again on the session.
        await bystander.send("POST", call("echo", {"text": "d"}, id=4), mcp_session_id=session_id)
        assert (await reply_of(bystander))["result"]["content"][0]["text"] == "d"


async def test_a_client_that_stops_reading_is_cut_off_and_its_request_cancelled() -> None:
    # The writer task's write times out (HttpTimeouts.write): the connection is
    # dropped and, in this era, that cancels the handler.
    gates = Gates()
    server = make_server(gates)

    @server.tool
    async def flood(ctx: Context) -> str:
        """Send large progress messages until cancelled."""
        try:
            for step in itertools.count(1):
                await ctx.report_progress(step, None, "x" * 60_000)
                await anyio.sleep(0)
        except anyio.get_cancelled_exc_class():
            gates.cancelled.set()
            raise

    async with running(server, HttpTimeouts(write=0.2)) as port, RawClient(port) as client:
        request = call("flood", {}, id=10, _meta={**META, "progressToken": "p"})
        await client.send("POST", request, **modern_headers("tools/call", "flood"))
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


async def test_every_json_answer_head_on_a_connection_is_the_same_bytes() -> None:
    # The head is remembered after the first answer (transports/http/head_lines.py
    # `response_head`): each answer's head is still written whole, byte for byte
    # what h11 writes, and h11 keeps the connection alive for the next request.
    async with running(make_server(Gates())) as port, RawClient(port) as client:
        heads = []
        for n in range(3):
            request = call("echo", {"text": "x"}, id=n, _meta=META)
            await client.send("POST", request, **modern_headers("tools/call", "echo"))
            raw = b""
            with anyio.fail_after(LIMIT):
                while b"\r\n\r\n" not in raw:
                    raw += await client.sock.receive()
                head, _, body = raw.partition(b"\r\n\r\n")
                while len(body) < int(head.split(b"content-length: ")[1].split(b"\r\n")[0]):
                    body += await client.sock.receive()
            heads.append(head)
            client.h11.receive_data(head + b"\r\n\r\n" + body)
            assert (await client.answer()).json()["id"] == n
        expected = b"HTTP/1.1 200 \r\ncontent-length: %d\r\ncontent-type: application/json"
        assert heads == [expected % len(body)] * 3


async def test_a_slow_head_is_cut_off() -> None:
    timeouts = HttpTimeouts(head=0.05)
    async with running(make_server(Gates()), timeouts) as port, RawClient(port) as client:
        await client.sock.send(b"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\n")
        assert await client.closed()


async def test_an_idle_connection_is_closed() -> None:
    timeouts = HttpTimeouts(keep_alive=0.05)
    async with running(make_server(Gates()), timeouts) as port, RawClient(port) as client:
        assert await client.closed()


async def test_a_quiet_stream_gets_keep_alive_comments_and_then_its_events() -> None:
    # After sse_ping of quiet, a comment (2026-07-28 streamable-http.mdx suggests
    # them for long streams); the stream goes on: a change still reaches it.
    server = make_server(Gates())
    async with running(server, HttpTimeouts(sse_ping=0.05)) as port, RawClient(port) as client:
        session_id = await open_session(client, "2025-11-25")
        async with RawClient(port) as listener:
            await listener.send("GET", mcp_session_id=session_id, mcp_protocol_version="2025-11-25")
            assert (await listener.head()).status == 200
            body = b""
            while body.count(b":\n\n") < 2:
                event = await listener._event()
                assert isinstance(event, h11.Data), event
                body += bytes(event.data)

            def added() -> str:
                """A tool added while the stream waits."""
                return ""

            server.add_tool(added)
            while CHANGED not in body:
                event = await listener._event()
                assert isinstance(event, h11.Data), event
                body += bytes(event.data)


async def test_a_connection_idle_after_its_requests_is_closed() -> None:
    # Each wait for a request has its own deadline (the server's sweep of
    # HttpServer.waits): requests answered in time, then the idle wait ends it.
    timeouts = HttpTimeouts(keep_alive=0.2)
    async with running(make_server(Gates()), timeouts) as port, RawClient(port) as client:
        session_id = await open_session(client, "2025-06-18")
        for n in range(3):
            await client.send(
                "POST", call("echo", {"text": str(n)}, id=n), mcp_session_id=session_id
            )
            assert (await client.answer()).json()["id"] == n
        assert await client.closed()


async def test_a_malformed_request_gets_400_and_a_close() -> None:
    async with running(make_server(Gates())) as port, RawClient(port) as client:
        await client.sock.send(b"NOT HTTP AT ALL\r\n\r\n")
        with anyio.fail_after(LIMIT):
            raw = await client.sock.receive()
        assert raw.startswith(b"HTTP/1.1 400")
        assert await client.closed()


async def test_a_request_with_both_framings_gets_400_and_a_close() -> None:
    # RFC 9112 section 6.3: Content-Length beside Transfer-Encoding (smuggling).
    async with running(make_server(Gates())) as port, RawClient(port) as client:
        head = b"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: 5\r\n"
        await client.sock.send(head + b"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n")
        with anyio.fail_after(LIMIT):
            raw = await client.sock.receive()
        assert raw.startswith(b"HTTP/1.1 400")
        assert await client.closed()


async def test_an_event_store_factory_serves_every_session() -> None:
    # EventStore is two calls (store, replay_after): a backend of one's own fits.
    from mcp_core.http import MemoryEventStore

    made: list[MemoryEventStore] = []

    def factory() -> MemoryEventStore:
        made.append(MemoryEventStore(max_events=8))
        return made[-1]

    async with anyio.create_task_group() as tg:
        port = await tg.start(
            lambda task_status: serve_http(
                make_server(Gates()), port=0, event_store=factory, task_status=task_status
            )
        )
        async with RawClient(port) as client:
            session_id = await open_session(client)
            await client.send("POST", call("echo", {"text": "hi"}), mcp_session_id=session_id)
            await client.head()
            assert data(await client.events())[0]["id"] == 1
        tg.cancel_scope.cancel()
    (store,) = made
    assert len(store) == 2  # the priming event and the response
