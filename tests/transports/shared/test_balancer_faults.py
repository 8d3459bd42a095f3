"""Faults of a many-process deployment (three workers behind HAProxy, a real
Redis): a worker killed mid-call, Redis stopped, slow and restarted. Each test
has a deployment of its own, of the h11 server and of the ASGI app under
uvicorn."""

from __future__ import annotations

import os
import signal

import anyio
import h11
import pytest
from balancer_helpers import (
    LIMIT,
    META,
    WORKERS,
    Deployment,
    Legacy,
    Modern,
    exited,
    pause_call,
)
from http_helpers import RawClient, data, modern_headers
from redis_helpers import RedisProcess

from mcp_core import McpError
from mcp_core.session import ProgressReceived
from transports import connect_http

pytestmark = pytest.mark.anyio

NAME = {"action": "accept", "content": {"name": "Ada"}}


async def test_a_worker_killed_mid_call_fails_that_call_only(deployment: Deployment) -> None:
    client = Modern(deployment.port)
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {
            "name": "pause",
            "arguments": {"seconds": 60},
            "_meta": {**META, "progressToken": "p"},
        },
    }
    with anyio.fail_after(LIMIT):
        async with RawClient(deployment.port) as raw:
            await raw.send("POST", body, **modern_headers("tools/call", "pause"))
            head = await raw.head()
            assert head.headers["content-type"] == "text/event-stream"
            # The first event names the worker running the call.
            (notice,) = data(await raw.events(lambda got: bool(got)))
            victim = int(notice["params"]["message"])
            os.kill(victim, signal.SIGKILL)
            # The stream is cut before its answer: the client sees the call fail.
            with pytest.raises(h11.RemoteProtocolError, match="incomplete"):
                await raw.events()
            await exited(victim)
        # The other workers serve on; the balancer takes the dead one out.
        for _ in range(WORKERS * 2):
            assert int(await client.text("worker")) != victim


async def test_a_legacy_call_whose_worker_is_killed_ends_in_an_error_when_resumed(
    deployment: Deployment,
) -> None:
    # 2025-11-25 basic/transports.mdx "Resumability and Redelivery": the
    # resume on another worker replays what was sent before the kill; then,
    # the killed worker no longer beating, the stream ends with an error
    # response (its result is lost), never with silence.
    session = Legacy(deployment.port)
    await session.open()
    headers = session.headers
    call = pause_call(9, 60)
    with anyio.fail_after(LIMIT):
        async with RawClient(deployment.port) as raw:
            await raw.send("POST", call, **headers)
            assert (await raw.head()).headers["content-type"] == "text/event-stream"
            seen = await raw.events(lambda got: bool(data(got)))
            victim = int(data(seen)[-1]["params"]["message"])
            os.kill(victim, signal.SIGKILL)
            with pytest.raises(h11.RemoteProtocolError, match="incomplete"):
                await raw.events()
            await exited(victim)
        async with RawClient(deployment.port) as again:
            await again.send("GET", last_event_id=seen[0].id, **headers)
            assert (await again.head()).status == 200
            resumed = await again.events()
    assert [(e.id, e.data) for e in resumed[:-1]] == [(e.id, e.data) for e in seen[1:]]
    (lost,) = data(resumed[-1:])
    assert lost["id"] == 9 and lost["error"]["code"] == -32603
    assert "stopped before it answered" in lost["error"]["message"]


async def test_our_client_gets_an_error_when_the_worker_of_its_call_is_killed(
    deployment: Deployment,
) -> None:
    # The client resumes the cut stream (through the balancer, so on another
    # worker) and its call fails with the error that ends it.
    killed: list[int] = []

    def kill(event: ProgressReceived) -> None:
        assert event.message is not None
        killed.append(int(event.message))
        os.kill(killed[0], signal.SIGKILL)

    url = f"http://127.0.0.1:{deployment.port}/mcp"
    with anyio.fail_after(LIMIT):
        async with connect_http(url, revisions=("2025-11-25",)) as client:
            with pytest.raises(McpError, match="stopped before it answered") as failed:
                await client.call_tool("pause", {"seconds": 60}, on_progress=kill)
            assert failed.value.code == -32603
            # The session goes on, on the other workers.
            result = await client.call_tool("worker")
    assert killed and int(result.content[0].text) != killed[0]  # type: ignore[union-attr]


async def test_redis_down_is_a_quick_503_and_a_restart_loses_nothing(
    deployment: Deployment, redis: RedisProcess
) -> None:
    client = Modern(deployment.port)
    made = await client.result("tools/call", {"name": "build", "arguments": {"target": "kept"}})
    first = await client.result("tools/call", {"name": "greet", "arguments": {}})
    (key,) = first["inputRequests"]
    retry = {
        "name": "greet",
        "arguments": {},
        "inputResponses": {key: NAME},
        "requestState": first["requestState"],
    }
    redis.stop()
    with anyio.fail_after(LIMIT):
        for method, params in (
            ("tools/call", retry),
            ("tasks/get", {"taskId": made["taskId"]}),
            ("tools/call", {"name": "build", "arguments": {"target": "new"}}),
        ):
            status, reply = await client.request(method, params)
            assert status == 503, reply
            assert reply["error"]["code"] == -32050
            assert "shared state store" in reply["error"]["message"]
        # What needs no shared state still works.
        assert (await client.text("worker")).isdigit()
    redis.start()
    with anyio.fail_after(LIMIT):
        task = await client.result("tasks/get", {"taskId": made["taskId"]})
        assert task["taskId"] == made["taskId"]
        # The state was not claimed during the outage: it opens once, now.
        assert (
            await client.text("greet", **{k: v for k, v in retry.items() if k != "name"})
        ).startswith("Hello, Ada")


async def test_a_frozen_redis_answers_503_within_the_timeout(
    deployment: Deployment, redis: RedisProcess
) -> None:
    client = Modern(deployment.port)
    made = await client.result("tools/call", {"name": "build", "arguments": {"target": "x"}})
    assert redis.process is not None
    redis.process.send_signal(signal.SIGSTOP)
    try:
        # The workers' Redis timeout is 2 s; the answer comes well within LIMIT.
        with anyio.fail_after(LIMIT):
            status, reply = await client.request("tasks/get", {"taskId": made["taskId"]})
        assert status == 503 and "did not answer within" in reply["error"]["message"]
    finally:
        redis.process.send_signal(signal.SIGCONT)
    with anyio.fail_after(LIMIT):
        assert (await client.result("tasks/get", {"taskId": made["taskId"]}))["taskId"]
