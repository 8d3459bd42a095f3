"""The client-side HTTP rules, sans I/O: messages and answers in, actions out.

2025-11-25 means 2025-11-25 basic/transports.mdx "Streamable HTTP"; 2026-07-28
means 2026-07-28 basic/transports/streamable-http.mdx; 2024-11-05 means 2024-11-05
basic/transports.mdx "HTTP with SSE".
"""

from __future__ import annotations

import json

import pytest
from http_client_helpers import (
    INITIALIZED,
    JSON,
    META,
    MODERN,
    SSE,
    TOOLS,
    URL,
    Wire,
    call,
    error,
    event,
    header,
    initialize,
    result,
)

from mcp_core.wire import (
    HEADER_MISMATCH,
    INVALID_REQUEST,
    ErrorResponse,
    Notification,
    Request,
    Response,
)

# --- requests ---------------------------------------------------------------------------------


def test_initialize_goes_without_session_or_version() -> None:
    wire = Wire(headers=(("authorization", "Bearer t"),))
    (post,) = wire.send(initialize())
    assert (post.method, post.url, post.origin, post.target) == (
        "POST",
        URL,
        ("http", "127.0.0.1", 8000),
        "/mcp",
    )
    # 2025-11-25 "Sending Messages to the Server" item 2.
    assert header(post, "accept") == "application/json, text/event-stream"
    assert header(post, "content-type") == "application/json"
    assert header(post, "host") == "127.0.0.1:8000"
    assert header(post, "authorization") == "Bearer t"
    assert header(post, "mcp-session-id") is None and header(post, "mcp-protocol-version") is None
    assert json.loads(post.body)["method"] == "initialize"


@pytest.mark.parametrize(
    ("version", "version_header"),
    [("2025-11-25", "2025-11-25"), ("2025-06-18", "2025-06-18"), ("2025-03-26", None)],
)
def test_later_requests_carry_the_session_and_the_negotiated_version(
    version: str, version_header: str | None
) -> None:
    # 2025-11-25 "Session Management" item 2, "Protocol Version Header" (defined
    # from 2025-06-18 on).
    wire = Wire()
    wire.open_session(version)
    (post,) = wire.send(call())
    assert header(post, "mcp-session-id") == "s1"
    assert header(post, "mcp-protocol-version") == version_header
    assert header(post, "mcp-method") is None


def test_a_session_id_with_invisible_characters_fails_initialize() -> None:
    wire = Wire()
    (post,) = wire.send(initialize())
    wire.answer(post, 200, (*JSON, ("mcp-session-id", "a b")), result(0, {}))
    assert "invalid Mcp-Session-Id" in wire.failed[0].reason


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        (call("get_weather", modern=True), {"mcp-method": "tools/call", "mcp-name": "get_weather"}),
        (
            Request(id=2, method="resources/read", params={"uri": "file:///a b", "_meta": META}),
            {"mcp-method": "resources/read", "mcp-name": "file:///a b"},
        ),
        (
            Request(id=3, method="prompts/get", params={"name": "Grüße", "_meta": META}),
            {"mcp-method": "prompts/get", "mcp-name": "=?base64?R3LDvMOfZQ==?="},
        ),
        (
            Request(id=4, method="tools/list", params={"_meta": META}),
            {"mcp-method": "tools/list", "mcp-name": None},
        ),
    ],
)
def test_modern_requests_mirror_the_body_into_headers(
    message: Request, expected: dict[str, str | None]
) -> None:
    # 2026-07-28 "Standard Request Headers"; no session ("Earlier Streamable HTTP
    # Revisions").
    wire = Wire()
    (post,) = wire.send(message)
    assert header(post, "mcp-protocol-version") == MODERN
    assert header(post, "mcp-session-id") is None
    for name, value in expected.items():
        assert header(post, name) == value


