"""Python calls per call on the event loop's thread, a ``def`` tool against the same
tool as ``async def``, 16 requests in each read (cProfile: exact call counts; its
times mean nothing here).

    python -m benchmarks.loop_calls [READS]

An in-process stdio server of `benchmarks.handoff`'s tools (`serve_stream` on a
SOCK_SEQPACKET socket pair, so that each packet the client thread sends is one read
of the server; asyncio) serves READS reads of 16 ``tools/call`` (default 300) after
as many to warm up; the profile covers the loop's thread only (the client and the
workers run in threads of their own, which cProfile does not follow).
``threads.BRIEF_WAIT`` is raised to 50 ms in this process so that every batch
finishes within its wait whatever the load: the count is that of the batched path
(`transports/serving.py`), not of whichever path a loaded machine happened to
take. cProfile counts C functions called from Python too (``isinstance``,
``len``), and each step of a coroutine.
"""

from __future__ import annotations

import cProfile
import pstats
import socket
import sys
import threading
from typing import cast

import anyio
import anyio.to_thread

from mcp_core import Server
from transports import serve_stream, threads
from transports.stdio_streams import StdioStream

from .handoff import _INITIALIZE, _INITIALIZED, _call, _server

__all__ = ["count"]

IN_A_READ = 16


def _answers(sock: socket.socket, count: int) -> None:
    seen = 0
    while seen < count:
        seen += sock.recv(1 << 20).count(b'"id"')


def _client(
    sock: socket.socket, tool: str, reads: int, measure: threading.Event, go: threading.Event
) -> None:
    sock.sendall(_INITIALIZE + b"\n")
    _answers(sock, 1)
    sock.sendall(_INITIALIZED + b"\n")
    request_id = 1
    for warm in (True, False):
        if not warm:
            measure.set()  # the loop's thread starts profiling
            go.wait()
        for _ in range(reads):
            calls = [_call(request_id + i, tool, "legacy") for i in range(IN_A_READ)]
            sock.sendall(b"\n".join(calls) + b"\n")
            request_id += IN_A_READ
            _answers(sock, IN_A_READ)
    sock.shutdown(socket.SHUT_WR)


def count(tool: str, reads: int) -> float:
    """Python calls per call of ``tool`` (`benchmarks.handoff`'s ``echo``, a ``def``,
    or ``echo_async``) on the loop's thread."""
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    profile = cProfile.Profile()
    measure, go = threading.Event(), threading.Event()
    client = threading.Thread(target=_client, args=(theirs, tool, reads, measure, go))
    client.start()

    async def serve() -> None:
        stream = StdioStream(ours.fileno(), ours.fileno(), close_fds=False)
        async with anyio.create_task_group() as tg:
            tg.start_soon(serve_stream, cast(Server, _server()), stream)
            await anyio.to_thread.run_sync(measure.wait)
            profile.enable()
            go.set()

    with ours, theirs:
        anyio.run(serve)
        profile.disable()
        client.join()
    return float(pstats.Stats(profile).total_calls) / (reads * IN_A_READ)  # type: ignore[attr-defined]


def main(argv: list[str]) -> int:
    reads = int(argv[0]) if argv else 300
    threads.BRIEF_WAIT = 0.05  # type: ignore[misc]  # every batch finishes: see above
    for tool, kind in (("echo", "def"), ("echo_async", "async def")):
        print(f"{kind}: {count(tool, reads):.1f} Python calls per call on the loop's thread")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
