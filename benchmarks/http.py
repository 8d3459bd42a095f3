"""The HTTP layer: ``tools/call`` round trips over loopback streamable HTTP, to a
server in a child process, JSON and SSE answers, on asyncio and on trio.

Every implementation is a client in this process and its own server in a child
(`benchmarks.http_servers`), started before its runs and stopped after them:

* ``mcp-core``: `connect_http` (the dual-era client, which discovers 2026-07-28:
  one POST per call, no session) to our h11 server on the same event loop;
* ``mcp-core legacy``: the same over a 2025-11-25 session (initialize, then
  every call on the session);
* ``mcp SDK`` and ``mcp SDK legacy``: the official SDK's ``mcp.Client`` (httpx)
  to its ``MCPServer`` streamable-HTTP app under uvicorn, ``mode="auto"`` and
  ``mode="legacy"``; asyncio only (uvicorn runs on asyncio);
* ``FastMCP``: ``fastmcp.Client`` to a FastMCP HTTP app under uvicorn; asyncio;
* ``h11 echo``: no MCP. A raw h11 client on anyio (`benchmarks.h11_echo`) POSTs
  a small fixed request to a raw h11 server on anyio that answers each with a
  small fixed response, on the same backend, keep-alive, one connection per
  call in flight. The floor under any HTTP round trip made with h11 and anyio
  in Python on this machine: "mcp-core / h11 echo" says how close we come.

"JSON answers" configures every server to answer each POST with one JSON body;
"SSE answers" with an SSE stream carrying the response (each server's option for
it: ``response_mode="sse"``, ``json_response=False``; the echo's is one event on
a chunked body). Calls run one at a time,
or from 16 tasks at once on one client, whose connection pool then holds 16
keep-alive connections (ours and httpx alike).

Every MCP server has the tool ``echo(text: str) -> str`` twice, a plain ``def``
and an ``async def`` (`benchmarks.echo_servers`): each implementation gives two
rows on one client, "(def)" first. ``--quick`` measures SSE answers only and
leaves the SDK's legacy client to the full run.

CPU per call is read on both sides (the server's from /proc), and each server's
peak resident memory is reported after its runs: "resident memory under load".
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from contextlib import AbstractAsyncContextManager, AsyncExitStack, ExitStack, contextmanager
from typing import Any, Final
from urllib.parse import urlsplit

import anyio

from mcp_core.types import LEGACY_REVISIONS

from .bursts import Call, burst, latency_burst, process_cpu
from .echo_servers import echo_call, ratios_by_kind, rows
from .h11_echo import H11EchoClient, answer_body
from .harness import Case, CpuClock, Settings, run_case_async, scaled
from .http_servers import spawn
from .layers import LayerResult, Measurement, Progress, optional_peers, peer_client
from .memory import resident_kib

__all__ = ["ANSWERS", "CALLS_PER_OP", "CORE", "ECHO", "IN_FLIGHT", "run"]

CORE: Final = "mcp-core"
CORE_LEGACY: Final = "mcp-core legacy"
SDK: Final = "mcp SDK"
SDK_LEGACY: Final = "mcp SDK legacy"
FASTMCP: Final = "FastMCP"
ECHO: Final = "h11 echo"

PLAIN: Final = (ECHO,)
"""No MCP, no tool: one row."""

RATIOS: Final = ratios_by_kind(
    {
        "mcp-core / SDK": (CORE, SDK),
        "mcp-core legacy / SDK legacy": (CORE_LEGACY, SDK_LEGACY),
        "mcp-core / FastMCP": (CORE, FASTMCP),
        "mcp-core / h11 echo": (CORE, ECHO),
    },
    PLAIN,
)

ANSWERS: Final = ("json", "sse")
IN_FLIGHT: Final = (1, 16)
CALLS_PER_OP: Final = {1: 8, 16: 64}
"""Calls in one timed operation, per concurrency."""

TEXT: Final = "hello"

Maker = Callable[[str], AbstractAsyncContextManager[Any]]

_FULL_RUN_ONLY: Final = (SDK_LEGACY,)
_FULL_RUN_REASON: Final = "measured in the full run only (mcp-core bench, without --quick)"


def _core_clients() -> dict[str, tuple[str, Maker]]:
    from transports import Client
    from transports.http.client import http_connector

    def ours(legacy: bool) -> Maker:
        def make(url: str) -> AbstractAsyncContextManager[Any]:
            connector = http_connector(url, max_idle_connections=max(IN_FLIGHT))
            if legacy:
                return Client(connector, revisions=LEGACY_REVISIONS)
            return Client(connector)

        return make

    return {CORE: ("ours", ours(False)), CORE_LEGACY: ("ours", ours(True))}


def _sdk_clients() -> dict[str, tuple[str, Maker]]:
    mcp = importlib.import_module("mcp")
    importlib.import_module("uvicorn")  # the child needs it: fail here, not there
    return {
        SDK: ("sdk", lambda url: mcp.Client(url, mode="auto")),
        SDK_LEGACY: ("sdk", lambda url: mcp.Client(url, mode="legacy")),
    }


def _fastmcp_clients() -> dict[str, tuple[str, Maker]]:
    fastmcp = importlib.import_module("fastmcp")
    importlib.import_module("uvicorn")
    return {FASTMCP: ("fastmcp", lambda url: fastmcp.Client(url))}


class _Servers:
    """The child servers of one backend and answer mode, one per kind."""

    def __init__(self, stack: ExitStack, backend: str, answers: str) -> None:
        self._stack = stack
        self._backend = backend
        self._answers = answers
        self.urls: dict[str, str] = {}
        self.pids: dict[str, int] = {}

    def url(self, kind: str) -> str:
        if kind not in self.urls:
            process, url = self._stack.enter_context(
                spawn(kind, backend=self._backend, answers=self._answers)
            )
            self.urls[kind], self.pids[kind] = url, process.pid
        return self.urls[kind]


class _Backend:
    """Every implementation's client, connected to its server, on the running loop."""

    def __init__(self, backend: str, answers: str, servers: _Servers, stack: AsyncExitStack):
        self.backend = backend
        self.answers = answers
        self.servers = servers
        self.calls: dict[str, Call] = {}
        self.server_cpu: dict[str, CpuClock] = {}
        self.server_of: dict[str, str] = {}
        self.skipped: dict[str, str] = {}
        self._stack = stack

    async def connect_all(self, progress: Progress, full: bool) -> None:
        makers = dict(_core_clients())
        if self.backend == "asyncio":
            loaders = [
                ("mcp", _sdk_clients, (SDK, SDK_LEGACY)),
                ("fastmcp", _fastmcp_clients, (FASTMCP,)),
            ]
            makers.update(optional_peers(loaders, self.skipped))
        else:
            for label in (SDK, SDK_LEGACY, FASTMCP):
                self.skipped[f"{label} on {self.backend}"] = (
                    "measured on asyncio only (its server runs under uvicorn, on asyncio)"
                )
        if not full:
            for label in _FULL_RUN_ONLY:
                if makers.pop(label, None) is not None:
                    self.skipped[label] = _FULL_RUN_REASON
        for label, (kind, make) in makers.items():
            try:
                url = self.servers.url(kind)
                found = await self._connect(label, make, url, progress)
            except Exception as exc:
                if label in (CORE, CORE_LEGACY):
                    raise  # ours must work: a failure here is a bug, not a skip
                self.skipped[f"{label} on {self.backend}"] = f"could not connect: {exc!r}"
                progress(f"http: {label} on {self.backend}: skipped ({exc!r})")
                continue
            clock = process_cpu(self.servers.pids[kind])
            for name, call in found.items():
                self.calls[name] = call
                self.server_of[name] = kind
                if clock is not None:
                    self.server_cpu[name] = clock
        await self._connect_echo()

    async def _connect_echo(self) -> None:
        # The floor must work, as ours must: a failure here is a bug.
        url = urlsplit(self.servers.url("h11"))
        assert url.hostname is not None and url.port is not None
        echo = H11EchoClient(url.hostname, url.port, url.path)
        client = await self._stack.enter_async_context(echo)
        expected = answer_body(self.answers)
        if await client.call() != expected:
            raise AssertionError("the h11 echo server did not answer as expected")
        self.calls[ECHO] = client.call
        self.server_of[ECHO] = "h11"
        clock = process_cpu(self.servers.pids["h11"])
        if clock is not None:
            self.server_cpu[ECHO] = clock

    async def _connect(
        self, label: str, make: Maker, url: str, progress: Progress
    ) -> dict[str, Call]:
        # One client per implementation; a row per kind of tool on it.
        client = make(url)
        if label not in (CORE, CORE_LEGACY):
            client = peer_client(client, label, progress)
        connected = await self._stack.enter_async_context(client)
        return {
            name: await echo_call(connected, TEXT, tool)
            for name, (_, tool) in rows({label: None}, PLAIN).items()
        }


