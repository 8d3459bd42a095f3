"""The in-memory layer: ``tools/call`` through the async runtime, client and server
in one process, on asyncio and on trio.

This is the first layer with an event loop: a full client
and server, the decorator-defined tool, the handler task per request, and the
in-memory transport of each implementation. One operation is a burst of calls;
the figures are divided back to one round trip.

Implementations, side by side in the same runs:

* ``mcp-core``: ``transports.connect(server)``, the default dual-era client,
  which discovers 2026-07-28; every message is encoded and decoded (bytes mode).
* ``mcp-core legacy``: the same over a 2025-11-25 initialize handshake.
* ``mcp-core objects``: the modern client with message objects handed over
  without encoding (the embedding fast path).
* ``mcp SDK low-level``: the official SDK's ``Client`` over its
  ``InMemoryTransport`` (anyio memory streams carrying JSON-RPC message
  objects: nothing is encoded to JSON) to a low-level ``Server`` with
  ``on_call_tool``; ``mode="auto"``, which finds 2026-07-28.
* ``mcp SDK MCPServer``: the same transport to the SDK's decorator server.
* ``FastMCP``: ``fastmcp.Client`` on a ``FastMCP`` server in memory (asyncio
  only: it does not run on trio).

Every decorator server has the tool ``echo(text: str) -> str`` twice, a plain
``def`` and an ``async def`` (`benchmarks.echo_servers`), and each implementation
gives two rows, "(def)" first; the low-level server has its hand-written
``async`` handler, one row. The first call of every row is checked before
timing. Calls run sequentially, or from 16 or 256 tasks at once; then, on
asyncio, one at a time with texts of 100 B to 1 MiB (the message size scaling:
each call carries the text both ways).

Since the SDK's in-memory transport hands message objects over, like ``mcp-core
objects``, that is the like-for-like comparison with it; ``mcp-core`` (bytes)
does more work than the SDK here, which the message sizes make plain: its
figure falls with the size, the SDK's and ``mcp-core objects``' do not.

Each backend runs in its own event loop in this thread, and the timing loop
itself awaits the operations (harness.run_case_async): no thread hop between
the clock and the calls. (A blocking portal was tried first: handing each burst
to a loop in another thread slowed short bursts by a third, for everyone.)
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from contextlib import AsyncExitStack
from typing import Any, Final

import anyio

from mcp_core.types import LEGACY_REVISIONS

from .bursts import Call, burst, latency_burst
from .echo_servers import (
    echo_call,
    fastmcp_server,
    ours,
    ratios_by_kind,
    rows,
    sdk_decorated,
    sdk_lowlevel,
)
from .harness import Case, Settings, run_case_async, scaled
from .layers import LayerResult, Progress, optional_peers

__all__ = ["BACKENDS", "CORE", "IN_FLIGHT", "SIZES", "build_case", "run"]

CORE: Final = "mcp-core"
CORE_LEGACY: Final = "mcp-core legacy"
CORE_OBJECTS: Final = "mcp-core objects"
SDK_LOWLEVEL: Final = "mcp SDK low-level"
SDK_DECORATOR: Final = "mcp SDK MCPServer"
FASTMCP: Final = "FastMCP"

_CORE_LABELS: Final = (CORE, CORE_LEGACY, CORE_OBJECTS)

PLAIN: Final = (SDK_LOWLEVEL,)
"""Its handler is written by hand, ``async``: one row, not one per kind of tool."""

RATIOS: Final = ratios_by_kind(
    {
        "mcp-core / SDK MCPServer": (CORE, SDK_DECORATOR),
        "mcp-core / SDK low-level": (CORE, SDK_LOWLEVEL),
        "mcp-core / FastMCP": (CORE, FASTMCP),
        "mcp-core objects / SDK MCPServer": (CORE_OBJECTS, SDK_DECORATOR),
    },
    PLAIN,
)

BACKENDS: Final = ("asyncio", "trio")
IN_FLIGHT: Final = (1, 16, 256)
CALLS_PER_OP: Final = {1: 32, 16: 128, 256: 1024}
"""Calls in one timed operation, per concurrency; all in flight at once from
``IN_FLIGHT`` tasks, each making its share one after another."""

SIZES: Final = {100: 64, 10 * 1024: 16, 100 * 1024: 4, 1024 * 1024: 1}
"""Text sizes of the message size scaling, and the calls in one timed operation."""

TEXT: Final = "hello"


# --- servers and clients --------------------------------------------------------------------------


def _core_clients() -> dict[str, Callable[[], Any]]:
    from transports import connect_in_memory

    return {
        CORE: lambda: connect_in_memory(ours()),
        CORE_LEGACY: lambda: connect_in_memory(ours(), revisions=LEGACY_REVISIONS),
        CORE_OBJECTS: lambda: connect_in_memory(ours(), objects=True),
    }


def _sdk_clients() -> dict[str, Callable[[], Any]]:
    mcp = importlib.import_module("mcp")
    memory = importlib.import_module("mcp.client._memory")
    return {
        SDK_LOWLEVEL: lambda: mcp.Client(memory.InMemoryTransport(sdk_lowlevel())),
        SDK_DECORATOR: lambda: mcp.Client(memory.InMemoryTransport(sdk_decorated())),
    }


def _fastmcp_clients() -> dict[str, Callable[[], Any]]:
    fastmcp = importlib.import_module("fastmcp")
    return {FASTMCP: lambda: fastmcp.Client(fastmcp_server())}


# --- timing ---------------------------------------------------------------------------------------


class _Backend:
    """Every implementation's client, connected, on the running event loop."""

    def __init__(self, backend: str, stack: AsyncExitStack) -> None:
        self.backend = backend
        self.calls: dict[str, Call] = {}
        self.clients: dict[str, tuple[Any, str]] = {}
        """Row label -> the connected client and the tool it calls."""
        self.skipped: dict[str, str] = {}
        self._stack = stack

    async def connect_all(self, progress: Progress) -> None:
        makers: dict[str, Callable[[], Any]] = dict(_core_clients())
        loaders = [
            ("mcp", _sdk_clients, (SDK_LOWLEVEL, SDK_DECORATOR)),
            ("fastmcp", _fastmcp_clients, (FASTMCP,)),
        ]
        makers.update(optional_peers(loaders, self.skipped))
        for label, make in makers.items():
            if label == FASTMCP and self.backend != "asyncio":
                self.skipped[f"{label} on {self.backend}"] = "FastMCP runs on asyncio only"
                continue
            if label in _CORE_LABELS:  # ours must work: a failure here is a bug, not a skip
                await self._connect(label, make)
                continue
            try:
                await self._connect(label, make)
            except Exception as exc:
                self.skipped[f"{label} on {self.backend}"] = f"could not connect: {exc!r}"
                progress(f"in-memory: {label} on {self.backend}: skipped ({exc!r})")

    async def _connect(self, label: str, make: Callable[[], Any]) -> None:
        # One client per implementation; a row per kind of tool on it.
        connected = await self._stack.enter_async_context(make())
        found = {
            name: (tool, await echo_call(connected, TEXT, tool))
            for name, (_, tool) in rows({label: None}, PLAIN).items()
        }
        for name, (tool, call) in found.items():
            self.clients[name] = (connected, tool)
            self.calls[name] = call


