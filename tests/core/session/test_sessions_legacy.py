"""Legacy-era sessions (2024-11-05 .. 2025-11-25), message by message through the codec."""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest
from helpers import SessionPair, only

from mcp_core import LocalProtocolError
from mcp_core.session.base import SessionState
from mcp_core.session.client import ClientConfig, ClientSession
from mcp_core.session.events import (
    ErrorReceived,
    HandshakeCompleted,
    NotificationReceived,
    ProgressReceived,
    ProtocolViolation,
    RequestCancelled,
    RequestReceived,
    RequestTimedOut,
    ResponseReceived,
)
from mcp_core.session.server import ServerConfig, ServerSession
from mcp_core.types.base import (
    ClientCapabilities,
    Implementation,
    SamplingCapability,
    ServerCapabilities,
)
from mcp_core.types.methods import LEGACY_REVISIONS
from mcp_core.types.server import CallToolRequestParams, CallToolResult
from mcp_core.wire import encode_message
from mcp_core.wire.jsonrpc import decode_message

LEGACY = ("2025-11-25",)
SERVER_INFO = Implementation(name="s", version="1")


def server(**kwargs: Any) -> ServerSession:
    kwargs.setdefault("capabilities", ServerCapabilities(tools={}))
    return ServerSession(ServerConfig(server_info=SERVER_INFO, **kwargs))


def wire(session: Any) -> list[dict[str, Any]]:
    return [json.loads(encode_message(m)) for m in session.messages_to_send()]


def feed(session: Any, obj: Any) -> list[Any]:
    return session.receive_bytes(json.dumps(obj).encode())


def initialized_server(revision: str = "2025-11-25", **kwargs: Any) -> ServerSession:
    s = server(**kwargs)
    feed(
        s,
        {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": revision,
                "capabilities": {},
                "clientInfo": {"name": "c", "version": "0"},
            },
        },
    )
    feed(s, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    wire(s)
    return s


def ready_pair(**kwargs: Any) -> SessionPair:
    pair = SessionPair(revisions=LEGACY, **kwargs)
    client_events, server_events = pair.open()
    assert isinstance(client_events[0], HandshakeCompleted)
    assert isinstance(server_events[0], HandshakeCompleted)
    return pair


# --- handshake ---------------------------------------------------------------------------


def test_handshake_on_the_wire() -> None:
    pair = ready_pair()
    assert [(d, json.loads(b)) for d, b in pair.wire] == [
        (
            "c->s",
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": "test-client", "version": "1"},
                },
            },
        ),
        (
            "s->c",
            {
                "jsonrpc": "2.0",
                "id": 1,
                "result": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "test-server", "version": "2"},
                },
            },
        ),
        ("c->s", {"jsonrpc": "2.0", "method": "notifications/initialized"}),
    ]
    assert pair.client.state is pair.server.state is SessionState.READY
    assert pair.client.revision == pair.server.revision == "2025-11-25"


@pytest.mark.parametrize("revision", LEGACY_REVISIONS)
def test_server_answers_each_supported_version(revision: str) -> None:
    s = server()
    feed(
        s,
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": revision,
                "capabilities": {},
                "clientInfo": {"name": "c", "version": "0"},
            },
        },
    )
    assert wire(s)[0]["result"]["protocolVersion"] == revision
    assert s.revision == revision and s.state is SessionState.INITIALIZING


def test_server_answers_unknown_version_with_its_latest_legacy() -> None:
    s = server()
    feed(
        s,
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "1999-01-01",
                "capabilities": {},
                "clientInfo": {"name": "c", "version": "0"},
            },
        },
    )
    assert wire(s)[0]["result"]["protocolVersion"] == "2025-11-25"


def test_client_refuses_a_version_it_does_not_speak() -> None:
    client = ClientSession(
        ClientConfig(client_info=Implementation(name="c", version="0"), revisions=("2025-06-18",))
    )
    client.start()
    sent = wire(client)
    assert sent[0]["params"]["protocolVersion"] == "2025-06-18"
    events = feed(
        client,
        {
            "jsonrpc": "2.0",
            "id": sent[0]["id"],
            "result": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "serverInfo": {"name": "s", "version": "1"},
            },
        },
    )
    assert only(events, ErrorReceived).local
    assert client.state is SessionState.ERROR
    assert wire(client) == []  # no notifications/initialized
    with pytest.raises(LocalProtocolError):
        client.send_request("tools/list")