def test_tools_list_teaches_the_param_headers_and_drops_invalid_tools() -> None:
    # 2026-07-28 "Custom Headers from Tool Parameters": the client MUST mirror, and
    # MUST exclude a tool whose annotation is invalid.
    wire = Wire()
    (post,) = wire.send(Request(id=1, method="tools/list", params={"_meta": META}))
    wire.answer(post, 200, JSON, result(1, {"tools": TOOLS, "resultType": "complete"}))
    (listing,) = wire.delivered
    assert isinstance(listing, Response)
    assert [tool["name"] for tool in json.loads(bytes(listing.result))["tools"]] == [
        "execute_sql",
        "plain",
    ]
    (note,) = wire.notes
    assert note.startswith("tool 'bad' dropped from tools/list: x-mcp-header on n needs type")
    message = call(
        "execute_sql", id=2, modern=True, region=" us ", query="x", opts={"dry": True}, limit=7
    )
    (post,) = wire.send(message)
    assert header(post, "mcp-param-region") == "=?base64?IHVzIA==?="
    assert header(post, "mcp-param-dry") == "true"
    assert header(post, "mcp-param-limit") == "7"
    # An absent or null argument, or a number out of the safe range, sends none.
    (post,) = wire.send(call("execute_sql", id=3, modern=True, region=None, limit=2**53))
    assert [k for k, _ in post.headers if k.startswith("mcp-param-")] == []


def test_a_header_mismatch_lists_the_tools_and_calls_again() -> None:
    # 2026-07-28 "Client Behavior": on HeaderMismatch the client SHOULD call
    # tools/list, then retry with the headers the listing calls for; every page.
    wire = Wire()
    (post,) = wire.send(call("execute_sql", id=7, modern=True, region="eu"))
    assert header(post, "mcp-param-region") is None  # never listed
    wire.answer(post, 400, JSON, error(7, HEADER_MISMATCH, "Mcp-Param-Region is required"))
    assert wire.delivered == []
    page1 = wire.last()
    listing = json.loads(page1.body)
    assert listing["method"] == "tools/list" and listing["params"] == {"_meta": META}
    assert header(page1, "mcp-method") == "tools/list"
    wire.answer(page1, 200, JSON, result(listing["id"], {"tools": TOOLS[1:], "nextCursor": "2"}))
    page2 = wire.last()
    assert json.loads(page2.body)["params"]["cursor"] == "2"
    wire.answer(page2, 200, JSON, result(json.loads(page2.body)["id"], {"tools": TOOLS[:1]}))
    again = wire.last()
    assert json.loads(again.body) == json.loads(post.body)
    assert header(again, "mcp-param-region") == "eu"
    assert len(wire.notes) == 1  # the bad tool of page 1
    assert wire.delivered == []  # the session never saw our own listing
    # A second refusal is the answer.
    wire.answer(again, 400, JSON, error(7, HEADER_MISMATCH))
    (refusal,) = wire.delivered
    assert isinstance(refusal, ErrorResponse) and refusal.id == 7


def test_a_failed_relisting_gives_the_refusal() -> None:
    wire = Wire()
    (post,) = wire.send(call("execute_sql", id=7, modern=True, region="eu"))
    wire.answer(post, 400, JSON, error(7, HEADER_MISMATCH))
    wire.answer(wire.last(), 500, (), b"")
    (refusal,) = wire.delivered
    assert isinstance(refusal, ErrorResponse) and refusal.error.code == HEADER_MISMATCH
    assert wire.failed == {}


def test_a_modern_notification_names_the_era() -> None:
    wire = Wire()
    (probe,) = wire.send(Request(id=1, method="server/discover", params={"_meta": META}))
    wire.answer(probe, 200, JSON, result(1, {"supportedVersions": [MODERN]}))
    (post,) = wire.send(Notification(method="notifications/roots/list_changed"))
    assert header(post, "mcp-protocol-version") == MODERN and header(post, "mcp-method") is None


