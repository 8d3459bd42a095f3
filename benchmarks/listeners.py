"""Open SSE streams on our h11 server (issue 20, target 5), for the curves layer.

Two kinds of listener, 100 / 1,000 of each (``LISTENERS``), and 5,000 in the full
run (``LISTENERS_FULL``):

* the standalone GET stream of a 2025-11-25 session (2025-11-25
  basic/transports.mdx "Listening for Messages from the Server"), one session each;
* a 2026-07-28 ``subscriptions/listen`` stream asking for ``toolsListChanged``
  (2026-07-28 basic/patterns/subscriptions.mdx).

For each count a fresh server (`serve`) runs in its own process, and plain
sockets (no MCP client: its cost must not count) open the streams and wait for
each one's first event (the priming event, the acknowledgement). Figures:

* memory per stream: the growth of the server's resident set while the streams
  opened (a GET's sessions were opened before the first reading), over the count;
* fan-out: the server's CPU from a ``tools/call`` of ``touch`` that adds a tool
  until every stream has read its ``notifications/tools/list_changed``, less the
  CPU of the same call that changes nothing, over the count: microseconds of
  server CPU per listener (the median of the runs).

``python -m benchmarks.listeners serve PORT [BACKEND]`` runs the server (asyncio
by default; the curves run on asyncio).
"""

from __future__ import annotations

import itertools
import selectors
import socket
import statistics
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Final

from mcp_core import HttpServerConfig, Server

from .harness import Settings
from .http_servers import free_port, listening
from .layers import Measurement, Progress
from .memory import resident_kib
from .raw_client import RawHttpClient, post, server_cpu_seconds
from .servers import _ACCEPT, _MODERN_META, LEGACY, MODERN, _body

__all__ = ["KINDS", "LISTENERS", "LISTENERS_FULL", "fan_out", "listeners_server", "main"]

LISTENERS: Final = (100, 1_000)
LISTENERS_FULL: Final = (*LISTENERS, 5_000)
"""The full run (without --quick) adds 5,000 streams of each kind."""
KINDS: Final = {"get": "standalone GET streams", "listen": "subscriptions/listen streams"}
CHANGED: Final = b"notifications/tools/list_changed"
_HOST: Final = "127.0.0.1"
_WAIT_SECONDS: Final = 60.0


def listeners_server() -> Server:
    """A server whose ``touch`` tool adds a tool when asked (every listener then
    hears ``notifications/tools/list_changed``)."""
    server = Server("listeners", "1")
    added = itertools.count()

    async def touch(change: bool) -> int:
        """Add a tool when ``change``; answers how many were added before."""
        number = next(added) if change else -1
        if change:
            server.add_tool(touch, name=f"added_{number}")
        return number

    server.tool(touch)
    return server


def _read_until(sockets: list[socket.socket], marker: bytes) -> None:
    # Read every socket until each has shown ``marker`` (split reads included).
    selector = selectors.DefaultSelector()
    tails: dict[socket.socket, bytes] = {}
    for sock in sockets:
        sock.setblocking(False)
        selector.register(sock, selectors.EVENT_READ, sock)
        tails[sock] = b""
    deadline = time.monotonic() + _WAIT_SECONDS
    try:
        while tails:
            if time.monotonic() > deadline:
                raise RuntimeError(f"{len(tails)} streams never showed {marker!r}")
            for key, _ in selector.select(1.0):
                sock = key.data
                data = sock.recv(65536)
                if not data:
                    raise RuntimeError("the server closed a stream")
                seen = tails[sock] + data
                if marker in seen:
                    del tails[sock]
                    selector.unregister(sock)
                else:
                    tails[sock] = seen[-len(marker) :]
    finally:
        selector.close()


def _sessions(control: RawHttpClient, count: int) -> list[str]:
    # ``count`` 2025-11-25 sessions, opened one after another on one connection.
    params = {
        "protocolVersion": LEGACY,
        "capabilities": {},
        "clientInfo": {"name": "b", "version": "1"},
    }
    initialize = post(
        "/mcp", control.host, _ACCEPT, _body({"id": 0, "method": "initialize", "params": params})
    )
    initialized = _body({"method": "notifications/initialized"})
    sock = control.sockets[0]
    ids = []
    for _ in range(count):
        answer = control.exchange(sock, initialize)
        session_id = answer.headers.get("mcp-session-id")
        if answer.status != 200 or session_id is None:
            raise RuntimeError(f"initialize answered {answer.status}")
        fields = [*_ACCEPT, ("mcp-session-id", session_id), ("mcp-protocol-version", LEGACY)]
        done = control.exchange(sock, post("/mcp", control.host, fields, initialized))
        if done.status != 202:
            raise RuntimeError(f"notifications/initialized answered {done.status}")
        ids.append(session_id)
    return ids


