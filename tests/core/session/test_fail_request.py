"""fail_request: a handler's unexpected exception becomes a -32603 answer
(JSON-RPC 2.0 section 5.1), for both roles, and the session goes on."""

from __future__ import annotations

import json
from typing import Any

import pytest
from helpers import SessionPair

from mcp_core import LocalProtocolError
from mcp_core.session.client import ClientConfig, ClientSession
from mcp_core.session.events import RequestReceived
from mcp_core.session.server import ServerConfig, ServerSession
from mcp_core.types.base import (
    ClientCapabilities,
    Implementation,
    RootsCapability,
    ServerCapabilities,
)
from mcp_core.wire import encode_message

META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}


def server() -> ServerSession:
    return ServerSession(
        ServerConfig(
            server_info=Implementation(name="s", version="1"),
            capabilities=ServerCapabilities(tools={}),
        )
    )


def call(session: ServerSession, id: Any) -> None:
    body = {"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": {"_meta": META}}
    (event,) = session.receive_bytes(json.dumps(body).encode())
    assert isinstance(event, RequestReceived)


def wire(session: Any) -> list[dict[str, Any]]:
    return [json.loads(encode_message(m)) for m in session.messages_to_send()]


def error_of(id: Any, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id, "error": {"code": -32603, "message": message}}


@pytest.mark.parametrize(
    ("error", "message"),
    [
        (ValueError("bad input"), "Internal error: bad input"),
        (KeyError("k"), "Internal error: 'k'"),
        (RuntimeError(), "Internal error: RuntimeError"),
        ("the database is down", "Internal error: the database is down"),
    ],
)
def test_a_failed_handler_is_answered_with_an_internal_error(
    error: BaseException | str, message: str
) -> None:
    session = server()
    call(session, 7)
    session.fail_request(7, error)
    assert wire(session) == [error_of(7, message)]
    assert session.requests_in_flight == 0
    call(session, 8)  # the session goes on
    assert session.requests_in_flight == 1


def test_an_unknown_request_cannot_be_failed() -> None:
    session = server()
    with pytest.raises(LocalProtocolError, match="no request with id 9"):
        session.fail_request(9, ValueError("x"))
    assert wire(session) == []


def test_a_cancelled_request_is_failed_silently() -> None:
    # 2025-11-25 basic/utilities/cancellation.mdx: no answer to a cancelled request.
    session = server()
    call(session, 3)
    cancelled = {
        "jsonrpc": "2.0",
        "method": "notifications/cancelled",
        "params": {"requestId": 3},
    }
    session.receive_bytes(json.dumps(cancelled).encode())
    session.fail_request(3, ValueError("late"))
    assert wire(session) == []


def test_a_closed_session_refuses() -> None:
    session = server()
    call(session, 4)
    session.close()
    with pytest.raises(LocalProtocolError, match="closed"):
        session.fail_request(4, "x")


def test_a_client_fails_a_server_request_the_same_way() -> None:
    info = Implementation(name="c", version="1")
    client = ClientSession(
        ClientConfig(
            client_info=info,
            capabilities=ClientCapabilities(roots=RootsCapability()),
            revisions=("2025-11-25",),
        )
    )
    pair = SessionPair(client=client)
    pair.open()
    request_id = pair.server.send_request("roots/list")
    for message in pair.server.messages_to_send():
        (event,) = client.receive_bytes(encode_message(message))
    assert isinstance(event, RequestReceived) and event.id == request_id
    client.fail_request(event.id, OSError("no roots"))
    assert wire(client) == [error_of(request_id, "Internal error: no roots")]
