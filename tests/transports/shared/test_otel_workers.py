"""A handshake-era session opened on one worker and called on another, sharing
their state on Redis, stays in the caller's trace.

Two workers (two `Server`s sharing one real redis-server, each on `serve_http`, in
this process so one in-memory exporter sees both): the session opens on worker A;
its ``tools/call``, carrying the caller's trace context in ``params._meta``, goes
to worker B, which takes the session up and serves it there. The server span on B
is the child of the caller's span, carries the session's id, and the handler's
own span nests under it. asyncio and trio.
"""

from __future__ import annotations

import secrets
from typing import Any

import anyio
import pytest
from http_helpers import RawClient, call, open_session, reply_of, running
from otel_helpers import one_trace, parent_of, recorded
from redis_helpers import RedisProcess

from mcp_core import Server

pytestmark = pytest.mark.anyio

KEY = bytes(range(32)) * 2


def worker(redis_url: str, prefix: str, tracer: Any, served: list[str]) -> Server:
    from transports.redis import share_on_redis

    server = Server("worker", "1.0")

    @server.tool
    async def where(name: str) -> str:
        with tracer.start_as_current_span("tool work"):
            return served[-1]

    share_on_redis(server, redis_url, prefix=prefix, state_keys=[KEY])
    return server


async def test_a_session_called_on_another_worker_is_one_trace(
    redis_server: RedisProcess,
) -> None:
    from opentelemetry import propagate

    with recorded() as record, anyio.fail_after(30):
        tracer = record.tracer_provider.get_tracer("test")
        prefix = f"otel-{secrets.token_hex(4)}:"
        a = worker(redis_server.url, prefix, tracer, ["a"])
        b = worker(redis_server.url, prefix, tracer, ["b"])
        async with running(a) as port_a, running(b) as port_b:
            async with RawClient(port_a) as first:
                session_id = await open_session(first)
            with tracer.start_as_current_span("caller") as caller:
                meta: dict[str, str] = {}
                propagate.inject(meta)
                async with RawClient(port_b) as second:
                    await second.send(
                        "POST",
                        call("where", {"name": "x"}, id=7, _meta=meta),
                        mcp_session_id=session_id,
                        mcp_protocol_version="2025-11-25",
                    )
                    reply = await reply_of(second)
            round_trips = record.metrics()["mcp_core.redis.round_trips"]
        assert reply["result"]["content"][0]["text"] == "b"
        spans = record.spans()
    (served,) = [s for s in record.named("tools/call where") if s.kind.name == "SERVER"]
    (work,) = record.named("tool work")
    assert parent_of(work, spans) is served
    assert parent_of(served, spans).context.span_id == caller.get_span_context().span_id
    one_trace([served, work])
    assert served.context.trace_id == caller.get_span_context().trace_id
    attributes = dict(served.attributes or {})
    assert attributes["mcp.session.id"] == session_id
    assert attributes["jsonrpc.request.id"] == "7"
    assert attributes["mcp.protocol.version"] == "2025-11-25"
    assert sum(p.value for p in round_trips if p.attributes["outcome"] == "ok") > 0
    assert all(p.value == 0 for p in round_trips if p.attributes["outcome"] == "failed")