def test_after_a_refused_probe_the_legacy_session_has_no_modern_header() -> None:
    wire = Wire()
    (probe,) = wire.send(Request(id=1, method="server/discover", params={"_meta": META}))
    wire.answer(probe, 400, JSON, error(None, -32000, "Unsupported protocol version"))
    wire.open_session()
    (post,) = wire.send(Notification(method="notifications/roots/list_changed"))
    assert header(post, "mcp-protocol-version") == "2025-11-25"
    assert json.loads(wire.sends[2].body)["method"] == "notifications/initialized"
    assert header(wire.sends[2], "mcp-protocol-version") == "2025-11-25"


def test_legacy_requests_get_no_metadata_headers() -> None:
    wire = Wire()
    wire.open_session()
    (post,) = wire.send(call())
    assert not [k for k, _ in post.headers if k.startswith("mcp-name") or k.startswith("mcp-param")]


# --- answers ----------------------------------------------------------------------------------

PROGRESS = json.dumps(
    {
        "jsonrpc": "2.0",
        "method": "notifications/progress",
        "params": {"progressToken": 1, "progress": 1},
    }
).encode()


@pytest.mark.parametrize("split", [False, True], ids=["whole", "byte-by-byte"])
@pytest.mark.parametrize(
    ("headers", "body", "messages"),
    [
        (JSON, result(1, {"ok": 1}), ["response"]),
        (
            (("content-type", "application/json; charset=utf-8"),),
            result(1, {"ok": 1}),
            ["response"],
        ),
        (
            SSE,
            event("", id="e1", retry=500)
            + event(PROGRESS, id="e2")
            + event(result(1, {}), id="e3"),
            ["notification", "response"],
        ),
        (
            SSE,
            b": comment\r\n\r\nevent: other\r\ndata: x\r\n\r\n" + event(result(1, {})),
            ["response"],
        ),
    ],
    ids=["json", "json-charset", "sse", "sse-crlf-comments-other-events"],
)
def test_an_answer_is_delivered(
    headers: tuple[tuple[str, str], ...], body: bytes, messages: list[str], split: bool
) -> None:
    # 2025-11-25 "Sending Messages to the Server" item 5: both MUST be supported.
    wire = Wire()
    (post,) = wire.send(call())
    wire.answer(post, 200, headers, body, split=split)
    kinds = ["response" if isinstance(m, Response) else "notification" for m in wire.delivered]
    assert kinds == messages
    assert wire.failed == {} and wire.sends == [post]


@pytest.mark.parametrize(
    ("status", "headers", "body", "reason"),
    [
        (202, (), b"", "accepted the request (202)"),
        (200, (("content-type", "text/html"),), b"<p>", "unexpected Content-Type 'text/html'"),
        (200, (), b"", "unexpected Content-Type '(none)'"),
        (200, JSON, b"{", "not a JSON-RPC message"),
        (200, JSON, json.dumps({"jsonrpc": "2.0", "method": "x"}).encode(), "not the response"),
        (500, (("content-type", "text/plain"),), b"boom", "the server answered HTTP 500"),
        (401, (), b"", "the server answered HTTP 401"),
        (404, (), b"", "the server answered HTTP 404"),
        (302, (("location", "/x"),), b"", "the server answered HTTP 302"),
    ],
)
def test_a_request_that_gets_no_answer_fails(
    status: int, headers: tuple[tuple[str, str], ...], body: bytes, reason: str
) -> None:
    wire = Wire()
    (post,) = wire.send(call())
    wire.answer(post, status, headers, body)
    failure = wire.failed[1]
    assert reason in failure.reason
    assert (failure.method, failure.url) == ("POST", URL)
    assert failure.status == status and failure.body == (body if status >= 300 else b"")


def test_a_json_rpc_error_body_is_the_answer() -> None:
    # A 4xx/5xx whose body is a JSON-RPC error: the server's own answer; an id it
    # could not read (null) is tied to the request.
    for request_id in (1, None):
        wire = Wire()
        (post,) = wire.send(call())
        wire.answer(post, 400, JSON, error(request_id, HEADER_MISMATCH))
        (answer,) = wire.delivered
        assert isinstance(answer, ErrorResponse)
        assert (answer.id, answer.error.code) == (1, HEADER_MISMATCH)


