"""Spans and metrics of the MCP conventions over the in-memory pipe, both eras.

A `Client` call makes a CLIENT span, whose context rides in the request's
``params._meta``; the server makes a SERVER span, its child, under which the
handler's own span nests; the four duration metrics are recorded. No argument
value reaches a span or a metric.
"""

from __future__ import annotations

from typing import Any

import pytest
from otel_helpers import one_trace, parent_of, recorded

from mcp_core import Context, McpError, Server
from mcp_core.types import LEGACY_REVISIONS
from transports import connect_in_memory

pytestmark = pytest.mark.anyio

ERAS = {"legacy": LEGACY_REVISIONS, "modern": ("2026-07-28",)}
SECRET = "s3cret-argument"


def make_server(seen: list[dict[str, Any]]) -> Server:
    server = Server("observed", "1.0")

    @server.tool
    async def echo(text: str, ctx: Context) -> str:
        """Say it back, keeping the request's _meta."""
        seen.append(dict(ctx.request.params.meta or {}))
        return text

    @server.tool
    def broken(text: str) -> str:
        """Fails with an MCP error."""
        raise McpError(-32001, f"no {text}")

    @server.tool
    def failing(text: str) -> dict[str, Any]:
        """A tool error in the result."""
        raise ValueError(text)

    return server


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_one_call_is_one_trace_client_server_handler(era: str) -> None:
    seen: list[dict[str, Any]] = []
    with recorded() as record:
        async with connect_in_memory(make_server(seen), revisions=ERAS[era]) as client:
            await client.call_tool("echo", {"text": SECRET})
        spans = record.spans()
        (client_span,) = [s for s in record.named("tools/call echo") if s.kind.name == "CLIENT"]
        (server_span,) = [s for s in record.named("tools/call echo") if s.kind.name == "SERVER"]
    assert parent_of(server_span, spans) is client_span
    one_trace([client_span, server_span])
    # the request carried the client span's context in its _meta
    (meta,) = seen
    trace_id = f"{client_span.context.trace_id:032x}"
    assert meta["traceparent"].split("-")[1] == trace_id
    for span in (client_span, server_span):
        attributes = dict(span.attributes or {})
        assert attributes["mcp.method.name"] == "tools/call"
        assert attributes["gen_ai.tool.name"] == "echo"
        assert attributes["gen_ai.operation.name"] == "execute_tool"
        assert attributes["mcp.protocol.version"] == ERAS[era][-1]
        assert "jsonrpc.request.id" in attributes
        assert "error.type" not in attributes
        assert SECRET not in repr(attributes)


async def test_handler_spans_nest_under_the_server_span_async_and_plain() -> None:
    with recorded() as record:
        tracer = record.tracer_provider.get_tracer("handler")
        server = Server("nested", "1.0")

        @server.tool
        async def inside(ctx: Context) -> str:
            with tracer.start_as_current_span("async work"):
                return "ok"

        @server.tool
        def plain() -> str:
            with tracer.start_as_current_span("thread work"):
                return "ok"

        async with connect_in_memory(server) as client:
            await client.call_tool("inside")
            await client.call_tool("plain")
        spans = record.spans()
        for tool, work in (("inside", "async work"), ("plain", "thread work")):
            (server_span,) = [
                s for s in record.named(f"tools/call {tool}") if s.kind.name == "SERVER"
            ]
            (work_span,) = record.named(work)
            assert parent_of(work_span, spans) is server_span


async def test_errors_are_codes_never_messages() -> None:
    with recorded() as record:
        async with connect_in_memory(make_server([])) as client:
            with pytest.raises(McpError):
                await client.call_tool("broken", {"text": SECRET})
            result = await client.call_tool("failing", {"text": SECRET})
            assert result.is_error
        for span in record.named("tools/call broken"):
            assert span.status.status_code.name == "ERROR"
            assert span.attributes["error.type"] == "-32001"  # type: ignore[index]
            assert span.attributes["rpc.response.status_code"] == "-32001"  # type: ignore[index]
        for span in record.named("tools/call failing"):
            assert span.attributes["error.type"] == "tool_error"  # type: ignore[index]
        assert len(record.named("tools/call broken")) == 2
        for span in record.spans():
            assert SECRET not in repr(dict(span.attributes or {}))
            assert SECRET not in (span.status.description or "")
            assert not span.events


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_the_four_duration_metrics(era: str) -> None:
    with recorded() as record:
        async with connect_in_memory(make_server([]), revisions=ERAS[era]) as client:
            await client.call_tool("echo", {"text": SECRET})
            await client.list_tools()
        metrics = record.metrics()
    for name in ("mcp.server.operation.duration", "mcp.client.operation.duration"):
        methods = {point.attributes["mcp.method.name"] for point in metrics[name]}
        assert {"tools/call", "tools/list"} <= methods, (name, methods)
        for point in metrics[name]:
            assert point.count >= 1
            assert SECRET not in repr(dict(point.attributes))
            assert "jsonrpc.request.id" not in point.attributes
    assert sum(p.count for p in metrics["mcp.client.session.duration"]) == 1
    if era == "legacy":  # a 2026-07-28 pipe has a connection, not a session
        assert sum(p.count for p in metrics["mcp.server.session.duration"]) == 1


async def test_off_means_nothing_is_recorded() -> None:
    with recorded() as record:
        pass
    async with connect_in_memory(make_server([])) as client:
        await client.call_tool("echo", {"text": "hi"})
    assert record.spans() == []
