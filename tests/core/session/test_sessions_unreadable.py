"""What a client does with messages from a server it cannot read: it answers none of
them (a server that writes garbage must not get an answer per line, back and forth),
and past MAX_UNREADABLE_IN_A_ROW in a row takes the channel as lost, saying why. A
server still answers an unreadable message with -32700 (JSON-RPC 2.0 section 5)."""

from __future__ import annotations

import pytest
from helpers import SessionPair

from mcp_core import RemoteProtocolError
from mcp_core.session.base import MAX_UNREADABLE_IN_A_ROW, SessionState
from mcp_core.session.events import ProtocolViolation
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
