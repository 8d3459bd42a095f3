"""The memory layer: what an idle legacy-era HTTP session costs a server.

A streamable-HTTP server of the handshake era keeps a session per client from
``initialize`` until the client ends it or the server expires it
(2025-11-25 basic/transports.mdx "Session Management"), so its memory per idle
session bounds how many clients one process can hold. Each server runs in a
process of its own (`benchmarks.http_servers`); we open 50 sessions to load
what loads lazily, read its resident set (``VmRSS``), open more, each an
``initialize`` (2025-11-25) and its ``notifications/initialized``, until there
are ``SESSIONS``, and read it again. Nothing else touches the sessions; the
connections that opened them are closed. The figure is the growth divided by
the sessions opened after the first reading.

Implementations: ``mcp-core`` (our h11 server, asyncio), ``mcp SDK`` (its
``MCPServer`` streamable-HTTP app under uvicorn) and ``FastMCP`` (its HTTP app
under uvicorn), each with its default answers (SSE streams for 2025-11-25).
"""

from __future__ import annotations

import importlib
import json
import time
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlsplit

import anyio
import h11

from .harness import Settings
from .http_servers import spawn
from .layers import LayerResult, Measurement, Progress, not_importable

__all__ = ["SESSIONS", "open_sessions", "resident_kib", "run"]

CORE: Final = "mcp-core"
SDK: Final = "mcp SDK"
FASTMCP: Final = "FastMCP"
SESSIONS: Final = 10_000
QUICK_SESSIONS: Final = 500
WARM_UP_SESSIONS: Final = 50
"""Opened first, out of the count: 10,000 in all is the SDK's and FastMCP's default cap."""
_FULL_RUN_REASON: Final = "measured in the full run only (mcp-core bench, without --quick)"
CONNECTIONS: Final = 8
"""Connections opening sessions at once (each opens its share, one after another)."""

_INITIALIZE: Final = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "bench-memory", "version": "1"},
    },
}
_INITIALIZED: Final = json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"})


def resident_kib(pid: int) -> tuple[float, float]:
    """The resident set of process ``pid`` now and at its peak, in KiB (Linux)."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        fields[name] = value.split()
    return float(fields["VmRSS"][0]), float(fields["VmHWM"][0])


class _Connection:
    """One keep-alive HTTP/1.1 connection, a request at a time."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self.host = parts.hostname or "127.0.0.1"
        self.port = parts.port or 80
        self.target = parts.path or "/"
        self.stream: Any = None
        self.h11 = h11.Connection(h11.CLIENT)

    async def post(self, body: bytes, session_id: str | None) -> tuple[int, str | None]:
        """POST one message; returns the status and the Mcp-Session-Id answered."""
        if self.stream is None:
            self.stream = await anyio.connect_tcp(self.host, self.port)
        headers = [
            ("host", f"{self.host}:{self.port}"),
            ("content-type", "application/json"),
            ("accept", "application/json, text/event-stream"),
            ("content-length", str(len(body))),
        ]
        if session_id is not None:
            headers += [("mcp-session-id", session_id), ("mcp-protocol-version", "2025-11-25")]
        conn = self.h11
        data = conn.send(h11.Request(method="POST", target=self.target, headers=headers))
        data = (data or b"") + (conn.send(h11.Data(data=body)) or b"")
        await self.stream.send(data + (conn.send(h11.EndOfMessage()) or b""))
        status, answered = 0, None
        while True:
            event = conn.next_event()
            if event is h11.NEED_DATA:
                conn.receive_data(await self.stream.receive(65536))
            elif isinstance(event, h11.Response):
                status = event.status_code
                for name, value in event.headers:
                    if name == b"mcp-session-id":
                        answered = value.decode()
            elif isinstance(event, h11.EndOfMessage):
                break
            elif isinstance(event, h11.ConnectionClosed):
                raise ConnectionError("the server closed the connection")
        if conn.our_state is h11.MUST_CLOSE or conn.their_state is h11.MUST_CLOSE:
            await self.aclose()
        else:
            conn.start_next_cycle()
        return status, answered

    async def aclose(self) -> None:
        if self.stream is not None:
            await self.stream.aclose()
        self.stream = None
        self.h11 = h11.Connection(h11.CLIENT)