def test_a_legacy_server_refusing_the_modern_probe_gets_a_plain_error() -> None:
    # 2026-07-28 "Backward Compatibility": a 400 without a recognised modern error
    # means a legacy server; the session falls back on any non-modern error.
    wire = Wire()
    (post,) = wire.send(Request(id=1, method="server/discover", params={"_meta": META}))
    wire.answer(post, 405, (("content-type", "text/plain"),), b"Method Not Allowed")
    (answer,) = wire.delivered
    assert isinstance(answer, ErrorResponse) and answer.error.code == INVALID_REQUEST
    # Once the server answered a modern request, a bare 404 is a failure again.
    (post,) = wire.send(Request(id=2, method="server/discover", params={"_meta": META}))
    wire.answer(post, 200, JSON, result(2, {"supportedVersions": [MODERN]}))
    (post,) = wire.send(call(id=3, modern=True))
    wire.answer(post, 404, (), b"")
    assert wire.failed[3].status == 404


def test_notifications_and_responses_need_only_an_accepting_status() -> None:
    # Item 4: 202 and no body; a body some servers send anyway is ignored, and so
    # is a refusal (nobody waits for it).
    wire = Wire()
    wire.open_session()
    for message, status, body in [
        (Notification(method="notifications/roots/list_changed"), 202, b""),
        (Response(id=7, result={}), 200, b'{"jsonrpc":"2.0","result":{}}'),
        (Notification(method="notifications/x"), 400, b"no"),
    ]:
        (post,) = wire.send(message)
        wire.answer(post, status, JSON, body)
    assert wire.delivered[1:] == [] and wire.failed == {}


def test_an_oversized_json_answer_is_cut_off() -> None:
    wire = Wire(max_answer_bytes=10)
    (post,) = wire.send(call())
    wire.answer(post, 200, JSON, result(1, {"big": "x" * 20}), end=False)
    assert wire.aborted == [post.exchange]
    assert "over 10 bytes" in wire.failed[1].reason


def test_a_failed_connection_fails_the_request() -> None:
    wire = Wire()
    (post,) = wire.send(call())
    wire.apply(wire.ep.receive_failure(post.exchange, "the connection was refused"))
    assert wire.failed[1].reason == "the connection was refused"
    assert wire.failed[1].status is None


# --- ordering and the standalone stream -------------------------------------------------------


def test_messages_wait_for_initialized_then_the_get_stream() -> None:
    wire = Wire()
    (post,) = wire.send(initialize())
    wire.answer(
        post, 200, (*JSON, ("mcp-session-id", "s1")), result(0, {"protocolVersion": "2025-11-25"})
    )
    (posted,) = wire.send(INITIALIZED)
    assert wire.send(call(id=1)) == []
    wire.answer(posted, 202, ())
    get = wire.last()
    # 2025-11-25 "Listening for Messages from the Server" item 2.
    assert (get.method, header(get, "accept"), header(get, "mcp-session-id")) == (
        "GET",
        "text/event-stream",
        "s1",
    )
    assert header(get, "mcp-protocol-version") == "2025-11-25"
    assert header(get, "last-event-id") is None
    assert wire.send(call(id=2)) == []  # still waiting for the stream


def test_held_messages_go_in_order_once_the_stream_is_open() -> None:
    wire = Wire()
    (post,) = wire.send(initialize())
    wire.answer(
        post, 200, (*JSON, ("mcp-session-id", "s1")), result(0, {"protocolVersion": "2025-11-25"})
    )
    (posted,) = wire.send(INITIALIZED)
    wire.send(call(id=1))
    wire.send(call(id=2))
    wire.answer(posted, 202, ())
    get = wire.last()
    released = wire.apply(wire.ep.receive_head(get.exchange, 200, SSE))
    assert [json.loads(s.body)["id"] for s in released] == [1, 2]  # type: ignore[union-attr]


