"""Hypothesis drives a client/server pair through random legal and illegal sequences.

Whatever happens, only documented things come out: events of the documented kinds,
LocalProtocolError from misuse of the API, documented states, and replies that are
valid JSON-RPC. Every request the client sends ends exactly once: answered, failed,
cancelled or timed out.
"""

from __future__ import annotations

import contextlib
import json
from typing import Any

from helpers import SessionPair
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from mcp_core import LocalProtocolError
from mcp_core.session.base import SessionState
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
from mcp_core.types.content import TextContent
from mcp_core.types.server import CallToolRequestParams, CallToolResult
from mcp_core.wire import encode_message

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

junk_messages = st.one_of(
    st.binary(max_size=40),
    st.sampled_from(
        [
            b'{"jsonrpc":"2.0","id":1,"result":{}}',
            b'{"jsonrpc":"2.0","id":null,"error":{"code":-1,"message":"x"}}',
            b'{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":2,'
            b'"progress":1}}',
            b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}',
            b'{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":1}}',
            b'{"jsonrpc":"2.0","id":6,"method":"nope"}',
            b'{"jsonrpc":"2.0","id":true,"method":"ping"}',
            b"[]",
            b'[{"jsonrpc":"2.0","id":9,"method":"ping"}]',
            b'{"jsonrpc":"1.0"}',
        ]
    ),
)


class PairMachine(RuleBasedStateMachine):
    revisions: tuple[str, ...] | None = None

    def __init__(self) -> None:
        super().__init__()
        self.pair = SessionPair(revisions=self.revisions)
        self.pair.open()
        assert self.pair.client.state is SessionState.READY
        self.outstanding: set[Any] = set()  # client request ids not yet ended
        self.server_inflight: list[Any] = []
        self.ended: set[Any] = set()

    def _absorb(self, client_events: list[Any], server_events: list[Any]) -> None:
        for event in client_events + server_events:
            assert isinstance(event, DOCUMENTED), event
        for event in client_events:
            ends = isinstance(event, ResponseReceived | ErrorReceived | RequestTimedOut)
            if ends and event.id in self.outstanding:
                self.outstanding.discard(event.id)
                assert event.id not in self.ended
                self.ended.add(event.id)
        for event in server_events:
            if isinstance(event, RequestReceived):
                self.server_inflight.append(event.id)
            if isinstance(event, RequestCancelled) and event.id in self.server_inflight:
                self.server_inflight.remove(event.id)

    def flush(self) -> None:
        self._absorb(*self.pair.flush())

    @rule(progress=st.booleans(), timeout=st.none() | st.floats(0.1, 5))
    def client_calls(self, progress: bool, timeout: float | None) -> None:
        request_id = self.pair.client.send_request(
            "tools/call",
            CallToolRequestParams(name="echo", arguments={}),
            now=self.pair.now,
            timeout=timeout,
            progress=progress,
        )
        assert request_id not in self.outstanding and request_id not in self.ended
        self.outstanding.add(request_id)

    @rule()
    def move_messages(self) -> None:
        self.flush()

    @precondition(lambda self: self.server_inflight)
    @rule(data=st.data())
    def server_answers(self, data: st.DataObject) -> None:
        request_id = data.draw(st.sampled_from(self.server_inflight))
        self.server_inflight.remove(request_id)
        # Never raises: a request the peer cancelled is dropped quietly.
        self.pair.server.send_response(request_id, CallToolResult(content=[TextContent(text="ok")]))

    @precondition(lambda self: self.server_inflight)
    @rule(data=st.data(), value=st.floats(0, 100))
    def server_reports_progress(self, data: st.DataObject, value: float) -> None:
        request_id = data.draw(st.sampled_from(self.server_inflight))
        # Progress that does not increase is documented misuse.
        with contextlib.suppress(LocalProtocolError):
            self.pair.server.send_progress(request_id, value)

    @precondition(lambda self: self.outstanding)
    @rule(data=st.data())
    def client_cancels(self, data: st.DataObject) -> None:
        request_id = data.draw(st.sampled_from(sorted(self.outstanding)))
        self.pair.client.cancel_request(request_id)
        self.outstanding.discard(request_id)
        self.ended.add(request_id)

    @rule(delta=st.floats(0, 3))
    def time_passes(self, delta: float) -> None:
        self.pair.now += delta
        self._absorb(self.pair.client.handle_timeouts(self.pair.now), [])

    @rule(data=junk_messages, to_server=st.booleans())
    def junk_arrives(self, data: bytes, to_server: bool) -> None:
        target = self.pair.server if to_server else self.pair.client
        events = target.receive_bytes(data, self.pair.now)
        if to_server:
            self._absorb([], events)
        else:
            self._absorb(events, [])
        other = self.pair.client if to_server else self.pair.server
        for message in target.messages_to_send():
            # Whatever the core answers on its own is a valid message, and the
            # other side takes it like any other (its id may even match one of ours).
            data = encode_message(message)
            assert json.loads(data)["jsonrpc"] == "2.0"
            replies = other.receive_bytes(data, self.pair.now)
            if to_server:
                self._absorb(replies, [])
            else:
                self._absorb([], replies)

    @invariant()
    def states_are_documented(self) -> None:
        assert self.pair.client.state in (SessionState.READY,)
        assert self.pair.server.state in (SessionState.READY, SessionState.NEW)

    @invariant()
    def pending_matches_outstanding(self) -> None:
        assert set(self.pair.client._requests.pending) == self.outstanding


class LegacyPair(PairMachine):
    revisions = ("2025-11-25",)


class ModernPair(PairMachine):
    revisions = None  # dual-era client meets a dual-era server: modern


TestLegacyPair = LegacyPair.TestCase
TestLegacyPair.settings = settings(max_examples=60, stateful_step_count=30, deadline=None)
TestModernPair = ModernPair.TestCase
TestModernPair.settings = settings(max_examples=60, stateful_step_count=30, deadline=None)
