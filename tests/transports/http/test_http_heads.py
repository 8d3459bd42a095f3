"""The heads we send with h11: the same fields h11 would write, checked by h11's rules."""

from __future__ import annotations

import h11
import pytest

from transports.http.head_lines import lines_of, response_head, with_lines

HEADERS = [
    ("host", "127.0.0.1:8000"),
    ("user-agent", "mcp-core/0.1.0"),
    ("content-type", "application/json"),
    ("accept", "application/json, text/event-stream"),
    ("mcp-protocol-version", "2026-07-28"),
    ("mcp-name", "a b\tc"),
    ("x-empty", ""),
]


def _fields(head: bytes) -> tuple[bytes, list[bytes]]:
    start, *fields = head.split(b"\r\n\r\n")[0].split(b"\r\n")
    return start, sorted(fields)


def _request(headers: list[tuple[str, str]], spliced: bool) -> tuple[h11.Connection, bytes]:
    connection = h11.Connection(h11.CLIENT)
    if not spliced:
        head = connection.send(h11.Request(method="POST", target="/mcp", headers=headers))
        return connection, head or b""
    own, lines = lines_of(headers)
    head = connection.send(h11.Request(method="POST", target="/mcp", headers=own))
    return connection, with_lines(head or b"", lines)


def test_a_head_has_the_fields_h11_would_write() -> None:
    headers = [*HEADERS, ("content-length", "2")]
    _, ours = _request(headers, spliced=True)
    _, theirs = _request(headers, spliced=False)
    assert ours.endswith(b"\r\n\r\n") and ours.count(b"\r\n\r\n") == 1
    assert ours.startswith(b"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:8000\r\n")
    assert _fields(ours) == _fields(theirs)


def test_fields_h11_acts_on_go_through_h11() -> None:
    own, lines = lines_of([("Connection", "close"), ("content-length", "0"), ("x-a", "1")])
    assert own == [("Connection", "close"), ("content-length", "0")]
    assert lines == b"x-a: 1\r\n"
    connection, _ = _request([("host", "h"), ("connection", "close")], spliced=True)
    connection.send(h11.EndOfMessage())
    assert connection.our_state is h11.MUST_CLOSE


@pytest.mark.parametrize(
    "field",
    [
        ("x-injected", "a\r\nset-cookie: b"),
        ("x-nul", "a\x00b"),
        ("x-padded", " a"),
        ("bad name", "a"),
        ("x:colon", "a"),
        ("", "a"),
    ],
)
def test_a_field_h11_would_refuse_is_refused(field: tuple[str, str]) -> None:
    with pytest.raises(h11.LocalProtocolError):
        h11.Request(method="POST", target="/", headers=[("host", "h"), field])
    with pytest.raises(h11.LocalProtocolError):
        lines_of([field])
    with pytest.raises(h11.LocalProtocolError):
        lines_of([field])  # refused again: refusals are not remembered


def test_a_response_head_without_other_fields_is_unchanged() -> None:
    connection = h11.Connection(h11.SERVER)
    connection.receive_data(b"GET / HTTP/1.1\r\nhost: h\r\n\r\n")
    connection.next_event()
    own, lines = lines_of([("content-length", "0")])
    head = connection.send(h11.Response(status_code=204, headers=own)) or b""
    assert with_lines(head, lines) == head


def _server(
    request: bytes = b"POST /mcp HTTP/1.1\r\nhost: h\r\ncontent-length: 0\r\n\r\n",
) -> h11.Connection:
    connection = h11.Connection(h11.SERVER)
    connection.receive_data(request)
    assert isinstance(connection.next_event(), h11.Request)
    assert connection.next_event() == h11.EndOfMessage()
    return connection


ANSWER = (
    ("content-type", "application/json"),
    ("mcp-session-id", "abc"),
    ("content-length", "2"),
)


def _answer(connection: h11.Connection, remembered: bool) -> bytes:
    if remembered:
        response, lines = response_head(200, ANSWER)
        head = with_lines(connection.send(response) or b"", lines)
    else:
        head = connection.send(h11.Response(status_code=200, headers=list(ANSWER))) or b""
    head += connection.send(h11.Data(data=b"{}")) or b""
    return head + (connection.send(h11.EndOfMessage()) or b"")


def test_a_remembered_head_is_made_once_and_writes_what_h11_writes() -> None:
    first = response_head(200, ANSWER)
    assert response_head(200, ANSWER) is first
    ours, theirs = _server(), _server()
    for _ in range(3):  # one connection, several requests, each head remembered
        sent = _answer(ours, remembered=True)
        expected = _answer(theirs, remembered=False)
        assert sent.split(b"\r\n", 1)[0] == expected.split(b"\r\n", 1)[0] == b"HTTP/1.1 200 "
        assert _fields(sent) == _fields(expected)
        assert sent.endswith(b"\r\n\r\n{}")
        assert ours.our_state is h11.DONE
        ours.start_next_cycle()
        theirs.start_next_cycle()
        for connection in (ours, theirs):
            connection.receive_data(b"POST /mcp HTTP/1.1\r\nhost: h\r\ncontent-length: 0\r\n\r\n")
            connection.next_event()
            connection.next_event()


def test_a_remembered_head_still_follows_h11s_keep_alive_rules() -> None:
    # The client asked to close: h11 adds Connection: close to the remembered head.
    connection = _server(b"POST /mcp HTTP/1.1\r\nhost: h\r\nconnection: close\r\n\r\n")
    sent = _answer(connection, remembered=True)
    assert b"\r\nconnection: close\r\n" in sent.lower()
    assert connection.our_state is h11.MUST_CLOSE


def test_a_refused_head_is_not_remembered() -> None:
    for _ in range(2):
        with pytest.raises(h11.LocalProtocolError):
            response_head(200, (("x-bad", "a\r\nb"), ("content-length", "0")))
