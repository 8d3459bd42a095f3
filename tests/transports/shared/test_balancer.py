"""Three workers behind HAProxy (round robin, no stickiness), state on a real
Redis: what one worker starts, the others continue. 2026-07-28 requests, each
on a new connection, so consecutive requests reach consecutive workers."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AsyncExitStack
from typing import Any

import anyio
import pytest
from balancer_helpers import (
    LIMIT,
    META,
    MODERN,
    WORKERS,
    Deployment,
    Legacy,
    Modern,
    deployed,
    pause_call,
    ports_by_pid,
    stopped_on,
)
from http_helpers import RawClient, data, has_response, modern_headers
from redis_helpers import RedisProcess

from mcp_core.wire import ServerSentEvent

pytestmark = pytest.mark.anyio

NAME = {"action": "accept", "content": {"name": "Ada"}}


@pytest.fixture(scope="module", params=["h11", "uvicorn"])
def deployment(request: pytest.FixtureRequest, redis_server: RedisProcess) -> Iterator[Deployment]:
    # The h11 server (mcp-core serve --workers) and the ASGI app under uvicorn.
    with deployed(request.param, redis_server.url) as running:
        yield running


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


async def test_a_legacy_session_opened_on_one_worker_is_served_on_every_worker(
    deployment: Deployment,
) -> None:
    session = Legacy(deployment.port)
    await session.open()
    pids = set()
    for _ in range(WORKERS):
        status, reply = await session.call("worker")
        assert status == 200, reply
        pids.add(reply["result"]["content"][0]["text"])
    assert len(pids) == WORKERS


async def test_a_legacy_session_ended_on_one_worker_is_gone_on_the_others(
    deployment: Deployment,
) -> None:
    session = Legacy(deployment.port)
    await session.open()
    assert (await session.call("worker"))[0] == 200
    with anyio.fail_after(LIMIT):
        async with RawClient(deployment.port) as raw:
            await raw.send(
                "DELETE", mcp_session_id=session.session_id, mcp_protocol_version="2025-11-25"
            )
            assert (await raw.answer()).status == 200
    for _ in range(WORKERS):
        status, _ = await session.call("worker")
        assert status == 404


async def test_an_unknown_session_is_404_on_every_worker(deployment: Deployment) -> None:
    session = Legacy(deployment.port)
    session.session_id = "no-such-session"
    for _ in range(WORKERS):
        status, reply = await session.call("worker")
        assert status == 404, reply


async def test_a_list_change_on_one_worker_reaches_listeners_on_every_worker(
    deployment: Deployment,
) -> None:
    # One legacy session per worker, its GET stream opened on that worker.
    sessions = [Legacy(deployment.port) for _ in range(WORKERS)]
    for session in sessions:
        await session.open()
    with anyio.fail_after(LIMIT):
        async with AsyncExitStack() as stack:
            streams = []
            for session, port in zip(sessions, deployment.worker_ports, strict=True):
                raw = await stack.enter_async_context(RawClient(port))
                await raw.send(
                    "GET", mcp_session_id=session.session_id, mcp_protocol_version="2025-11-25"
                )
                head = await raw.head()
                assert head.status == 200, head.headers
                streams.append(raw)
            # The streams are attached once their priming event came.
            for raw in streams:
                await raw.events(lambda got: bool(got))
            status, reply = await sessions[0].call("offer", name=f"extra{id(sessions)}")
            assert status == 200 and "result" in reply, reply
            for raw in streams:
                heard = await raw.events(lambda got: any(e.data for e in got))
                methods = [m["method"] for m in data(heard)]
                assert methods == ["notifications/tools/list_changed"]


async def logged(port: int, last: str, headers: dict[str, str]) -> None:
    """Wait until the shared log holds the event ``last``.

    A worker ships its events to the shared log just after writing them to the
    stream (write-behind, in order), so the log may not have them yet when the
    client resumes. A GET resuming after ``last`` on ``port`` tells: its worker
    waits a moment for the event to reach the log, then replays (200) or, not
    knowing the id, refuses it (400). Once the log has ``last`` it has every
    event written before it, so a resume from any of them replays all that
    followed. (Reading each try of a resume for a fixed half second, as this
    once did, never succeeded once a loaded machine took longer than that to
    answer: the test spun until its limit.)
    """
    while True:
        async with RawClient(port) as raw:
            await raw.send("GET", last_event_id=last, **headers)
            if (await raw.head()).status == 200:
                return


async def resumed(
    port: int, last: str, count: int, headers: dict[str, str], sent: set[str]
) -> list[ServerSentEvent]:
    """The ``count`` events of ``sent`` that a GET resuming after ``last`` on
    ``port`` replays, once the log holds them all (`logged`).

    The resuming worker may also send, live and under an id of its own, a change
    notification the bus brings it late (the client hears it either way); once
    shipped, that event is in the log too, so a replay may carry it, before or
    after the missed ones: events with an id outside ``sent`` are left out.
    """

    def missed(got: list[ServerSentEvent]) -> list[ServerSentEvent]:
        return [e for e in got if e.id in sent]

    async with RawClient(port) as raw:
        await raw.send("GET", last_event_id=last, **headers)
        assert (await raw.head()).status == 200
        return missed(await raw.events(lambda got: len(missed(got)) >= count))


async def test_a_get_stream_resumed_on_another_worker_replays_exactly_what_was_missed(
    deployment: Deployment,
) -> None:
    session = Legacy(deployment.port)
    await session.open()
    first, second = deployment.worker_ports[:2]
    get = {"mcp_session_id": session.session_id, "mcp_protocol_version": "2025-11-25"}
    with anyio.fail_after(LIMIT):
        async with RawClient(first) as raw:
            await raw.send("GET", **get)
            assert (await raw.head()).status == 200
            (priming,) = await raw.events(lambda got: bool(got))
            assert priming.id and not priming.data
            for n in range(3):
                status, _ = await session.call("offer", name=f"resume{n}{id(session)}")
                assert status == 200
            # At least: two events may come in one read.
            sent = (await raw.events(lambda got: len(got) >= 3))[:3]
        assert len({e.id for e in sent}) == 3
        # The client read the first and lost the others: it resumes elsewhere,
        # once the log has them.
        ids = {e.id for e in sent if e.id}
        await logged(second, sent[-1].id, get)
        replayed = await resumed(second, sent[0].id, 2, get, ids)
        assert [(e.id, e.data) for e in replayed] == [(e.id, e.data) for e in sent[1:]]
        # Resumed from the priming event, on the third worker: all three.
        again = await resumed(deployment.worker_ports[2], priming.id, 3, get, ids)
        assert [(e.id, e.data) for e in again] == [(e.id, e.data) for e in sent]
        # An id no worker sent is refused, on any worker.
        async with RawClient(deployment.worker_ports[2]) as raw:
            await raw.send("GET", last_event_id="0-nosuch.1", **get)
            assert (await raw.answer()).status == 400


async def test_a_sampling_answer_posted_to_another_worker_reaches_the_tool(
    deployment: Deployment,
) -> None:
    session = Legacy(deployment.port)
    await session.open({"sampling": {}})
    by_pid = await ports_by_pid(deployment)
    headers = session.headers
    call = {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "tools/call",
        "params": {"name": "haiku", "arguments": {"topic": "rain"}},
    }
    with anyio.fail_after(LIMIT):
        async with RawClient(deployment.port) as raw:
            await raw.send("POST", call, **headers)
            assert (await raw.head()).headers["content-type"] == "text/event-stream"
            asked = data(await raw.events(lambda got: any(e.data for e in got)))[-1]
            assert asked["method"] == "sampling/createMessage"
            text = asked["params"]["messages"][0]["content"]["text"]
            sampler = text.rsplit(" ", 1)[1].rstrip(")")
            # The answer goes to another worker than the one that asked.
            other = next(port for pid, port in by_pid.items() if pid != sampler)
            answer = {
                "jsonrpc": "2.0",
                "id": asked["id"],
                "result": {
                    "role": "assistant",
                    "content": {"type": "text", "text": "drops on the roof"},
                    "model": "m",
                },
            }
            async with RawClient(other) as elsewhere:
                await elsewhere.send("POST", answer, **headers)
                assert (await elsewhere.answer()).status == 202
            done = data(await raw.events(has_response))[-1]
    assert done["id"] == 7
    assert done["result"]["content"][0]["text"] == f"drops on the roof (from {sampler})"


async def test_a_list_change_on_one_worker_reaches_subscriptions_listen_on_every_worker(
    deployment: Deployment,
) -> None:
    # 2026-07-28 basic/subscriptions: one listen stream held by each worker.
    listen = {
        "jsonrpc": "2.0",
        "id": "listen-1",
        "method": "subscriptions/listen",
        "params": {"notifications": {"toolsListChanged": True}, "_meta": META},
    }
    with anyio.fail_after(LIMIT):
        async with AsyncExitStack() as stack:
            streams = []
            for port in deployment.worker_ports:
                raw = await stack.enter_async_context(RawClient(port))
                await raw.send("POST", listen, **modern_headers("subscriptions/listen"))
                assert (await raw.head()).headers["content-type"] == "text/event-stream"
                (ack,) = data(await raw.events(lambda got: bool(data(got))))
                assert ack["method"] == "notifications/subscriptions/acknowledged", ack
                streams.append(raw)
            # The change is made through the balancer, on whichever worker.
            name = f"listened{id(streams)}"
            offered = await Modern(deployment.port).result(
                "tools/call", {"name": "offer", "arguments": {"name": name}}
            )
            assert offered["content"][0]["text"] == name
            for raw in streams:
                heard = data(await raw.events(lambda got: bool(data(got))))
                assert [m["method"] for m in heard] == ["notifications/tools/list_changed"]
                assert heard[0]["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == (
                    "listen-1"
                )


async def test_a_cancellation_posted_to_another_worker_stops_the_call(
    deployment: Deployment,
) -> None:
    # 2025-11-25 basic/utilities/cancellation.mdx: the receiver stops the
    # request and sends no response; the worker that gets the notification
    # passes it to the one running the call.
    session = Legacy(deployment.port)
    await session.open()
    by_pid = await ports_by_pid(deployment)
    label = f"call{id(session)}"
    headers = session.headers
    call = pause_call(7, 60, label=label)
    cancel = {
        "jsonrpc": "2.0",
        "method": "notifications/cancelled",
        "params": {"requestId": 7, "reason": "enough"},
    }
    with anyio.fail_after(LIMIT):
        async with RawClient(deployment.port) as raw:
            await raw.send("POST", call, **headers)
            assert (await raw.head()).headers["content-type"] == "text/event-stream"
            # The progress notice names the worker running the call.
            runner = data(await raw.events(lambda got: bool(data(got))))[-1]["params"]["message"]
            other = next(port for pid, port in by_pid.items() if pid != runner)
            async with RawClient(other) as elsewhere:
                await elsewhere.send("POST", cancel, **headers)
                assert (await elsewhere.answer()).status == 202
            # The call's stream ends, without a response.
            rest = await raw.events()
        assert not has_response(rest)
    await stopped_on(by_pid[runner], label)


async def _result(era: str, port: int, session_id: str, method: str, params: dict[str, Any]) -> Any:
    # One request of either era, straight to the worker on ``port``.
    if era == MODERN:
        return await Modern(port).result(method, params)
    legacy = Legacy(port)
    legacy.session_id = session_id
    status, reply, _ = await legacy.post(
        {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    )
    assert status == 200 and "result" in reply, reply
    return reply["result"]


@pytest.mark.parametrize("era", [MODERN, "2025-11-25"])
async def test_a_task_cancelled_on_another_worker_stops_there_at_once(
    deployment: Deployment, era: str
) -> None:
    # The task's handler waits forever, touching nothing: the worker that
    # takes tasks/cancel tells the one running it, which cancels it.
    by_pid = await ports_by_pid(deployment)
    session_id = ""
    if era != MODERN:
        session = Legacy(deployment.port)
        await session.open()
        session_id = session.session_id
    target = f"forever-{era}-{id(by_pid)}"
    call = {"name": "build", "arguments": {"target": target}}
    if era == MODERN:
        task_id = (await _result(era, deployment.port, "", "tools/call", call))["taskId"]
    else:
        made = await _result(era, deployment.port, session_id, "tools/call", {**call, "task": {}})
        task_id = made["task"]["taskId"]
    port = deployment.worker_ports[0]
    with anyio.fail_after(LIMIT):
        while not (
            seen := await _result(era, port, session_id, "tasks/get", {"taskId": task_id})
        ).get("statusMessage"):
            await anyio.sleep(0.02)
    runner = seen["statusMessage"].rsplit(" ", 1)[1]
    other = next(port for pid, port in by_pid.items() if pid != runner)
    cancelled = await _result(era, other, session_id, "tasks/cancel", {"taskId": task_id})
    if era != MODERN:
        assert cancelled["status"] == "cancelled"
    await stopped_on(by_pid[runner], target)


@pytest.mark.parametrize("version", ["2025-11-25", "2025-06-18"])
async def test_a_call_whose_connection_is_cut_is_resumed_on_another_worker(
    deployment: Deployment, version: str
) -> None:
    # 2025-11-25 basic/transports.mdx "Resumability and Redelivery": the
    # stream goes on where the call runs; a GET with Last-Event-ID to another
    # worker replays what the client missed, then what comes, to the response.
    session = Legacy(deployment.port, version)
    await session.open()
    by_pid = await ports_by_pid(deployment)
    headers = session.headers
    call = pause_call(8, 1)
    with anyio.fail_after(LIMIT):
        async with RawClient(deployment.port) as raw:
            await raw.send("POST", call, **headers)
            assert (await raw.head()).headers["content-type"] == "text/event-stream"
            seen = await raw.events(lambda got: bool(data(got)))
        # Cut: the client read up to the progress notice (after a priming
        # event in 2025-11-25), which names the worker running the call.
        runner = data(seen)[-1]["params"]["message"]
        other = next(port for pid, port in by_pid.items() if pid != runner)
        async with RawClient(other) as again:
            await again.send("GET", last_event_id=seen[0].id, **headers)
            assert (await again.head()).status == 200
            resumed = await again.events()
    assert [(e.id, e.data) for e in resumed[: len(seen) - 1]] == [(e.id, e.data) for e in seen[1:]]
    assert data(resumed)[-1] == {
        "jsonrpc": "2.0",
        "id": 8,
        "result": {"content": [{"type": "text", "text": runner}]},
    }
