"""Modern-era sessions (2026-07-28) and era detection, message by message."""

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
    InputRequired,
    NotificationReceived,
    ProgressReceived,
    ProtocolViolation,
    RequestReceived,
    ResponseReceived,
)
from mcp_core.session.server import ServerConfig, ServerSession
from mcp_core.types.base import (
    ClientCapabilities,
    Implementation,
    ListChangedCapability,
    ResourcesCapability,
    ServerCapabilities,
)
from mcp_core.types.methods import LEGACY_REVISIONS
from mcp_core.types.server import CallToolRequestParams, CallToolResult, ListToolsResult
from mcp_core.wire import encode_message
from mcp_core.wire.jsonrpc import Request

MODERN = "2026-07-28"
META = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "0"},
}


def server(**kwargs: Any) -> ServerSession:
    kwargs.setdefault("capabilities", ServerCapabilities(tools={}))
    return ServerSession(ServerConfig(server_info=Implementation(name="s", version="1"), **kwargs))


def wire(session: Any) -> list[dict[str, Any]]:
    return [json.loads(encode_message(m)) for m in session.messages_to_send()]


def feed(session: Any, obj: Any) -> list[Any]:
    return session.receive_bytes(json.dumps(obj).encode())


def request(method: str, id: Any = 1, meta: Any = META, **params: Any) -> dict[str, Any]:
    body: dict[str, Any] = dict(params)
    if meta is not None:
        body["_meta"] = meta
    return {"jsonrpc": "2.0", "id": id, "method": method, "params": body}


# --- the per-request envelope ---------------------------------------------------------------


def test_discover_is_answered_by_the_core() -> None:
    s = server(instructions="be nice")
    assert feed(s, request("server/discover", id="d")) == []
    assert wire(s) == [
        {
            "jsonrpc": "2.0",
            "id": "d",
            "result": {
                "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "s", "version": "1"}},
                "resultType": "complete",
                "supportedVersions": [
                    "2026-07-28",
                    "2025-11-25",
                    "2025-06-18",
                    "2025-03-26",
                    "2024-11-05",
                ],
                "capabilities": {"tools": {}},
                "ttlMs": 60000,
                "cacheScope": "private",
                "instructions": "be nice",
            },
        }
    ]


def test_request_served_statelessly_with_client_from_meta() -> None:
    s = server()
    meta = dict(META, **{"io.modelcontextprotocol/logLevel": "error"})
    events = feed(s, request("tools/call", id=4, meta=meta, name="echo", arguments={}))
    received = only(events, RequestReceived)
    assert received.revision == MODERN
    assert received.client.info.name == "c" and received.client.log_level == "error"
    assert not s.log_wanted("warning", received.client) and s.log_wanted("error", received.client)
    s.send_response(4, CallToolResult(content=[]))
    assert wire(s) == [
        {
            "jsonrpc": "2.0",
            "id": 4,
            "result": {
                "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "s", "version": "1"}},
                "resultType": "complete",
                "content": [],
            },
        }
    ]
    assert s.state is SessionState.NEW  # no handshake happened, none is needed


def test_cacheable_results_always_carry_ttl_and_scope() -> None:
    # 2026-07-28 schema.json CacheableResult requires ttlMs and cacheScope
    # (server/utilities/caching.mdx: servers MUST provide ttlMs); what a handler
    # leaves out comes from the config, what it sets is kept.
    s = server(
        server_info_in_results=False,
        result_ttl_ms=5,
        result_cache_scope="public",
        capabilities=ServerCapabilities(tools={}, resources=ResourcesCapability()),
    )
    feed(s, request("tools/list", id=1))
    s.send_response(1, ListToolsResult(tools=[]))
    feed(s, request("tools/list", id=2))
    s.send_response(2, ListToolsResult(tools=[], ttl_ms=60_000))
    feed(s, request("tools/list", id=3))
    s.send_response(3, {"tools": [], "cacheScope": "private"})
    feed(s, request("tools/call", id=4, name="echo", arguments={}))
    s.send_response(4, {"content": []})
    feed(s, request("resources/read", id=5, uri="a://b"))
    s.send_response(5, {"resultType": "input_required", "requestState": "x"})
    assert [m["result"] for m in wire(s)] == [
        {"resultType": "complete", "ttlMs": 5, "cacheScope": "public", "tools": []},
        {"resultType": "complete", "ttlMs": 60_000, "cacheScope": "public", "tools": []},
        {"tools": [], "cacheScope": "private", "ttlMs": 5, "resultType": "complete"},
        {"content": [], "resultType": "complete"},  # not a cacheable result
        {"resultType": "input_required", "requestState": "x"},  # nor is this
    ]


