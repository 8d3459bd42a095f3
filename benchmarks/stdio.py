"""The stdio layer: ``tools/call`` round trips to a server in a child process, over
its stdin and stdout, on asyncio and on trio.

This is the first layer with real I/O: two processes, two
pipes, two event loops, and the encoding and parsing of every message on both
sides. One operation is a burst of calls; the figures are divided back to one
round trip.

Implementations, side by side in the same runs, each with its own child process
(``python -m benchmarks.stdio_server KIND``, started once per backend, before
timing, and shut down when the backend's runs end):

* ``mcp-core``: `connect_stdio` with the default dual-era client, which
  discovers 2026-07-28, to our decorator server on `run_stdio` in the same
  backend as the client.
* ``mcp-core legacy``: the same over a 2025-11-25 initialize handshake.
* ``mcp SDK`` and ``mcp SDK legacy``: the official SDK's ``mcp.Client`` over its
  ``stdio_client`` to its ``MCPServer`` on ``run("stdio")``; ``mode="auto"``
  (which finds 2026-07-28) and ``mode="legacy"``. Measured on asyncio only: its
  server runs on asyncio whatever the client does.
* ``mcp SDK low-level``: the same client to the SDK's low-level ``Server`` with
  an ``on_call_tool`` handler on its ``stdio_server()`` streams (asyncio).
* ``FastMCP``: ``fastmcp.Client`` over its ``StdioTransport`` to a FastMCP
  server on ``run("stdio")`` (asyncio).
* ``line echo``: no MCP. Our `StdioStream` sends an 86-byte JSON line to a child
  that writes every line straight back through the same stream class. The floor
  under any stdio round trip from Python on this machine: two process wake-ups
  and a read and a write on each side per message when alone, fewer per message
  when batched. With 16 in flight it keeps 16 lines outstanding, sending as many
  new ones as came back.

Every decorator server has the tool ``echo(text: str) -> str`` twice, a plain
``def`` and an ``async def`` (`benchmarks.echo_servers`): each implementation
gives two rows on one connection, "(def)" first; the low-level server has its
hand-written ``async`` handler, one row. The first call of every row is checked
before timing. Calls run sequentially, or from 16 tasks at once.

``--quick`` leaves the SDK's legacy client and its low-level server to the full
run.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager, AsyncExitStack
from pathlib import Path
from typing import Any, Final

import anyio

from mcp_core.types import LEGACY_REVISIONS
from transports.stdio import connect_stdio
from transports.stdio_process import open_stdio_process
from transports.stdio_streams import StdioStream

from .bursts import Call, burst, children, latency_burst, process_cpu
from .echo_servers import echo_call, ratios_by_kind, rows
from .harness import Case, CpuClock, Settings, run_case_async, scaled
from .layers import LayerResult, Progress, optional_peers, peer_client

__all__ = ["BACKENDS", "CALLS_PER_OP", "CORE", "IN_FLIGHT", "build_case", "run", "server_argv"]

CORE: Final = "mcp-core"
CORE_LEGACY: Final = "mcp-core legacy"
SDK: Final = "mcp SDK"
SDK_LEGACY: Final = "mcp SDK legacy"
SDK_LOWLEVEL: Final = "mcp SDK low-level"
FASTMCP: Final = "FastMCP"
LINES: Final = "line echo"

PLAIN: Final = (SDK_LOWLEVEL, LINES)
"""One row each: a hand-written ``async`` handler, and no MCP at all."""

RATIOS: Final = ratios_by_kind(
    {
        "mcp-core / SDK": (CORE, SDK),
        "mcp-core legacy / SDK legacy": (CORE_LEGACY, SDK_LEGACY),
        "mcp-core / SDK low-level": (CORE, SDK_LOWLEVEL),
        "mcp-core / FastMCP": (CORE, FASTMCP),
        "mcp-core / line echo": (CORE, LINES),
    },
    PLAIN,
)

FULL_RUN_ONLY: Final = (SDK_LEGACY, SDK_LOWLEVEL)
"""Left out of ``--quick``."""

BACKENDS: Final = ("asyncio", "trio")
IN_FLIGHT: Final = (1, 16)
CALLS_PER_OP: Final = {1: 16, 16: 128}
"""Calls in one timed operation, per concurrency; all in flight at once from
``IN_FLIGHT`` tasks, each making its share one after another."""

TEXT: Final = "hello"
LINE: Final = (
    b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{}}}'
)
"""What the line echo sends: about the size of a small request."""

_ROOT: Final = str(Path(__file__).resolve().parent.parent)
_ENV: Final = {"PYTHONPATH": _ROOT}
"""The children import this checkout, installed or not."""


def server_argv(kind: str, backend: str = "asyncio") -> list[str]:
    """The command that runs one of the `benchmarks.stdio_server` servers."""
    return [sys.executable, "-m", "benchmarks.stdio_server", kind, backend]


# --- clients --------------------------------------------------------------------------------------


def _core_clients(backend: str) -> dict[str, Callable[[], AbstractAsyncContextManager[Any]]]:
    argv = server_argv("ours", backend)
    return {
        CORE: lambda: connect_stdio(argv, env=_ENV),
        CORE_LEGACY: lambda: connect_stdio(argv, env=_ENV, revisions=LEGACY_REVISIONS),
    }


def _sdk_clients() -> dict[str, Callable[[], AbstractAsyncContextManager[Any]]]:
    mcp = importlib.import_module("mcp")
    importlib.import_module("mcp.server.mcpserver")  # the child needs it: fail here, not there
    stdio = importlib.import_module("mcp.client.stdio")
    params = stdio.StdioServerParameters(
        command=sys.executable, args=server_argv("sdk")[1:], env=_ENV
    )
    lowlevel = stdio.StdioServerParameters(
        command=sys.executable, args=server_argv("sdk-lowlevel")[1:], env=_ENV
    )
    return {
        SDK: lambda: mcp.Client(params, mode="auto"),
        SDK_LEGACY: lambda: mcp.Client(params, mode="legacy"),
        SDK_LOWLEVEL: lambda: mcp.Client(lowlevel, mode="auto"),
    }


def _fastmcp_clients() -> dict[str, Callable[[], AbstractAsyncContextManager[Any]]]:
    fastmcp = importlib.import_module("fastmcp")
    transports = importlib.import_module("fastmcp.client.transports")
    argv = server_argv("fastmcp")
    transport = transports.StdioTransport(command=argv[0], args=argv[1:], env=_ENV)
    return {FASTMCP: lambda: fastmcp.Client(transport)}


# --- timing ---------------------------------------------------------------------------------------


def _line_burst(stream: StdioStream, in_flight: int, calls: int) -> Callable[[], Awaitable[None]]:
    if in_flight == 1:

        async def sequential() -> None:
            for _ in range(calls):
                await stream.send(LINE)
                await stream.receive()

        return sequential

    async def pipelined() -> None:
        await stream.send_batch([LINE] * in_flight)
        sent, received = in_flight, 0
        while received < calls:
            back = len(await stream.receive_batch())
            received += back
            more = min(back, calls - sent)
            if more:
                await stream.send_batch([LINE] * more)
                sent += more

    return pipelined


class _Backend:
    """Every implementation's client and child, connected, on the running event loop."""

    def __init__(self, backend: str, stack: AsyncExitStack) -> None:
        self.backend = backend
        self.calls: dict[str, Call] = {}
        self.server_cpu: dict[str, CpuClock] = {}
        self.lines: StdioStream | None = None
        self.skipped: dict[str, str] = {}
        self._stack = stack

    async def connect_all(self, progress: Progress, full: bool = True) -> None:
        for label, make in _core_clients(self.backend).items():
            # Ours must work: a failure here is a bug, not a skip.
            await self._connect(label, make())
        before = children()
        process = await self._stack.enter_async_context(
            open_stdio_process(server_argv("lines", self.backend), env=_ENV)
        )
        self._clock(LINES, children() - before)
        self.lines = process.stream
        await self.lines.send(LINE)
        if await self.lines.receive() != LINE:
            raise AssertionError("the line echo server did not echo")
        if self.backend != "asyncio":
            for label in (SDK, SDK_LEGACY, SDK_LOWLEVEL, FASTMCP):
                self.skipped[f"{label} on {self.backend}"] = (
                    "measured on asyncio only (its server runs on asyncio)"
                )
            return
        loaders = [
            ("mcp", _sdk_clients, (SDK, SDK_LEGACY, SDK_LOWLEVEL)),
            ("fastmcp", _fastmcp_clients, (FASTMCP,)),
        ]
        makers: dict[str, Callable[[], AbstractAsyncContextManager[Any]]] = optional_peers(
            loaders, self.skipped
        )
        if not full:
            for label in FULL_RUN_ONLY:
                if makers.pop(label, None) is not None:
                    self.skipped[label] = (
                        "measured in the full run only (mcp-core bench, without --quick)"
                    )
        for label, make in makers.items():
            try:
                await self._connect(label, peer_client(make(), label, progress))
            except Exception as exc:
                self.skipped[label] = f"could not connect: {exc!r}"
                progress(f"stdio: {label}: skipped ({exc!r})")

    async def _connect(self, label: str, client: AbstractAsyncContextManager[Any]) -> None:
        # One client and child per implementation (its child starts as it is
        # entered); a row per kind of tool on it.
        before = children()
        connected = await self._stack.enter_async_context(client)
        spawned = children() - before
        found = {
            name: await echo_call(connected, TEXT, tool)
            for name, (_, tool) in rows({label: None}, PLAIN).items()
        }
        for name, call in found.items():
            self.calls[name] = call
            self._clock(name, spawned)

    def _clock(self, label: str, spawned: set[int]) -> None:
        # The child a connection spawned, found by its appearance among ours.
        clock = process_cpu(next(iter(spawned))) if len(spawned) == 1 else None
        if clock is not None:
            self.server_cpu[label] = clock


