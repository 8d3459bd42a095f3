"""The map from anyio's and the OS's exceptions (`transports.errors`)."""

from __future__ import annotations

import errno

import anyio
import pytest

from transports.errors import RECEIVE_ENDED, SEND_FAILED, os_error_of

pytestmark = pytest.mark.anyio


def test_the_os_error_under_anyios() -> None:
    plain = OSError(errno.EMFILE, "too many open files")
    assert os_error_of(plain) is plain
    try:
        raise anyio.BrokenResourceError from plain
    except anyio.BrokenResourceError as wrapped:
        assert os_error_of(wrapped) is plain
    assert os_error_of(anyio.BrokenResourceError()) is None


async def test_a_stream_whose_peer_left_fails_as_the_table_says() -> None:
    send, receive = anyio.create_memory_object_stream[bytes](1)
    await receive.aclose()
    with pytest.raises(SEND_FAILED):
        await send.send(b"x")
    await send.aclose()
    other_send, other_receive = anyio.create_memory_object_stream[bytes](1)
    await other_send.aclose()
    with pytest.raises(RECEIVE_ENDED):
        await other_receive.receive()
    await other_receive.aclose()
    with pytest.raises(RECEIVE_ENDED):
        await other_receive.receive()
