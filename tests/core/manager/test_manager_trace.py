"""The message trace: bounded, classified, secrets in headers never recorded."""

from __future__ import annotations

import pytest

from mcp_core.manager import REDACTED, Trace, TraceEntry, redact_headers


def test_messages_are_classified_and_answers_name_their_method() -> None:
    trace = Trace()
    trace.record(1.0, "s", "sent", b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}')
    trace.record(1.5, "s", "received", b'{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}')
    trace.record(2.0, "s", "received", {"jsonrpc": "2.0", "method": "notifications/message"})
    trace.record(2.5, "s", "received", {"jsonrpc": "2.0", "id": 7, "method": "roots/list"})
    trace.record(3.0, "s", "sent", {"jsonrpc": "2.0", "id": 7, "error": {"code": 1}})
    trace.record(3.5, "s", "received", b"garbage\xff")
    kinds = [(e.time, e.direction, e.type, e.method, e.id) for e in trace.entries()]
    assert kinds == [
        (1.0, "sent", "request", "tools/list", 1),
        (1.5, "received", "response", "tools/list", 1),
        (2.0, "received", "notification", "notifications/message", None),
        (2.5, "received", "request", "roots/list", 7),
        (3.0, "sent", "error", "roots/list", 7),
        (3.5, "received", "unreadable", None, None),
    ]
    assert trace.entries()[1].message == {"jsonrpc": "2.0", "id": 1, "result": {"tools": []}}
    assert trace.entries()[-1].message.startswith("garbage")


def test_the_buffer_keeps_the_last_entries_only() -> None:
    trace = Trace(capacity=3)
    for n in range(10):
        trace.record(float(n), "s", "sent", {"jsonrpc": "2.0", "method": "m", "params": {"n": n}})
    assert [e.message["params"]["n"] for e in trace.entries()] == [7, 8, 9]
    trace.clear()
    assert trace.entries() == []
    with pytest.raises(ValueError):
        Trace(capacity=0)


def test_entries_per_server_and_the_callback() -> None:
    seen: list[TraceEntry] = []
    trace = Trace(on_entry=seen.append)
    trace.record(0, "a", "sent", {"jsonrpc": "2.0", "method": "x"})
    trace.event(1, "b", "connected", transport="stdio")
    assert [e.server for e in trace.entries("b")] == ["b"]
    assert [e.type for e in seen] == ["notification", "event"]
    event = seen[1]
    assert (event.direction, event.method, event.message) == (
        "event",
        "connected",
        {"transport": "stdio"},
    )
    assert "b ** event connected" in event.line()


def test_secrets_in_headers_are_never_recorded() -> None:
    trace = Trace()
    headers = {
        "Authorization": "Bearer s3cret",
        "X-Api-Key": "k",
        "Cookie": "c=1",
        "X-Auth-Token": "t",
        "X-Team": "blue",
    }
    trace.event(0, "s", "connecting", url="https://h/mcp", headers=headers)
    (entry,) = trace.entries()
    assert entry.message["headers"] == {
        "Authorization": REDACTED,
        "X-Api-Key": REDACTED,
        "Cookie": REDACTED,
        "X-Auth-Token": REDACTED,
        "X-Team": "blue",
    }
    assert "s3cret" not in entry.line()
    assert redact_headers({"accept": "x"}) == {"accept": "x"}
