"""What a client does with messages from a server it cannot read: it answers none of
them (a server that writes garbage must not get an answer per line, back and forth),
and past MAX_UNREADABLE_IN_A_ROW in a row takes the channel as lost, saying why. A
server still answers an unreadable message with -32700 (JSON-RPC 2.0 section 5)."""

from __future__ import annotations

import json

import pytest
from helpers import SessionPair

from mcp_core import RemoteProtocolError
from mcp_core.session.base import MAX_UNREADABLE_IN_A_ROW, SessionState
from mcp_core.session.events import ErrorReceived, ProtocolViolation
from mcp_core.wire import PARSE_ERROR, Notification, encode_message


@pytest.mark.parametrize("revision", ["2025-11-25", "2026-07-28"])
def test_a_client_answers_no_garbage_and_gives_up_past_the_bound(revision: str) -> None:
    pair = SessionPair(revisions=(revision,))
    pair.open()
    client = pair.client
    assert client.state is SessionState.READY
    for _ in range(MAX_UNREADABLE_IN_A_ROW - 1):
        (violation,) = client.receive_bytes(b"y")
        assert isinstance(violation, ProtocolViolation) and violation.code == PARSE_ERROR
    assert client.messages_to_send() == []  # nothing said back
    with pytest.raises(RemoteProtocolError):
        client.receive_bytes(b"garbage")
    assert client.state is SessionState.ERROR
    assert client.error_reason is not None
    assert f"{MAX_UNREADABLE_IN_A_ROW} messages in a row that are not JSON-RPC" in (
        client.error_reason
    )


@pytest.mark.parametrize("objects", [False, True], ids=["bytes", "objects"])
def test_a_readable_message_starts_the_count_again(objects: bool) -> None:
    pair = SessionPair(revisions=("2025-11-25",))
    pair.open()
    readable = Notification(method="notifications/tools/list_changed")
    for _ in range(3):
        for _ in range(MAX_UNREADABLE_IN_A_ROW - 1):
            pair.client.receive_unreadable("noise") if objects else pair.client.receive_bytes(b"n")
        # Any readable message ends the run, a notification as well as an answer.
        if objects:
            pair.client.receive_message(readable)
        else:
            pair.client.receive_bytes(encode_message(readable))
    assert pair.client.state is SessionState.READY
    with pytest.raises(RemoteProtocolError):
        for _ in range(MAX_UNREADABLE_IN_A_ROW):
            pair.client.receive_unreadable("noise")


def test_a_server_still_answers_garbage_with_a_parse_error() -> None:
    pair = SessionPair(revisions=("2025-11-25",))
    pair.open()
    for _ in range(MAX_UNREADABLE_IN_A_ROW + 1):
        pair.server.receive_bytes(b"y")
    sent = pair.server.messages_to_send()
    assert len(sent) == MAX_UNREADABLE_IN_A_ROW + 1
    assert pair.server.state is SessionState.READY


def test_a_client_fails_the_request_an_oversized_answer_was_for() -> None:
    # Issue 14 item 4: a stdio line over the client's cap, dropped unread, answered
    # a request that then waited forever. Its head names the request: it fails.
    pair = SessionPair(revisions=("2025-11-25",))
    pair.open()
    client = pair.client
    request_id = client.send_request("ping")
    head = b'{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"xxx' % (
        encode_message_id(request_id)
    )
    (failed,) = client.receive_unreadable("message longer than 9 bytes", head)
    assert isinstance(failed, ErrorReceived) and failed.local
    assert (failed.id, failed.method, failed.error.code) == (request_id, "ping", PARSE_ERROR)
    assert failed.error.message == "the answer is a message longer than 9 bytes"
    assert client.state is SessionState.READY
    # A late copy of the answer is dropped: the request is no longer pending.
    assert (
        client.receive_bytes(
            b'{"jsonrpc":"2.0","id":%s,"result":{}}' % (encode_message_id(request_id))
        )
        == []
    )


@pytest.mark.parametrize(
    "head",
    [
        b'{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"xxxx',
        b'{"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"xxxxxxxxxx',
        b'{"jsonrpc":"2.0","id":99,"result":{"content":[{"type":"text","text":"x',
    ],
    ids=["a-notification", "id-after-the-result", "not-our-request"],
)
def test_a_client_fails_the_channel_when_it_cannot_tell_what_it_lost(head: bytes) -> None:
    pair = SessionPair(revisions=("2025-11-25",))
    pair.open()
    client = pair.client
    client.send_request("ping")
    with pytest.raises(RemoteProtocolError):
        client.receive_unreadable("message longer than 9 bytes", head)
    assert client.state is SessionState.ERROR
    assert client.error_reason == (
        "the server wrote a message longer than 9 bytes, and which request it answers "
        "cannot be read"
    )


def test_a_server_answers_an_oversized_line_with_a_parse_error_whatever_its_head() -> None:
    pair = SessionPair(revisions=("2025-11-25",))
    pair.open()
    (violation,) = pair.server.receive_unreadable("too long", b'{"jsonrpc":"2.0","id":1,')
    assert isinstance(violation, ProtocolViolation) and violation.code == PARSE_ERROR
    (reply,) = pair.server.messages_to_send()
    assert encode_message(reply).startswith(b'{"jsonrpc":"2.0","id":null,"error"')


def encode_message_id(request_id: object) -> bytes:
    return json.dumps(request_id).encode()
