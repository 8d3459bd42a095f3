"""The client-side HTTP rules, sans I/O, when the first plan fails: a session the
server lost (2025-11-25 basic/transports.mdx "Session Management"), an HTTP+SSE server
("Backwards Compatibility"; 2024-11-05 "HTTP with SSE"), and the end of a connection.
"""

from __future__ import annotations

import json

import pytest
from http_client_helpers import (
    INITIALIZED,
    JSON,
    SSE,
    URL,
    Wire,
    call,
    error,
    event,
    header,
    initialize,
    result,
)

from mcp_core import LocalProtocolError
from mcp_core.wire import INVALID_REQUEST, ErrorResponse, Response

# --- a lost session (2025-11-25 "Session Management" item 4) --------------------------------


def test_a_lost_session_is_replaced_and_the_request_sent_again() -> None:
    wire = Wire()
    wire.open_session()
    (post,) = wire.send(call(id=3))
    (reopen,) = [
        s
        for s in wire.answer(post, 404, JSON, error(None, INVALID_REQUEST))
        if s.__class__.__name__ == "SendHttp"
    ]
    assert json.loads(reopen.body) == json.loads(wire.sends[0].body)  # the same initialize
    assert header(reopen, "mcp-session-id") is None
    assert wire.send(call(id=4)) == []  # held meanwhile
    wire.answer(
        reopen, 200, (*JSON, ("mcp-session-id", "s2")), result(0, {"protocolVersion": "2025-11-25"})
    )
    posted = wire.last()
    assert json.loads(posted.body)["method"] == "notifications/initialized"
    assert header(posted, "mcp-session-id") == "s2"
    wire.answer(posted, 202, ())
    get = wire.last()
    wire.answer(get, 405, (), b"")
    again, later = wire.sends[-2:]
    assert [json.loads(s.body)["id"] for s in (again, later)] == [3, 4]
    assert header(again, "mcp-session-id") == "s2"
    assert wire.delivered[1:] == []  # the new initialize's answer is not the session's
    # A second 404 for the same request ends it.
    wire.answer(again, 404, (), b"")
    assert "ended the session" in wire.failed[3].reason


def test_a_new_session_that_cannot_be_opened_ends_the_connection() -> None:
    wire = Wire()
    wire.open_session()
    (post,) = wire.send(call(id=3))
    wire.answer(post, 404, (), b"")
    reopen = wire.last()
    wire.answer(reopen, 200, SSE, event(result(0, {"protocolVersion": "2025-06-18"})))
    assert "speaks '2025-06-18'" in wire.failed[3].reason
    assert len(wire.closed) == 1


# --- HTTP+SSE (2025-11-25 "Backwards Compatibility"; 2024-11-05) -----------------------------


@pytest.mark.parametrize("status", [400, 404, 405])
def test_initialize_refused_falls_back_to_http_sse(status: int) -> None:
    wire = Wire("http://127.0.0.1:8000/sse")
    (post,) = wire.send(initialize())
    wire.answer(post, status, (("content-type", "text/plain"),), b"no")
    connect = wire.last()
    assert (connect.method, connect.url, header(connect, "accept")) == (
        "GET",
        "http://127.0.0.1:8000/sse",
        "text/event-stream",
    )
    wire.answer(connect, 200, SSE, event("/messages/?session_id=abc", event="endpoint"), end=False)
    again = wire.last()
    assert (again.method, again.url, again.target) == (
        "POST",
        "http://127.0.0.1:8000/messages/?session_id=abc",
        "/messages/?session_id=abc",
    )
    assert json.loads(again.body)["method"] == "initialize"
    wire.answer(again, 202, (), b"Accepted")
    wire.apply(
        wire.ep.receive_data(connect.exchange, event(result(0, {"protocolVersion": "2024-11-05"})))
    )
    assert isinstance(wire.delivered[-1], Response)
    (posted,) = wire.send(INITIALIZED)
    wire.answer(posted, 202, ())
    (post,) = wire.send(call(id=1))
    assert post.url.endswith("?session_id=abc") and header(post, "mcp-session-id") is None
    wire.apply(wire.ep.receive_end(connect.exchange))
    assert wire.closed and "closed the HTTP+SSE stream" in wire.closed[0]


def test_initialize_refused_with_its_own_json_rpc_error_does_not_fall_back() -> None:
    wire = Wire()
    (post,) = wire.send(initialize())
    wire.answer(post, 400, JSON, error(0, -32602, "bad params"))
    assert isinstance(wire.delivered[-1], ErrorResponse) and wire.sends == [post]


@pytest.mark.parametrize(
    ("status", "headers", "body", "reason"),
    [
        (404, (), b"", "GET http://127.0.0.1:8000/mcp opened no SSE stream (HTTP 404)"),
        (200, SSE, event("http://evil.example/messages", event="endpoint"), "another origin"),
        (200, SSE, b"", "ended before naming its endpoint"),
    ],
)
def test_a_failed_fallback_fails_initialize(
    status: int, headers: tuple[tuple[str, str], ...], body: bytes, reason: str
) -> None:
    wire = Wire()
    (post,) = wire.send(initialize())
    wire.answer(post, 405, (), b"")
    wire.answer(wire.last(), status, headers, body)
    failure = wire.failed[0]
    assert reason in failure.reason and failure.reason.startswith(f"POST {URL} got HTTP 405")
    assert wire.closed


