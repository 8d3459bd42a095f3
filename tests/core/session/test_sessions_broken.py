"""A broken channel (sticky ERROR) and the cap on requests in flight, both roles,
both eras, message by message."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from helpers import SessionPair, only

from mcp_core import Limits, LocalProtocolError, RemoteProtocolError
from mcp_core.session.base import BaseSession, SessionState
from mcp_core.session.client import ClientConfig, ClientSession
from mcp_core.session.events import ErrorReceived, ProtocolViolation, RequestReceived
from mcp_core.session.server import ServerConfig, ServerSession
from mcp_core.types.base import (
    ClientCapabilities,
    Implementation,
    RootsCapability,
    ServerCapabilities,
)
from mcp_core.types.server import CallToolResult
from mcp_core.wire import Notification, Request, encode_message

LEGACY = "2025-11-25"
MODERN = "2026-07-28"
INFO = Implementation(name="t", version="1")
META = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
}


def feed(session: BaseSession, obj: Any) -> list[Any]:
    return session.receive_bytes(json.dumps(obj).encode())


def wire(session: BaseSession) -> list[dict[str, Any]]:
    return [json.loads(encode_message(m)) for m in session.messages_to_send()]


def call(request_id: Any, era: str, method: str = "tools/call") -> dict[str, Any]:
    params: dict[str, Any] = {"name": "echo", "arguments": {}} if method == "tools/call" else {}
    if era == "modern":
        params["_meta"] = META
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}


def served(era: str, limits: Limits | None = None) -> ServerSession:
    """A server that took the client's opening: initialize (legacy) or nothing."""
    config = ServerConfig(server_info=INFO, capabilities=ServerCapabilities(tools={}, logging={}))
    session = ServerSession(config, limits or Limits())
    if era == "legacy":
        init = {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": LEGACY,
                "capabilities": {"roots": {}},
                "clientInfo": {"name": "c", "version": "0"},
            },
        }
        feed(session, init)
        feed(session, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        wire(session)
    return session


ERAS = pytest.mark.parametrize("era", ["legacy", "modern"])


# --- ERROR: the server --------------------------------------------------------------------


def assert_broken(session: BaseSession, reason: str) -> None:
    """Receiving raises, nothing is queued, sending raises; the state stays ERROR."""
    assert session.state is SessionState.ERROR and session.error_reason == reason
    for receive in (
        lambda: session.receive_bytes(b'{"jsonrpc":"2.0","id":1,"method":"ping"}'),
        lambda: session.receive_bytes(b"garbage"),
        lambda: session.receive_message(Request(id=2, method="ping")),
        lambda: session.receive_message(Notification(method="notifications/initialized")),
        lambda: session.receive_unreadable("too long"),
    ):
        with pytest.raises(
            RemoteProtocolError, match=re.escape(f"the session is broken ({reason})")
        ):
            receive()
        assert session.messages_to_send() == []
    for send in (
        lambda: session.send_request("ping"),  # type: ignore[attr-defined]
        lambda: session.send_notification("notifications/custom"),
        lambda: session.send_response(1, {}),
        lambda: session.send_error(1, -32603, "no"),
        lambda: session.send_progress(1, 1.0),
    ):
        with pytest.raises(LocalProtocolError, match="the session is broken"):
            send()
        assert session.messages_to_send() == []
    assert session.next_deadline() is None and session.handle_timeouts(1e9) == []
    assert session.state is SessionState.ERROR


@ERAS
def test_a_failed_write_breaks_the_server_for_good(era: str) -> None:
    session = served(era)
    assert isinstance(feed(session, call(1, era))[0], RequestReceived)
    session.send_notification("notifications/message", {"level": "info", "data": "x"})
    session.send_failed("the pipe broke")
    # What was queued can no longer leave, and the request in flight cannot be
    # answered; a second failure does not replace the first reason.
    assert session.messages_to_send() == [] and session.requests_in_flight == 0
    session.send_failed("again")
    session.receive_failed("and again")
    assert_broken(session, "the pipe broke")
    with pytest.raises(LocalProtocolError, match="the session is broken"):
        session.publish("notifications/tools/list_changed")
    with pytest.raises(LocalProtocolError, match="the session is broken"):
        session.end_subscriptions()
    # close() hands back what was pending and leaves ERROR as it is (sticky).
    assert session.close() == []
    assert_broken(session, "the pipe broke")


@ERAS
def test_lost_framing_breaks_the_server(era: str) -> None:
    session = served(era)
    session.receive_failed("the stream lost its framing")
    assert_broken(session, "the stream lost its framing")


def test_a_server_request_in_flight_is_handed_back_by_close() -> None:
    session = served("legacy")
    request_id = session.send_request("roots/list")
    session.send_failed("the pipe broke")
    assert session.pending_requests == 1  # not answered, not forgotten: close says
    assert session.close() == [request_id]
    assert session.pending_requests == 0 and session.state is SessionState.ERROR


def test_closed_stays_closed_when_the_channel_fails_afterwards() -> None:
    session = served("legacy")
    session.close()
    session.send_failed("late")
    assert session.state is SessionState.CLOSED and session.error_reason is None
    assert feed(session, call(5, "legacy")) == [] and session.messages_to_send() == []
    with pytest.raises(LocalProtocolError, match="the session is closed"):
        session.send_notification("notifications/custom")


# --- ERROR: the client --------------------------------------------------------------------


def legacy_client(revisions: tuple[str, ...] = (LEGACY,)) -> tuple[ClientSession, Any]:
    client = ClientSession(ClientConfig(client_info=INFO, revisions=revisions))
    request_id = client.start()
    wire(client)
    return client, request_id


def test_the_client_refusing_the_servers_version_is_a_broken_channel() -> None:
    client, request_id = legacy_client(("2025-06-18",))
    result = {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "serverInfo": {"name": "s", "version": "1"},
    }
    events = feed(client, {"jsonrpc": "2.0", "id": request_id, "result": result})
    assert only(events, ErrorReceived).local
    assert_broken(client, client.error_reason or "")
    assert "'2025-11-25', which we do not speak (2025-06-18)" in (client.error_reason or "")


@pytest.mark.parametrize(
    "answer",
    [
        {"error": {"code": -32600, "message": "go away"}},
        {"result": {"protocolVersion": 5}},
    ],
)
def test_a_refused_or_unreadable_initialize_breaks_the_client(answer: dict[str, Any]) -> None:
    client, request_id = legacy_client()
    events = feed(client, {"jsonrpc": "2.0", "id": request_id, **answer})
    assert isinstance(events[-1], ErrorReceived)
    assert client.state is SessionState.ERROR
    assert client.messages_to_send() == []  # no notifications/initialized
    with pytest.raises(RemoteProtocolError):
        feed(client, {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})


def test_no_version_in_common_breaks_a_modern_client() -> None:
    client = ClientSession(ClientConfig(client_info=INFO, revisions=(MODERN,)))
    probe = client.start()
    error = {
        "code": -32022,
        "message": "Unsupported protocol version",
        "data": {"supported": ["2099-01-01"], "requested": MODERN},
    }
    events = feed(client, {"jsonrpc": "2.0", "id": probe, "error": error})
    assert only(events, ProtocolViolation).code == -32022
    assert client.state is SessionState.ERROR
    with pytest.raises(RemoteProtocolError, match="no protocol version in common"):
        feed(client, {"jsonrpc": "2.0", "id": probe, "result": {}})


@ERAS
def test_a_failed_write_breaks_a_ready_client(era: str) -> None:
    pair = SessionPair(revisions=(LEGACY,) if era == "legacy" else None)
    pair.open()
    request_id = pair.client.send_request("tools/list")
    pair.client.send_failed("the pipe broke")
    assert_broken(pair.client, "the pipe broke")
    with pytest.raises(LocalProtocolError, match="the session is broken"):
        pair.client.cancel_request(request_id)
    assert pair.client.close() == [request_id]


# --- the cap on requests in flight ----------------------------------------------------------


@ERAS
def test_a_request_over_the_cap_is_refused_at_once_and_the_session_goes_on(era: str) -> None:
    session = served(era, Limits(max_requests_in_flight=2))
    assert isinstance(feed(session, call(1, era))[0], RequestReceived)
    assert isinstance(feed(session, call(2, era))[0], RequestReceived)
    events = feed(session, call(3, era))
    # Never reaches the application: no RequestReceived, an immediate -32603.
    assert only(events, ProtocolViolation).code == -32603
    assert wire(session) == [
        {
            "jsonrpc": "2.0",
            "id": 3,
            "error": {
                "code": -32603,
                "message": "too many requests in flight (the limit is 2); "
                "retry once earlier requests are answered",
                "data": {"maxRequestsInFlight": 2},
            },
        }
    ]
    assert session.requests_in_flight == 2 and session.state is not SessionState.ERROR
    # A request id already in flight is still a duplicate first (-32600).
    assert only(feed(session, call(2, era)), ProtocolViolation).code == -32600
    wire(session)
    # What the core answers at once holds nothing, so it is never refused.
    opener = call(4, era, "ping") if era == "legacy" else call(4, era, "server/discover")
    assert feed(session, opener) == []
    assert "result" in wire(session)[0]
    # One answered, one more fits.
    session.send_response(1, CallToolResult(content=[]))
    wire(session)
    assert isinstance(feed(session, call(5, era))[0], RequestReceived)
    assert only(feed(session, call(6, era)), ProtocolViolation).code == -32603


def test_cancelled_requests_free_their_place() -> None:
    session = served("modern", Limits(max_requests_in_flight=1))
    feed(session, call(1, "modern"))
    cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}
    feed(session, cancel)
    assert isinstance(feed(session, call(2, "modern"))[0], RequestReceived)


def test_the_client_caps_server_requests_too() -> None:
    client = ClientSession(
        ClientConfig(
            client_info=INFO,
            capabilities=ClientCapabilities(roots=RootsCapability()),
            revisions=(LEGACY,),
        ),
        Limits(max_requests_in_flight=1),
    )
    pair = SessionPair(client=client)
    pair.open()
    roots = {"jsonrpc": "2.0", "method": "roots/list"}
    assert isinstance(feed(client, dict(roots, id="a"))[0], RequestReceived)
    assert only(feed(client, dict(roots, id="b")), ProtocolViolation).code == -32603
    assert feed(client, {"jsonrpc": "2.0", "id": "p", "method": "ping"}) == []  # pong
    assert [m.get("error", {}).get("code") for m in wire(client)] == [-32603, None]


def test_the_default_cap() -> None:
    assert Limits().max_requests_in_flight == 4096