def test_requests_before_initialize_and_second_initialize() -> None:
    s = ServerSession(
        ServerConfig(
            server_info=SERVER_INFO,
            capabilities=ServerCapabilities(tools={}),
            revisions=LEGACY_REVISIONS,
        )
    )
    feed(s, {"jsonrpc": "2.0", "id": 5, "method": "tools/list"})
    assert wire(s) == [
        {
            "jsonrpc": "2.0",
            "id": 5,
            "error": {
                "code": -32600,
                "message": "missing _meta 'io.modelcontextprotocol/protocolVersion' "
                "(or send initialize first)",
            },
        }
    ]
    # ping is allowed before initialize (2025-11-25 basic/lifecycle.mdx)
    feed(s, {"jsonrpc": "2.0", "id": 6, "method": "ping"})
    assert wire(s) == [{"jsonrpc": "2.0", "id": 6, "result": {}}]
    s = initialized_server()
    events = feed(
        s,
        {
            "jsonrpc": "2.0",
            "id": 9,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "c", "version": "0"},
            },
        },
    )
    assert only(events, ProtocolViolation).code == -32600
    assert wire(s)[0]["error"]["code"] == -32600
    assert s.state is SessionState.READY


def test_modern_only_server_names_its_versions_to_initialize() -> None:
    s = server(revisions=("2026-07-28",))
    feed(
        s,
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "c", "version": "0"},
            },
        },
    )
    error = wire(s)[0]["error"]
    assert error["code"] == -32601 and error["data"] == {"supported": ["2026-07-28"]}


# --- capabilities both ways --------------------------------------------------------------


def test_client_never_sends_what_the_server_did_not_declare() -> None:
    pair = ready_pair()
    with pytest.raises(LocalProtocolError):
        pair.client.send_request("resources/list")
    with pytest.raises(LocalProtocolError):
        pair.client.send_request("server/discover")  # not a legacy method
    assert pair.client.messages_to_send() == []


def test_server_rejects_what_it_did_not_declare() -> None:
    s = initialized_server()
    events = feed(s, {"jsonrpc": "2.0", "id": 3, "method": "prompts/list"})
    assert only(events, ProtocolViolation).code == -32601
    assert wire(s)[0]["error"]["code"] == -32601
    events = feed(s, {"jsonrpc": "2.0", "id": 4, "method": "no/such"})
    assert wire(s)[0]["error"]["code"] == -32601
    # logging/setLevel needs the logging capability
    feed(s, {"jsonrpc": "2.0", "id": 5, "method": "logging/setLevel", "params": {"level": "info"}})
    assert wire(s)[0]["error"]["code"] == -32601


def test_server_requests_need_client_capabilities() -> None:
    pair = ready_pair()
    with pytest.raises(LocalProtocolError):
        pair.server.send_request("sampling/createMessage", {"messages": [], "maxTokens": 1})
    with pytest.raises(LocalProtocolError):
        pair.server.send_request("tools/list")
    # A server request arriving for a capability the client lacks gets -32601.
    events = feed(
        pair.client,
        {"jsonrpc": "2.0", "id": 77, "method": "roots/list"},
    )
    assert only(events, ProtocolViolation).code == -32601
    assert wire(pair.client)[0] == {
        "jsonrpc": "2.0",
        "id": 77,
        "error": {"code": -32601, "message": "this client did not declare the 'roots' capability"},
    }


