"""The streamable-HTTP rules at the message level: a request in, a decision out.

Each test cites the spec page whose rule it checks. 2025-11-25 means
2025-11-25 basic/transports.mdx "Streamable HTTP"; 2026-07-28 means 2026-07-28
basic/transports/streamable-http.mdx.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest

from mcp_core.http.decisions import Dispatch, EndSession, HttpRequest, OpenStream, Reply
from mcp_core.http.headers import (
    accepts,
    decode_header_value,
    header_param_paths,
    host_allowed,
    is_loopback,
    origin_allowed,
    param_matches,
)
from mcp_core.http.server import HttpEndpoint, HttpServerConfig
from mcp_core.http.sessions import STANDALONE_STREAM, MemoryEventStore
from mcp_core.session import SessionState
from mcp_core.wire import (
    HEADER_MISMATCH,
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    PARSE_ERROR,
    UNSUPPORTED_PROTOCOL_VERSION,
    ErrorObject,
    ErrorResponse,
    Response,
    SSEParser,
    http_status_for,
)

MODERN = "2026-07-28"
ACCEPT_BOTH = "application/json, text/event-stream"
META = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
}


def request(method: str = "POST", target: str = "/mcp", **headers: str) -> HttpRequest:
    base = {"host": "127.0.0.1:8000"}
    if method == "POST":
        base |= {"accept": ACCEPT_BOTH, "content-type": "application/json"}
    elif method == "GET":
        base["accept"] = "text/event-stream"
    base |= {k.replace("_", "-"): v for k, v in headers.items()}
    return HttpRequest.from_pairs(method, target, base.items())


def body(method: str | None = None, id: Any = 1, **params: Any) -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0"}
    if method is not None:
        message["method"] = method
    if id is not None:
        message["id"] = id
    if params:
        message["params"] = params
    return json.dumps(message).encode()


INITIALIZE = body(
    "initialize",
    protocolVersion="2025-11-25",
    capabilities={},
    clientInfo={"name": "t", "version": "1"},
)


def error_of(reply: Reply) -> dict[str, Any]:
    assert ("content-type", "application/json") in reply.headers
    error: dict[str, Any] = json.loads(reply.body)["error"]
    return error


def header(reply: Reply | Dispatch | OpenStream, name: str) -> str | None:
    headers = reply.headers
    return next((v for k, v in headers if k == name), None)


class _Protocol:
    """Stands in for the ServerSession the adapter binds (only its revision is read)."""

    def __init__(self, revision: str | None) -> None:
        self.revision = revision
        self.state = SessionState.INITIALIZING


def open_session(endpoint: HttpEndpoint, revision: str | None = "2025-11-25") -> str:
    decision = endpoint.receive(request(), INITIALIZE, now=0.0)
    assert isinstance(decision, Dispatch) and decision.created
    assert decision.session_id is not None
    endpoint.bind(decision.session_id, _Protocol(revision))
    return decision.session_id


# --- security: 2025-11-25 "Security Warning" ------------------------------------------------


def test_a_bad_origin_gets_403_with_a_json_rpc_error() -> None:
    # Item 1: a present and invalid Origin MUST get 403; the body MAY be a
    # JSON-RPC error without id.
    reply = HttpEndpoint().receive(request(origin="http://evil.example.com"), INITIALIZE, 0.0)
    assert isinstance(reply, Reply) and reply.status == 403
    assert json.loads(reply.body)["id"] is None


def test_loopback_origins_and_no_origin_pass() -> None:
    endpoint = HttpEndpoint()
    for origin in ("http://localhost:3000", "http://127.0.0.1:9", "https://[::1]"):
        decision = endpoint.receive(request(origin=origin), INITIALIZE, 0.0)
        assert isinstance(decision, Dispatch), origin
    assert isinstance(endpoint.receive(request(), INITIALIZE, 0.0), Dispatch)


def test_a_foreign_host_gets_421_on_a_loopback_bind() -> None:
    # DNS rebinding: the page's own name arrives as Host.
    reply = HttpEndpoint().receive(request(host="evil.example.com"), INITIALIZE, 0.0)
    assert isinstance(reply, Reply) and reply.status == 421
    anyhost = HttpEndpoint(HttpServerConfig(allowed_hosts=None))
    assert isinstance(anyhost.receive(request(host="mcp.example.com"), INITIALIZE, 0.0), Dispatch)


def test_origin_and_host_matching() -> None:
    assert origin_allowed(None, ())
    assert not origin_allowed("null", ("http://localhost:*",))
    assert origin_allowed("null", ("*",))
    assert origin_allowed("https://app.example.com", ("https://app.example.com",))
    assert not origin_allowed("http://app.example.com", ("https://app.example.com",))
    assert origin_allowed("http://a.test:81", ("http://a.test:*",))
    assert not origin_allowed("http://a.test:81", ("http://a.test:80",))
    assert host_allowed("[::1]:8000", ("[::1]",))
    assert not host_allowed(None, ("localhost",))
    assert host_allowed(None, None)
    assert is_loopback("127.0.0.1") and is_loopback("::1") and not is_loopback("0.0.0.0")


# --- request shape: 2025-11-25 "Sending Messages to the Server" ---------------------------


def test_other_paths_get_404_and_other_methods_405() -> None:
    endpoint = HttpEndpoint()
    reply = endpoint.receive(request(target="/other"), INITIALIZE, 0.0)
    assert isinstance(reply, Reply) and reply.status == 404
    reply = endpoint.receive(request("PUT"), b"", 0.0)
    assert isinstance(reply, Reply) and reply.status == 405
    assert header(reply, "allow") == "GET, POST, DELETE"
    # The query string does not change the path.
    assert isinstance(endpoint.receive(request(target="/mcp?x=1"), INITIALIZE, 0.0), Dispatch)


def test_post_needs_both_media_types_in_accept() -> None:
    # Item 2: the client MUST list both; wildcards cover them.
    endpoint = HttpEndpoint()
    reply = endpoint.receive(request(accept="application/json"), INITIALIZE, 0.0)
    assert isinstance(reply, Reply) and reply.status == 406
    assert isinstance(endpoint.receive(request(accept="*/*"), INITIALIZE, 0.0), Dispatch)
    assert accepts("text/*, application/json;q=0.5", "text/event-stream")
    assert not accepts("application/json;q=0, text/event-stream", "application/json")


def test_post_needs_a_json_body() -> None:
    reply = HttpEndpoint().receive(request(content_type="text/plain"), INITIALIZE, 0.0)
    assert isinstance(reply, Reply) and reply.status == 415
    ok = request(content_type="application/json; charset=utf-8")
    assert isinstance(HttpEndpoint().receive(ok, INITIALIZE, 0.0), Dispatch)


def test_a_large_body_gets_413_by_its_length_or_its_size() -> None:
    endpoint = HttpEndpoint(HttpServerConfig(max_body_bytes=100))
    refusal = endpoint.check_head(request(content_length="101"))
    assert refusal is not None and refusal.status == 413 and refusal.close
    reply = endpoint.receive(request(), b" " * 101, 0.0)
    assert isinstance(reply, Reply) and reply.status == 413


def test_unparseable_json_gets_400_and_a_parse_error() -> None:
    reply = HttpEndpoint().receive(request(), b"{nope", 0.0)
    assert isinstance(reply, Reply) and reply.status == 400
    assert error_of(reply)["code"] == PARSE_ERROR


# --- sessions: 2025-11-25 "Session Management" -----------------------------------------------


def test_initialize_mints_a_secure_visible_ascii_session_id() -> None:
    endpoint = HttpEndpoint()
    decision = endpoint.receive(request(), INITIALIZE, 0.0)
    assert isinstance(decision, Dispatch) and decision.created
    session_id = decision.session_id
    assert session_id is not None and len(session_id) >= 22  # >= 128 bits of base64
    assert all(0x21 <= ord(c) <= 0x7E for c in session_id)
    assert header(decision, "mcp-session-id") == session_id
    # Not yet negotiated: the answer waits to see whether it is JSON.
    assert not decision.sse and decision.request_id == 1
    other = endpoint.receive(request(), INITIALIZE, 0.0)
    assert isinstance(other, Dispatch) and other.session_id != session_id


def test_requests_without_a_session_id_get_400_and_unknown_ones_404() -> None:
    endpoint = HttpEndpoint()
    reply = endpoint.receive(request(), body("tools/list"), 0.0)
    assert isinstance(reply, Reply) and reply.status == 400
    reply = endpoint.receive(request(mcp_session_id="nope"), body("tools/list"), 0.0)
    assert isinstance(reply, Reply) and reply.status == 404


def test_notifications_and_responses_are_fed_then_answered_202() -> None:
    # "Sending Messages to the Server" item 4.
    endpoint = HttpEndpoint()
    sid = open_session(endpoint)
    for message in (body("notifications/initialized", id=None), body(None, id=1, **{})):
        if b"method" not in message:
            message = json.dumps({"jsonrpc": "2.0", "id": 7, "result": {}}).encode()
        decision = endpoint.receive(request(mcp_session_id=sid), message, 0.0)
        assert isinstance(decision, Dispatch) and decision.session_id == sid
        assert decision.request_id is None and decision.accepted is not None
        assert decision.accepted.status == 202 and decision.accepted.body == b""


def test_delete_ends_the_session_and_its_id_then_gets_404() -> None:
    endpoint = HttpEndpoint()
    sid = open_session(endpoint)
    decision = endpoint.receive(request("DELETE", mcp_session_id=sid), b"", 0.0)
    assert isinstance(decision, EndSession) and decision.session_id == sid
    assert decision.reply.status == 200
    reply = endpoint.receive(request(mcp_session_id=sid), body("ping"), 0.0)
    assert isinstance(reply, Reply) and reply.status == 404
    no_delete = HttpEndpoint(HttpServerConfig(allow_delete=False))
    sid = open_session(no_delete)
    reply = no_delete.receive(request("DELETE", mcp_session_id=sid), b"", 0.0)
    assert isinstance(reply, Reply) and reply.status == 405


def test_idle_sessions_expire_by_the_clock_given() -> None:
    endpoint = HttpEndpoint(HttpServerConfig(session_idle_timeout=10.0))
    sid = open_session(endpoint)
    busy = open_session(endpoint)
    endpoint.attach(busy, "1", now=1.0)
    assert endpoint.next_expiry() == 10.0
    assert endpoint.expire(9.0) == []
    assert endpoint.expire(10.0) == [sid]
    reply = endpoint.receive(request(mcp_session_id=sid), body("ping"), 11.0)
    assert isinstance(reply, Reply) and reply.status == 404
    endpoint.detach(busy, "1", now=20.0)
    assert endpoint.expire(29.0) == [] and endpoint.expire(30.0) == [busy]


def test_the_sessions_cap_refuses_initialize_with_503_when_every_session_is_busy() -> None:
    endpoint = HttpEndpoint(HttpServerConfig(max_sessions=1))
    sid = open_session(endpoint)
    endpoint.attach(sid, STANDALONE_STREAM, 0.0)  # a stream open: not idle
    reply = endpoint.receive(request(), INITIALIZE, 0.0)
    assert isinstance(reply, Reply) and reply.status == 503
    assert endpoint.take_evicted() == [] and sid in endpoint.sessions


def test_at_the_cap_a_half_open_session_makes_room_first() -> None:
    # A flood of initialize requests never sends notifications/initialized: such
    # sessions, once past the handshake grace (10 s), go before a client's
    # finished, idle one.
    endpoint = HttpEndpoint(HttpServerConfig(max_sessions=2))
    ready = open_session(endpoint)
    endpoint.sessions[ready].protocol.state = SessionState.READY
    half_open = open_session(endpoint)
    newest = endpoint.receive(request(), INITIALIZE, 10.0)
    assert isinstance(newest, Dispatch) and newest.created
    assert endpoint.take_evicted() == [half_open]
    assert endpoint.take_evicted() == []
    assert set(endpoint.sessions) == {ready, newest.session_id}


def test_at_the_cap_the_longest_idle_session_makes_room() -> None:
    endpoint = HttpEndpoint(HttpServerConfig(max_sessions=2))
    first, second = open_session(endpoint), open_session(endpoint)
    for sid in (first, second):
        endpoint.sessions[sid].protocol.state = SessionState.READY
    endpoint.sessions[first].last_seen = 10.0  # used since: second is idle longest
    newest = endpoint.receive(request(), INITIALIZE, 20.0)
    assert isinstance(newest, Dispatch) and newest.created
    assert endpoint.take_evicted() == [second]


def test_half_open_sessions_expire_after_the_handshake_timeout() -> None:
    endpoint = HttpEndpoint(HttpServerConfig(handshake_timeout=30.0))
    ready, half_open = open_session(endpoint), open_session(endpoint)
    endpoint.sessions[ready].protocol.state = SessionState.READY
    assert endpoint.next_expiry() == 30.0
    assert endpoint.expire(29.0) == []
    assert endpoint.expire(30.0) == [half_open]
    assert endpoint.next_expiry() == 1800.0  # the ready one's idle timeout


def test_a_principal_quota_ends_its_own_idle_session_or_refuses() -> None:
    endpoint = HttpEndpoint(HttpServerConfig(max_sessions_per_principal=1))
    first = endpoint.receive(request(), INITIALIZE, 0.0, "mallory")
    assert isinstance(first, Dispatch) and first.session_id is not None
    endpoint.bind(first.session_id, _Protocol("2025-11-25"))
    other = endpoint.receive(request(), INITIALIZE, 0.0, "alice")  # not mallory's quota
    assert isinstance(other, Dispatch) and other.created
    second = endpoint.receive(request(), INITIALIZE, 1.0, "mallory")
    assert isinstance(second, Dispatch) and second.session_id is not None
    assert endpoint.take_evicted() == [first.session_id]
    endpoint.bind(second.session_id, _Protocol("2025-11-25"))
    endpoint.attach(second.session_id, STANDALONE_STREAM, 1.0)
    refused = endpoint.receive(request(), INITIALIZE, 2.0, "mallory")
    assert isinstance(refused, Reply) and refused.status == 429


def test_an_address_quota_counts_only_anonymous_sessions_of_that_address() -> None:
    endpoint = HttpEndpoint(HttpServerConfig(max_sessions_per_address=1))

    def initialize(at: float, address: str | None, principal: str | None = None) -> Any:
        head = msgspec.structs.replace(request(), client=address)
        return endpoint.receive(head, INITIALIZE, at, principal)

    first = initialize(0.0, "10.0.0.1")
    assert isinstance(first, Dispatch) and first.session_id is not None
    endpoint.bind(first.session_id, _Protocol("2025-11-25"))
    endpoint.attach(first.session_id, STANDALONE_STREAM, 0.0)  # busy: cannot make room
    refused = initialize(1.0, "10.0.0.1")
    assert isinstance(refused, Reply) and refused.status == 429
    assert b"address 10.0.0.1 holds 1 sessions" in refused.body
    for address, principal in (("10.0.0.2", None), ("10.0.0.1", "alice"), (None, None)):
        admitted = initialize(2.0, address, principal)
        assert isinstance(admitted, Dispatch) and admitted.created


# --- protocol version header: 2025-11-25 "Protocol Version Header" --------------------------


def test_an_unsupported_protocol_version_gets_400() -> None:
    endpoint = HttpEndpoint()
    sid = open_session(endpoint)
    headers = {"mcp_session_id": sid, "mcp_protocol_version": "1999-01-01"}
    reply = endpoint.receive(request(**headers), body("ping", id=5), 0.0)
    assert isinstance(reply, Reply) and reply.status == 400
    error = error_of(reply)
    assert error["code"] == UNSUPPORTED_PROTOCOL_VERSION
    assert error["data"]["requested"] == "1999-01-01" and MODERN in error["data"]["supported"]
    assert json.loads(reply.body)["id"] == 5


def test_any_served_legacy_version_or_none_is_accepted_in_a_session() -> None:
    # The conformance harness sends 2025-03-26 inside a 2025-11-25 session.
    endpoint = HttpEndpoint()
    sid = open_session(endpoint)
    for version in ("2025-03-26", "2025-11-25", None):
        headers = {"mcp_session_id": sid} | ({"mcp_protocol_version": version} if version else {})
        assert isinstance(endpoint.receive(request(**headers), body("ping"), 0.0), Dispatch)


# --- answers and streams ---------------------------------------------------------------------


def test_a_2025_11_25_session_streams_with_a_priming_event() -> None:
    # "Sending Messages to the Server" item 6: an event id and empty data first,
    # with a retry field.
    endpoint = HttpEndpoint(HttpServerConfig(sse_retry_ms=500))
    sid = open_session(endpoint)
    decision = endpoint.receive(request(mcp_session_id=sid), body("tools/list", id=3), 0.0)
    assert isinstance(decision, Dispatch) and decision.sse and decision.priming is not None
    (event,) = SSEParser().feed(decision.priming)
    assert event.data == "" and event.id is not None and event.retry == 500


@pytest.mark.parametrize(
    ("revision", "mode", "expected"),
    [
        ("2025-11-25", "auto", 0.5),
        ("2025-11-25", "sse", 0.5),
        ("2025-11-25", "json", None),  # no stream to close
        ("2025-06-18", "sse", None),  # no priming event, no retry: no polling
        ("2025-03-26", "auto", None),
    ],
)
def test_sse_polling_closes_only_streams_with_a_priming_event(
    revision: str, mode: Any, expected: float | None
) -> None:
    # Item 6: after the event id and `retry`, the server MAY close the connection.
    endpoint = HttpEndpoint(HttpServerConfig(sse_poll_after=0.5, response_mode=mode))
    sid = open_session(endpoint, revision=revision)
    decision = endpoint.receive(request(mcp_session_id=sid), body("tools/list", id=3), 0.0)
    assert isinstance(decision, Dispatch) and decision.poll_after == expected
    assert (decision.priming is not None) == (expected is not None)
    off = HttpEndpoint(HttpServerConfig(response_mode=mode))  # the default: never
    sid = open_session(off, revision=revision)
    decision = off.receive(request(mcp_session_id=sid), body("tools/list", id=3), 0.0)
    assert isinstance(decision, Dispatch) and decision.poll_after is None


def test_older_sessions_answer_json_unless_something_comes_first() -> None:
    endpoint = HttpEndpoint()
    sid = open_session(endpoint, revision="2025-06-18")
    decision = endpoint.receive(request(mcp_session_id=sid), body("tools/list"), 0.0)
    assert isinstance(decision, Dispatch) and not decision.sse and decision.priming is None


def test_response_modes_json_and_sse() -> None:
    json_only = HttpEndpoint(HttpServerConfig(response_mode="json"))
    sid = open_session(json_only)
    decision = json_only.receive(request(mcp_session_id=sid), body("ping"), 0.0)
    assert isinstance(decision, Dispatch) and decision.json_only and not decision.sse
    sse = HttpEndpoint(HttpServerConfig(response_mode="sse"))
    sid = open_session(sse, revision="2025-03-26")
    decision = sse.receive(request(mcp_session_id=sid), body("ping"), 0.0)
    assert isinstance(decision, Dispatch) and decision.sse and decision.priming is None


def test_event_ids_are_unique_across_a_sessions_streams() -> None:
    # "Resumability and Redelivery" item 1.
    endpoint = HttpEndpoint()
    sid = open_session(endpoint)
    ids = set()
    for stream in ("1", "2", STANDALONE_STREAM, "1"):
        parser = SSEParser()
        (event,) = parser.feed(endpoint.event(sid, stream, b'{"x":1}'))
        ids.add(event.id)
    assert len(ids) == 4
    # 2026-07-28 streams carry no ids ("Resumable SSE streams ... are not supported").
    (event,) = SSEParser().feed(endpoint.event(None, None, b"{}"))
    assert event.id is None


def test_get_opens_the_standalone_stream_once() -> None:
    # "Listening for Messages from the Server" items 1-3; one stream at a time so a
    # message goes on only one ("Multiple Connections" item 2).
    endpoint = HttpEndpoint()
    sid = open_session(endpoint)
    decision = endpoint.receive(request("GET", mcp_session_id=sid), b"", 0.0)
    assert isinstance(decision, OpenStream) and decision.stream_id == STANDALONE_STREAM
    assert header(decision, "content-type") == "text/event-stream"
    assert header(decision, "x-accel-buffering") == "no"
    assert header(decision, "cache-control") == "no-cache"
    endpoint.attach(sid, STANDALONE_STREAM, 0.0)
    reply = endpoint.receive(request("GET", mcp_session_id=sid), b"", 0.0)
    assert isinstance(reply, Reply) and reply.status == 409
    endpoint.detach(sid, STANDALONE_STREAM, 0.0)
    assert isinstance(endpoint.receive(request("GET", mcp_session_id=sid), b"", 0.0), OpenStream)


def test_get_needs_event_stream_in_accept_and_a_session() -> None:
    endpoint = HttpEndpoint()
    sid = open_session(endpoint)
    reply = endpoint.receive(request("GET", mcp_session_id=sid, accept="application/json"), b"", 0)
    assert isinstance(reply, Reply) and reply.status == 406
    reply = endpoint.receive(request("GET"), b"", 0.0)
    assert isinstance(reply, Reply) and reply.status == 400
    off = HttpEndpoint(HttpServerConfig(standalone_stream=False))
    sid = open_session(off)
    reply = off.receive(request("GET", mcp_session_id=sid), b"", 0.0)
    assert isinstance(reply, Reply) and reply.status == 405


def test_last_event_id_replays_only_that_streams_later_events() -> None:
    # "Resumability and Redelivery" item 2: replay on the stream that was
    # disconnected, MUST NOT replay another stream's messages.
    endpoint = HttpEndpoint()
    sid = open_session(endpoint)
    decision = endpoint.receive(request(mcp_session_id=sid), body("tools/call", id=9), 0.0)
    assert isinstance(decision, Dispatch) and decision.priming is not None
    stream = decision.stream_id
    assert stream is not None
    primed = SSEParser()
    primed.feed(decision.priming)
    endpoint.event(sid, stream, b'{"n":1}')
    endpoint.event(sid, STANDALONE_STREAM, b'{"other":1}')
    endpoint.event(sid, stream, b'{"n":2}')
    headers = {"mcp_session_id": sid, "last_event_id": primed.last_event_id or ""}
    resumed = endpoint.receive(request("GET", **headers), b"", 0.0)
    assert isinstance(resumed, OpenStream) and resumed.stream_id == stream
    events = SSEParser().feed(b"".join(resumed.replay))
    assert [e.data for e in events] == ['{"n":1}', '{"n":2}']
    reply = endpoint.receive(request("GET", mcp_session_id=sid, last_event_id="9-999"), b"", 0.0)
    assert isinstance(reply, Reply) and reply.status == 400


def test_the_event_store_is_bounded_oldest_first() -> None:
    store = MemoryEventStore(max_events=3, max_bytes=1000)
    first = store.store("1", b"a")
    second = store.store("1", b"b")
    store.store("2", b"c")
    store.store("1", b"d")
    assert len(store) == 3 and store.replay_after(first) is None
    assert store.replay_after(second) == ("1", [("1-4", b"d")])
    by_bytes = MemoryEventStore(max_events=10, max_bytes=3)
    old = by_bytes.store("1", b"xx")
    by_bytes.store("1", b"yy")
    assert by_bytes.replay_after(old) is None
    with pytest.raises(ValueError):
        MemoryEventStore(max_events=0)


# --- the modern era: 2026-07-28 streamable-http.mdx --------------------------------------------


def modern(method: str, *, meta: dict[str, Any] | None = None, **params: Any) -> bytes:
    return body(method, id=11, _meta=META if meta is None else meta, **params)


def modern_request(method_header: str | None = None, **headers: str) -> HttpRequest:
    base = {"mcp_protocol_version": MODERN} | headers
    if method_header is not None:
        base["mcp_method"] = method_header
    return request(**base)


def test_a_modern_request_is_dispatched_without_a_session() -> None:
    decision = HttpEndpoint().receive(modern_request("tools/list"), modern("tools/list"), 0.0)
    assert isinstance(decision, Dispatch) and decision.session_id is None
    assert decision.request_id == 11 and header(decision, "mcp-session-id") is None


def test_a_modern_request_ignores_a_session_id() -> None:
    # "Earlier Streamable HTTP Revisions": ignore Mcp-Session-Id.
    headers = {"mcp_session_id": "whatever"}
    decision = HttpEndpoint().receive(
        modern_request("tools/list", **headers), modern("tools/list"), 0.0
    )
    assert isinstance(decision, Dispatch) and decision.session_id is None


def test_modern_get_and_delete_get_405() -> None:
    endpoint = HttpEndpoint()
    for method in ("GET", "DELETE"):
        reply = endpoint.receive(request(method, mcp_protocol_version=MODERN), b"", 0.0)
        assert isinstance(reply, Reply) and reply.status == 405
        assert header(reply, "allow") == "POST"


@pytest.mark.parametrize(
    ("headers", "payload"),
    [
        ({}, modern("tools/list")),  # Mcp-Method missing
        ({"mcp_method": "tools/call"}, modern("tools/list")),  # differs from the body
        (
            {"mcp_method": "tools/list"},
            modern("tools/list", meta={**META, "io.modelcontextprotocol/protocolVersion": "x"}),
        ),
        ({"mcp_method": "tools/call"}, modern("tools/call", name="add")),  # Mcp-Name missing
        ({"mcp_method": "tools/call", "mcp_name": "sub"}, modern("tools/call", name="add")),
        ({"mcp_method": "resources/read", "mcp_name": "a://b"}, modern("resources/read", uri="c:")),
        (
            {"mcp_method": "prompts/get", "mcp_name": "=?base64?!!?="},
            modern("prompts/get", name="p"),
        ),
    ],
)
def test_header_mismatch_gets_400_and_32020_with_the_request_id(
    headers: dict[str, str], payload: bytes
) -> None:
    # "Server Validation".
    reply = HttpEndpoint().receive(modern_request(**headers), payload, 0.0)
    assert isinstance(reply, Reply) and reply.status == 400
    assert error_of(reply)["code"] == HEADER_MISMATCH
    assert json.loads(reply.body)["id"] == 11


def test_mcp_name_may_be_base64_encoded() -> None:
    # "Value Encoding": the sentinel is decoded before comparing.
    headers = {"mcp_name": "=?base64?SGVsbG8sIOS4lueVjA==?="}
    decision = HttpEndpoint().receive(
        modern_request("tools/call", **headers), modern("tools/call", name="Hello, 世界"), 0.0
    )
    assert isinstance(decision, Dispatch)
    assert decode_header_value("=?base64?IHBhZGRlZCA=?=") == " padded "
    assert decode_header_value("caf\u00e9") is None


def test_header_values_allow_visible_ascii_space_and_tab_only() -> None:
    # "Value Encoding": field values are visible ASCII, space and tab; anything
    # else (controls, DEL, non-ASCII) makes the header invalid.
    assert decode_header_value(" ~\tname with spaces!") == " ~\tname with spaces!"
    assert decode_header_value("") == ""
    for bad in ("a\x00", "a\x1f", "a\x7f", "\x85", "a\u2028", "\U0001f600", "a\r\n"):
        assert decode_header_value(bad) is None, repr(bad)


def test_missing_required_meta_gets_400_and_32602() -> None:
    # 2026-07-28 basic/index.mdx "Per-request protocol fields". A _meta that is
    # not an object holds neither field.
    version = "io.modelcontextprotocol/protocolVersion"
    cases: list[tuple[Any, str]] = [
        ({}, version),
        ({version: MODERN}, "io.modelcontextprotocol/clientCapabilities"),
        ("x", version),
        ([MODERN], version),
    ]
    for meta, missing in cases:
        reply = HttpEndpoint().receive(
            modern_request("tools/list"), modern("tools/list", meta=meta), 0.0
        )
        assert isinstance(reply, Reply) and reply.status == 400
        assert error_of(reply)["code"] == INVALID_PARAMS
        assert error_of(reply)["message"].endswith(f"missing _meta {missing!r}")


def test_initialize_with_a_modern_header_gets_404_and_32601() -> None:
    # "Protocol Version Header": an unimplemented method is 404 with -32601, and
    # versioning.mdx: name the supported versions in an error to initialize.
    reply = HttpEndpoint().receive(modern_request("initialize"), modern("initialize"), 0.0)
    assert isinstance(reply, Reply) and reply.status == 404
    error = error_of(reply)
    assert error["code"] == METHOD_NOT_FOUND and MODERN in error["data"]["supported"]


def test_modern_notifications_get_202_and_responses_400() -> None:
    endpoint = HttpEndpoint()
    decision = endpoint.receive(
        modern_request(), body("notifications/cancelled", id=None, requestId=1), 0.0
    )
    assert isinstance(decision, Dispatch) and decision.accepted is not None
    assert decision.accepted.status == 202
    response = json.dumps({"jsonrpc": "2.0", "id": 1, "result": {}}).encode()
    reply = endpoint.receive(modern_request(), response, 0.0)
    assert isinstance(reply, Reply) and reply.status == 400


def test_modern_json_errors_get_the_status_their_code_calls_for() -> None:
    endpoint = HttpEndpoint()
    decision = endpoint.receive(modern_request("nope/nope"), modern("nope/nope"), 0.0)
    assert isinstance(decision, Dispatch)
    missing = ErrorResponse(id=11, error=ErrorObject(code=METHOD_NOT_FOUND, message="no"))
    assert endpoint.json_reply(decision, missing, b"{}").status == 404
    other = ErrorResponse(id=11, error=ErrorObject(code=-32603, message="oops"))
    assert endpoint.json_reply(decision, other, b"{}").status == 200
    assert endpoint.json_reply(decision, Response(id=11, result={}), b"{}").status == 200


@pytest.mark.parametrize(
    ("code", "status"),
    [
        (METHOD_NOT_FOUND, 404),
        (HEADER_MISMATCH, 400),
        (UNSUPPORTED_PROTOCOL_VERSION, 400),
        (MISSING_REQUIRED_CLIENT_CAPABILITY, 400),
        (PARSE_ERROR, 400),
        (INVALID_REQUEST, 400),
        (INVALID_PARAMS, 200),
        (INTERNAL_ERROR, 200),
        (-1, 200),
    ],
)
def test_modern_json_error_statuses_come_from_the_one_table(code: int, status: int) -> None:
    # The codes 2026-07-28 gives a status get the one wire.errors gives them;
    # the rest reached JSON-RPC and are answered 200.
    endpoint = HttpEndpoint()
    decision = endpoint.receive(modern_request("tools/list"), modern("tools/list"), 0.0)
    assert isinstance(decision, Dispatch)
    error = ErrorResponse(id=11, error=ErrorObject(code=code, message="x"))
    assert endpoint.json_reply(decision, error, b"{}").status == status
    if status != 200:
        assert status == http_status_for(code)


def test_param_headers_are_checked_against_annotated_arguments() -> None:
    # "Server Behavior for Custom Headers".
    schema = {
        "type": "object",
        "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "opts": {
                "type": "object",
                "properties": {"n": {"type": "integer", "x-mcp-header": "N"}},
            },
            "list": {"type": "array", "items": {"type": "string", "x-mcp-header": "Ignored"}},
        },
    }
    paths = header_param_paths(schema)
    assert paths == {"region": ("region",), "n": ("opts", "n")}
    endpoint = HttpEndpoint(tool_headers=lambda name: paths if name == "sql" else {})

    def call(arguments: dict[str, Any], **headers: str) -> Any:
        payload = modern("tools/call", name="sql", arguments=arguments)
        return endpoint.receive(modern_request("tools/call", mcp_name="sql", **headers), payload, 0)

    args = {"region": "us-west1", "opts": {"n": 42}}
    ok = {"mcp_param_region": "us-west1", "mcp_param_n": "42.0"}
    assert isinstance(call(args, **ok), Dispatch)
    assert isinstance(call({}), Dispatch)  # absent arguments need no headers
    for bad in (
        {"mcp_param_region": "us-west1"},  # N missing
        {**ok, "mcp_param_region": "eu"},  # mismatch
        {**ok, "mcp_param_region": "=?base64?***?="},  # broken base64
    ):
        reply = call(args, **bad)
        assert isinstance(reply, Reply) and error_of(reply)["code"] == HEADER_MISMATCH
    reply = call({}, mcp_param_region="us-west1")  # a header without its argument
    assert isinstance(reply, Reply) and reply.status == 400
    assert param_matches("true", True) and not param_matches("1", True)
    assert not param_matches("x", 3) and not param_matches("x", None)
