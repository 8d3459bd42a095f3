"""ServerSession.send_log: a log message, spelled by the core for every adapter."""

from __future__ import annotations

import msgspec
import pytest
from helpers import SessionPair

from mcp_core import LocalProtocolError
from mcp_core.session.events import NotificationReceived
from mcp_core.types.base import ServerCapabilities
from mcp_core.types.server import LoggingMessageNotificationParams


@pytest.mark.parametrize("revisions", [("2025-11-25",), ("2026-07-28",)])
def test_send_log_reaches_the_client(revisions: tuple[str, ...]) -> None:
    pair = SessionPair(revisions=revisions, capabilities=ServerCapabilities(logging={}))
    pair.open()
    pair.server.send_log("warning", {"disk": "full"}, "db")
    pair.server.send_log("info", "plain")
    client_events, _ = pair.flush()
    logs = [e for e in client_events if isinstance(e, NotificationReceived)]
    assert [e.method for e in logs] == ["notifications/message"] * 2
    assert logs[0].params == LoggingMessageNotificationParams(
        level="warning", data={"disk": "full"}, logger="db"
    )
    assert "logger" not in msgspec.to_builtins(logs[1].params)


def test_send_log_needs_the_logging_capability() -> None:
    pair = SessionPair()
    pair.open()
    with pytest.raises(LocalProtocolError):
        pair.server.send_log("info", "x")
    assert pair.flush() == ([], [])