def test_sampling_round_trip_when_declared() -> None:
    client = ClientSession(
        ClientConfig(
            client_info=Implementation(name="c", version="0"),
            capabilities=ClientCapabilities(sampling=SamplingCapability()),
            revisions=LEGACY,
        )
    )
    pair = SessionPair(client=client)
    pair.open()
    request_id = pair.server.send_request(
        "sampling/createMessage",
        {"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 5},
    )
    client_events, _ = pair.flush()
    request = only(client_events, RequestReceived)
    assert request.method == "sampling/createMessage" and request.params.max_tokens == 5
    pair.client.send_response(
        request.id,
        {"role": "assistant", "content": {"type": "text", "text": "yo"}, "model": "m"},
    )
    _, server_events = pair.flush()
    response = only(server_events, ResponseReceived)
    assert response.id == request_id and response.result.model == "m"


def test_ping_both_ways_is_answered_by_the_core() -> None:
    pair = ready_pair()
    pair.client.send_request("ping")
    client_events, server_events = pair.flush()
    assert server_events == []
    assert only(client_events, ResponseReceived).method == "ping"
    pair.server.send_request("ping")
    client_events, server_events = pair.flush()
    assert client_events == []
    assert only(server_events, ResponseReceived).method == "ping"


# --- requests, ids, cancellation, progress -------------------------------------------------


def call(pair: SessionPair, **kwargs: Any) -> tuple[Any, RequestReceived]:
    request_id = pair.client.send_request(
        "tools/call", CallToolRequestParams(name="echo", arguments={"x": 1}), **kwargs
    )
    _, server_events = pair.flush()
    return request_id, only(server_events, RequestReceived)


def test_call_round_trip_typed() -> None:
    pair = ready_pair()
    request_id, received = call(pair)
    assert received.params == CallToolRequestParams(name="echo", arguments={"x": 1})
    assert received.revision == "2025-11-25" and received.client.info.name == "test-client"
    pair.server.send_response(received.id, CallToolResult(content=[]))
    client_events, _ = pair.flush()
    response = only(client_events, ResponseReceived)
    assert response.id == request_id and response.result == CallToolResult(content=[])
    with pytest.raises(LocalProtocolError):
        pair.server.send_response(received.id, CallToolResult(content=[]))  # answered once


def test_ids_are_never_reused_while_in_flight() -> None:
    pair = ready_pair()
    ids = {pair.client.send_request("tools/list") for _ in range(50)}
    assert len(ids) == 50


def test_duplicate_incoming_id_is_refused_and_the_first_survives() -> None:
    s = initialized_server()
    request = {"jsonrpc": "2.0", "id": "a", "method": "tools/list"}
    assert isinstance(feed(s, request)[0], RequestReceived)
    events = feed(s, request)
    assert only(events, ProtocolViolation).code == -32600
    assert wire(s)[0]["error"]["code"] == -32600
    s.send_response("a", {"tools": []})
    assert wire(s) == [{"jsonrpc": "2.0", "id": "a", "result": {"tools": []}}]


def test_cancellation_from_the_client() -> None:
    pair = ready_pair()
    request_id, received = call(pair)
    pair.client.cancel_request(request_id, "user hit stop")
    _, server_events = pair.flush()
    assert only(server_events, RequestCancelled) == RequestCancelled(
        id=received.id, reason="user hit stop"
    )
    assert json.loads(pair.wire[-1][1]) == {
        "jsonrpc": "2.0",
        "method": "notifications/cancelled",
        "params": {"requestId": request_id, "reason": "user hit stop"},
    }
    # The handler's late answer is dropped by the server...
    pair.server.send_response(received.id, CallToolResult(content=[]))
    assert pair.server.messages_to_send() == []
    # ...and a late answer that still arrives at the client is dropped too.
    late = {"jsonrpc": "2.0", "id": request_id, "result": {"content": []}}
    assert feed(pair.client, late) == []


def test_initialize_is_never_cancelled() -> None:
    client = ClientSession(ClientConfig(client_info=SERVER_INFO, revisions=LEGACY))
    request_id = client.start()
    with pytest.raises(LocalProtocolError):
        client.cancel_request(request_id)
    s = server()
    feed(
        s,
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "c", "version": "0"},
            },
        },
    )
    cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}
    assert feed(s, cancel) == []


def test_cancel_for_unknown_request_is_ignored() -> None:
    s = initialized_server()
    cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 42}}
    assert feed(s, cancel) == []
    assert wire(s) == []


