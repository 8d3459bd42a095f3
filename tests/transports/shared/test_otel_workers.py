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
from http_helpers import (
    RawClient,
    call,
    data,
    has_response,
    initialize,
    open_session,
    reply_of,
    running,
)
from limits import HANG
from otel_helpers import one_trace, parent_of, recorded
from redis_helpers import RedisProcess

from mcp_core import Context, Server

pytestmark = pytest.mark.anyio

KEY = bytes(range(32)) * 2


def worker(redis_url: str, prefix: str, tracer: Any, served: list[str]) -> Server:
    from transports.redis import share_on_redis

    server = Server("worker", "1.0")

    @server.tool
    async def where(name: str) -> str:
        with tracer.start_as_current_span("tool work"):
            return served[-1]

    # Redis's answers (and its SUBSCRIBE confirmations) get the suite's bound, not
    # the 2 s default: a loaded machine must not turn a slow answer into a lost one.
    share_on_redis(server, redis_url, prefix=prefix, state_keys=[KEY], timeout=HANG)
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


async def test_a_sampling_answered_through_another_worker_ends_its_span(
    redis_server: RedisProcess,
) -> None:
    # The tool on worker B samples its client; the client posts the answer to
    # worker A, which routes it to B through Redis. B's CLIENT span of the
    # request, under the call's server span, ends with that answer.
    with recorded() as record, anyio.fail_after(30):
        prefix = f"otel-{secrets.token_hex(4)}:"
        servers = []
        for _ in range(2):
            server = worker(redis_server.url, prefix, record.tracer_provider.get_tracer("t"), [])

            @server.tool
            async def ask(ctx: Context) -> str:
                answer = await ctx.sample("a secret question", max_tokens=10)
                return answer.content.text  # type: ignore[union-attr,no-any-return]

            servers.append(server)
        async with running(servers[0]) as port_a, running(servers[1]) as port_b:
            async with RawClient(port_a) as first:
                opening = initialize()
                opening["params"]["capabilities"] = {"sampling": {}}
                await first.send("POST", opening)
                session_id = (await first.answer()).headers["mcp-session-id"]
                headers = {"mcp_session_id": session_id, "mcp_protocol_version": "2025-11-25"}
                initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
                await first.send("POST", initialized, **headers)
                assert (await first.answer()).status == 202
            async with RawClient(port_b) as second:
                await second.send("POST", call("ask", {}, id=7), **headers)
                assert (await second.head()).headers["content-type"] == "text/event-stream"
                asked = data(await second.events(lambda got: any(e.data for e in got)))[-1]
                assert asked["method"] == "sampling/createMessage"
                answer = {
                    "jsonrpc": "2.0",
                    "id": asked["id"],
                    "result": {
                        "role": "assistant",
                        "content": {"type": "text", "text": "from A"},
                        "model": "m",
                    },
                }
                async with RawClient(port_a) as elsewhere:
                    await elsewhere.send("POST", answer, **headers)
                    assert (await elsewhere.answer()).status == 202
                done = data(await second.events(has_response))[-1]
            durations = record.metrics()["mcp.client.operation.duration"]
        spans = record.spans()
    assert done["result"]["content"][0]["text"] == "from A"
    (served,) = [s for s in record.named("tools/call ask") if s.kind.name == "SERVER"]
    (sent,) = record.named("sampling/createMessage")
    assert sent.kind.name == "CLIENT"
    assert parent_of(sent, spans) is served
    assert f"-{sent.context.span_id:016x}-" in asked["params"]["_meta"]["traceparent"]
    attributes = dict(sent.attributes or {})
    assert attributes["mcp.session.id"] == session_id
    assert attributes["jsonrpc.request.id"] == str(asked["id"])
    assert "error.type" not in attributes
    (point,) = [p for p in durations if p.attributes["mcp.method.name"] == "sampling/createMessage"]
    assert point.count == 1
