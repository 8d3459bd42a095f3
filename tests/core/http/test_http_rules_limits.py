"""The HTTP rules added for security and limits, and the deprecated HTTP+SSE
transport, at the message level: a request in, a decision out.

Principals (who the adapter authenticated a request as) bound to sessions, the
head size and count limits (431), the in-flight cap (429, or an error on the
HTTP+SSE stream), and the 2024-11-05 HTTP+SSE rules.
"""

from __future__ import annotations

import json

import pytest
from test_http_rules import INITIALIZE, _Protocol, body, error_of, request

from mcp_core.http.decisions import (
    AuthRefusal,
    Dispatch,
    HttpRequest,
    OpenSseSession,
    Reply,
    SendOnStream,
)
from mcp_core.http.server import HttpEndpoint, HttpServerConfig
from mcp_core.wire import SSEParser


class _Busy(_Protocol):
    def __init__(self, in_flight: int) -> None:
        super().__init__("2025-11-25")
        self.requests_in_flight = in_flight


def sse_open(endpoint: HttpEndpoint, principal: str | None = None, prefix: str = "") -> str:
    head = HttpRequest.from_pairs(
        "GET", "/sse", [("host", "localhost:1"), ("accept", "text/event-stream")], prefix=prefix
    )
    decision = endpoint.receive(head, b"", 0.0, principal)
    assert isinstance(decision, OpenSseSession) and decision.principal == principal
    (event,) = SSEParser().feed(decision.first)
    assert event.event == "endpoint"
    assert event.data == f"{prefix}/messages?session_id={decision.session_id}"
    return event.data.removeprefix(prefix)


# --- principals -----------------------------------------------------------------------------


def test_a_session_answers_only_the_principal_that_opened_it() -> None:
    endpoint = HttpEndpoint()
    opened = endpoint.receive(request(), INITIALIZE, 0.0, "alice")
    assert isinstance(opened, Dispatch) and opened.session_id is not None
    sid = opened.session_id
    assert endpoint.sessions[sid].principal == "alice"
    mine = endpoint.receive(request(mcp_session_id=sid), body("ping"), 0.0, "alice")
    assert isinstance(mine, Dispatch)
    # Another principal, or none, finds no such session (404, as if unknown).
    for other in ("bob", None):
        reply = endpoint.receive(request(mcp_session_id=sid), body("ping"), 0.0, other)
        assert isinstance(reply, Reply) and reply.status == 404
        get = endpoint.receive(request("GET", mcp_session_id=sid), b"", 0.0, other)
        assert isinstance(get, Reply) and get.status == 404


def test_an_auth_refusal_is_401_or_403_with_its_headers() -> None:
    challenge = ("www-authenticate", 'Bearer resource_metadata="https://x/.well-known"')
    reply = AuthRefusal(401, "token expired", (challenge,)).reply()
    assert reply.status == 401 and challenge in reply.headers
    assert error_of(reply)["message"] == "Unauthorized: token expired"
    assert AuthRefusal(403, "no").reply().status == 403
    with pytest.raises(ValueError):
        AuthRefusal(500)


# --- head limits: RFC 6585 section 5 --------------------------------------------------------


def test_too_many_or_too_large_header_fields_get_431() -> None:
    endpoint = HttpEndpoint(HttpServerConfig(max_headers=10, max_header_bytes=1000))
    many = [("host", "localhost"), *((f"x-{n}", "1") for n in range(10))]
    reply = endpoint.check_head(HttpRequest.from_pairs("POST", "/mcp", many))
    assert isinstance(reply, Reply) and reply.status == 431 and reply.close
    large = [("host", "localhost"), ("cookie", "c" * 1000)]
    reply = endpoint.check_head(HttpRequest.from_pairs("POST", "/mcp", large))
    assert isinstance(reply, Reply) and reply.status == 431
    fine = HttpRequest.from_pairs("GET", "/mcp", [("host", "localhost"), ("x-a", "1")])
    assert fine.header_count == 2 and fine.header_bytes == (4 + 9 + 4) + (3 + 1 + 4)


# --- requests in flight ---------------------------------------------------------------------


def test_a_request_beyond_the_in_flight_cap_gets_429() -> None:
    endpoint = HttpEndpoint(HttpServerConfig(max_requests_in_flight=2))
    opened = endpoint.receive(request(), INITIALIZE, 0.0)
    assert isinstance(opened, Dispatch) and opened.session_id is not None
    sid = opened.session_id
    endpoint.bind(sid, _Busy(1))
    assert isinstance(endpoint.receive(request(mcp_session_id=sid), body("ping"), 0.0), Dispatch)
    endpoint.bind(sid, _Busy(2))
    reply = endpoint.receive(request(mcp_session_id=sid), body("ping", id=9), 0.0)
    assert isinstance(reply, Reply) and reply.status == 429
    assert ("retry-after", "1") in reply.headers
    assert json.loads(reply.body)["id"] == 9 and error_of(reply)["data"] == {"limit": 2}
    # Notifications (a cancellation, say) still pass.
    note = endpoint.receive(
        request(mcp_session_id=sid), body("notifications/cancelled", id=None), 0.0
    )
    assert isinstance(note, Dispatch)


# --- HTTP+SSE of 2024-11-05 (basic/transports.mdx "HTTP with SSE") --------------------------