def _get(host: str, session_id: str) -> bytes:
    lines = [
        "GET /mcp HTTP/1.1",
        f"host: {host}",
        "accept: text/event-stream",
        f"mcp-session-id: {session_id}",
        f"mcp-protocol-version: {LEGACY}",
    ]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def _listen(host: str, number: int) -> bytes:
    fields = [*_ACCEPT, ("mcp-protocol-version", MODERN), ("mcp-method", "subscriptions/listen")]
    params = {"notifications": {"toolsListChanged": True}, "_meta": _MODERN_META}
    message = {"id": number, "method": "subscriptions/listen", "params": params}
    return post("/mcp", host, fields, _body(message))


def _touch(host: str, change: bool) -> bytes:
    fields = [
        *_ACCEPT,
        ("mcp-protocol-version", MODERN),
        ("mcp-method", "tools/call"),
        ("mcp-name", "touch"),
    ]
    params = {"name": "touch", "arguments": {"change": change}, "_meta": _MODERN_META}
    return post("/mcp", host, fields, _body({"id": 1, "method": "tools/call", "params": params}))


@contextmanager
def _opened(
    kind: str, port: int, count: int, pid: int
) -> Iterator[tuple[list[socket.socket], RawHttpClient, float]]:
    # The streams, the control connection, and the resident KiB they added.
    host = f"{_HOST}:{port}"
    control = RawHttpClient(_HOST, port, 1)
    streams: list[socket.socket] = []
    try:
        ids = _sessions(control, count) if kind == "get" else []
        time.sleep(0.3)
        before, _ = resident_kib(pid)
        for number in range(count):
            sock = socket.create_connection((_HOST, port), timeout=_WAIT_SECONDS)
            streams.append(sock)
            sock.sendall(_get(host, ids[number]) if kind == "get" else _listen(host, number))
        # The first event of each: the priming event of a GET (an event id and an
        # empty data line), the acknowledgement of a listen.
        _read_until(streams, b"\n\n" if kind == "get" else b"acknowledged")
        time.sleep(0.3)
        after, _ = resident_kib(pid)
        # A fresh control connection: the first one may have been idle past the
        # server's keep_alive while thousands of streams opened (a loaded machine).
        control.close()
        control = RawHttpClient(_HOST, port, 1)
        yield streams, control, after - before
    finally:
        for sock in streams:
            sock.close()
        control.close()


def _fan_out_once(control: RawHttpClient, streams: list[socket.socket], pid: int) -> float:
    # Server CPU (s) of a changing touch until every stream has the notification,
    # less that of a touch that changes nothing.
    sock = control.sockets[0]
    before = server_cpu_seconds(pid)
    if control.exchange(sock, _touch(control.host, False)).status != 200:
        raise RuntimeError("touch failed")
    plain = server_cpu_seconds(pid) - before
    before = server_cpu_seconds(pid)
    if control.exchange(sock, _touch(control.host, True)).status != 200:
        raise RuntimeError("touch failed")
    _read_until(streams, CHANGED)
    return server_cpu_seconds(pid) - before - plain


def fan_out(
    settings: Settings, progress: Progress, counts: tuple[int, ...] | None = None
) -> list[Measurement]:
    """Memory per stream and fan-out CPU per listener, by kind and count."""
    if counts is None:
        counts = LISTENERS_FULL if settings.scaling else LISTENERS
    measurements = []
    xs = {f"{count:,} streams": {"x": float(count)} for count in counts}
    for kind, what in KINDS.items():
        memory: dict[str, float] = {}
        cpu: dict[str, float] = {}
        for count in counts:
            label = f"{count:,} streams"
            progress(f"curves: {count:,} {what}")
            port = free_port()
            argv = [sys.executable, "-m", "benchmarks.listeners", "serve", str(port)]
            with (
                listening(argv, port, "the listeners server") as process,
                _opened(kind, port, count, process.pid) as (streams, control, kib),
            ):
                memory[label] = kib / count
                _fan_out_once(control, streams, process.pid)  # warm up
                runs = [
                    _fan_out_once(control, streams, process.pid)
                    for _ in range(max(3, settings.runs))
                ]
                cpu[label] = statistics.median(runs) / count * 1e6
        measurements += [
            Measurement(
                name=f"listeners_memory_{kind}",
                title=f"open {what} on our server: memory per stream",
                unit="KiB per stream",
                values=memory,
                details=xs,
            ),
            Measurement(
                name=f"listeners_fan_out_{kind}",
                title=f"one tools/list_changed to every one of N {what}: server CPU per listener",
                unit="us of server CPU per listener",
                values=cpu,
                details=xs,
            ),
        ]
    return measurements


def main(argv: list[str]) -> int:
    if argv[:1] == ["serve"] and len(argv) in (2, 3):
        from transports.http.server import run_http

        config = HttpServerConfig(
            max_sessions=2 * LISTENERS_FULL[-1], session_idle_timeout=3600.0, response_mode="json"
        )
        backend = argv[2] if len(argv) == 3 else "asyncio"
        run_http(listeners_server(), backend=backend, port=int(argv[1]), config=config)
        return 0
    print("usage: python -m benchmarks.listeners serve PORT [BACKEND]")
    return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