def build_case(backend: _Backend, in_flight: int, calls: int) -> Case:
    """One answer mode and concurrency on one backend, in bursts of ``calls``, for
    `run_case_async`."""
    how = "one at a time" if in_flight == 1 else f"{in_flight} in flight"
    return Case(
        name=f"call_tool_{backend.backend}_{backend.answers}_{in_flight}",
        title=(
            f"tools/call round trips over loopback HTTP on {backend.backend}, "
            f"{backend.answers.upper()} answers, {how} (timed in bursts of {calls})"
        ),
        payload_bytes=0,
        implementations={
            label: burst(call, in_flight, calls) for label, call in backend.calls.items()
        },
        ratios=RATIOS,
        latency={
            label: latency_burst(call, in_flight, calls) for label, call in backend.calls.items()
        },
        server_cpu=backend.server_cpu,
        concurrency=in_flight,
        backend=backend.backend,
    )


async def _run_backend(
    name: str,
    answers: str,
    servers: _Servers,
    settings: Settings,
    progress: Progress,
    result: LayerResult,
) -> dict[str, str]:
    async with AsyncExitStack() as stack:
        backend = _Backend(name, answers, servers, stack)
        await backend.connect_all(progress, settings.scaling)
        for label, why in backend.skipped.items():
            result.skipped.setdefault(label, why)
        for in_flight in IN_FLIGHT:
            calls = settings.burst(CALLS_PER_OP[in_flight], in_flight)
            case = build_case(backend, in_flight, calls)
            count = len(case.implementations)
            progress(f"http: {case.name}: {case.title} ({count} implementations)")
            measured = await run_case_async(case, settings)
            result.cases.append(scaled(measured, calls))
        return backend.server_of