@pytest.mark.parametrize("status", [405, 400, 404])
def test_no_get_stream_is_fine(status: int) -> None:
    # Item 3: 405 means none; the conformance mocks answer 400 and 404 too.
    wire = Wire()
    wire.open_session(listen=0)
    get = wire.last()
    wire.answer(get, status, (), b"")
    (post,) = wire.send(call())
    assert post.method == "POST" and not [s for s in wire.sends if s.method == "GET"][1:]


def test_the_get_stream_delivers_and_is_reopened_after_retry() -> None:
    wire = Wire(max_reconnects=4, max_retry_delay=0.6)
    wire.open_session(listen=0)
    get = wire.last()
    changed = json.dumps({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
    wire.answer(get, 200, SSE, event("", id="g1", retry=250) + event(changed, id="g2"))
    assert isinstance(wire.delivered[-1], Notification)
    again = wire.last()
    assert (again.method, again.delay, header(again, "last-event-id")) == ("GET", 0.25, "g2")
    # Reopenings that bring nothing back off (up to max_retry_delay), then stop
    # (max_reconnects = 4).
    delays = []
    for _ in range(4):
        get = wire.last()
        wire.answer(get, 200, SSE, b"")
        delays.append(wire.last().delay if wire.last() is not get else None)
    assert delays == [0.5, 0.6, 0.6, None]


def test_without_the_standalone_stream_option_there_is_no_get() -> None:
    wire = Wire(standalone_stream=False)
    wire.open_session(listen=0)
    assert [s.method for s in wire.sends] == ["POST", "POST"]


# --- resumption (2025-11-25 "Resumability and Redelivery") ----------------------------------


def test_a_stream_that_ends_early_is_resumed_after_retry_with_last_event_id() -> None:
    wire = Wire()
    wire.open_session()
    (post,) = wire.send(call(id=5))
    wire.answer(post, 200, SSE, event("", id="event-2", retry=500))
    resume = wire.last()
    assert (resume.method, resume.delay) == ("GET", 0.5)
    assert header(resume, "last-event-id") == "event-2"
    assert header(resume, "mcp-session-id") == "s1"
    assert header(resume, "accept") == "text/event-stream"
    assert wire.failed == {}
    # The answer comes on the GET; the GET is then let go.
    wire.answer(
        resume, 200, SSE, event("", id="event-3") + event(result(5, {}), id="event-4"), end=False
    )
    assert isinstance(wire.delivered[-1], Response)
    assert wire.aborted == [resume.exchange]


def test_a_broken_stream_is_resumed_too_with_the_default_delay() -> None:
    wire = Wire()
    wire.open_session()
    (post,) = wire.send(call(id=5))
    wire.answer(post, 200, SSE, event("", id="a"), end=False)
    wire.apply(wire.ep.receive_failure(post.exchange, "the connection broke"))
    resume = wire.last()
    assert (resume.method, resume.delay, header(resume, "last-event-id")) == ("GET", 1.0, "a")


def test_resumption_gives_up_after_empty_attempts() -> None:
    wire = Wire(max_reconnects=3)
    wire.open_session()
    (post,) = wire.send(call(id=5))
    wire.answer(post, 200, SSE, event("", id="a"))
    for _ in range(3):
        wire.answer(wire.last(), 200, SSE, b"")
    assert "no answer came" in wire.failed[5].reason
    assert wire.failed[5].unknown


def test_a_resumption_that_cannot_connect_backs_off_then_fails() -> None:
    # Issue 14 item 3: a GET that never got a head was neither failed nor retried,
    # and the call hung. Each attempt waits the server's retry, doubled each time
    # (up to max_retry_delay); max_reconnects attempts in a row, then the call fails.
    wire = Wire(max_reconnects=4, max_retry_delay=0.3)
    wire.open_session()
    (post,) = wire.send(call(id=5))
    wire.answer(post, 200, SSE, event("", id="a", retry=100), end=False)
    wire.apply(wire.ep.receive_failure(post.exchange, "the server closed the connection"))
    delays = []
    while 5 not in wire.failed:
        get = wire.last()
        assert (get.method, header(get, "last-event-id")) == ("GET", "a")
        delays.append(get.delay)
        wire.apply(wire.ep.receive_failure(get.exchange, "the connection was refused"))
    assert delays == [0.1, 0.2, 0.3, 0.3]
    failure = wire.failed[5]
    assert failure.unknown
    assert "resuming the stream failed 4 times in a row" in failure.reason
    assert "the connection was refused" in failure.reason


def test_a_server_back_within_the_attempts_resumes_the_stream() -> None:
    wire = Wire()
    wire.open_session()
    (post,) = wire.send(call(id=5))
    wire.answer(post, 200, SSE, event("", id="a", retry=10))
    for _ in range(2):
        wire.apply(wire.ep.receive_failure(wire.last().exchange, "the connection was refused"))
    resume = wire.last()
    assert (resume.method, header(resume, "last-event-id")) == ("GET", "a")
    wire.answer(resume, 200, SSE, event(result(5, {"ok": True}), id="b"), end=False)
    assert wire.failed == {}
    assert isinstance(wire.delivered[-1], Response) and wire.delivered[-1].id == 5


def test_a_resumption_that_finds_the_session_gone_fails_with_session_lost() -> None:
    wire = Wire()
    wire.open_session()
    (post,) = wire.send(call(id=5))
    wire.answer(post, 200, SSE, event("", id="a", retry=10))
    wire.answer(wire.last(), 503, (), b"restarting")  # an attempt: try again
    get = wire.last()
    assert (get.method, get.delay) == ("GET", 0.02)
    wire.answer(get, 404, (), b"")
    assert wire.failed[5].reason.startswith("session lost")
    assert wire.failed[5].unknown


def test_a_post_is_sent_again_only_when_that_is_safe() -> None:
    # RFC 9112 section 9.3.1: what the adapter may send again on its own.
    wire = Wire()
    wire.open_session()
    initialize_post, initialized_post = wire.sends[:2]
    assert initialize_post.replayable and initialized_post.replayable
    (listing,) = wire.send(Request(id=2, method="tools/list"))
    (called,) = wire.send(call(id=3))
    assert listing.replayable and not called.replayable


def test_a_post_that_was_sent_fails_with_its_outcome_unknown() -> None:
    wire = Wire()
    wire.open_session()
    (unsent,) = wire.send(call(id=5))
    (sent,) = wire.send(call(id=6))
    wire.ep.request_sent(sent.exchange)
    wire.apply(wire.ep.receive_failure(unsent.exchange, "the connection was refused"))
    wire.apply(wire.ep.receive_failure(sent.exchange, "the server closed the connection"))
    assert not wire.failed[5].unknown
    assert wire.failed[6].unknown
    assert [s.exchange for s in wire.sends].count(sent.exchange) == 1


@pytest.mark.parametrize(
    ("message", "body"),
    [
        (
            call(id=5),
            event(
                json.dumps(
                    {
                        "jsonrpc": "2.0",
                        "method": "notifications/message",
                        "params": {"level": "info", "data": 1},
                    }
                )
            ),
        ),
        (call(id=5, modern=True), event("", id="a")),
    ],
    ids=["no-event-id", "modern-era"],
)
def test_some_streams_cannot_be_resumed(message: Request, body: bytes) -> None:
    # Without an event id nothing names the place to resume from; 2026-07-28
    # "Resumable SSE streams via Last-Event-ID are not supported".
    wire = Wire()
    wire.open_session()
    wire.send(message)
    wire.answer(wire.last(), 200, SSE, body)
    assert "no answer came" in wire.failed[5].reason


def test_a_refused_resumption_fails_the_request() -> None:
    wire = Wire()
    wire.open_session()
    (post,) = wire.send(call(id=5))
    wire.answer(post, 200, SSE, event("", id="a", retry=0))
    wire.answer(wire.last(), 405, (), b"")
    assert "resuming the stream failed: HTTP 405" in wire.failed[5].reason


def test_an_answer_that_came_on_another_stream_needs_no_resumption() -> None:
    wire = Wire()
    wire.open_session(listen=0)
    get = wire.last()
    wire.answer(get, 200, SSE, event("", id="g1"), end=False)
    (post,) = wire.send(call(id=5))
    wire.answer(post, 200, SSE, event("", id="p1"), end=False)
    wire.apply(wire.ep.receive_data(get.exchange, event(result(5, {}), id="g2")))
    wire.apply(wire.ep.receive_end(post.exchange))
    assert wire.last() is post and wire.failed == {}


def test_an_oversized_event_fails_the_request() -> None:
    # Issue 14 item 4: resuming would replay the same event (and our server
    # refused the GET with 400, which the call reported); it says what happened.
    wire = Wire(max_event_bytes=64)
    wire.open_session()
    (post,) = wire.send(call(id=5))
    wire.answer(post, 200, SSE, event("", id="a", retry=10) + event("x" * 100), end=False)
    assert post.exchange in wire.aborted
    assert wire.last() is post
    assert wire.failed[5].reason == (
        "the answer is over 64 bytes, the client's limit (max_event_bytes)"
    )


def test_an_oversized_json_answer_fails_the_request() -> None:
    wire = Wire(max_answer_bytes=64)
    wire.open_session()
    (post,) = wire.send(call(id=5))
    wire.answer(post, 200, JSON, result(5, "x" * 100))
    assert post.exchange in wire.aborted
    assert wire.failed[5].reason == (
        "the answer is over 64 bytes, the client's limit (max_answer_bytes)"
    )


# --- cancellation -----------------------------------------------------------------------------


def cancelled(request_id: int) -> Notification:
    return Notification(method="notifications/cancelled", params={"requestId": request_id})


def test_cancelling_a_modern_request_closes_its_stream_and_sends_nothing() -> None:
    # 2026-07-28 "Cancellation".
    wire = Wire()
    (post,) = wire.send(call(id=9, modern=True))
    assert wire.send(cancelled(9)) == []
    assert wire.aborted == [post.exchange]
    assert wire.apply(wire.ep.receive_head(post.exchange, 200, JSON)) == []


def test_cancelling_a_legacy_request_tells_the_server() -> None:
    wire = Wire()
    wire.open_session()
    (post,) = wire.send(call(id=9))
    (notice,) = wire.send(cancelled(9))
    assert json.loads(notice.body)["method"] == "notifications/cancelled"
    assert header(notice, "mcp-session-id") == "s1"
    assert wire.aborted == [post.exchange]


# --- odd answers ------------------------------------------------------------------------------


def test_unreadable_messages_go_to_the_session_as_they_are() -> None:
    # The session answers what can be answered (a parse error, a batch of 2025-03-26).
    wire = Wire()
    (post,) = wire.send(call(id=1))
    wire.answer(post, 200, SSE, event("{not json") + event(result(1, {})))
    assert wire.delivered[0] == b"{not json"
    (post,) = wire.send(call(id=2))
    batch = b"[" + result(2, {}) + b"]"
    wire.answer(post, 200, JSON, batch)
    assert wire.delivered[-1] == batch and "answer" in wire.failed[2].reason


def test_an_error_answer_that_breaks_off_is_judged_on_what_came() -> None:
    wire = Wire()
    (post,) = wire.send(call(id=1))
    wire.answer(post, 502, (("content-type", "text/plain"),), b"bad gate", end=False)
    wire.apply(wire.ep.receive_failure(post.exchange, "the connection broke"))
    assert (wire.failed[1].status, wire.failed[1].body) == (502, b"bad gate")