def test_unsupported_version_lists_what_is_supported() -> None:
    s = server()
    meta = dict(META, **{"io.modelcontextprotocol/protocolVersion": "1900-01-01"})
    events = feed(s, request("tools/list", meta=meta))
    assert only(events, ProtocolViolation).code == -32022
    assert wire(s) == [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "error": {
                "code": -32022,
                "message": "Unsupported protocol version",
                "data": {
                    "supported": [
                        "2026-07-28",
                        "2025-11-25",
                        "2025-06-18",
                        "2025-03-26",
                        "2024-11-05",
                    ],
                    "requested": "1900-01-01",
                },
            },
        }
    ]


@pytest.mark.parametrize(
    ("meta", "code"),
    [
        ({"io.modelcontextprotocol/protocolVersion": MODERN}, -32602),  # no clientCapabilities
        ({"io.modelcontextprotocol/clientCapabilities": {}}, -32602),  # no version
        (None, -32602),
        (dict(META, **{"io.modelcontextprotocol/clientCapabilities": 5}), -32602),
        (dict(META, **{"io.modelcontextprotocol/logLevel": "loud"}), -32602),
    ],
)
def test_malformed_envelope_is_invalid_params(meta: Any, code: int) -> None:
    s = server()
    feed(s, request("tools/list", meta=meta))
    assert wire(s)[0]["error"]["code"] == code


def test_legacy_only_methods_do_not_exist_in_the_modern_era() -> None:
    s = server(capabilities=ServerCapabilities(tools={}, logging={}))
    for method in ("ping", "logging/setLevel"):
        feed(s, request(method))
        assert wire(s)[0]["error"]["code"] == -32601


def test_servers_do_not_send_requests_in_the_modern_era() -> None:
    s = server()
    with pytest.raises(LocalProtocolError):
        s.send_request("roots/list")


# --- era detection --------------------------------------------------------------------------


def test_dual_era_pair_goes_modern() -> None:
    pair = SessionPair()
    client_events, server_events = pair.open()
    completed = only(client_events, HandshakeCompleted)
    assert completed.revision == MODERN and completed.peer_info.name == "test-server"
    assert server_events == [] and pair.client.era == "modern"
    assert len(pair.wire) == 2  # one discover, one answer


def test_dual_era_client_falls_back_against_a_legacy_only_server() -> None:
    legacy_server = ServerSession(
        ServerConfig(
            server_info=Implementation(name="old", version="1"),
            capabilities=ServerCapabilities(tools={}),
            revisions=LEGACY_REVISIONS,
        )
    )
    pair = SessionPair(server=legacy_server)
    client_events, server_events = pair.open()
    assert only(server_events, HandshakeCompleted).revision == "2025-11-25"
    assert only(client_events, HandshakeCompleted).revision == "2025-11-25"
    assert pair.client.era == "legacy"
    assert [json.loads(b).get("method") for d, b in pair.wire if d == "c->s"] == [
        "server/discover",
        "initialize",
        "notifications/initialized",
    ]


@pytest.mark.parametrize(
    "error",
    [
        {"code": -32601, "message": "Method not found"},
        {"code": -32600, "message": "Server not initialized"},
        {"code": -32000, "message": "whatever"},
    ],
)
def test_probe_any_other_error_means_legacy(error: dict[str, Any]) -> None:
    client = ClientSession(ClientConfig(client_info=Implementation(name="c", version="0")))
    probe = client.start()
    assert wire(client)[0]["method"] == "server/discover"
    assert feed(client, {"jsonrpc": "2.0", "id": probe, "error": error}) == []
    assert wire(client)[0]["method"] == "initialize"