@contextmanager
def _servers(backend: str, answers: str) -> Iterator[_Servers]:
    with ExitStack() as stack:
        yield _Servers(stack, backend, answers)


_KIND_LABELS: Final = {"ours": CORE, "sdk": SDK, "fastmcp": FASTMCP, "h11": ECHO}


def run(settings: Settings, progress: Progress) -> LayerResult:
    """Every backend, answer mode and concurrency; absent competitors are skipped.

    Each backend and answer mode gets its own event loop (``anyio.run``) in this
    thread and its own child servers.
    """
    result = LayerResult(name="http")
    peaks: dict[str, float] = {}
    # --quick: SSE answers only (what the servers do by default), to stay short.
    modes = ANSWERS if settings.scaling else ("sse",)
    for name in settings.backends:
        for answers in modes:
            with _servers(name, answers) as servers:
                anyio.run(
                    _run_backend, name, answers, servers, settings, progress, result, backend=name
                )
                for kind, pid in servers.pids.items():
                    label = f"{_KIND_LABELS[kind]} ({name}, {answers.upper()})"
                    peaks[label] = resident_kib(pid)[1] / 1024
    result.measurements.append(
        Measurement(
            name="server_peak_memory",
            title="each server's peak resident memory after its runs (resident memory under load)",
            unit="MiB",
            values=peaks,
            ratios={
                f"SDK / mcp-core ({answers.upper()})": (
                    f"{SDK} (asyncio, {answers.upper()})",
                    f"{CORE} (asyncio, {answers.upper()})",
                )
                for answers in modes
            },
        )
    )
    return result
