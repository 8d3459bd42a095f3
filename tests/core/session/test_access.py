"""`AccessSession` (mcp_core/session/access.py), from bytes: what it notes about each
request of the peer's as its answer leaves, with the caller's clock, in a
2025-03-26 batch too; and that it never holds an argument value."""

from __future__ import annotations

import json
from typing import Any

from mcp_core.session.access import CANCELLED, ERROR, OK, AccessSession, Answered
from mcp_core.session.server import ServerConfig
from mcp_core.types.base import Implementation, ServerCapabilities

SECRET = "arg-value-2b4e"


def session(version: str) -> AccessSession:
    config = ServerConfig(
        server_info=Implementation(name="s", version="1"),
        capabilities=ServerCapabilities(tools={}),
    )
    server = AccessSession(config)
    opening = {
        "protocolVersion": version,
        "capabilities": {},
        "clientInfo": {"name": "c", "version": "1"},
    }
    server.receive_bytes(wire({"id": 0, "method": "initialize", "params": opening}), 1.0)
    server.receive_bytes(wire({"method": "notifications/initialized"}), 1.0)
    server.messages_to_send()
    return server


def wire(payload: Any) -> bytes:
    if isinstance(payload, list):
        return json.dumps([{"jsonrpc": "2.0", **p} for p in payload]).encode()
    return json.dumps({"jsonrpc": "2.0", **payload}).encode()


def call(id: int, name: str) -> dict[str, Any]:
    return {"id": id, "method": "tools/call", "params": {"name": name, "arguments": {"a": SECRET}}}


def test_each_answer_is_noted_with_when_its_request_came() -> None:
    server = session("2025-11-25")
    (initialize,) = server.take_answered()
    assert initialize == Answered(id=0, method="initialize", revision="2025-11-25", received=1.0)
    server.receive_bytes(wire(call(1, "add")), 5.0)
    server.receive_bytes(wire(call(2, "add")), 6.0)
    assert server.take_answered() == []  # nothing answered yet
    server.send_error(2, -32602, "no")
    server.send_response(1, {"content": [], "isError": True})
    server.messages_to_send()
    failed, tool_error = server.take_answered()
    assert (failed.id, failed.status, failed.code, failed.received) == (2, ERROR, -32602, 6.0)
    assert (tool_error.target, tool_error.subject, tool_error.status) == (
        "tool",
        "add",
        "tool_error",
    )
    server.receive_bytes(wire(call(3, "add")), 7.0)
    server.receive_bytes(
        wire({"method": "notifications/cancelled", "params": {"requestId": 3}}), 8.0
    )
    (cancelled,) = server.take_answered()
    assert (cancelled.id, cancelled.status, cancelled.received) == (3, CANCELLED, 7.0)
    assert SECRET not in repr([failed, tool_error, cancelled])


def test_a_batch_notes_each_member() -> None:
    server = session("2025-03-26")
    server.take_answered()
    read = {"id": 2, "method": "resources/read", "params": {"uri": "x://y"}}  # not declared
    server.receive_bytes(wire([{"id": 1, "method": "ping"}, read, {"id": 3}]), 2.0)
    server.messages_to_send()
    answered = {a.id: a for a in server.take_answered()}
    assert answered[1].method == "ping" and answered[1].status == OK
    assert (answered[2].method, answered[2].target, answered[2].code) == (
        "resources/read",
        None,
        -32601,
    )
    assert answered[3].method is None and answered[3].status == ERROR


def test_a_2026_request_the_session_answers_itself_has_its_revision() -> None:
    config = ServerConfig(
        server_info=Implementation(name="s", version="1"),
        capabilities=ServerCapabilities(tools={}),
    )
    server = AccessSession(config)
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    server.receive_bytes(wire({"id": 1, "method": "server/discover", "params": {"_meta": meta}}))
    server.messages_to_send()
    (discover,) = server.take_answered()
    assert (discover.method, discover.revision, discover.status) == (
        "server/discover",
        "2026-07-28",
        OK,
    )
