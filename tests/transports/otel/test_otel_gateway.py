"""One trace from a client through `gateway_server` to an upstream tool over HTTP.

Client --HTTP--> gateway (served by serve_http) --HTTP--> upstream (serve_http),
all in this process so that one in-memory exporter sees every span: the client's
span, the gateway's server span, the gateway's client span to the upstream, the
upstream's server span and the tool's own span are one trace, each the parent of
the next. Both eras downstream and upstream; asyncio and trio.
"""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from http_helpers import running
from otel_helpers import one_trace, parent_of, recorded

from mcp_core import Context, Server
from mcp_core.manager import ServerConfig
from transports import Client
from transports.http.client import http_connector
from transports.manager import Manager, gateway_server

pytestmark = pytest.mark.anyio

ERAS = pytest.mark.parametrize("era", ["2026-07-28", "2025-11-25"])


@ERAS
@pytest.mark.parametrize("upstream_era", ["2026-07-28", "2025-11-25"])
async def test_one_trace_through_the_gateway_over_http(era: str, upstream_era: str) -> None:
    with recorded() as record, anyio.fail_after(30):
        tracer = record.tracer_provider.get_tracer("upstream tool")
        upstream = Server("weather", "1.0")

        @upstream.tool
        async def forecast(city: str) -> str:
            with tracer.start_as_current_span("forecast work"):
                return f"sun in {city}"

        async with running(upstream) as upstream_port:
            config = ServerConfig(name="weather", url=f"http://127.0.0.1:{upstream_port}/mcp")
            options = {"revisions": (upstream_era,)}
            async with Manager([config], client_options=options) as manager:
                await manager.wait_ready(timeout=20)
                async with running(gateway_server(manager)) as gateway_port:
                    url = f"http://127.0.0.1:{gateway_port}/mcp"
                    async with Client(http_connector(url), revisions=(era,)) as client:
                        result = await client.call_tool("weather.forecast", {"city": "Oslo"})
                links = record.metrics()["mcp_core.manager.links"]
        assert result.content[0].text == "sun in Oslo"  # type: ignore[union-attr]
        spans = record.spans()
    assert [(p.attributes["state"], p.value) for p in links] == [("connected", 1)]
    (work,) = record.named("forecast work")
    upstream_server = parent_of(work, spans)
    assert (upstream_server.name, upstream_server.kind.name) == ("tools/call forecast", "SERVER")
    gateway_client = parent_of(upstream_server, spans)
    assert (gateway_client.name, gateway_client.kind.name) == ("tools/call forecast", "CLIENT")
    gateway_server_span = parent_of(gateway_client, spans)
    assert gateway_server_span.name == "tools/call weather.forecast"
    assert gateway_server_span.kind.name == "SERVER"
    first = parent_of(gateway_server_span, spans)
    assert (first.name, first.kind.name) == ("tools/call weather.forecast", "CLIENT")
    assert first.parent is None
    one_trace([first, gateway_server_span, gateway_client, upstream_server, work])
    for span, version in ((gateway_server_span, era), (upstream_server, upstream_era)):
        attributes = dict(span.attributes or {})
        assert attributes["network.transport"] == "tcp"
        assert attributes["mcp.protocol.version"] == version
        assert ("mcp.session.id" in attributes) == (version != "2026-07-28")
        assert "Oslo" not in repr(attributes)


async def test_an_upstreams_sampling_relayed_by_the_gateway_stays_in_the_trace() -> None:
    # Handshake era on both sides, over HTTP: the upstream's tool samples; the
    # gateway's link answers by asking its own client (transports/manager/gateway.py
    # relays it). Each hop is a CLIENT span and a SERVER span, the next under it.
    with recorded() as record, anyio.fail_after(30):
        upstream = Server("writer", "1.0")

        @upstream.tool
        async def draft(ctx: Context) -> str:
            answer = await ctx.sample("a secret topic", max_tokens=10)
            return answer.content.text  # type: ignore[union-attr,no-any-return]

        async def sampling(params: Any) -> dict[str, Any]:
            with record.tracer_provider.get_tracer("app").start_as_current_span("model"):
                reply = {"type": "text", "text": "a draft"}
                return {"role": "assistant", "content": reply, "model": "m"}

        async with running(upstream) as upstream_port:
            config = ServerConfig(name="writer", url=f"http://127.0.0.1:{upstream_port}/mcp")
            manager = Manager([config], client_options={"revisions": ("2025-11-25",)})
            gateway = gateway_server(manager)  # before connecting: the upstream sees sampling
            async with manager:
                await manager.wait_ready(timeout=20)
                async with running(gateway) as gateway_port:
                    url = f"http://127.0.0.1:{gateway_port}/mcp"
                    async with Client(
                        http_connector(url), revisions=("2025-11-25",), sampling=sampling
                    ) as client:
                        result = await client.call_tool("writer.draft", {})
        assert result.content[0].text == "a draft"  # type: ignore[union-attr]
        spans = record.spans()
    (model,) = record.named("model")
    chain = [model]
    while chain[-1].parent is not None:
        chain.append(parent_of(chain[-1], spans))
    assert [(span.kind.name, span.name) for span in reversed(chain)] == [
        ("CLIENT", "tools/call writer.draft"),  # our client
        ("SERVER", "tools/call writer.draft"),  # the gateway
        ("CLIENT", "tools/call draft"),  # the gateway's link
        ("SERVER", "tools/call draft"),  # the upstream
        ("CLIENT", "sampling/createMessage"),  # the upstream's tool asks
        ("SERVER", "sampling/createMessage"),  # the gateway's link hears it
        ("CLIENT", "sampling/createMessage"),  # the gateway asks our client
        ("SERVER", "sampling/createMessage"),  # our client answers
        ("INTERNAL", "model"),
    ]
    one_trace(chain)