def test_probe_unsupported_version_retries_with_a_shared_modern_version() -> None:
    client = ClientSession(
        ClientConfig(client_info=Implementation(name="c", version="0"), revisions=(MODERN,))
    )
    probe = client.start()
    wire(client)
    error = {
        "code": -32022,
        "message": "Unsupported protocol version",
        "data": {"supported": ["2026-07-28"], "requested": "x"},
    }
    assert feed(client, {"jsonrpc": "2.0", "id": probe, "error": error}) == []
    again = wire(client)[0]
    assert again["method"] == "server/discover"
    assert again["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] == MODERN
    # Nothing in common: a modern-only client gives up.
    error["data"] = {"supported": ["2099-01-01"]}
    events = feed(client, {"jsonrpc": "2.0", "id": again["id"], "error": error})
    assert only(events, ProtocolViolation).code == -32022
    assert client.state is SessionState.ERROR


def test_silent_legacy_server_probe_times_out_into_initialize() -> None:
    client = ClientSession(ClientConfig(client_info=Implementation(name="c", version="0")))
    client.start(now=0.0, timeout=2.0)
    wire(client)
    assert client.handle_timeouts(1.0) == []
    assert client.handle_timeouts(2.0) == []  # not reported: it falls back instead
    sent = wire(client)
    assert [m.get("method") for m in sent] == ["notifications/cancelled", "initialize"]


def test_modern_requests_carry_the_envelope() -> None:
    pair = SessionPair()
    pair.open()
    pair.client.send_request("tools/call", CallToolRequestParams(name="x", arguments={}))
    _, server_events = pair.flush()
    received = only(server_events, RequestReceived)
    meta = received.params.meta
    assert meta["io.modelcontextprotocol/protocolVersion"] == MODERN
    assert meta["io.modelcontextprotocol/clientInfo"] == {"name": "test-client", "version": "1"}
    pair.client.set_log_level("warning")
    pair.client.send_request("tools/list")
    _, server_events = pair.flush()
    assert only(server_events, RequestReceived).client.log_level == "warning"


# --- progress -------------------------------------------------------------------------------


@pytest.mark.parametrize("token", [3, "job-3"])
def test_progress_tokens_of_both_types_from_the_peer(token: Any) -> None:
    # 2026-07-28 basic/patterns/progress.mdx: a token is a string or an integer.
    s = server()
    meta = dict(META, progressToken=token)
    events = feed(s, request("tools/call", id=9, meta=meta, name="echo", arguments={}))
    assert only(events, RequestReceived).progress_token == token
    assert s.send_progress(9, 1, 4)
    assert s.send_progress(9, 2.5)
    assert [m["params"] for m in wire(s)] == [
        {"progressToken": token, "progress": 1, "total": 4},
        {"progressToken": token, "progress": 2.5},
    ]
    s.send_response(9, CallToolResult(content=[]))
    assert wire(s)[0]["id"] == 9
    with pytest.raises(LocalProtocolError):
        s.send_progress(9, 3)


def test_progress_reaches_a_modern_client() -> None:
    pair = SessionPair()
    pair.open()
    request_id = pair.client.send_request(
        "tools/call", CallToolRequestParams(name="x", arguments={}), progress=True
    )
    _, server_events = pair.flush()
    received = only(server_events, RequestReceived)
    assert received.progress_token == request_id
    pair.server.send_progress(received.id, 1)
    client_events, _ = pair.flush()
    assert only(client_events, ProgressReceived).progress_token == request_id


# --- results --------------------------------------------------------------------------------


def ready_modern_client() -> ClientSession:
    client = ClientSession(
        ClientConfig(client_info=Implementation(name="c", version="0"), revisions=(MODERN,))
    )
    probe = client.start()
    wire(client)
    feed(
        client,
        {
            "jsonrpc": "2.0",
            "id": probe,
            "result": {
                "supportedVersions": [MODERN],
                "capabilities": {"tools": {}},
                "ttlMs": 0,
                "cacheScope": "public",
            },
        },
    )
    assert client.state is SessionState.READY
    return client


def test_absent_result_type_means_complete() -> None:
    client = ready_modern_client()
    rid = client.send_request("tools/call", {"name": "x"})
    events = feed(client, {"jsonrpc": "2.0", "id": rid, "result": {"content": []}})
    assert only(events, ResponseReceived).result == CallToolResult(content=[])


def test_input_required_result() -> None:
    client = ready_modern_client()
    rid = client.send_request("tools/call", {"name": "x"})
    result = {
        "resultType": "input_required",
        "inputRequests": {
            "1": {
                "method": "elicitation/create",
                "params": {
                    "message": "name?",
                    "requestedSchema": {"type": "object", "properties": {}},
                },
            }
        },
        "requestState": "opaque",
    }
    events = feed(client, {"jsonrpc": "2.0", "id": rid, "result": result})
    required = only(events, InputRequired)
    assert required.id == rid and required.result.request_state == "opaque"


def test_malformed_input_required_fails_the_request() -> None:
    client = ready_modern_client()
    rid = client.send_request("tools/call", {"name": "x"})
    bad = {"resultType": "input_required", "inputRequests": {"1": {"method": 5}}}
    events = feed(client, {"jsonrpc": "2.0", "id": rid, "result": bad})
    assert only(events, ErrorReceived).local and client.pending_requests == 0


def test_unknown_result_type_is_invalid() -> None:
    client = ready_modern_client()
    rid = client.send_request("tools/list")
    events = feed(
        client, {"jsonrpc": "2.0", "id": rid, "result": {"resultType": "maybe", "tools": []}}
    )
    assert only(events, ErrorReceived).local
    assert only(events, ProtocolViolation).id == rid


# --- subscriptions/listen -------------------------------------------------------------------


def subscribing_server() -> ServerSession:
    caps = ServerCapabilities(
        tools=ListChangedCapability(list_changed=True),
        resources=ResourcesCapability(subscribe=True),
    )
    return server(capabilities=caps)


def test_listen_acknowledges_first_and_tags_everything() -> None:
    s = subscribing_server()
    events = feed(
        s,
        request(
            "subscriptions/listen",
            id=7,
            notifications={
                "toolsListChanged": True,
                "promptsListChanged": True,
                "resourceSubscriptions": ["file:///a"],
            },
        ),
    )
    assert events == []
    assert wire(s) == [
        {
            "jsonrpc": "2.0",
            "method": "notifications/subscriptions/acknowledged",
            "params": {
                "_meta": {"io.modelcontextprotocol/subscriptionId": 7},
                # prompts are not offered, so not acknowledged
                "notifications": {"toolsListChanged": True, "resourceSubscriptions": ["file:///a"]},
            },
        }
    ]
    assert s.publish("notifications/tools/list_changed") == 1
    assert s.publish("notifications/prompts/list_changed") == 0
    assert s.publish("notifications/resources/updated", {"uri": "file:///b"}) == 0
    assert s.publish("notifications/resources/updated", {"uri": "file:///a"}) == 1
    assert wire(s) == [
        {
            "jsonrpc": "2.0",
            "method": "notifications/tools/list_changed",
            "params": {"_meta": {"io.modelcontextprotocol/subscriptionId": 7}},
        },
        {
            "jsonrpc": "2.0",
            "method": "notifications/resources/updated",
            "params": {"uri": "file:///a", "_meta": {"io.modelcontextprotocol/subscriptionId": 7}},
        },
    ]


def test_two_subscriptions_cancel_one_close_the_other_gracefully() -> None:
    s = subscribing_server()
    feed(s, request("subscriptions/listen", id=1, notifications={"toolsListChanged": True}))
    feed(s, request("subscriptions/listen", id=2, notifications={"toolsListChanged": True}))
    wire(s)
    assert s.publish("notifications/tools/list_changed") == 2
    wire(s)
    cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}
    assert feed(s, cancel) == []
    assert s.publish("notifications/tools/list_changed") == 1
    wire(s)
    s.end_subscriptions()
    assert wire(s) == [
        {
            "jsonrpc": "2.0",
            "id": 2,
            "result": {
                "resultType": "complete",
                "_meta": {"io.modelcontextprotocol/subscriptionId": 2},
            },
        }
    ]
    assert s.subscriptions == {} and s.requests_in_flight == 0


