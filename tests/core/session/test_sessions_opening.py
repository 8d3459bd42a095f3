"""Hypothesis drives a client and a server from nothing: the opening in either era
(server/discover probe, initialize fallback), lifecycle messages out of order, pings
both ways, server-to-client requests, calls, cancellation, multi round-trip retries,
junk, and broken channels.

Whatever happens, only documented things come out: events of the documented kinds,
LocalProtocolError from the API, RemoteProtocolError only from a session in ERROR,
states the lifecycle table allows, ERROR only for a documented reason and never
left, and when both sides are open they agree on the era and revision. Every request
the client sends ends at most once.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import event as event_
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule
from msgspec import UNSET

from mcp_core import REVISIONS, LocalProtocolError, RemoteProtocolError
from mcp_core.session.base import BaseSession, SessionState
from mcp_core.session.client import ClientConfig, ClientSession
from mcp_core.session.events import (
    ErrorReceived,
    HandshakeCompleted,
    InputRequired,
    NotificationReceived,
    ProgressReceived,
    ProtocolViolation,
    RequestCancelled,
    RequestReceived,
    RequestTimedOut,
    ResponseReceived,
)
from mcp_core.session.server import ServerConfig, ServerSession
from mcp_core.types import LEGACY_REVISIONS
from mcp_core.types.base import (
    ClientCapabilities,
    Implementation,
    RootsCapability,
    ServerCapabilities,
)
from mcp_core.types.server import CallToolRequestParams
from mcp_core.wire import encode_message

NEW, INITIALIZING, READY, CLOSED, ERROR = (
    SessionState.NEW,
    SessionState.INITIALIZING,
    SessionState.READY,
    SessionState.CLOSED,
    SessionState.ERROR,
)
MODERN = "2026-07-28"
DOCUMENTED = (
    ErrorReceived,
    HandshakeCompleted,
    InputRequired,
    NotificationReceived,
    ProgressReceived,
    ProtocolViolation,
    RequestCancelled,
    RequestReceived,
    RequestTimedOut,
    ResponseReceived,
)
# Why a client may break by itself (the rest are our own send_failed/receive_failed).
CLIENT_BREAKS = (
    "server chose protocol version",
    "the server refused initialize",
    "invalid initialize result",
    "no protocol version in common",
    "server/discover failed",
)
CHANNEL = "the channel broke"

CLIENT_REVISIONS = st.sampled_from(
    [REVISIONS, ("2025-11-25",), ("2025-06-18",), (MODERN,), ("2025-03-26", MODERN)]
)
SERVER_REVISIONS = st.sampled_from([REVISIONS, LEGACY_REVISIONS, ("2025-11-25",), (MODERN,)])


def _initialize(request_id: int, version: str) -> bytes:
    params = {
        "protocolVersion": version,
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"},
    }
    return json.dumps(
        {"jsonrpc": "2.0", "id": request_id, "method": "initialize", "params": params}
    ).encode()


# Lifecycle messages out of order, sent to the server as a misbehaving client would.
OUT_OF_ORDER = st.sampled_from(
    [
        b'{"jsonrpc":"2.0","id":801,"method":"tools/list"}',  # before initialize
        _initialize(802, "2025-11-25"),  # first, second or third initialize
        _initialize(803, "1999-01-01"),  # a version nobody speaks
        b'{"jsonrpc":"2.0","method":"notifications/initialized"}',  # again, or stray
        b'{"jsonrpc":"2.0","id":804,"method":"ping"}',
        b'{"jsonrpc":"2.0","id":805,"method":"server/discover","params":{"_meta":'
        b'{"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
        b'"io.modelcontextprotocol/clientCapabilities":{}}}}',
        b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":802}}',
    ]
)
JUNK = st.one_of(
    st.binary(max_size=30),
    st.sampled_from(
        [
            b'{"jsonrpc":"2.0","id":1,"result":{}}',
            b'{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"no"}}',
            b'{"jsonrpc":"2.0","id":9,"method":"roots/list"}',
            b'{"jsonrpc":"2.0","method":"notifications/progress","params":'
            b'{"progressToken":"x","progress":1}}',
            b"[]",
        ]
    ),
)


# Disruptions are drawn now and then (a rule that draws False does nothing), so that
# runs get far enough to open, call and retry before something breaks them.
RARELY = st.integers(0, 5).map(lambda n: n == 0)
SOMETIMES = st.integers(0, 2).map(lambda n: n == 0)


class OpeningMachine(RuleBasedStateMachine):
    #: (client revisions, server revisions) to use instead of drawing them.
    pair: tuple[tuple[str, ...], tuple[str, ...]] | None = None

    def __init__(self) -> None:
        super().__init__()
        self.now = 0.0
        self.started = False
        self.broken: set[str] = set()  # roles whose channel we broke ourselves
        self.outstanding: dict[Any, str] = {}  # client request id -> method
        self.ended: set[Any] = set()
        self.server_inflight: list[RequestReceived] = []
        self.client_inflight: list[RequestReceived] = []
        self.seen: dict[str, list[SessionState]] = {"client": [], "server": []}
        self.tampered = False  # a message not from the other session was injected
        self.input_required: list[InputRequired] = []
        self.retried = 0  # retries that reached the server with their requestState

    @initialize(
        client_revisions=CLIENT_REVISIONS,
        server_revisions=SERVER_REVISIONS,
        open_at_once=st.booleans(),
    )
    def setup(
        self,
        client_revisions: tuple[str, ...],
        server_revisions: tuple[str, ...],
        open_at_once: bool,
    ) -> None:
        if self.pair is not None:
            client_revisions, server_revisions = self.pair
        self.client = ClientSession(
            ClientConfig(
                client_info=Implementation(name="c", version="1"),
                capabilities=ClientCapabilities(roots=RootsCapability()),
                revisions=client_revisions,
            )
        )
        self.server = ServerSession(
            ServerConfig(
                server_info=Implementation(name="s", version="1"),
                capabilities=ServerCapabilities(tools={}),
                revisions=server_revisions,
            )
        )
        if open_at_once:  # half the runs start from an opening that went its way
            self.client_starts(timeout=None)
            self.move_messages()

    # --- moving messages -----------------------------------------------------------------

    def _deliver(self, target: BaseSession, data: bytes) -> list[Any]:
        # A session in ERROR raises, and queues nothing (a driver would close).
        if target.state is ERROR:
            try:
                target.receive_bytes(data, self.now)
            except RemoteProtocolError as exc:
                assert "the session is broken" in exc.message
                assert target.messages_to_send() == []
                return []
            raise AssertionError("a broken session took a message")
        events = target.receive_bytes(data, self.now)
        for event in events:
            assert isinstance(event, DOCUMENTED), event
        return events

    def _client_events(self, events: list[Any]) -> None:
        for event in events:
            ends = isinstance(event, ResponseReceived | ErrorReceived | RequestTimedOut)
            if (ends or isinstance(event, InputRequired)) and event.id in self.outstanding:
                del self.outstanding[event.id]
                assert event.id not in self.ended, "a request ended twice"
                self.ended.add(event.id)
            if isinstance(event, RequestReceived):
                self.client_inflight.append(event)
            if isinstance(event, InputRequired):
                self.input_required.append(event)

    def _server_events(self, events: list[Any]) -> None:
        for event in events:
            if isinstance(event, RequestReceived):
                self.server_inflight.append(event)
                if getattr(event.params, "request_state", None) == "opaque":
                    self.retried += 1
                    event_("a multi round-trip retry reached the server")
            if isinstance(event, RequestCancelled):
                self.server_inflight = [r for r in self.server_inflight if r.id != event.id]

    @rule()
    def move_messages(self) -> None:
        for _ in range(20):  # both ways until quiet; the opening takes a few rounds
            to_server = self.client.messages_to_send()
            to_client = self.server.messages_to_send()
            if not to_server and not to_client:
                return
            for message in to_server:
                self._server_events(self._deliver(self.server, encode_message(message)))
            for message in to_client:
                self._client_events(self._deliver(self.client, encode_message(message)))

    # --- the opening ---------------------------------------------------------------------

    @precondition(lambda self: not self.started)
    @rule(timeout=st.none() | st.floats(0.5, 5))
    def client_starts(self, timeout: float | None) -> None:
        self.started = True
        try:
            request_id = self.client.start(now=self.now, timeout=timeout)
        except LocalProtocolError:
            assert self.client.state is not NEW  # opened by hand, closed or broken
            return
        self.outstanding[request_id] = "opening"

    @rule(now=RARELY)
    def client_initializes_by_hand(self, now: bool) -> None:
        if not now:
            return
        try:
            request_id = self.client.initialize(now=self.now)
        except LocalProtocolError:
            return  # not NEW, or no legacy revision: documented
        self.outstanding[request_id] = "initialize"

    @rule(data=OUT_OF_ORDER, now=SOMETIMES)
    def out_of_order_to_server(self, data: bytes, now: bool) -> None:
        if not now:
            return
        self.tampered = True
        self._server_events(self._deliver(self.server, data))
        for message in self.server.messages_to_send():
            reply = json.loads(encode_message(message))
            assert reply["jsonrpc"] == "2.0"  # an answer the core gave on its own

    @precondition(
        lambda self: any(p.method == "initialize" for p in self.client._requests.pending.values())
    )
    @rule(version=st.sampled_from(["1999-01-01", "2025-11-25", "2024-11-05"]), now=SOMETIMES)
    def a_server_answers_initialize_with(self, version: str, now: bool) -> None:
        if not now:
            return
        # A server (not ours) that picks a version: the client speaks it or breaks.
        self.tampered = True
        request_id = next(
            k for k, v in self.client._requests.pending.items() if v.method == "initialize"
        )
        result = {
            "protocolVersion": version,
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "other", "version": "1"},
        }
        data = json.dumps({"jsonrpc": "2.0", "id": request_id, "result": result}).encode()
        self._client_events(self._deliver(self.client, data))

    @rule(delta=st.floats(0, 3))
    def time_passes(self, delta: float) -> None:
        self.now += delta
        events = self.client.handle_timeouts(self.now)
        for event in events:
            assert isinstance(event, RequestTimedOut)
        self._client_events(events)

    # --- operation -------------------------------------------------------------------------

    @rule(progress=st.booleans())
    def client_calls(self, progress: bool) -> None:
        params = CallToolRequestParams(name="echo", arguments={})
        try:
            request_id = self.client.send_request(
                "tools/call", params, now=self.now, progress=progress
            )
        except LocalProtocolError:
            return  # not ready, or the server did not declare tools
        assert self.client.state is READY
        assert request_id not in self.outstanding and request_id not in self.ended
        self.outstanding[request_id] = "tools/call"

    @rule(to_server=st.booleans())
    def ping(self, to_server: bool) -> None:
        sender: Any = self.client if to_server else self.server
        try:
            request_id = sender.send_request("ping", now=self.now)
        except LocalProtocolError:
            return  # the lifecycle's refusal (or a closed/broken session)
        if to_server:
            self.outstanding[request_id] = "ping"

    @rule()
    def server_asks_for_roots(self) -> None:
        try:
            self.server.send_request("roots/list", now=self.now)
        except LocalProtocolError:
            # Refused before READY (the lifecycle), or to a client that did not
            # declare roots (a raw initialize of OUT_OF_ORDER declares nothing).
            client = self.server.client
            declared = client is not None and client.capabilities.roots is not UNSET
            assert self.server.state is not READY or not declared
            return
        assert self.server.state is READY  # 2025-11-25 lifecycle: only ping before

    @precondition(lambda self: self.server_inflight)
    @rule(data=st.data(), retry=st.booleans())
    def server_answers(self, data: st.DataObject, retry: bool) -> None:
        event = data.draw(st.sampled_from(self.server_inflight))
        self.server_inflight.remove(event)
        modern = event.revision == MODERN
        result: Any = {"content": []}
        if retry and modern:
            # 2026-07-28 multi round-trip: the client retries with the state.
            result = {"resultType": "input_required", "requestState": "opaque"}
        try:
            self.server.send_response(event.id, result)
        except LocalProtocolError:
            assert self.server.state in (CLOSED, ERROR)

    @precondition(lambda self: self.input_required)
    @rule()
    def client_retries(self) -> None:
        # 2026-07-28 basic/patterns/mrtr.mdx: a new request (new id) carrying the
        # requestState the server handed out.
        required = self.input_required.pop(0)
        params = CallToolRequestParams(
            name="echo", arguments={}, request_state=required.result.request_state
        )
        try:
            request_id = self.client.send_request("tools/call", params, now=self.now)
        except LocalProtocolError:
            assert self.client.state in (CLOSED, ERROR)
            return
        assert request_id != required.id
        self.outstanding[request_id] = "tools/call"

    @precondition(
        lambda self: (
            self.client.state is READY and self.client.era == "modern" and self.server.state is NEW
        )  # a stateless server, still open
    )
    @rule()
    def a_whole_multi_round_trip(self) -> None:
        # Call, input_required with a requestState, retry, complete: in one step, so
        # that every run that reaches a modern session goes through it at least once.
        before = self.retried
        self.client_calls(progress=False)
        self.move_messages()
        for event in list(self.server_inflight):
            if event.method == "tools/call" and event.revision == MODERN:
                self.server_inflight.remove(event)
                result = {"resultType": "input_required", "requestState": "opaque"}
                self.server.send_response(event.id, result)
        self.move_messages()
        while self.input_required:
            self.client_retries()
        self.move_messages()
        assert self.retried > before

    @precondition(lambda self: self.client_inflight)
    @rule()
    def client_answers(self) -> None:
        event = self.client_inflight.pop(0)
        try:
            self.client.send_response(event.id, {"roots": []})
        except LocalProtocolError:
            assert self.client.state in (CLOSED, ERROR)

    @precondition(lambda self: any(m == "tools/call" for m in self.outstanding.values()))
    @rule(data=st.data())
    def client_cancels(self, data: st.DataObject) -> None:
        calls = sorted(k for k, m in self.outstanding.items() if m == "tools/call")
        request_id = data.draw(st.sampled_from(calls))
        try:
            self.client.cancel_request(request_id, "changed my mind")
        except LocalProtocolError:
            assert self.client.state in (CLOSED, ERROR)
            return
        del self.outstanding[request_id]
        self.ended.add(request_id)

    @rule(data=JUNK, to_server=st.booleans(), now=RARELY)
    def junk_arrives(self, data: bytes, to_server: bool, now: bool) -> None:
        if not now:
            return
        self.tampered = True
        if to_server:
            self._server_events(self._deliver(self.server, data))
        else:
            self._client_events(self._deliver(self.client, data))

    @rule(to_server=st.booleans(), sending=st.booleans(), now=RARELY)
    def channel_breaks(self, to_server: bool, sending: bool, now: bool) -> None:
        if not now:
            return
        session: BaseSession = self.server if to_server else self.client
        was = session.state
        if sending:
            session.send_failed(CHANNEL)
        else:
            session.receive_failed(CHANNEL)
        if was in (NEW, INITIALIZING, READY):
            self.broken.add("server" if to_server else "client")
            assert session.state is ERROR and session.messages_to_send() == []
        else:
            assert session.state is was  # CLOSED and ERROR are sticky

    @rule(to_server=st.booleans(), now=RARELY)
    def close(self, to_server: bool, now: bool) -> None:
        if not now:
            return
        session: BaseSession = self.server if to_server else self.client
        was = session.state
        abandoned = session.close()
        assert session.state is (ERROR if was is ERROR else CLOSED)
        if not to_server:
            for request_id in abandoned:
                self.outstanding.pop(request_id, None)
                self.ended.add(request_id)

    # --- invariants ------------------------------------------------------------------------

    @invariant()
    def states_are_the_tables(self) -> None:
        for role, session in (("client", self.client), ("server", self.server)):
            history = self.seen[role]
            state = session.state
            era = getattr(session, "era", None) or ""
            event_(f"{role} {state.name} {era}".rstrip())
            if history and history[-1] in (CLOSED, ERROR):
                assert state is history[-1], f"{role} left {history[-1]}"
            history.append(state)
            if state is ERROR:
                reason = session.error_reason or ""
                assert (role in self.broken and reason == CHANNEL) or (
                    role == "client" and reason.startswith(CLIENT_BREAKS)
                ), reason
                assert session.messages_to_send() == []

    @invariant()
    def the_sides_agree(self) -> None:
        client, server = self.client, self.server
        if client.state in (READY, INITIALIZING) or client.era is not None:
            assert client.era in (None, "legacy", "modern")
        if client.state is READY:
            if client.era == "modern":
                assert client.revision == MODERN
            else:
                assert client.era == "legacy" and client.revision in LEGACY_REVISIONS
        if server.state in (INITIALIZING, READY):
            assert server.revision in LEGACY_REVISIONS and server.client is not None
        if not self.tampered and client.era == "legacy" and server.state is READY:
            # Only the messages of the two sessions went across: one handshake.
            assert client.state in (READY, CLOSED, ERROR)
            assert server.revision == client.revision
        if not self.tampered and client.era == "modern":
            assert server.state in (NEW, CLOSED, ERROR)  # stateless: no handshake

    @invariant()
    def every_request_ends_at_most_once(self) -> None:
        assert not (set(self.outstanding) & self.ended)


class DualEraMeetsDualEra(OpeningMachine):
    pair = (REVISIONS, REVISIONS)  # the probe finds a modern server


class DualEraMeetsLegacy(OpeningMachine):
    pair = (REVISIONS, LEGACY_REVISIONS)  # the probe fails, initialize follows


SETTINGS = settings(max_examples=150, stateful_step_count=50, deadline=None)
TestOpening = OpeningMachine.TestCase
TestOpening.settings = SETTINGS
TestDualEraMeetsDualEra = DualEraMeetsDualEra.TestCase
TestDualEraMeetsDualEra.settings = SETTINGS
TestDualEraMeetsLegacy = DualEraMeetsLegacy.TestCase
TestDualEraMeetsLegacy.settings = SETTINGS