def test_progress_both_ways() -> None:
    pair = ready_pair()
    request_id, received = call(pair, progress=True)
    assert received.progress_token == request_id
    assert pair.server.send_progress(received.id, 1, 10, "one")
    assert pair.server.send_progress(received.id, 2.5)
    with pytest.raises(LocalProtocolError):
        pair.server.send_progress(received.id, 2.5)  # must increase
    client_events, _ = pair.flush()
    assert client_events == [
        ProgressReceived(
            request_id=request_id, progress_token=request_id, progress=1, total=10, message="one"
        ),
        ProgressReceived(request_id=request_id, progress_token=request_id, progress=2.5),
    ]
    # A peer that goes backwards is reported, not believed.
    back = {
        "jsonrpc": "2.0",
        "method": "notifications/progress",
        "params": {"progressToken": request_id, "progress": 2},
    }
    assert only(feed(pair.client, back), ProtocolViolation).code == -32600
    pair.server.send_response(received.id, CallToolResult(content=[]))
    pair.flush()
    with pytest.raises(LocalProtocolError):
        pair.server.send_progress(received.id, 3)  # progress stops at completion
    late = dict(back, params={"progressToken": request_id, "progress": 9})
    assert feed(pair.client, late) == []  # dropped after completion


def test_a_string_progress_token_from_the_peer() -> None:
    # 2025-11-25 basic/utilities/progress.mdx: a token is a string or an integer,
    # chosen by the requester; the receiver reports progress with it as it came.
    s = initialized_server()
    call = {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "tools/call",
        "params": {"name": "echo", "arguments": {}, "_meta": {"progressToken": "job-7"}},
    }
    assert only(feed(s, call), RequestReceived).progress_token == "job-7"
    assert s.send_progress(7, 0.5, 1.0, "half")
    assert wire(s) == [
        {
            "jsonrpc": "2.0",
            "method": "notifications/progress",
            "params": {"progressToken": "job-7", "progress": 0.5, "total": 1.0, "message": "half"},
        }
    ]
    s.send_response(7, CallToolResult(content=[]))
    wire(s)
    with pytest.raises(LocalProtocolError):
        s.send_progress(7, 0.9)  # progress stops at completion


def test_a_string_progress_token_on_a_server_request() -> None:
    client = ClientSession(
        ClientConfig(
            client_info=Implementation(name="c", version="0"),
            capabilities=ClientCapabilities(sampling=SamplingCapability()),
            revisions=LEGACY,
        )
    )
    pair = SessionPair(client=client)
    pair.open()
    sampling = {
        "jsonrpc": "2.0",
        "id": "s-1",
        "method": "sampling/createMessage",
        "params": {"messages": [], "maxTokens": 5, "_meta": {"progressToken": "tok"}},
    }
    assert only(feed(pair.client, sampling), RequestReceived).progress_token == "tok"
    assert pair.client.send_progress("s-1", 1)
    assert wire(pair.client)[0]["params"] == {"progressToken": "tok", "progress": 1}


def test_progress_under_the_string_form_of_our_int_token_is_not_ours() -> None:
    pair = ready_pair()
    request_id, _ = call(pair, progress=True)
    stray = {
        "jsonrpc": "2.0",
        "method": "notifications/progress",
        "params": {"progressToken": str(request_id), "progress": 1},
    }
    assert feed(pair.client, stray) == []


def test_progress_without_a_token_is_not_sent() -> None:
    pair = ready_pair()
    _, received = call(pair)
    assert received.progress_token is None
    assert pair.server.send_progress(received.id, 1) is False
    assert pair.server.messages_to_send() == []


def test_timeouts_from_the_callers_clock() -> None:
    pair = ready_pair()
    request_id = pair.client.send_request("tools/list", now=100.0, timeout=5.0)
    other = pair.client.send_request("tools/list", now=101.0, timeout=30.0)
    assert pair.client.next_deadline() == 105.0
    assert pair.client.handle_timeouts(104.9) == []
    assert pair.client.handle_timeouts(105.0) == [
        RequestTimedOut(id=request_id, method="tools/list")
    ]
    sent = wire(pair.client)
    assert sent[-1] == {
        "jsonrpc": "2.0",
        "method": "notifications/cancelled",
        "params": {"requestId": request_id, "reason": "request timed out"},
    }
    assert pair.client.next_deadline() == 131.0
    late = {"jsonrpc": "2.0", "id": request_id, "result": {"tools": []}}
    assert feed(pair.client, late) == []
    assert pair.client.pending_requests == 1 and other in pair.client._requests.pending


def test_response_for_unknown_id_is_reported_never_answered() -> None:
    pair = ready_pair()
    events = feed(pair.client, {"jsonrpc": "2.0", "id": 999, "result": {}})
    assert only(events, ProtocolViolation).id == 999
    assert pair.client.messages_to_send() == []


