"""The read side's kept reader on asyncio (`transports.backend.KeptReader`).

On asyncio the read side of a `StdioStream` keeps one reader registered with the loop's
selector between waits, instead of adding and removing one per wait. Its readiness is
level-triggered: while the pipe holds data nobody reads (reading paused by
back-pressure), the callback would run in every loop turn and keep the loop from ever
sleeping, unless it removes itself. These tests look at the loop's registration through
`loop.remove_reader`, which says whether a reader was registered. trio keeps
`anyio.wait_readable`, which registers nothing between waits, so they are asyncio only.
"""

from __future__ import annotations

import asyncio
import os

import anyio
import anyio.lowlevel
import pytest
from limits import HANG

from transports import backend
from transports.stdio_streams import StdioStream

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.parametrize("anyio_backend", ["asyncio"]),
    pytest.mark.skipif(not backend.native, reason="plain anyio (MCP_CORE_PLAIN_ANYIO) keeps none"),
]

LIMIT = HANG
TURNS = 50
"""Loop turns to run with data left unread; the kept reader allows itself far fewer."""


async def receive_written(stream: StdioStream, write_fd: int, data: bytes) -> object:
    """Receive in a task that waits on the pipe first; ``data`` goes in once it waits."""
    got: list[object] = []

    async def receive() -> None:
        got.append(await stream.receive())

    async with anyio.create_task_group() as tg:
        tg.start_soon(receive)
        await anyio.wait_all_tasks_blocked()
        os.write(write_fd, data)
    return got[0]


async def test_a_receive_that_waited_leaves_its_reader_registered() -> None:
    # The point of the reader: a second wait does not register again.
    read_fd, write_fd = os.pipe()
    stream = StdioStream(read_fd, write_fd)
    try:
        with anyio.fail_after(LIMIT):
            assert await receive_written(stream, write_fd, b"one\n") == b"one"
            assert asyncio.get_running_loop().remove_reader(read_fd) is True
    finally:
        await stream.aclose()


async def test_data_left_unread_does_not_keep_the_loop_turning() -> None:
    read_fd, write_fd = os.pipe()
    stream = StdioStream(read_fd, write_fd)
    try:
        with anyio.fail_after(LIMIT):
            assert await receive_written(stream, write_fd, b"first\n") == b"first"
            # Nobody receives now (as when the outbox is full): the pipe stays readable.
            os.write(write_fd, b"second\nthird\n")
            for _ in range(TURNS):
                await anyio.lowlevel.checkpoint()
            assert asyncio.get_running_loop().remove_reader(read_fd) is False
            # Reading again finds what waited, and waits again for more.
            assert await stream.receive() == b"second"
            assert await stream.receive() == b"third"
            assert await receive_written(stream, write_fd, b"fourth\n") == b"fourth"
    finally:
        await stream.aclose()


async def test_closing_the_stream_removes_its_reader() -> None:
    # No registration may outlive the descriptor: asyncio would keep a stale key for
    # the number, and the next descriptor given that number could not be watched.
    read_fd, write_fd = os.pipe()
    stream = StdioStream(read_fd, write_fd)
    with anyio.fail_after(LIMIT):
        assert await receive_written(stream, write_fd, b"one\n") == b"one"
        await stream.aclose()
    assert asyncio.get_running_loop().remove_reader(read_fd) is False


async def test_a_waiting_receive_is_woken_by_close() -> None:
    read_fd, write_fd = os.pipe()
    stream = StdioStream(read_fd, write_fd)
    with anyio.fail_after(LIMIT):
        async with anyio.create_task_group() as tg:
            errors: list[BaseException] = []

            async def receive() -> None:
                try:
                    await stream.receive()
                except anyio.ClosedResourceError as exc:
                    errors.append(exc)

            tg.start_soon(receive)
            await anyio.wait_all_tasks_blocked()
            await stream.aclose()
    assert len(errors) == 1
    assert asyncio.get_running_loop().remove_reader(read_fd) is False