def test_client_sees_tagged_notifications() -> None:
    caps = ServerCapabilities(tools=ListChangedCapability(list_changed=True))
    s = ServerSession(
        ServerConfig(server_info=Implementation(name="s", version="1"), capabilities=caps)
    )
    pair = SessionPair(server=s)
    pair.open()
    listen = pair.client.send_request(
        "subscriptions/listen", {"notifications": {"toolsListChanged": True}}
    )
    client_events, _ = pair.flush()
    ack = only(client_events, NotificationReceived)
    assert ack.method == "notifications/subscriptions/acknowledged"
    assert ack.params.meta == {"io.modelcontextprotocol/subscriptionId": listen}
    pair.server.publish("notifications/tools/list_changed")
    client_events, _ = pair.flush()
    assert only(client_events, NotificationReceived).params.meta == {
        "io.modelcontextprotocol/subscriptionId": listen
    }


# --- the client read from _meta, request after request ---------------------------------------


def test_client_from_meta_follows_every_change() -> None:
    s = server()

    def client_of(capabilities: Any, info: Any = META["io.modelcontextprotocol/clientInfo"]) -> Any:
        meta = dict(META)
        meta["io.modelcontextprotocol/clientCapabilities"] = capabilities
        meta["io.modelcontextprotocol/clientInfo"] = info
        events = feed(s, request("tools/list", id=1, meta=meta))
        s.messages_to_send()
        if s.requests_in_flight:
            s.send_response(1, {"tools": []})
            s.messages_to_send()
            return only(events, RequestReceived).client
        return only(events, ProtocolViolation)

    roots = {"roots": {"listChanged": True}}
    assert client_of(roots).capabilities.roots.list_changed is True
    assert client_of(roots).capabilities.roots.list_changed is True  # the same again
    # Equal under == but not the same JSON: 1 is not a boolean.
    assert client_of({"roots": {"listChanged": 1}}).code == -32602
    assert client_of({}).capabilities.roots is msgspec.UNSET
    assert client_of({}, {"name": "other", "version": "2"}).info.name == "other"
    assert client_of({}, None).info is None
    huge = {"experimental": {"x": {"n": 2**70}}}  # past what msgpack writes
    assert client_of(huge).capabilities.experimental == huge["experimental"]
    assert client_of(huge).capabilities.experimental == huge["experimental"]


