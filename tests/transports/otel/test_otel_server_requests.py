"""Requests the server sends its client (handshake era: sampling, elicitation,
roots) have the spans a client's request has, roles swapped, as the MCP
conventions give them (tests/spec/otel-mcp.md: the client span "by the MCP
server when server initiates the operation", the server span "by the MCP client
when server initiates the operation"): kind CLIENT on the server, under the
server span of the tool call that asked, its context in the request's
``params._meta``; kind SERVER on the client, its parent taken from there, the
callback's own spans under it. The sender records ``mcp.client.operation.duration``,
the receiver ``mcp.server.operation.duration``. From the wire: the in-memory pipe
in its JSON mode and the h11 server, asyncio and trio. In 2026-07-28 the asks are
part of the tool call's result (multi round-trip), not requests: no span of their
own. Off, nothing carries trace context."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest
from http_helpers import running
from opentelemetry.sdk.trace import ReadableSpan
from otel_helpers import Recorded, one_trace, parent_of, recorded
from runtime_helpers import ERAS, MODERN

from mcp_core import Context, McpError, Server
from transports import Client, connect_in_memory
from transports.http.client import http_connector
from transports.server_connection import ObservedPeer, RequestPeer

pytestmark = pytest.mark.anyio

SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}}}
HANDSHAKE = ("2025-11-25",)


def _asking_server(peers: list[Any] | None = None) -> Server:
    server = Server("asking", "1.0")

    @server.tool
    async def ask(ctx: Context) -> str:
        if peers is not None:
            peers.append(ctx.peer)
        sampled = await ctx.sample("a secret question", max_tokens=10)
        elicited = await ctx.elicit("your name?", SCHEMA)
        roots = await ctx.list_roots()
        return f"{sampled.content.text} {elicited.action} {len(roots.roots)}"  # type: ignore[union-attr]

    return server


def _callbacks(record: Recorded | None) -> dict[str, Any]:
    async def sampling(params: Any) -> dict[str, Any]:
        if record is not None:  # the callback's own span
            with record.tracer_provider.get_tracer("app").start_as_current_span("model"):
                pass
        return {"role": "assistant", "content": {"type": "text", "text": "hi"}, "model": "m"}

    async def elicitation(params: Any) -> dict[str, Any]:
        return {"action": "accept", "content": {"name": "Ada"}}

    async def roots() -> list[dict[str, Any]]:
        return [{"uri": "file:///work", "name": "work"}]

    return {"sampling": sampling, "elicitation": elicitation, "roots": roots}


@asynccontextmanager
async def _client(way: str, server: Server, **options: Any) -> AsyncIterator[Client]:
    if way == "memory":
        async with connect_in_memory(server, revisions=HANDSHAKE, **options) as client:
            yield client
        return
    async with running(server) as port:
        connector = http_connector(f"http://127.0.0.1:{port}/mcp")
        async with Client(connector, revisions=HANDSHAKE, **options) as client:
            yield client


def _wire(client: Client) -> list[dict[str, Any]]:
    # What reaches the client's session, as JSON (the in-memory pipe's bytes).
    seen: list[dict[str, Any]] = []
    session = client.session
    receive_bytes = session.receive_bytes

    def spy(data: bytes, now: float = 0.0) -> Any:
        seen.append(json.loads(data))
        return receive_bytes(data, now)

    session.receive_bytes = spy  # type: ignore[method-assign]
    return seen


def _side(record: Recorded, name: str, kind: str) -> ReadableSpan:
    (span,) = [span for span in record.named(name) if span.kind.name == kind]
    return span


@pytest.mark.parametrize("way", ["memory", "http"])
async def test_a_tools_sampling_and_elicitation_are_in_the_trace_of_its_call(way: str) -> None:
    with recorded() as record, anyio.fail_after(30):
        async with _client(way, _asking_server(), **_callbacks(record)) as client:
            wire = _wire(client) if way == "memory" else []
            result = await client.call_tool("ask", {})
        spans = record.spans()
        metrics = record.metrics()
    assert result.content[0].text == "hi accept 1"  # type: ignore[union-attr]
    called = _side(record, "tools/call ask", "CLIENT")
    served = _side(record, "tools/call ask", "SERVER")
    (model,) = record.named("model")
    chain: list[ReadableSpan] = [called, served]
    for method in ("sampling/createMessage", "elicitation/create", "roots/list"):
        asked = _side(record, method, "CLIENT")  # the server's
        answered = _side(record, method, "SERVER")  # the client's
        assert parent_of(asked, spans) is served  # the handler's context
        assert parent_of(answered, spans) is asked  # from params._meta
        chain += [asked, answered]
        sender, receiver = dict(asked.attributes or {}), dict(answered.attributes or {})
        for attributes in (sender, receiver):
            assert attributes["mcp.method.name"] == method
            assert attributes["mcp.protocol.version"] == "2025-11-25"
            assert "error.type" not in attributes
            assert "secret" not in repr(attributes)
            assert "server.address" not in attributes
        assert sender["jsonrpc.request.id"] == receiver["jsonrpc.request.id"]
        if way == "http":
            session_id = served.attributes["mcp.session.id"]  # type: ignore[index]
            assert sender["mcp.session.id"] == receiver["mcp.session.id"] == session_id
            assert sender["network.transport"] == receiver["network.transport"] == "tcp"
        else:
            assert not {"mcp.session.id", "network.transport"} & (set(sender) | set(receiver))
            # On the wire: the request carries the server span's context.
            (request,) = [m for m in wire if m.get("method") == method]
            traceparent = request["params"]["_meta"]["traceparent"]  # roots/list: params of its own
            assert f"{asked.context.span_id:016x}" in traceparent
    assert parent_of(model, spans) is _side(record, "sampling/createMessage", "SERVER")
    one_trace([*chain, model])
    for metric, method in (
        ("mcp.client.operation.duration", "sampling/createMessage"),
        ("mcp.server.operation.duration", "elicitation/create"),
    ):
        (point,) = [p for p in metrics[metric] if p.attributes["mcp.method.name"] == method]
        assert point.count == 1
        assert "jsonrpc.request.id" not in point.attributes
        assert point.attributes.get("network.transport") == ("tcp" if way == "http" else None)


@pytest.mark.parametrize("way", ["memory", "http"])
async def test_an_error_answer_sets_error_type_on_both_sides(way: str) -> None:
    server = Server("refused", "1.0")

    @server.tool
    async def ask(ctx: Context) -> str:
        try:
            await ctx.sample("a secret question", max_tokens=10)
        except McpError as exc:
            return f"refused {exc.code}"
        return "sampled"

    async def sampling(params: Any) -> Any:
        raise McpError(-1, "the user said no to a secret question")

    with recorded() as record, anyio.fail_after(30):
        async with _client(way, server, sampling=sampling) as client:
            result = await client.call_tool("ask", {})
        metrics = record.metrics()
    assert result.content[0].text == "refused -1"  # type: ignore[union-attr]
    for kind in ("CLIENT", "SERVER"):
        span = _side(record, "sampling/createMessage", kind)
        attributes = dict(span.attributes or {})
        assert attributes["error.type"] == attributes["rpc.response.status_code"] == "-1"
        assert span.status.status_code.name == "ERROR"
        assert not span.status.description  # an error's message may repeat an argument
        assert "secret" not in repr(attributes)
    for metric in ("mcp.client.operation.duration", "mcp.server.operation.duration"):
        (point,) = [
            p
            for p in metrics[metric]
            if p.attributes["mcp.method.name"] == "sampling/createMessage"
        ]
        assert point.attributes["error.type"] == "-1"
    served = _side(record, "tools/call ask", "SERVER")
    assert "error.type" not in (served.attributes or {})  # the tool handled it


async def test_a_cancelled_call_ends_the_servers_ask_as_cancelled() -> None:
    server = Server("hanging", "1.0")
    asked, stopped = anyio.Event(), anyio.Event()

    @server.tool
    async def ask(ctx: Context) -> str:
        try:
            await ctx.sample("question", max_tokens=10)
        finally:
            stopped.set()
        return "never"

    async def sampling(params: Any) -> Any:
        asked.set()
        await anyio.sleep_forever()

    with recorded() as record, anyio.fail_after(30):
        async with connect_in_memory(server, revisions=HANDSHAKE, sampling=sampling) as client:
            async with anyio.create_task_group() as tg:
                tg.start_soon(client.call_tool, "ask", {})
                await asked.wait()
                tg.cancel_scope.cancel()
            await stopped.wait()  # the server heard the cancellation
        # The client closed: its callback, still running, was cancelled too.
    for kind in ("CLIENT", "SERVER"):
        span = _side(record, "sampling/createMessage", kind)
        assert span.attributes["error.type"] == "cancelled"  # type: ignore[index]


async def test_in_2026_07_28_the_asks_ride_in_the_result_and_have_no_span() -> None:
    # 2026-07-28 basic/patterns/mrtr.mdx: the server's asks are input requests in
    # an InputRequiredResult, not JSON-RPC requests; the conventions give spans to
    # requests and notifications, so the two rounds of the call are what is seen.
    with recorded() as record, anyio.fail_after(30):
        async with connect_in_memory(
            _asking_server(), revisions=(MODERN,), **_callbacks(record)
        ) as client:
            result = await client.call_tool("ask", {})
        spans = record.spans()
    assert result.content[0].text == "hi accept 1"  # type: ignore[union-attr]
    assert not record.named("sampling/createMessage")
    assert not record.named("elicitation/create")
    called = [s for s in record.named("tools/call ask") if s.kind.name == "CLIENT"]
    served = [s for s in record.named("tools/call ask") if s.kind.name == "SERVER"]
    assert len(called) == len(served) == 4  # sampling, elicitation, roots, then done
    for span in served:
        assert parent_of(span, spans) in called
    (model,) = record.named("model")
    assert model.parent is None  # between rounds: in no MCP span


@pytest.mark.parametrize("way", ["memory", "http"])
async def test_off_no_peer_is_wrapped_and_no_trace_context_is_sent(way: str) -> None:
    peers: list[Any] = []
    with anyio.fail_after(30):
        async with _client(way, _asking_server(peers), **_callbacks(None)) as client:
            wire = _wire(client) if way == "memory" else []
            result = await client.call_tool("ask", {})
    assert result.content[0].text == "hi accept 1"  # type: ignore[union-attr]
    assert [type(peer) for peer in peers] == [RequestPeer]
    if way == "memory":
        methods = ("sampling/createMessage", "elicitation/create", "roots/list")
        asks = [message for message in wire if message.get("method") in methods]
        assert len(asks) == 3
        assert all("traceparent" not in json.dumps(message) for message in asks)


async def test_on_a_peer_is_observed() -> None:
    peers: list[Any] = []
    with recorded(), anyio.fail_after(30):
        async with connect_in_memory(
            _asking_server(peers), revisions=ERAS["legacy"], **_callbacks(None)
        ) as client:
            await client.call_tool("ask", {})
    assert [type(peer) for peer in peers] == [ObservedPeer]


@pytest.mark.parametrize("way", ["memory", "http"])
async def test_a_ping_either_way_has_its_pair_of_spans(way: str) -> None:
    # A session answers ping itself (2025-11-25 basic/utilities/ping.mdx): the
    # receiver's span is made where the session takes it, with its duration.
    # Our Context has no ping of its own: the handler sends one through its peer.
    server = Server("pinging", "1.0")

    @server.tool
    async def knock(ctx: Context) -> str:
        await ctx.peer.request("ping", None)
        return "there"

    with recorded() as record, anyio.fail_after(30):
        async with _client(way, server) as client:
            await client.ping()  # client to server
            await client.call_tool("knock", {})  # server to client
        spans = record.spans()
        metrics = record.metrics()
    pings = record.named("ping")
    sent = sorted((s for s in pings if s.kind.name == "CLIENT"), key=lambda s: s.start_time)
    heard = [s for s in pings if s.kind.name == "SERVER"]
    assert len(sent) == len(heard) == 2
    served = _side(record, "tools/call knock", "SERVER")
    assert sent[0].parent is None  # the client's, from no span
    assert parent_of(sent[1], spans) is served  # the server's, from the handler
    for span in sent:
        (receiver,) = [s for s in heard if parent_of(s, spans) is span]
        assert receiver.attributes["jsonrpc.request.id"] == span.attributes["jsonrpc.request.id"]  # type: ignore[index]
        assert receiver.attributes["mcp.protocol.version"] == "2025-11-25"  # type: ignore[index]
    points = [
        p
        for p in metrics["mcp.server.operation.duration"]
        if p.attributes["mcp.method.name"] == "ping"
    ]
    assert sum(p.count for p in points) == 2
    assert {p.attributes.get("network.transport") for p in points} == {
        "tcp" if way == "http" else None
    }
