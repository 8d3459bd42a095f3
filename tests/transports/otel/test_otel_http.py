"""Over HTTP, every way a client reaches the h11 server (streamable HTTP of each
era, and the HTTP+SSE transport of 2024-11-05), a call is one trace of a client
span and its server span, with the conventions' attributes. asyncio and trio; the
ASGI app under uvicorn (asyncio) makes the same spans."""

from __future__ import annotations

import anyio
import pytest
from http_helpers import running
from otel_helpers import parent_of, recorded

from mcp_core import Server
from mcp_core.http.client_config import Transport
from transports import Client
from transports.http.client import http_connector

pytestmark = pytest.mark.anyio

WAYS: dict[str, tuple[Transport, tuple[str, ...]]] = {
    "2026-07-28": ("streamable", ("2026-07-28",)),
    "2025-11-25": ("streamable", ("2025-11-25",)),
    "2024-11-05 http+sse": ("sse", ("2024-11-05",)),
}


@pytest.mark.parametrize("way", list(WAYS))
async def test_a_call_over_http_is_one_trace(way: str) -> None:
    transport, revisions = WAYS[way]
    server = Server("http", "1.0")

    @server.tool
    async def echo(text: str) -> str:
        return text

    with recorded() as record, anyio.fail_after(30):
        async with running(server) as port:
            url = f"http://127.0.0.1:{port}/{'sse' if transport == 'sse' else 'mcp'}"
            connector = http_connector(url, transport=transport)
            async with Client(connector, revisions=revisions) as client:
                await client.call_tool("echo", {"text": "private words"})
        spans = record.spans()
    (served,) = [s for s in record.named("tools/call echo") if s.kind.name == "SERVER"]
    (called,) = [s for s in record.named("tools/call echo") if s.kind.name == "CLIENT"]
    assert parent_of(served, spans) is called
    attributes = dict(served.attributes or {})
    assert attributes["network.transport"] == "tcp"
    assert attributes["mcp.protocol.version"] == revisions[-1]
    assert ("mcp.session.id" in attributes) == (revisions[-1] != "2026-07-28")
    assert "private words" not in repr(attributes)
    # Where the POST came from (HTTP+SSE too: its handler task inherits it).
    assert attributes["client.address"] == "127.0.0.1"
    assert isinstance(attributes["client.port"], int) and attributes["client.port"] != port
    # The client's side: where it talks to, and the same session (streamable
    # HTTP of the handshake era: the HTTP+SSE session's id is in its POST URL).
    client = dict(called.attributes or {})
    assert (client["server.address"], client["server.port"]) == ("127.0.0.1", port)
    assert client["network.transport"] == "tcp"
    assert client["mcp.protocol.version"] == revisions[-1]
    assert client.get("mcp.session.id") == (
        attributes["mcp.session.id"] if way == "2025-11-25" else None
    )
    assert "private words" not in repr(client)
    (durations,) = [
        point
        for point in record.metrics()["mcp.client.operation.duration"]
        if point.attributes["mcp.method.name"] == "tools/call"
    ]
    assert durations.attributes["network.transport"] == "tcp"
    assert "server.address" not in durations.attributes  # not a metric's attribute


@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_the_asgi_app_under_uvicorn_makes_the_same_spans(anyio_backend: str) -> None:
    from asgi_helpers import starlette_app, uvicorn_serving

    from transports.http.asgi import asgi_app

    server = Server("asgi", "1.0")

    @server.tool
    async def echo(text: str) -> str:
        return text

    with recorded() as record, anyio.fail_after(30):
        async with uvicorn_serving(starlette_app(asgi_app(server))) as port:
            url = f"http://127.0.0.1:{port}/api/mcp"
            for revisions in (("2026-07-28",), ("2025-11-25",)):
                async with Client(http_connector(url), revisions=revisions) as client:
                    await client.call_tool("echo", {"text": "x"})
        spans = record.spans()
    served = [s for s in record.named("tools/call echo") if s.kind.name == "SERVER"]
    assert [s.attributes["mcp.protocol.version"] for s in served] == [  # type: ignore[index]
        "2026-07-28",
        "2025-11-25",
    ]
    for span in served:
        assert parent_of(span, spans).kind.name == "CLIENT"
        assert span.attributes["network.transport"] == "tcp"  # type: ignore[index]