def test_bad_bytes_get_parse_error_with_null_id_and_session_lives_on() -> None:
    s = initialized_server()
    events = s.receive_bytes(b"{not json")
    assert only(events, ProtocolViolation).code == -32700
    reply = wire(s)[0]
    assert reply["id"] is None and reply["error"]["code"] == -32700
    assert isinstance(
        feed(s, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"})[0], RequestReceived
    )


def test_invalid_params_keep_the_id() -> None:
    s = initialized_server()
    feed(s, {"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {"name": 3}})
    error = wire(s)[0]
    assert error["id"] == 8 and error["error"]["code"] == -32602
    assert s.requests_in_flight == 0


def test_batches_only_in_2025_03_26() -> None:
    batch = [
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 2, "method": "ping"},
        {"jsonrpc": "2.0", "id": 3},
    ]
    s = initialized_server("2025-03-26")
    events = feed(s, batch)
    assert isinstance(events[0], RequestReceived) and events[0].id == 1
    assert only(events, ProtocolViolation).id == 3
    replies = wire(s)
    assert {"jsonrpc": "2.0", "id": 2, "result": {}} in replies
    assert any(r.get("id") == 3 and r["error"]["code"] == -32600 for r in replies)
    s = initialized_server("2025-11-25")
    events = feed(s, batch)
    assert only(events, ProtocolViolation).code == -32600
    assert wire(s) == [
        {
            "jsonrpc": "2.0",
            "id": None,
            "error": {
                "code": -32600,
                "message": "batches are not allowed in protocol revision 2025-11-25",
            },
        }
    ]


def test_set_level_and_log_filter() -> None:
    s = initialized_server(capabilities=ServerCapabilities(logging={}))
    assert s.log_wanted("debug")
    feed(
        s, {"jsonrpc": "2.0", "id": 1, "method": "logging/setLevel", "params": {"level": "warning"}}
    )
    assert wire(s) == [{"jsonrpc": "2.0", "id": 1, "result": {}}]
    assert not s.log_wanted("info") and s.log_wanted("warning") and s.log_wanted("emergency")


def test_notifications_need_our_capabilities() -> None:
    s = initialized_server()  # tools without listChanged, no logging
    with pytest.raises(LocalProtocolError):
        s.send_notification("notifications/message", {"level": "info", "data": "x"})
    with pytest.raises(LocalProtocolError):
        s.send_notification("notifications/tools/list_changed")
    assert s.publish("notifications/tools/list_changed") == 0


def test_resource_subscriptions_legacy() -> None:
    from mcp_core.types.base import ResourcesCapability

    caps = ServerCapabilities(resources=ResourcesCapability(subscribe=True))
    s = initialized_server(capabilities=caps)
    events = feed(
        s, {"jsonrpc": "2.0", "id": 1, "method": "resources/subscribe", "params": {"uri": "a://x"}}
    )
    assert only(events, RequestReceived).params.uri == "a://x"
    s.send_response(1, {})
    wire(s)
    assert s.publish("notifications/resources/updated", {"uri": "a://y"}) == 0
    assert s.publish("notifications/resources/updated", {"uri": "a://x"}) == 1
    assert wire(s) == [
        {"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": "a://x"}}
    ]


def test_roots_list_changed_reaches_the_server() -> None:
    s = initialized_server()
    events = feed(s, {"jsonrpc": "2.0", "method": "notifications/roots/list_changed"})
    assert only(events, NotificationReceived).method == "notifications/roots/list_changed"
    assert feed(s, {"jsonrpc": "2.0", "method": "notifications/unknown"}) == []


def test_closed_session_refuses_to_send_and_returns_pending() -> None:
    pair = ready_pair()
    request_id = pair.client.send_request("tools/list")
    assert pair.client.close() == [request_id]
    with pytest.raises(LocalProtocolError):
        pair.client.send_request("tools/list")
    assert feed(pair.client, {"jsonrpc": "2.0", "id": request_id, "result": {}}) == []


def test_invalid_request_reusing_an_inflight_id_leaves_the_original_in_flight() -> None:
    s = initialized_server()
    assert isinstance(
        feed(s, {"jsonrpc": "2.0", "id": 5, "method": "tools/list"})[0], RequestReceived
    )
    bad = {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": 1}}
    assert only(feed(s, bad), ProtocolViolation).code == -32602
    wire(s)
    s.send_response(5, {"tools": []})  # the original is still answerable
    assert wire(s) == [{"jsonrpc": "2.0", "id": 5, "result": {"tools": []}}]


# --- what the sessions remember between requests --------------------------------------------


def test_client_checks_capabilities_again_when_they_change() -> None:
    pair = ready_pair()
    pair.client.send_request("tools/list")  # allowed, and remembered as allowed
    pair.client.server_capabilities = ServerCapabilities()
    with pytest.raises(LocalProtocolError):
        pair.client.send_request("tools/list")


def test_flags_in_dict_capabilities_are_read_every_time() -> None:
    resources: dict[str, Any] = {"subscribe": True}
    s = initialized_server(capabilities=ServerCapabilities(resources=resources))
    subscribe = {"jsonrpc": "2.0", "method": "resources/subscribe", "params": {"uri": "a://x"}}
    assert isinstance(feed(s, dict(subscribe, id=1))[0], RequestReceived)
    resources["subscribe"] = False
    assert only(feed(s, dict(subscribe, id=2)), ProtocolViolation).code == -32601


def test_server_checks_capabilities_again_under_a_new_config() -> None:
    s = initialized_server()
    assert isinstance(
        feed(s, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"})[0], RequestReceived
    )
    s.config = msgspec.structs.replace(s.config, capabilities=ServerCapabilities())
    events = feed(s, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    assert only(events, ProtocolViolation).code == -32601


def test_broken_and_empty_batches_get_the_answers_of_batches() -> None:
    # receive_bytes asks whether the bytes are a batch only after they failed to
    # decode as one message; what a batch gets must not change.
    s = initialized_server("2025-11-25")
    events = s.receive_bytes(b' \n[{"jsonrpc":"2.0","id":1,"method":"ping"}')
    assert only(events, ProtocolViolation).message == (
        "batches are not allowed in protocol revision 2025-11-25"
    )
    s = initialized_server("2025-03-26")
    events = s.receive_bytes(b"\t[]")
    assert only(events, ProtocolViolation).message == "an empty batch is not a valid request"


def test_an_unreadable_message_gets_a_parse_error_with_a_null_id() -> None:
    # A line the stdio framer dropped over its cap: nothing of it was read, so the
    # reply's id is null (JSON-RPC 2.0 section 5), and the session goes on.
    session = server()
    (violation,) = session.receive_unreadable("message longer than 10 bytes")
    assert isinstance(violation, ProtocolViolation)
    assert violation.code == -32700 and violation.id is None
    assert wire(session) == [
        {
            "jsonrpc": "2.0",
            "id": None,
            "error": {"code": -32700, "message": "message longer than 10 bytes"},
        }
    ]
    session.close()
    assert session.receive_unreadable("again") == []
    assert wire(session) == []


def test_held_here_names_the_process_a_message_is_for() -> None:
    # A runtime that shares a session between processes feeds each message
    # where what it names is: an answer where its request waits, a
    # cancellation where the request is served; anything else anywhere.
    s = initialized_server()
    feed(s, {"jsonrpc": "2.0", "id": "a", "method": "tools/list"})
    asked = s.send_request("ping")

    def held(obj: dict[str, Any]) -> bool:
        return s.held_here(decode_message(json.dumps({"jsonrpc": "2.0", **obj}).encode()))

    def cancel(params: Any) -> dict[str, Any]:
        return {"method": "notifications/cancelled", "params": params}

    assert held(cancel({"requestId": "a"}))
    assert not held(cancel({"requestId": "b"}))
    assert not held(cancel({"requestId": asked}))
    # Unreadable, or naming nothing: ignored wherever it is fed.
    assert held(cancel({"requestId": [1]}))
    assert held(cancel({}))
    assert held({"method": "notifications/roots/list_changed"})
    assert held({"id": asked, "result": {}})
    assert not held({"id": "a", "result": {}})
    assert held({"id": None, "error": {"code": -32700, "message": "unreadable"}})
    # Cancelled, the request is held nowhere any more.
    feed(s, {"jsonrpc": "2.0", **cancel({"requestId": "a"})})
    assert not held(cancel({"requestId": "a"}))
