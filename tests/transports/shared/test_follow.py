"""A request stream resumed on a worker that does not serve it, answered from
the shared log (transports/http/shared_events.py `Follower`), on the in-memory
log: to the response, to an error when the serving worker stops beating, or
just the replay."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest
from limits import HANG

from mcp_core.http.server import HttpEndpoint
from mcp_core.http.shared import MemoryEventLog
from mcp_core.wire import SSEParser
from transports.http.shared_events import EventShipper, Follower

pytestmark = pytest.mark.anyio

LIMIT = HANG
PROGRESS = (
    b'{"jsonrpc":"2.0","method":"notifications/progress",'
    b'"params":{"progressToken":"p","progress":0}}'
)
RESULT = b'{"jsonrpc":"2.0","id":5,"result":{"content":[]}}'


async def stream_of(log: MemoryEventLog, named: bool = True) -> tuple[HttpEndpoint, Follower]:
    # Worker "w." serves stream "w.1" of session "s": a priming event, a
    # progress notice; this worker ("me.") follows it from the priming event.
    await log.append_many(
        [(None, "s", "w.1", "w.1-w.1", None), (None, "s", "w.1", "w.1-w.2", PROGRESS)],
        [(None, "s", "w.1", b"5")] if named else [],
    )
    endpoint = HttpEndpoint(stream_prefix="me.")
    endpoint.adopt("s", None, 0.0)
    follower = EventShipper(log, 10, 10_000).follower(endpoint.sessions["s"], "w.1", "w.1-w.1")
    assert follower is not None
    return endpoint, follower


def messages(sent: list[bytes]) -> list[Any]:
    events = SSEParser().feed(b"".join(sent))
    return [json.loads(e.data) for e in events if e.data]


async def test_it_goes_on_to_the_response_while_the_worker_beats() -> None:
    log = MemoryEventLog()
    endpoint, follower = await stream_of(log)
    await log.beat("w.", 60.0)
    sent: list[bytes] = []

    async def send(data: bytes) -> None:
        sent.append(data)
        if len(sent) == 1:  # the worker answers meanwhile
            await log.append(None, "s", "w.1", "w.1-w.3", RESULT)

    with anyio.fail_after(LIMIT):
        await follower.follow(endpoint, send, ping=15.0)
    assert messages(sent) == [json.loads(PROGRESS), json.loads(RESULT)]


async def test_it_ends_with_an_error_once_the_worker_stops_beating() -> None:
    log = MemoryEventLog()
    endpoint, follower = await stream_of(log)
    sent: list[bytes] = []

    async def send(data: bytes) -> None:
        sent.append(data)

    with anyio.fail_after(LIMIT):
        await follower.follow(endpoint, send, ping=15.0)
    progress, lost = messages(sent)
    assert progress == json.loads(PROGRESS)
    assert lost["id"] == 5 and lost["error"]["code"] == -32603
    # The error is an event of that stream, with an id, for a later resume.
    assert SSEParser().feed(b"".join(sent))[-1].id.startswith("w.1-")


async def test_an_unnamed_stream_is_only_replayed_and_a_forgotten_one_not_at_all() -> None:
    log = MemoryEventLog()
    endpoint, follower = await stream_of(log, named=False)
    await log.beat("w.", 60.0)
    sent: list[bytes] = []

    async def send(data: bytes) -> None:
        sent.append(data)

    with anyio.fail_after(LIMIT):
        await follower.follow(endpoint, send, ping=15.0)
        assert messages(sent) == [json.loads(PROGRESS)]
        sent.clear()
        await log.drop(None, "s")
        await follower.follow(endpoint, send, ping=15.0)
    assert sent == []


def test_only_another_workers_request_stream_is_followed() -> None:
    shipper = EventShipper(MemoryEventLog(), 10, 10_000)
    endpoint = HttpEndpoint()
    endpoint.adopt("s", None, 0.0)
    session = endpoint.sessions["s"]
    assert shipper.follower(session, "w.1", "w.1-w.1") is not None
    assert shipper.follower(session, f"{shipper.tag}1", "x") is None  # its own
    assert shipper.follower(session, "0", "0-w.1") is None  # the standalone stream
    assert shipper.follower(session, "w.1", None) is None