def test_client_from_meta_in_memory_follows_every_change() -> None:
    s = server()

    def client_of(capabilities: Any) -> Any:
        meta = dict(META)
        meta["io.modelcontextprotocol/clientCapabilities"] = capabilities
        params = CallToolRequestParams(name="echo", arguments={}, meta=meta)
        events = s.receive_message(Request(id=1, method="tools/call", params=params))
        if s.requests_in_flight:
            s.send_response(1, CallToolResult(content=[]))
            s.messages_to_send()
            return only(events, RequestReceived).client
        return only(events, ProtocolViolation)

    plain, with_roots = ClientCapabilities(), ClientCapabilities(roots=ListChangedCapability())
    assert client_of(plain).capabilities is plain
    assert client_of(plain).capabilities is plain
    assert client_of(with_roots).capabilities is with_roots
    # A dict is converted every time: what it holds now is what counts.
    roots: dict[str, Any] = {"roots": {"listChanged": True}}
    assert client_of(roots).capabilities.roots.list_changed is True
    roots["roots"]["listChanged"] = "yes"
    assert client_of(roots).code == -32602


def test_modern_server_checks_capabilities_again_under_a_new_config() -> None:
    s = server()
    events = feed(s, request("tools/list", id=1))
    assert isinstance(only(events, RequestReceived), RequestReceived)
    s.config = msgspec.structs.replace(s.config, capabilities=ServerCapabilities())
    assert only(feed(s, request("tools/list", id=2)), ProtocolViolation).code == -32601


def test_sessions_share_gate_decisions_only_with_sessions_of_their_config() -> None:
    # _gate's decisions are shared by the sessions of one config (a 2026-07-28
    # HTTP request has a session of its own): one session's acceptance must not
    # let a method through on a session whose config does not offer it, and back.
    with_tools = server()
    without = server(capabilities=ServerCapabilities())
    assert isinstance(
        only(feed(with_tools, request("tools/list")), RequestReceived), RequestReceived
    )
    assert only(feed(without, request("tools/list")), ProtocolViolation).code == -32601
    again = ServerSession(with_tools.config)
    assert isinstance(only(feed(again, request("tools/list")), RequestReceived), RequestReceived)
    assert only(feed(without, request("tools/list", id=2)), ProtocolViolation).code == -32601
    last = ServerSession(without.config)
    assert only(feed(last, request("tools/list")), ProtocolViolation).code == -32601