def build_case(backend: _Backend, in_flight: int, calls: int) -> Case:
    """One concurrency level on one backend, every connected implementation in it,
    timed in bursts of ``calls``.

    The implementations are coroutine functions, for `run_case_async`.
    """
    how = "one at a time" if in_flight == 1 else f"{in_flight} in flight"
    implementations = {
        label: burst(call, in_flight, calls) for label, call in backend.calls.items()
    }
    if backend.lines is not None:
        implementations[LINES] = _line_burst(backend.lines, in_flight, calls)
    return Case(
        name=f"call_tool_{backend.backend}_{in_flight}",
        title=(
            f"tools/call round trips over stdio to a child process on {backend.backend}, "
            f"{how} (timed in bursts of {calls})"
        ),
        payload_bytes=0,
        implementations=implementations,
        ratios=RATIOS,
        latency={
            label: latency_burst(call, in_flight, calls) for label, call in backend.calls.items()
        },
        server_cpu=backend.server_cpu,
        concurrency=in_flight,
        backend=backend.backend,
    )


async def _run_backend(
    name: str, settings: Settings, progress: Progress, result: LayerResult
) -> None:
    # Leaving the stack shuts every child down (stdin closed, then signals), also
    # when a run fails or is interrupted.
    async with AsyncExitStack() as stack:
        backend = _Backend(name, stack)
        await backend.connect_all(progress, settings.scaling)
        for label, why in backend.skipped.items():
            result.skipped.setdefault(label, why)
        for in_flight in IN_FLIGHT:
            calls = settings.burst(CALLS_PER_OP[in_flight], in_flight)
            case = build_case(backend, in_flight, calls)
            count = len(case.implementations)
            progress(f"stdio: {case.name}: {case.title} ({count} implementations)")
            measured = await run_case_async(case, settings)
            result.cases.append(scaled(measured, calls))


def run(settings: Settings, progress: Progress) -> LayerResult:
    """Every backend and concurrency level; absent competitors are skipped with the reason.

    Each backend gets its own event loop (``anyio.run``) in this thread and its own
    children, started before its runs and stopped after them.
    """
    result = LayerResult(name="stdio")
    for name in settings.backends:
        anyio.run(_run_backend, name, settings, progress, result, backend=name)
    return result
