"""receive_bytes dispatches what it decoded itself (one call less a message); for every
valid message it must do exactly what receive_message does with the decoded message."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from helpers import SessionPair

from mcp_core.session.base import BaseSession
from mcp_core.wire import decode_message, encode_message

MESSAGES: list[dict[str, Any]] = [
    {"jsonrpc": "2.0", "id": 7, "method": "ping"},
    {"jsonrpc": "2.0", "id": 8, "method": "tools/list"},
    {
        "jsonrpc": "2.0",
        "id": "c",
        "method": "tools/call",
        "params": {
            "name": "t",
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
                "progressToken": 3,
            },
        },
    },
    {"jsonrpc": "2.0", "id": 9, "method": "no/such/method"},
    {"jsonrpc": "2.0", "id": 10, "method": "tools/call", "params": {"name": 5}},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}},
    {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 1}},
    {"jsonrpc": "2.0", "id": 1, "result": {"tools": []}},
    {"jsonrpc": "2.0", "id": 1, "result": {"tools": 3}},
    {"jsonrpc": "2.0", "id": 99, "result": {}},
    {"jsonrpc": "2.0", "id": 1, "error": {"code": -32000, "message": "no"}},
    {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "?"}},
]


def legacy_new() -> SessionPair:
    return SessionPair(revisions=("2025-11-25",))


def legacy_ready() -> SessionPair:
    pair = legacy_new()
    pair.open()
    pair.client.send_request("tools/list")
    return pair


def modern_ready() -> SessionPair:
    pair = SessionPair()
    pair.open()
    pair.client.send_request("tools/list")
    return pair


def closed() -> SessionPair:
    pair = modern_ready()
    pair.client.close()
    pair.server.close()
    return pair


def broken() -> SessionPair:
    pair = modern_ready()
    pair.client.send_failed()
    pair.server.send_failed()
    return pair


PAIRS: list[Callable[[], SessionPair]] = [legacy_new, legacy_ready, modern_ready, closed, broken]


def outcome(session: BaseSession, receive: Callable[[], Any]) -> Any:
    try:
        events = receive()
    except Exception as exc:  # the same exception, or the test fails
        return (type(exc), str(exc))
    return events, [encode_message(m) for m in session.messages_to_send()], session.state


@pytest.mark.parametrize("make", PAIRS, ids=[make.__name__ for make in PAIRS])
@pytest.mark.parametrize("side", ["server", "client"])
@pytest.mark.parametrize("message", MESSAGES, ids=[str(i) for i in range(len(MESSAGES))])
def test_receive_bytes_does_what_receive_message_does(
    make: Callable[[], SessionPair], side: str, message: dict[str, Any]
) -> None:
    data = json.dumps(message).encode()
    one, other = getattr(make(), side), getattr(make(), side)
    one.messages_to_send()
    other.messages_to_send()
    by_bytes = outcome(one, lambda: one.receive_bytes(data, 1.0))
    by_object = outcome(other, lambda: other.receive_message(decode_message(data), 1.0))
    assert by_bytes == by_object
