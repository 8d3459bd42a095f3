"""What a many-process deployment (three workers behind HAProxy) does when its
Redis stops and comes back empty (no persistence): of the h11 server and of the
ASGI app under uvicorn."""

from __future__ import annotations

from contextlib import AsyncExitStack

import anyio
import pytest
from balancer_helpers import LIMIT, META, Deployment, Legacy, Modern
from http_helpers import RawClient, data, modern_headers
from redis_helpers import RedisProcess

pytestmark = pytest.mark.anyio

NAME = {"action": "accept", "content": {"name": "Ada"}}
REDIS_PERSIST = False  # restarts empty


async def test_a_request_state_is_refused_after_redis_restarts_empty(
    deployment: Deployment, redis: RedisProcess
) -> None:
    # 2026-07-28 basic/patterns/mrtr.mdx "Server Requirements": single use is
    # the server's to enforce. Redis forgot which states were used, so every
    # state sealed before is refused (fail closed), never run a second time.
    client = Modern(deployment.port)
    used = await client.result("tools/call", {"name": "greet", "arguments": {}})
    unused = await client.result("tools/call", {"name": "greet", "arguments": {}})
    (key,) = used["inputRequests"]

    def retry(state: str) -> dict[str, object]:
        return {
            "name": "greet",
            "arguments": {},
            "inputResponses": {key: NAME},
            "requestState": state,
        }

    assert (await client.text(**retry(used["requestState"]))).startswith("Hello, Ada")
    redis.restart()
    with anyio.fail_after(LIMIT):
        for state in (used["requestState"], unused["requestState"]):
            status, reply = await client.request("tools/call", retry(state))
            assert status == 200 and "error" in reply, reply
            assert reply["error"]["code"] == -32602
            assert reply["error"]["data"] == {"reason": "store restarted"}
        # The client starts over: a state sealed now opens once.
        again = await client.result("tools/call", {"name": "greet", "arguments": {}})
        assert (await client.text(**retry(again["requestState"]))).startswith("Hello, Ada")


async def test_after_a_redis_outage_every_open_stream_hears_the_lists_may_have_changed(
    deployment: Deployment, redis: RedisProcess
) -> None:
    # A tool offered on worker 2 while Redis is down cannot reach worker 1's
    # streams: once worker 1 listens to the bus again, its legacy GET stream
    # (2025-11-25) and its subscriptions/listen stream (2026-07-28) each get a
    # tools/list_changed (the relay's stated rule), so their clients list again.
    here, there = deployment.worker_ports[:2]
    session = Legacy(here)
    await session.open()
    listen = {
        "jsonrpc": "2.0",
        "id": "listen-1",
        "method": "subscriptions/listen",
        "params": {"notifications": {"toolsListChanged": True}, "_meta": META},
    }
    async with AsyncExitStack() as stack:
        with anyio.fail_after(LIMIT):
            legacy = await stack.enter_async_context(RawClient(here))
            await legacy.send("GET", **session.headers)
            assert (await legacy.head()).status == 200
            await legacy.events(lambda got: bool(got))  # the priming event
            modern = await stack.enter_async_context(RawClient(here))
            await modern.send("POST", listen, **modern_headers("subscriptions/listen"))
            assert (await modern.head()).headers["content-type"] == "text/event-stream"
            (ack,) = data(await modern.events(lambda got: bool(data(got))))
            assert ack["method"] == "notifications/subscriptions/acknowledged", ack
        redis.stop()
        with anyio.fail_after(LIMIT):
            offered = await Modern(there).result(
                "tools/call", {"name": "offer", "arguments": {"name": "unheard"}}
            )
            assert offered["content"][0]["text"] == "unheard"
        redis.start()
        with anyio.fail_after(LIMIT):
            for raw in (legacy, modern):
                heard = data(await raw.events(lambda got: bool(data(got))))
                assert [m["method"] for m in heard] == ["notifications/tools/list_changed"]
