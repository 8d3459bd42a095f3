"""A peer that never reads our stdout: the stdio server stops reading its stdin once
the answers waiting to be written pass a bound (issue: the outbox was unbounded, and
300,000 unread calls grew the server to 168 MB). Then the peer reads, and every
answer arrives. Asyncio and trio, in a subprocess whose RSS is read from /proc.

Each call asks for an 8 KiB answer in a request of ~100 bytes, so the answers the
server holds grow 80 times faster than what it reads. Without the bound the server
takes every byte offered (1 MiB of requests, 90 MB of answers); with it, the writes
to its stdin block after a few hundred KiB.

The client side shares the bound: a server that sends pings and never reads the
answers stops being read.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator

import anyio
import paths
import pytest

from transports import Client
from transports.stdio import stdio_connector

pytestmark = pytest.mark.anyio

ANSWER_BYTES = 8192
OFFERED = 1024 * 1024
"""Bytes of requests the test offers at most; an unbounded server takes them all."""
ACCEPTED_AT_MOST = 512 * 1024
"""What a bounded server takes: requests whose answers fill the outbox
(DEFAULT_MAX_OUTBOX_BYTES / ANSWER_BYTES of them), one read's worth more (64 KiB),
and the pipe's buffer (64 KiB)."""
RSS_GROWTH_AT_MOST = 64 * 1024 * 1024
STALLED = 1.0
"""Seconds a full stdin pipe stays full before the server counts as not reading."""
LIMIT = 60.0


def line(message: dict[str, object]) -> bytes:
    return json.dumps(message, separators=(",", ":")).encode() + b"\n"


def big_call(id: int) -> bytes:
    params = {"name": "big", "arguments": {"size": ANSWER_BYTES}}
    return line({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})


HANDSHAKE = line(
    {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "never-reads", "version": "1"},
        },
    }
) + line({"jsonrpc": "2.0", "method": "notifications/initialized"})


def rss(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        for field in status:
            if field.startswith("VmRSS:"):
                return int(field.split()[1]) * 1024
    raise AssertionError("no VmRSS")


@contextlib.contextmanager
def echo_server(backend: str) -> Iterator[subprocess.Popen[bytes]]:
    argv = [sys.executable, str(paths.SERVERS / "stdio_echo.py"), backend]
    process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert process.stdin is not None and process.stdout is not None
        os.set_blocking(process.stdin.fileno(), False)
        os.set_blocking(process.stdout.fileno(), False)
        yield process
    finally:
        process.kill()
        process.wait()


class Lines:
    """Whole lines read from a non-blocking descriptor."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.rest = b""

    async def next_lines(self) -> list[bytes]:
        while True:
            try:
                chunk = os.read(self.fd, 1 << 20)
            except BlockingIOError:
                await anyio.wait_readable(self.fd)
                continue
            assert chunk, "the server closed its stdout"
            *lines, self.rest = (self.rest + chunk).split(b"\n")
            if lines:
                return lines


async def offer(fd: int) -> tuple[int, int]:
    """Write calls until OFFERED bytes went in or the pipe stays full for STALLED
    seconds: (the calls accepted, their bytes). Each request is shorter than
    PIPE_BUF, so each write takes all of it or nothing."""
    accepted = calls = 0
    while accepted < OFFERED:
        request = big_call(calls + 1)
        while True:
            try:
                os.write(fd, request)
                break
            except BlockingIOError:
                with anyio.move_on_after(STALLED):
                    await anyio.wait_writable(fd)
                    continue
                return calls, accepted
        calls += 1
        accepted += len(request)
    return calls, accepted


async def test_a_peer_that_never_reads_stops_the_server_reading(anyio_backend: str) -> None:
    with echo_server(anyio_backend) as process, anyio.fail_after(LIMIT):
        assert process.stdin is not None and process.stdout is not None
        stdin, stdout = process.stdin.fileno(), process.stdout.fileno()
        os.write(stdin, HANDSHAKE)
        lines = Lines(stdout)
        assert b'"id":0' in (await lines.next_lines())[0]
        before = rss(process.pid)

        calls, accepted = await offer(stdin)
        assert accepted < ACCEPTED_AT_MOST, f"the server read {accepted} bytes"
        growth = rss(process.pid) - before
        assert growth < RSS_GROWTH_AT_MOST, f"the server grew by {growth} bytes"

        # The peer reads now: every call accepted is answered, in full.
        answered: set[int] = set()
        while len(answered) < calls:
            for got in await lines.next_lines():
                answer = json.loads(got)
                assert len(answer["result"]["content"][0]["text"]) == ANSWER_BYTES
                answered.add(answer["id"])
        assert answered == set(range(1, calls + 1))


async def test_a_server_that_never_reads_stops_the_client_reading(anyio_backend: str) -> None:
    # The client answers each ping; the server reads none of the answers. With a
    # 64 KiB bound the client stops reading after a few thousand pings (the
    # bound, two pipes and a read's worth); without one it takes all 4 MiB.
    said: list[str] = []
    done = anyio.Event()

    def on_stderr(text: bytes) -> None:
        said.append(text.decode().strip())
        if said[-1].startswith("answered"):
            done.set()

    argv = [sys.executable, str(paths.SERVERS / "ping_flood.py")]
    connector = stdio_connector(argv, stderr=on_stderr, max_outbox_bytes=64 * 1024)
    with anyio.fail_after(LIMIT):
        async with Client(connector, revisions=("2025-11-25",)):
            await done.wait()
    _, pings, accepted = said[0].split()
    assert int(accepted) < 1024 * 1024, said
    assert said[1] == f"answered {pings}"  # every ping answered once it reads