def test_the_endpoint_event_names_the_post_uri_below_the_mount_point() -> None:
    endpoint = HttpEndpoint()
    uri = sse_open(endpoint, prefix="/api")
    post = HttpRequest.from_pairs(
        "POST", uri, [("host", "localhost"), ("content-type", "application/json")]
    )
    decision = endpoint.receive(post, INITIALIZE, 0.0)
    assert isinstance(decision, Dispatch) and decision.accepted is not None
    assert decision.accepted.status == 202 and decision.session_id in endpoint.sse.sessions


def sse_post(uri: str, **headers: str) -> HttpRequest:
    pairs = {"host": "localhost", "content-type": "application/json"}
    pairs |= {k.replace("_", "-"): v for k, v in headers.items()}
    return HttpRequest.from_pairs("POST", uri, pairs.items())


def test_http_sse_sessions_bind_their_principal_and_end_with_their_stream() -> None:
    endpoint = HttpEndpoint()
    uri = sse_open(endpoint, "alice")
    sid = uri.rsplit("=", 1)[1]
    assert isinstance(endpoint.receive(sse_post(uri), body("ping"), 0.0, "alice"), Dispatch)
    reply = endpoint.receive(sse_post(uri), body("ping"), 0.0, "bob")
    assert isinstance(reply, Reply) and reply.status == 404
    endpoint.end_session(sid)
    reply = endpoint.receive(sse_post(uri), body("ping"), 0.0, "alice")
    assert isinstance(reply, Reply) and reply.status == 404


def test_http_sse_refusals() -> None:
    endpoint = HttpEndpoint(HttpServerConfig(max_sessions=1))
    uri = sse_open(endpoint)
    # The cap counts both transports' sessions.
    full = endpoint.receive(request(), INITIALIZE, 0.0)
    assert isinstance(full, Reply) and full.status == 503
    get = endpoint.receive(request("GET", "/sse"), b"", 0.0)
    assert isinstance(get, Reply) and get.status == 503
    wrong = endpoint.receive(request("GET", "/sse", accept="application/json"), b"", 0.0)
    assert isinstance(wrong, Reply) and wrong.status == 406
    for target, method, status in (("/sse", "POST", 405), (uri, "GET", 405)):
        reply = endpoint.receive(request(method, target), b"", 0.0)
        assert isinstance(reply, Reply) and reply.status == status
    plain = endpoint.receive(sse_post(uri, content_type="text/plain"), b"{}", 0.0)
    assert isinstance(plain, Reply) and plain.status == 415
    reply = endpoint.receive(sse_post("/messages"), body("ping"), 0.0)
    assert isinstance(reply, Reply) and reply.status == 400
    broken = endpoint.receive(sse_post(uri), b"{", 0.0)
    assert isinstance(broken, Reply) and broken.status == 400
    camel = uri.replace("session_id", "sessionId")
    assert isinstance(endpoint.receive(sse_post(camel), body("ping"), 0.0), Dispatch)


def test_http_sse_requests_beyond_the_cap_are_answered_on_the_stream() -> None:
    endpoint = HttpEndpoint(HttpServerConfig(max_requests_in_flight=1))
    uri = sse_open(endpoint)
    sid = uri.rsplit("=", 1)[1]
    endpoint.bind_sse(sid, _Busy(1))
    decision = endpoint.receive(sse_post(uri), body("ping", id=4), 0.0)
    assert isinstance(decision, SendOnStream) and decision.reply.status == 202
    (event,) = SSEParser().feed(decision.data)
    assert event.event == "message" and json.loads(event.data)["id"] == 4


def test_http_sse_is_off_without_a_path_or_without_legacy_revisions() -> None:
    off = HttpEndpoint(HttpServerConfig(sse_path=None))
    reply = off.receive(request("GET", "/sse"), b"", 0.0)
    assert isinstance(reply, Reply) and reply.status == 404
    modern_only = HttpEndpoint(revisions=("2026-07-28",))
    reply = modern_only.receive(request("GET", "/sse"), b"", 0.0)
    assert isinstance(reply, Reply) and reply.status == 404


# --- the head's decoded fields ----------------------------------------------------------------


def test_a_head_reads_the_same_whether_its_fields_were_seen_before() -> None:
    pairs = [
        (b"host", b"localhost:1"),
        (b"Accept", b"application/json"),
        (b"x-long", b"v" * 4096),
        (b"authorization", b"Bearer secret-token"),
        (b"accept", b"text/event-stream"),
    ]
    first = HttpRequest.from_pairs(b"POST", b"/mcp", pairs)
    again = HttpRequest.from_pairs(b"POST", b"/mcp", pairs)
    assert first == again
    assert first.headers["accept"] == "application/json, text/event-stream"
    assert first.headers["x-long"] == "v" * 4096
    assert first.headers["authorization"] == "Bearer secret-token"


def test_credentials_and_long_values_are_not_kept_between_requests() -> None:
    # The decoded fields are kept for the next request (decisions._FIELDS), but
    # not a credential, and not a long value: new long values would otherwise
    # grow what is kept to thousands of head-sized strings.
    from mcp_core.http import decisions

    pairs = [
        (b"authorization", b"Bearer kept-nowhere"),
        (b"cookie", b"sid=kept-nowhere"),
        (b"x-long", b"w" * 129),
        (b"x-short", b"w" * 128),
    ]
    HttpRequest.from_pairs(b"POST", b"/mcp", pairs)
    kept = decisions._FIELDS
    assert (b"x-short", b"w" * 128) in kept
    for pair in pairs[:3]:
        assert pair not in kept
    assert not any("kept-nowhere" in text for _, text, _ in kept.values())