async def open_sessions(url: str, count: int, connections: int = CONNECTIONS) -> None:
    """Open ``count`` legacy sessions at ``url`` and leave them idle.

    Raises:
        RuntimeError: the server refused one.
    """
    initialize = json.dumps(_INITIALIZE).encode()
    initialized = _INITIALIZED.encode()

    async def worker(share: int) -> None:
        connection = _Connection(url)
        try:
            for _ in range(share):
                status, session_id = await connection.post(initialize, None)
                if status != 200 or session_id is None:
                    raise RuntimeError(f"initialize got {status}, session id {session_id!r}")
                status, _ = await connection.post(initialized, session_id)
                if status != 202:
                    raise RuntimeError(f"notifications/initialized got {status}")
        finally:
            await connection.aclose()

    async with anyio.create_task_group() as tg:
        for index in range(connections):
            tg.start_soon(worker, count // connections + (index < count % connections))


def _measure(kind: str, sessions: int) -> dict[str, float]:
    with spawn(kind) as (process, url):
        anyio.run(open_sessions, url, WARM_UP_SESSIONS)
        time.sleep(0.5)
        before, _ = resident_kib(process.pid)
        started = time.perf_counter()
        anyio.run(open_sessions, url, sessions - WARM_UP_SESSIONS)
        seconds = time.perf_counter() - started
        time.sleep(0.5)
        after, peak = resident_kib(process.pid)
    return {
        "KiB per session": (after - before) / (sessions - WARM_UP_SESSIONS),
        "MiB before": before / 1024,
        "MiB after": after / 1024,
        "MiB peak": peak / 1024,
        "sessions/s opened": (sessions - WARM_UP_SESSIONS) / seconds,
    }


def run(settings: Settings, progress: Progress) -> LayerResult:
    """Every server's memory per idle session; absent competitors are skipped."""
    result = LayerResult(name="memory")
    sessions = QUICK_SESSIONS if not settings.scaling else SESSIONS
    if settings.iterations is not None:
        sessions = WARM_UP_SESSIONS + 20  # tests: the figures mean nothing
    kinds = {CORE: "ours"}
    for label, kind, package in [(SDK, "sdk", "mcp"), (FASTMCP, "fastmcp", "fastmcp")]:
        if label == FASTMCP and not settings.scaling:
            result.skipped[label] = (
                "measured in the full run only (mcp-core bench, without --quick)"
            )
            continue
        try:
            importlib.import_module(package)
            importlib.import_module("uvicorn")
            kinds[label] = kind
        except ImportError as exc:
            result.skipped[label] = not_importable(exc, package)
    values: dict[str, float] = {}
    details: dict[str, dict[str, float]] = {}
    for label, kind in kinds.items():
        progress(f"memory: {label}: opening {sessions:,} idle legacy sessions")
        try:
            figures = _measure(kind, sessions)
        except (RuntimeError, OSError, ExceptionGroup) as exc:
            if label == CORE:
                raise
            while isinstance(exc, ExceptionGroup):
                exc = exc.exceptions[0]
            result.skipped[label] = f"could not measure: {exc}"
            continue
        values[label] = figures.pop("KiB per session")
        details[label] = figures
    result.measurements.append(
        Measurement(
            name="idle_legacy_sessions",
            title=f"resident memory per idle 2025-11-25 HTTP session, {sessions:,} opened",
            unit="KiB per session",
            values=values,
            details=details,
            ratios={"SDK / mcp-core": (SDK, CORE), "FastMCP / mcp-core": (FASTMCP, CORE)},
        )
    )
    return result
