"""Metrics of our own, read from the wire's side: an HTTP session counted open
while it lives and ended by reason, its GET stream counted while open; the
thread hand-off queue. asyncio and trio."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from http_helpers import RawClient, open_session, running
from otel_helpers import recorded

from mcp_core import Server

pytestmark = pytest.mark.anyio


def total(points: list[Any], **labels: str) -> float:
    return sum(
        point.value
        for point in points
        if all(point.attributes.get(key) == value for key, value in labels.items())
    )


async def test_a_session_and_its_get_stream_counted_then_deleted() -> None:
    server = Server("counted", "1.0")
    with recorded() as record, anyio.fail_after(30):
        async with running(server) as port:
            async with RawClient(port) as raw:
                session_id = await open_session(raw)
            assert total(record.metrics()["mcp_core.server.sessions"]) == 1
            async with RawClient(port) as stream:
                await stream.send("GET", mcp_session_id=session_id)
                assert (await stream.head()).status == 200
                # counted before its head is written
                assert total(record.metrics()["mcp_core.http.sse.streams"], stream="get") == 1
                async with RawClient(port) as raw:
                    await raw.send("DELETE", mcp_session_id=session_id)
                    assert (await raw.answer()).status == 200
                await stream.events()  # the stream ends with its session
            metrics = record.metrics()
    assert total(metrics["mcp_core.server.sessions.ended"], reason="deleted") == 1
    (sessions,) = metrics["mcp_core.server.sessions"]  # one series, back to 0
    assert sessions.value == 0
    assert [p.value for p in metrics["mcp_core.http.sse.streams"]] == [0]
    (queued,) = metrics["mcp_core.threads.queued"]
    assert queued.value == 0
    durations = metrics["mcp.server.session.duration"]
    assert sum(point.count for point in durations) == 1
    assert durations[0].attributes["network.transport"] == "tcp"
    assert durations[0].attributes["mcp.protocol.version"] == "2025-11-25"
