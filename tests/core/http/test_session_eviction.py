"""Who makes room at the sessions cap (HttpServerConfig.max_sessions): a
session in its handshake keeps its place for the handshake grace, and the
holder of the most sessions (principal, or address without one) loses one
first, so one address cannot end everyone else's sessions."""

from __future__ import annotations

from typing import Any

from mcp_core.http.decisions import Dispatch, HttpRequest, Reply
from mcp_core.http.server import HttpEndpoint, HttpServerConfig
from mcp_core.http.sessions import STANDALONE_STREAM
from mcp_core.session import SessionState

INITIALIZE = (
    b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",'
    b'"capabilities":{},"clientInfo":{"name":"c","version":"1"}}}'
)


class _Protocol:
    def __init__(self) -> None:
        self.revision = "2025-11-25"
        self.state: Any = SessionState.INITIALIZING
        self.requests_in_flight = 0


def head(address: str) -> HttpRequest:
    pairs = {
        "host": "127.0.0.1:8000",
        "accept": "application/json, text/event-stream",
        "content-type": "application/json",
    }
    return HttpRequest.from_pairs("POST", "/mcp", pairs.items(), client=address)


def initialize(endpoint: HttpEndpoint, now: float, address: str = "10.0.0.1") -> Reply | str:
    decision = endpoint.receive(head(address), INITIALIZE, now)
    if isinstance(decision, Reply):
        return decision
    assert isinstance(decision, Dispatch) and decision.session_id is not None
    endpoint.bind(decision.session_id, _Protocol())
    return decision.session_id


def ready(endpoint: HttpEndpoint, session_id: str, now: float) -> None:
    endpoint.sessions[session_id].protocol.state = SessionState.READY
    endpoint.sessions[session_id].last_seen = now


def test_newcomers_do_not_end_each_other_mid_handshake() -> None:
    # The cap is full of finished, idle sessions; newcomers arrive together: each
    # ends an idle one (the longest idle first), never another newcomer.
    endpoint = HttpEndpoint(HttpServerConfig(max_sessions=4))
    idle = []
    for n in range(4):
        sid = initialize(endpoint, float(n))
        assert isinstance(sid, str)
        ready(endpoint, sid, float(n))
        idle.append(sid)
    newcomers = [initialize(endpoint, 100.0 + n / 1000) for n in range(3)]
    assert all(isinstance(sid, str) for sid in newcomers)
    assert endpoint.take_evicted() == idle[:3]
    assert set(newcomers) < set(endpoint.sessions)


def test_a_handshake_in_its_grace_goes_only_when_nothing_else_can() -> None:
    endpoint = HttpEndpoint(HttpServerConfig(max_sessions=2, handshake_grace=5.0))
    first, second = initialize(endpoint, 0.0), initialize(endpoint, 1.0)
    # Both within their grace, no other session: the oldest makes room.
    third = initialize(endpoint, 2.0)
    assert isinstance(third, str) and endpoint.take_evicted() == [first]
    # Past its grace, a handshake goes before a finished idle session.
    assert isinstance(second, str)
    ready(endpoint, third, 3.0)
    fourth = initialize(endpoint, 6.0)
    assert isinstance(fourth, str) and endpoint.take_evicted() == [second]


def test_a_flood_from_one_address_ends_its_own_sessions_first() -> None:
    # 2025-11-25 basic/transports.mdx "Session Management": a session ends when
    # the server says so; a flood of full sessions must not end a victim's.
    endpoint = HttpEndpoint(HttpServerConfig(max_sessions=5))
    victim = initialize(endpoint, 0.0, address="10.0.0.9")
    assert isinstance(victim, str)
    ready(endpoint, victim, 0.0)  # idle longest of all
    for n in range(20):
        sid = initialize(endpoint, 1.0 + n)
        assert isinstance(sid, str)
        ready(endpoint, sid, 1.0 + n)
    assert victim in endpoint.sessions
    assert len(endpoint.sessions) == 5
    # Another address, holding fewer, makes room from the flood's sessions.
    other = initialize(endpoint, 30.0, address="10.0.0.8")
    assert isinstance(other, str) and victim in endpoint.sessions


def test_a_holder_of_busy_sessions_cannot_end_a_smaller_holders_idle_one() -> None:
    endpoint = HttpEndpoint(HttpServerConfig(max_sessions=3))
    victim = initialize(endpoint, 0.0, address="10.0.0.9")
    assert isinstance(victim, str)
    ready(endpoint, victim, 0.0)
    for n in range(2):
        sid = initialize(endpoint, 1.0 + n)
        assert isinstance(sid, str)
        ready(endpoint, sid, 1.0 + n)
        endpoint.attach(sid, STANDALONE_STREAM, 1.0 + n)  # a stream open: busy
    refused = initialize(endpoint, 5.0)
    assert isinstance(refused, Reply) and refused.status == 503
    assert victim in endpoint.sessions


def test_sessions_of_principals_are_held_by_principal() -> None:
    endpoint = HttpEndpoint(HttpServerConfig(max_sessions=3))
    mine = endpoint.receive(head("10.0.0.1"), INITIALIZE, 0.0, principal="alice")
    assert isinstance(mine, Dispatch) and mine.session_id is not None
    endpoint.bind(mine.session_id, _Protocol())
    ready(endpoint, mine.session_id, 0.0)
    # Bob, from the same address, holds more: his sessions go first.
    for n in range(4):
        decision = endpoint.receive(head("10.0.0.1"), INITIALIZE, 1.0 + n, principal="bob")
        assert isinstance(decision, Dispatch) and decision.session_id is not None
        endpoint.bind(decision.session_id, _Protocol())
        ready(endpoint, decision.session_id, 1.0 + n)
    assert mine.session_id in endpoint.sessions
