"""The lifecycle table, walked whole: every (role, state, kind) transitions as its row
says, or is missing for a documented reason and gets the documented refusal.

Each case builds a real session in the state (through messages, as a peer would),
then receives a message of the kind (bytes through the codec) or asks for the local
action, and checks the state after, the events, the reply, or the exception against
what the row's action documents.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import paths
import pytest
from helpers import SessionPair

from mcp_core import LocalProtocolError, RemoteProtocolError
from mcp_core.session.base import BaseSession, SessionState
from mcp_core.session.client import ClientConfig, ClientSession
from mcp_core.session.events import (
    HandshakeCompleted,
    NotificationReceived,
    ProtocolViolation,
    RequestReceived,
    ResponseReceived,
)
from mcp_core.session.lifecycle import (
    CLOSE,
    DISCOVER_RESPONSE,
    INITIALIZE_REQUEST,
    INITIALIZE_RESPONSE,
    INITIALIZED_NOTIFICATION,
    KINDS,
    LOCAL_KINDS,
    OTHER_NOTIFICATION,
    OTHER_REQUEST,
    OTHER_RESPONSE,
    PING_REQUEST,
    RECEIVE_FAILED,
    RECEIVED_KINDS,
    ROLES,
    SEND_DISCOVER,
    SEND_FAILED,
    SEND_INITIALIZE,
    SEND_NOTIFICATION,
    SEND_PING,
    SEND_REQUEST,
    SEND_RESPONSE,
    TABLE,
    UNREACHABLE,
    render,
)
from mcp_core.session.server import ServerConfig, ServerSession
from mcp_core.types.base import (
    ClientCapabilities,
    Implementation,
    RootsCapability,
    ServerCapabilities,
)
from mcp_core.wire import Notification, Request, encode_message

NEW, INITIALIZING, READY, CLOSED, ERROR = (
    SessionState.NEW,
    SessionState.INITIALIZING,
    SessionState.READY,
    SessionState.CLOSED,
    SessionState.ERROR,
)
LEGACY = "2025-11-25"
MODERN = "2026-07-28"
INFO = Implementation(name="t", version="1")
ROOTS = ClientCapabilities(roots=RootsCapability())


# --- sessions in every state ----------------------------------------------------------


def feed(session: BaseSession, obj: Any) -> list[Any]:
    return session.receive_bytes(json.dumps(obj).encode())


def wire(session: BaseSession) -> list[dict[str, Any]]:
    return [json.loads(encode_message(m)) for m in session.messages_to_send()]


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 900,
    "method": "initialize",
    "params": {
        "protocolVersion": LEGACY,
        "capabilities": {"roots": {}},
        "clientInfo": {"name": "c", "version": "0"},
    },
}


def server_in(state: SessionState, kind: str) -> ServerSession:
    session = ServerSession(
        ServerConfig(server_info=INFO, capabilities=ServerCapabilities(tools={}))
    )
    if state in (INITIALIZING, READY):
        feed(session, dict(INITIALIZE, id=1))
        if state is READY:
            feed(session, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    elif state is CLOSED:
        session.close()
    elif state is ERROR:
        session.send_failed("the pipe broke")
    wire(session)
    assert session.state is state
    return session


def client_in(state: SessionState, kind: str) -> ClientSession:
    if state is READY:
        # Legacy, so that the server can ask us things; modern to discover again.
        revisions = None if kind == SEND_DISCOVER else (LEGACY,)
        config = ClientConfig(client_info=INFO, capabilities=ROOTS)
        if revisions is not None:
            config = ClientConfig(client_info=INFO, capabilities=ROOTS, revisions=revisions)
        client = ClientSession(config)
        SessionPair(client=client).open()
    elif state is INITIALIZING:
        if kind == DISCOVER_RESPONSE:
            # The probe is out when our caller sends initialize itself.
            client = ClientSession(ClientConfig(client_info=INFO))
            client.start()
            client.initialize()
        else:
            client = ClientSession(ClientConfig(client_info=INFO, revisions=(LEGACY,)))
            client.start()
    else:
        client = ClientSession(ClientConfig(client_info=INFO))  # dual-era
        if kind != SEND_DISCOVER:
            client.start()  # the probe is out
        if state is CLOSED:
            client.close()
        elif state is ERROR:
            client.send_failed("the pipe broke")
    wire(client)
    assert client.state is state
    return client


def session_in(role: str, state: SessionState, kind: str) -> BaseSession:
    return server_in(state, kind) if role == "server" else client_in(state, kind)


# --- one message of each kind -----------------------------------------------------------


def pending_id(session: BaseSession, method: str) -> Any:
    # A dead session has nothing pending: any id does, it is never read.
    return next((rid for rid, p in session._requests.pending.items() if p.method == method), 778)


def message_of(role: str, kind: str, session: BaseSession) -> dict[str, Any]:
    if kind == INITIALIZE_REQUEST:
        return INITIALIZE
    if kind == PING_REQUEST:
        return {"jsonrpc": "2.0", "id": 901, "method": "ping"}
    if kind == OTHER_REQUEST:
        method = "tools/list" if role == "server" else "roots/list"
        return {"jsonrpc": "2.0", "id": 902, "method": method}
    if kind == INITIALIZED_NOTIFICATION:
        return {"jsonrpc": "2.0", "method": "notifications/initialized"}
    if kind == OTHER_NOTIFICATION:
        method = (
            "notifications/roots/list_changed"
            if role == "server"
            else "notifications/tools/list_changed"
        )
        return {"jsonrpc": "2.0", "method": method}
    if kind == INITIALIZE_RESPONSE:
        result = {
            "protocolVersion": LEGACY,
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "s", "version": "1"},
        }
        return {"jsonrpc": "2.0", "id": pending_id(session, "initialize"), "result": result}
    if kind == DISCOVER_RESPONSE:
        result = {
            "supportedVersions": [MODERN],
            "capabilities": {"tools": {}},
            "ttlMs": 0,
            "cacheScope": "private",
        }
        return {"jsonrpc": "2.0", "id": pending_id(session, "server/discover"), "result": result}
    assert kind == OTHER_RESPONSE
    return {"jsonrpc": "2.0", "id": 777, "result": {}}


# --- what each action documents ------------------------------------------------------------


def expect_received(action: str, kind: str, events: list[Any], replies: list[Any]) -> None:
    def reply_code() -> int:
        (reply,) = replies
        return int(reply["error"]["code"])

    if action == "answer_initialize":
        assert events == [] and replies[0]["result"]["protocolVersion"] == LEGACY
    elif action in ("answer_early_ping", "answer_ping"):
        assert events == [] and replies == [{"jsonrpc": "2.0", "id": 901, "result": {}}]
    elif action == "serve_stateless":
        # No 2026-07-28 envelope and no handshake: initialize must come first
        # (-32602 from a dual-era server, whose modern requests lack the field).
        assert reply_code() in (-32600, -32602)
        assert "send initialize first" in replies[0]["error"]["message"]
        assert isinstance(events[0], ProtocolViolation)
    elif action in ("ignore", "drop"):
        assert events == [] and replies == []
    elif action == "take_notification":
        assert replies == [] and all(isinstance(e, NotificationReceived) for e in events)
    elif action == "take_answer":
        kinds = [type(e) for e in events]
        assert replies == [] and kinds in ([], [ProtocolViolation], [ResponseReceived])
    elif action == "refuse_second_initialize":
        assert reply_code() == -32600 and isinstance(events[0], ProtocolViolation)
    elif action == "serve_legacy":
        if kind == PING_REQUEST:
            assert events == [] and replies[0]["result"] == {}
        else:
            assert isinstance(events[0], RequestReceived) and replies == []
    elif action == "complete_handshake":
        assert [type(e) for e in events] == [HandshakeCompleted] and replies == []
    elif action == "refuse_server_request":
        assert reply_code() == -32601 and isinstance(events[0], ProtocolViolation)
    elif action == "serve_server_request":
        if kind == INITIALIZE_REQUEST:
            assert reply_code() == -32601  # not a server request in any revision
        elif kind == PING_REQUEST:
            assert replies[0]["result"] == {}
        else:
            assert isinstance(events[0], RequestReceived)
    elif action == "detect_era":
        assert [type(e) for e in events] == [HandshakeCompleted] and replies == []
    elif action == "finish_handshake":
        assert [type(e) for e in events] == [HandshakeCompleted]
        assert replies == [{"jsonrpc": "2.0", "method": "notifications/initialized"}]
    else:  # pragma: no cover - a new action needs its expectation here
        raise AssertionError(f"no expectation for {action}")


# The message of each send refusal (the lifecycle's, not a payload check's).
REFUSALS = {
    "refuse_send_stateless": "servers send requests only in a legacy session",
    "refuse_send_before_initialized": "wait for notifications/initialized",
    "refuse_send_not_ready": "the session is not ready",
    "refuse_send_initialize_again": "initialize is only sent once",
    "refuse_send_closed": "the session is closed",
    "refuse_send_broken": "the session is broken",
}


def local_call(role: str, kind: str, session: Any) -> Callable[[], Any]:
    return {
        SEND_INITIALIZE: lambda: session.initialize(),
        SEND_DISCOVER: lambda: session.discover(),
        SEND_PING: lambda: session.send_request("ping"),
        SEND_REQUEST: lambda: session.send_request(
            "roots/list" if role == "server" else "tools/list"
        ),
        SEND_NOTIFICATION: lambda: session.send_notification("notifications/custom"),
        SEND_RESPONSE: lambda: session.send_response(12345, {}),
        SEND_FAILED: lambda: session.send_failed("boom"),
        RECEIVE_FAILED: lambda: session.receive_failed("boom"),
        CLOSE: lambda: session.close(),
    }[kind]


def expect_local(action: str, kind: str, session: BaseSession, call: Callable[[], Any]) -> None:
    reason = session.error_reason
    if action in REFUSALS:
        with pytest.raises(LocalProtocolError, match=REFUSALS[action]):
            call()
        assert session.messages_to_send() == []
    elif action == "allow":
        if kind == SEND_RESPONSE:
            # Allowed by the lifecycle; refused by the payload: nothing awaits it.
            with pytest.raises(LocalProtocolError, match="no request with id"):
                call()
        else:
            call()
            assert session.messages_to_send() != []
    elif action == "break_channel":
        call()
        assert session.error_reason == "boom" and session.messages_to_send() == []
    elif action == "ignore_channel":
        call()
        assert session.error_reason == reason  # the first reason stands
    elif action == "abandon_requests":
        call()
        assert session.pending_requests == 0 and session.requests_in_flight == 0
    else:  # pragma: no cover
        raise AssertionError(f"no expectation for {action}")


# --- the walk -------------------------------------------------------------------------------

ALL = [(role, state, kind) for role in ROLES for state in SessionState for kind in KINDS[role]]


@pytest.mark.parametrize(("role", "state", "kind"), ALL, ids=lambda v: getattr(v, "name", v))
def test_every_row(role: str, state: SessionState, kind: str) -> None:
    rule = TABLE.get((role, state, kind))
    if rule is None:
        assert (role, state, kind) in UNREACHABLE, "a missing row needs its reason"
        return
    session = session_in(role, state, kind)
    targets = rule.next if isinstance(rule.next, tuple) else (rule.next,)
    if kind in RECEIVED_KINDS[role]:
        data = json.dumps(message_of(role, kind, session)).encode()
        if rule.action == "raise_broken":
            with pytest.raises(RemoteProtocolError, match="the session is broken"):
                session.receive_bytes(data)
            assert session.messages_to_send() == []
        else:
            events = session.receive_bytes(data)
            expect_received(rule.action, kind, events, wire(session))
    else:
        expect_local(rule.action, kind, session, local_call(role, kind, session))
    assert session.state in targets, (session.state, targets)


@pytest.mark.parametrize(("role", "state", "kind"), sorted(UNREACHABLE, key=str))
def test_a_missing_row_is_refused_as_documented(role: str, state: SessionState, kind: str) -> None:
    # They cannot arise through the API, so the table's default is asked directly:
    # -32600, with the request's id for the error reply receive_* would queue.
    session = session_in(role, NEW, kind)
    session.state = state
    with pytest.raises(RemoteProtocolError) as caught:
        session._step(kind, Request(id=5, method="x"), 0.0)
    assert caught.value.code == -32600 and caught.value.request_id == 5
    assert f"a {kind} is not expected while the session is {state.value}" in str(caught.value)
    with pytest.raises(RemoteProtocolError) as caught:
        session._step(kind, Notification(method="x"), 0.0)
    assert caught.value.request_id is None  # never answered


def test_a_send_the_table_does_not_know_is_refused() -> None:
    session = server_in(READY, SEND_REQUEST)
    with pytest.raises(LocalProtocolError, match="cannot frobnicate while the session is ready"):
        session._local("frobnicate")


def test_rows_are_complete_except_the_unreachable() -> None:
    missing = {key for key in ALL if key not in TABLE}
    assert missing == set(UNREACHABLE)
    assert set(TABLE) <= set(ALL)
    # Local kinds are never missing: every send has an answer in every state.
    assert not any(kind in LOCAL_KINDS[role] for role, _, kind in missing)


def test_the_shortcuts_are_the_tables_rows() -> None:
    # The sessions skip the table on their hot paths; these are those rows.
    server, client = ServerSession._received_rules, ClientSession._received_rules
    assert server[READY][OTHER_REQUEST] == (ServerSession._serve_legacy, READY)
    assert server[NEW][OTHER_REQUEST] == (ServerSession._serve_stateless, NEW)
    assert server[READY][OTHER_NOTIFICATION] == (ServerSession._take_notification, READY)
    for kind in (INITIALIZE_REQUEST, PING_REQUEST, OTHER_REQUEST):
        assert client[READY][kind] == (ClientSession._serve_server_request, READY)
    assert client[READY][OTHER_NOTIFICATION] == (ClientSession._take_notification, READY)
    for rules in (server, client):
        assert rules[READY][OTHER_RESPONSE] == (BaseSession._take_answer, READY)
        for state in (CLOSED, ERROR):
            assert len({rule for rule in rules[state].values()}) == 1


def test_the_docs_page_is_generated_from_the_table() -> None:
    page = paths.ROOT / "docs" / "lifecycle.md"
    assert page.read_text() == render(), (
        "regenerate: python -c 'from mcp_core.session.lifecycle import render; "
        'print(render(), end="")\' > docs/lifecycle.md'
    )


def test_a_session_class_must_have_every_action() -> None:
    with pytest.raises(TypeError, match="lacks the lifecycle action"):

        class Incomplete(BaseSession):
            our_role = "server"