def test_the_streamable_transport_never_falls_back() -> None:
    wire = Wire(transport="streamable")
    (post,) = wire.send(initialize())
    wire.answer(post, 405, (), b"")
    assert wire.failed[0].status == 405 and wire.sends == [post]


def test_the_sse_transport_starts_with_the_stream() -> None:
    wire = Wire("http://127.0.0.1:8000/sse", transport="sse")
    assert wire.send(initialize()) == [wire.last()] and wire.last().method == "GET"
    wire.answer(wire.last(), 200, SSE, event("messages?x=1", event="endpoint"), end=False)
    assert wire.last().url == "http://127.0.0.1:8000/messages?x=1"


# --- the end ----------------------------------------------------------------------------------


def test_close_aborts_everything_and_deletes_the_session() -> None:
    # 2025-11-25 "Session Management" item 5.
    wire = Wire()
    wire.open_session(listen=0)
    get = wire.last()
    wire.apply(wire.ep.receive_head(get.exchange, 200, SSE))
    (post,) = wire.send(call())
    wire.apply(wire.ep.close())
    assert sorted(wire.aborted) == sorted([get.exchange, post.exchange])
    delete = wire.last()
    assert (delete.method, header(delete, "mcp-session-id")) == ("DELETE", "s1")
    assert wire.ep.close() == []
    with pytest.raises(LocalProtocolError):
        wire.ep.send(call())


def test_close_without_a_session_sends_nothing() -> None:
    wire = Wire()
    wire.send(call(modern=True))
    assert [type(a).__name__ for a in wire.ep.close()] == ["AbortExchange"]


# --- odd answers ------------------------------------------------------------------------------


def test_requests_lost_with_the_old_session_wait_for_the_new_one() -> None:
    wire = Wire()
    wire.open_session()
    (first,) = wire.send(call(id=3))
    (second,) = wire.send(call(id=4))
    wire.answer(first, 404, (), b"")
    reopen = wire.last()
    wire.answer(second, 404, (), b"")  # the same lost session: held, no second initialize
    assert wire.last() is reopen
    wire.answer(
        reopen,
        200,
        SSE,
        event("", id="x")
        + event(
            json.dumps(
                {
                    "jsonrpc": "2.0",
                    "method": "notifications/message",
                    "params": {"level": "info", "data": 1},
                }
            )
        )
        + event(result(0, {"protocolVersion": "2025-11-25"})),
        end=False,
    )
    assert wire.aborted[-1] == reopen.exchange  # the answer came: let go of it
    wire.answer(wire.last(), 202, ())
    wire.answer(wire.last(), 405, (), b"")
    assert sorted(json.loads(s.body)["id"] for s in wire.sends[-2:]) == [3, 4]


@pytest.mark.parametrize(
    ("status", "body", "reason"),
    [
        (503, b"", "a new initialize got HTTP 503"),
        (200, error(0, -32600), "the new initialize was refused"),
        (200, None, "got no answer"),
    ],
)
def test_reopen_failures(status: int, body: bytes | None, reason: str) -> None:
    wire = Wire()
    wire.open_session()
    (post,) = wire.send(call(id=3))
    wire.answer(post, 404, (), b"")
    reopen = wire.last()
    if body is None:
        wire.apply(wire.ep.receive_failure(reopen.exchange, "the connection broke"))
    else:
        wire.answer(reopen, status, JSON, body)
    assert reason in wire.failed[3].reason and wire.closed
    assert wire.send(call(id=5)) == []  # nothing goes any more


def test_http_sse_ignores_what_comes_before_and_after_the_endpoint() -> None:
    wire = Wire("http://h:1/sse", transport="sse")
    (connect,) = wire.send(initialize())
    wire.answer(connect, 200, SSE, event(result(9, {})), end=False)  # no endpoint yet
    assert wire.delivered == []
    wire.apply(wire.ep.receive_data(connect.exchange, event("/a", event="endpoint")))
    wire.apply(wire.ep.receive_data(connect.exchange, event("/b", event="endpoint")))
    assert wire.last().url == "http://h:1/a"
    wire.apply(wire.ep.receive_failure(connect.exchange, "the connection broke"))
    assert "the connection broke" in wire.closed[0]


def test_a_session_ended_mid_handshake_is_opened_again_once() -> None:
    # A server at its session cap may end a session between initialize and
    # notifications/initialized: the client starts the handshake again, once,
    # holding what it was asked to send meanwhile.
    wire = Wire()
    (post,) = wire.send(initialize())
    ok = result(0, {"protocolVersion": "2025-11-25"})
    wire.answer(post, 200, (*JSON, ("mcp-session-id", "s1")), ok)
    (posted,) = wire.send(INITIALIZED)
    (reopen,) = [s for s in wire.answer(posted, 404, (), b"") if s.__class__.__name__ == "SendHttp"]
    assert json.loads(reopen.body) == json.loads(post.body)
    assert header(reopen, "mcp-session-id") is None
    assert wire.send(call(id=3)) == []  # held meanwhile
    wire.answer(reopen, 200, (*JSON, ("mcp-session-id", "s2")), ok)
    again = wire.last()
    assert json.loads(again.body)["method"] == "notifications/initialized"
    assert header(again, "mcp-session-id") == "s2"
    # Once only: a second 404 mid-handshake lets the call go (and find out).
    wire.answer(again, 404, (), b"")
    sent = wire.last()
    assert json.loads(sent.body)["id"] == 3 and header(sent, "mcp-session-id") == "s2"
    assert wire.failed == {} and wire.closed == []
