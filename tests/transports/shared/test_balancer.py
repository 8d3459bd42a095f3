"""Three workers behind HAProxy (round robin, no stickiness), state on a real
Redis: what one worker starts, the others continue. 2026-07-28 requests, each
on a new connection, so consecutive requests reach consecutive workers."""

from __future__ import annotations

from collections.abc import Iterator

import anyio
import pytest
from balancer_helpers import LIMIT, WORKERS, Deployment, Modern
from redis_helpers import RedisProcess

pytestmark = pytest.mark.anyio

NAME = {"action": "accept", "content": {"name": "Ada"}}


@pytest.fixture(scope="module")
def deployment(redis_server: RedisProcess) -> Iterator[Deployment]:
    running = Deployment(redis_server.url)
    running.start()
    try:
        yield running
    finally:
        running.stop()


async def test_requests_go_round_the_workers(deployment: Deployment) -> None:
    client = Modern(deployment.port)
    pids = [await client.text("worker") for _ in range(WORKERS * 2)]
    assert len(set(pids)) == WORKERS
    assert pids[:WORKERS] == pids[WORKERS:]


async def test_an_input_round_is_finished_on_another_worker_and_not_twice(
    deployment: Deployment,
) -> None:
    client = Modern(deployment.port)
    first = await client.result("tools/call", {"name": "greet", "arguments": {}})
    assert first["resultType"] == "input_required"
    ((key, asked),) = first["inputRequests"].items()
    asked_by = asked["params"]["message"].rsplit(" ", 1)[1].rstrip(")")
    retry = {
        "name": "greet",
        "arguments": {},
        "inputResponses": {key: NAME},
        "requestState": first["requestState"],
    }
    done = await client.text("greet", **{k: v for k, v in retry.items() if k != "name"})
    assert done.startswith("Hello, Ada (from ")
    answered_by = done.rsplit(" ", 1)[1].rstrip(")")
    assert answered_by != asked_by
    # The same state again, on the third worker: refused, it was used.
    status, again = await client.request("tools/call", retry)
    assert status == 200
    assert again["error"]["code"] == -32602
    assert again["error"]["data"] == {"reason": "replayed"}


async def test_a_task_made_on_one_worker_is_read_and_cancelled_on_others(
    deployment: Deployment,
) -> None:
    client = Modern(deployment.port)
    created = await client.result(
        "tools/call", {"name": "build", "arguments": {"target": "forever"}}
    )
    assert created["resultType"] == "task"
    task_id = created["taskId"]
    with anyio.fail_after(LIMIT):
        while True:
            seen = await client.result("tasks/get", {"taskId": task_id})
            if (seen.get("statusMessage") or "").startswith("building forever on "):
                break
            await anyio.sleep(0.02)
    assert seen["status"] == "working"
    runner = seen["statusMessage"].rsplit(" ", 1)[1]
    cancelled = await client.result("tasks/cancel", {"taskId": task_id})
    assert cancelled["resultType"] == "complete"
    # Read back on each worker in turn.
    for _ in range(WORKERS):
        seen = await client.result("tasks/get", {"taskId": task_id})
        assert seen["status"] == "cancelled"
    assert runner.isdigit()


async def test_a_quick_task_is_read_on_every_worker(deployment: Deployment) -> None:
    client = Modern(deployment.port)
    created = await client.result("tools/call", {"name": "build", "arguments": {"target": "x"}})
    task_id = created["taskId"]
    with anyio.fail_after(LIMIT):
        while (seen := await client.result("tasks/get", {"taskId": task_id}))["status"] != (
            "completed"
        ):
            await anyio.sleep(0.02)
    assert seen["result"]["content"][0]["text"] == "built x"
    for _ in range(WORKERS):
        again = await client.result("tasks/get", {"taskId": task_id})
        assert again["status"] == "completed"