def build_case(backend: _Backend, in_flight: int, calls: int) -> Case:
    """One concurrency level on one backend, every connected implementation in it,
    timed in bursts of ``calls``.

    The implementations are coroutine functions, for `run_case_async`.
    """
    how = "one at a time" if in_flight == 1 else f"{in_flight} in flight"
    return Case(
        name=f"call_tool_{backend.backend}_{in_flight}",
        title=(
            f"tools/call round trips over in-memory pipes on {backend.backend}, {how} "
            f"(timed in bursts of {calls})"
        ),
        payload_bytes=0,
        implementations={
            label: burst(call, in_flight, calls) for label, call in backend.calls.items()
        },
        ratios=RATIOS,
        latency={
            label: latency_burst(call, in_flight, calls) for label, call in backend.calls.items()
        },
        concurrency=in_flight,
        backend=backend.backend,
    )


async def build_size_case(backend: _Backend, size: int, per_op: int) -> Case:
    """Sequential calls echoing a ``size``-byte text, every connected implementation,
    timed in bursts of ``per_op``."""
    text = ("mcp-core " * (size // 9 + 1))[:size]
    calls = {
        label: await echo_call(client, text, tool)
        for label, (client, tool) in backend.clients.items()
    }
    return Case(
        name=f"call_tool_{backend.backend}_{size}b",
        title=(
            f"tools/call round trips over in-memory pipes on {backend.backend}, one at a time, "
            f"echoing {size:,} bytes (timed in bursts of {per_op})"
        ),
        payload_bytes=size,
        implementations={label: burst(call, 1, per_op) for label, call in calls.items()},
        ratios=RATIOS,
        latency={label: latency_burst(call, 1, per_op) for label, call in calls.items()},
        backend=backend.backend,
    )


async def _run_backend(
    name: str, settings: Settings, progress: Progress, result: LayerResult
) -> None:
    async with AsyncExitStack() as stack:
        backend = _Backend(name, stack)
        await backend.connect_all(progress)
        for label, why in backend.skipped.items():
            result.skipped.setdefault(label, why)
        for in_flight in IN_FLIGHT:
            if in_flight > 16 and not settings.scaling:
                continue
            calls = settings.burst(CALLS_PER_OP[in_flight], in_flight)
            case = build_case(backend, in_flight, calls)
            count = len(case.implementations)
            progress(f"in-memory: {case.name}: {case.title} ({count} implementations)")
            measured = await run_case_async(case, settings)
            result.cases.append(scaled(measured, calls))
        if name != "asyncio" or not settings.scaling:
            return  # message sizes on one backend: the loop matters little there
        for size in SIZES:
            per_op = settings.burst(SIZES[size])
            case = await build_size_case(backend, size, per_op)
            progress(f"in-memory: {case.name}: {case.title}")
            measured = await run_case_async(case, settings)
            result.cases.append(scaled(measured, per_op))


def run(settings: Settings, progress: Progress) -> LayerResult:
    """Every backend and concurrency level; absent competitors are skipped with the reason.

    Each backend gets its own event loop (``anyio.run``) in this thread, and every
    implementation is timed on it, awaited directly.
    """
    result = LayerResult(name="in-memory")
    for name in settings.backends:
        anyio.run(_run_backend, name, settings, progress, result, backend=name)
    return result
