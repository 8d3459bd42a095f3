"""The ASGI app's spans and metrics on asyncio and trio. uvicorn runs asyncio only
(test_otel_http.py runs the app under it) and no trio ASGI server is installed,
so the app is driven by hand here (tests/asgi_by_hand.py), bytes in and out as
an ASGI server passes them: a 2026-07-28 call and a 2025-11-25 session's call,
each carrying a W3C traceparent in ``params._meta``."""

from __future__ import annotations

from typing import Final

import pytest
from asgi_by_hand import asgi_request
from http_helpers import META, call, initialize, modern_headers
from otel_helpers import recorded

from mcp_core import Server
from transports.http.asgi import asgi_app

pytestmark = pytest.mark.anyio

TRACE_ID: Final = "4bf92f3577b34da6a3ce929d0e0e4736"
PARENT_ID: Final = "00f067aa0ba902b7"
TRACEPARENT: Final = f"00-{TRACE_ID}-{PARENT_ID}-01"


@pytest.mark.parametrize("anyio_backend", ["asyncio", "trio"])
async def test_asgi_spans_and_metrics_on_both_backends(anyio_backend: str) -> None:
    server = Server("asgi", "1.0")

    @server.tool
    async def echo(text: str) -> str:
        return text

    app = asgi_app(server)
    traced = {"traceparent": TRACEPARENT}
    with recorded() as record:
        async with app.running():
            modern = call("echo", {"text": "a"}, id=1, _meta={**META, **traced})
            answer = await asgi_request(
                app, "POST", "/mcp", modern, **modern_headers("tools/call", "echo")
            )
            assert answer.json()["result"]["content"][0]["text"] == "a"
            opened = await asgi_request(app, "POST", "/mcp", initialize())
            session_id = opened.headers["mcp-session-id"]
            done = {"jsonrpc": "2.0", "method": "notifications/initialized"}
            await asgi_request(app, "POST", "/mcp", done, mcp_session_id=session_id)
            legacy = call("echo", {"text": "b"}, id=2, _meta=traced)
            answer = await asgi_request(app, "POST", "/mcp", legacy, mcp_session_id=session_id)
            assert answer.json()["result"]["content"][0]["text"] == "b"
            metrics = record.metrics()
        spans = record.named("tools/call echo")
    assert [span.kind.name for span in spans] == ["SERVER", "SERVER"]
    by_revision = {span.attributes["mcp.protocol.version"]: span for span in spans}  # type: ignore[index]
    assert set(by_revision) == {"2026-07-28", "2025-11-25"}
    for span in spans:
        assert span.context.trace_id == int(TRACE_ID, 16)
        assert span.parent is not None and span.parent.span_id == int(PARENT_ID, 16)
        assert span.attributes["network.transport"] == "tcp"  # type: ignore[index]
    assert by_revision["2025-11-25"].attributes["mcp.session.id"] == session_id  # type: ignore[index]
    assert "mcp.session.id" not in by_revision["2026-07-28"].attributes  # type: ignore[operator]
    calls = [
        point
        for point in metrics["mcp.server.operation.duration"]
        if point.attributes["mcp.method.name"] == "tools/call"
    ]
    assert sum(point.count for point in calls) == 2
    (sessions,) = metrics["mcp_core.server.sessions"]
    assert sessions.value == 1  # the legacy session, open until the app stops
