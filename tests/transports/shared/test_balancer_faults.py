"""Faults of a many-process deployment (three workers behind HAProxy, a real
Redis): a worker killed mid-call, Redis stopped, slow and restarted. Each test
has a deployment of its own."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path

import anyio
import h11
import pytest
from balancer_helpers import LIMIT, META, WORKERS, Deployment, Modern
from http_helpers import RawClient, data, modern_headers
from redis_helpers import RedisProcess

pytestmark = pytest.mark.anyio

NAME = {"action": "accept", "content": {"name": "Ada"}}


@pytest.fixture
def redis(tmp_path: Path) -> Iterator[RedisProcess]:
    # Persistent (append-only, fsync always): a restart keeps what was accepted.
    server = RedisProcess(tmp_path, persist=True)
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def deployment(redis: RedisProcess) -> Iterator[Deployment]:
    running = Deployment(redis.url)
    running.start()
    try:
        yield running
    finally:
        running.stop()


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
        # The other workers serve on; the balancer takes the dead one out.
        for _ in range(WORKERS * 2):
            assert int(await client.text("worker")) != victim


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
