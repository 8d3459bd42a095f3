"""Notifications have spans of their own, as the MCP conventions give them
(tests/spec/otel-mcp.md): kind CLIENT where a notification is sent (a server's
progress and log messages too), kind SERVER where it is received, named by its
method, the sender's context carried in ``params._meta`` and taken as the
receiver's parent. From the wire: over HTTP (both eras) and the in-memory pipe in
its JSON mode, asyncio and trio. Off, a session is left as it is and what goes on
the wire carries no trace context."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest
from http_helpers import running
from opentelemetry.sdk.trace import ReadableSpan
from otel_helpers import one_trace, parent_of, recorded
from runtime_helpers import BOTH_ERAS, ERAS

from mcp_core import Context, Server
from transports import Client, connect_in_memory
from transports.http.client import http_connector

pytestmark = pytest.mark.anyio


def _sides(record: Any, name: str) -> tuple[list[ReadableSpan], list[ReadableSpan]]:
    spans = record.named(name)
    return (
        [span for span in spans if span.kind.name == "CLIENT"],
        [span for span in spans if span.kind.name == "SERVER"],
    )


def _progress_server() -> Server:
    server = Server("notes", "1.0")

    @server.tool
    async def count(ctx: Context) -> str:
        await ctx.report_progress(1, 2)
        await ctx.log("info", "half way")
        await ctx.report_progress(2, 2)
        return "done"

    return server


@BOTH_ERAS
async def test_a_servers_progress_and_logs_are_in_the_trace_of_the_call(era: str) -> None:
    heard: list[Any] = []
    with recorded() as record, anyio.fail_after(30):
        async with running(_progress_server()) as port:
            connector = http_connector(f"http://127.0.0.1:{port}/mcp")
            async with Client(connector, revisions=ERAS[era], log_level="info") as client:
                await client.call_tool("count", {}, on_progress=heard.append)
                revision = client.revision
        spans = record.spans()
    assert len(heard) == 2
    (served,) = _sides(record, "tools/call count")[1]
    (called,) = _sides(record, "tools/call count")[0]
    session_id = (served.attributes or {}).get("mcp.session.id")
    assert (session_id is None) == (era == "modern")
    for method, count in (("notifications/progress", 2), ("notifications/message", 1)):
        sent, received = _sides(record, method)
        assert len(sent) == len(received) == count, method
        one_trace([called, served, *sent, *received])
        for span in sent:  # sent by the handler, inside the server span of its call
            assert parent_of(span, spans) is served
        for span in received:  # the client's, under the server's: from params._meta
            assert parent_of(span, spans) in sent
            assert not span.links  # no ambient context on the client's reader
        for span in (*sent, *received):
            attributes = dict(span.attributes or {})
            assert attributes["mcp.method.name"] == method
            assert attributes["network.transport"] == "tcp"
            assert attributes["mcp.protocol.version"] == revision
            assert attributes.get("mcp.session.id") == session_id
            assert "jsonrpc.request.id" not in attributes
            assert "half way" not in repr(attributes)
            assert not {"server.address", "client.address"} & set(attributes)


@BOTH_ERAS
@pytest.mark.parametrize("objects", [False, True])
async def test_a_clients_cancellation_is_a_span_on_both_sides(era: str, objects: bool) -> None:
    server = Server("notes", "1.0")
    started, stopped = anyio.Event(), anyio.Event()

    @server.tool
    async def hang() -> str:
        started.set()
        try:
            await anyio.sleep_forever()
        finally:
            stopped.set()
        return "never"

    with recorded() as record, anyio.fail_after(30):
        async with connect_in_memory(server, objects=objects, revisions=ERAS[era]) as client:
            async with anyio.create_task_group() as tg:
                tg.start_soon(client.call_tool, "hang", {})
                await started.wait()
                tg.cancel_scope.cancel()
            await stopped.wait()  # the server heard the cancellation
            revision = client.revision
        spans = record.spans()
    (sent,), (received,) = _sides(record, "notifications/cancelled")
    (called,) = _sides(record, "tools/call hang")[0]
    assert parent_of(sent, spans) is called  # sent as the caller's request span ends
    assert parent_of(received, spans) is sent
    for span in (sent, received):
        attributes = dict(span.attributes or {})
        assert attributes["mcp.method.name"] == "notifications/cancelled"
        assert attributes["mcp.protocol.version"] == revision
        assert "network.transport" not in attributes  # in memory: none


async def test_a_clients_initialized_and_roots_changed_over_http() -> None:
    # Client-to-server notifications of the handshake era (2026-07-28 has none
    # over HTTP): the server's span says who sent it, client.address and port.
    with recorded() as record, anyio.fail_after(30):
        async with running(_progress_server()) as port:
            connector = http_connector(f"http://127.0.0.1:{port}/mcp")
            async with Client(connector, revisions=ERAS["legacy"], roots=[]) as client:
                await client.set_roots([])  # notifications/roots/list_changed
                await client.list_tools()  # answered after the notification was taken
        spans = record.spans()
    for method in ("notifications/initialized", "notifications/roots/list_changed"):
        (sent,), (received,) = _sides(record, method)
        assert parent_of(received, spans) is sent
        attributes = dict(received.attributes or {})
        assert attributes["client.address"] == "127.0.0.1"
        assert isinstance(attributes["client.port"], int)
        assert attributes["client.port"] != port
        assert attributes["mcp.session.id"] == sent.attributes["mcp.session.id"]  # type: ignore[index]
        client_side = dict(sent.attributes or {})
        assert (client_side["server.address"], client_side["server.port"]) == ("127.0.0.1", port)


async def test_resources_updated_carries_its_uri() -> None:
    server = Server("notes", "1.0", subscribe=True)

    @server.resource("memo://today")
    def today() -> str:
        return "nothing"

    with recorded() as record, anyio.fail_after(30):
        async with connect_in_memory(server, revisions=ERAS["legacy"]) as client:
            await client.subscribe("memo://today")
            server.resource_updated("memo://today")
            await client.read_resource("memo://today")  # after the notification
        spans = record.spans()
    (sent,), (received,) = _sides(record, "notifications/resources/updated")
    assert parent_of(received, spans) is sent
    for span in (sent, received):
        assert span.attributes["mcp.resource.uri"] == "memo://today"  # type: ignore[index]


@BOTH_ERAS
async def test_off_a_session_is_left_alone_and_sends_no_trace_context(era: str) -> None:
    wire: list[bytes] = []
    heard: list[Any] = []
    async with connect_in_memory(_progress_server(), revisions=ERAS[era]) as client:
        session = client.session
        # Nothing wraps the session: its methods are its class's.
        assert not {"messages_to_send", "receive_message"} & set(vars(session))
        receive_bytes = session.receive_bytes

        def seen(data: bytes, now: float = 0.0) -> Any:
            wire.append(data)
            return receive_bytes(data, now)

        session.receive_bytes = seen  # type: ignore[method-assign]
        with anyio.fail_after(30):
            await client.call_tool("count", {}, on_progress=heard.append)
    notes = [json.loads(data) for data in wire if b'"id"' not in data]
    assert [note["method"] for note in notes].count("notifications/progress") == 2
    assert all("traceparent" not in json.dumps(note) for note in notes)
    assert len(heard) == 2


async def test_a_managers_message_trace_on_and_off_leaves_the_spans() -> None:
    # transports/manager/tracing.py wraps the same session methods, on top of
    # telemetry's; switched off, it puts telemetry's back.
    from transports.manager.tracing import install, uninstall

    traced: list[str] = []
    heard: list[Any] = []
    with recorded() as record, anyio.fail_after(30):
        async with connect_in_memory(_progress_server(), revisions=ERAS["legacy"]) as client:
            install(client.session, lambda direction, message: traced.append(direction))
            await client.call_tool("count", {}, on_progress=heard.append)
            uninstall(client.session)
            assert {"messages_to_send", "receive_message"} <= set(vars(client.session))
            await client.call_tool("count", {}, on_progress=heard.append)
    assert len(heard) == 4 and traced.count("received") >= 3
    sent, received = _sides(record, "notifications/progress")
    assert len(sent) == len(received) == 4


async def test_a_session_made_while_on_stops_when_uninstrumented() -> None:
    from transports.otel import uninstrument

    heard: list[Any] = []
    with recorded() as record, anyio.fail_after(30):
        async with connect_in_memory(_progress_server(), revisions=ERAS["legacy"]) as client:
            await client.call_tool("count", {}, on_progress=heard.append)
            uninstrument()
            await client.call_tool("count", {}, on_progress=heard.append)
    assert len(heard) == 4
    sent, received = _sides(record, "notifications/progress")
    assert len(sent) == len(received) == 2  # the first call's only
