"""The HTTP benchmark layer, run for real through the command line with tiny settings."""

from __future__ import annotations

import socket
from pathlib import Path

import anyio
import pytest
from bench_helpers import assert_kinds_in_pairs, bench_layer
from limits import HANG

from benchmarks import http
from benchmarks.h11_echo import H11EchoClient, answer_body, serve_echo
from benchmarks.http_servers import free_port
from benchmarks.layers import LAYERS, peer_client

TIMEOUT_S = 240
LIMIT = HANG
"""Seconds the in-process echo test may wait for anything."""


def test_http_layer_is_registered() -> None:
    assert LAYERS["http"].module == "benchmarks.http"


@pytest.mark.anyio
async def test_h11_echo_answers_over_keep_alive_connections() -> None:
    # The floor's client and server, in this process: each call takes an idle
    # connection or opens one, and puts it back once the answer is read.
    with anyio.fail_after(LIMIT):
        for answers in ("json", "sse"):
            async with anyio.create_task_group() as tg:
                port = await tg.start(serve_echo, 0, answers)
                async with H11EchoClient("127.0.0.1", port) as client:
                    assert await client.call() == answer_body(answers)
                    assert await client.call() == answer_body(answers)
                    assert len(client._idle) == 1  # one call at a time: one connection
                    async with anyio.create_task_group() as calls:
                        for _ in range(3):
                            calls.start_soon(client.call)
                    assert len(client._idle) == 3
                tg.cancel_scope.cancel()


def test_bench_http_writes_json(tmp_path: Path) -> None:
    _, layer = bench_layer(tmp_path, "http", "--runs", "2", "--iterations", "1", timeout=TIMEOUT_S)
    names = [case["name"] for case in layer["cases"]]
    assert names == [
        f"call_tool_{backend}_{answers}_{n}"
        for backend in ("asyncio", "trio")
        for answers in http.ANSWERS
        for n in http.IN_FLIGHT
    ]
    for case in layer["cases"]:
        backend, _, in_flight = case["name"].split("_")[2:]
        labels = [result["implementation"] for result in case["results"]]
        results = {result["implementation"]: result for result in case["results"]}
        # Every MCP implementation calls a def tool and an async def tool, the def
        # row first; the floor has no tool.
        assert_kinds_in_pairs(labels, http.PLAIN)
        ours = [http.CORE, http.CORE_LEGACY]
        # The SDK and FastMCP come with the test extra; they run on asyncio only.
        others = [http.SDK, http.SDK_LEGACY, http.FASTMCP] if backend == "asyncio" else []
        # The h11 echo, the floor, runs on every backend.
        kinds = {f"{label} ({kind})" for label in ours + others for kind in ("def", "async def")}
        assert set(results) == kinds | {http.ECHO}
        assert "mcp-core / h11 echo (def)" in case["ratios"]
        assert "mcp-core / h11 echo (async def)" in case["ratios"]
        assert "mcp-core: def / async def" in case["ratios"]
        for result in results.values():
            # Figures are per call: a batch of 1 operation is one burst of calls,
            # with --iterations one per task in flight.
            assert result["batch_size"] == int(in_flight)
            assert result["ops_per_s"]["median"] > 0
            # Separate processes: CPU per call on both sides, and latencies.
            assert result["server_cpu_us_per_op"]["median"] > 0
            assert result["latency"]["p50_us"] > 0
    (peaks,) = layer["measurements"]
    assert peaks["unit"] == "MiB"
    assert {
        "mcp-core (asyncio, JSON)",
        "mcp-core (trio, SSE)",
        "h11 echo (asyncio, JSON)",
        "h11 echo (trio, SSE)",
    } <= set(peaks["values"])
    assert set(peaks["ratios"]) == {"SDK / mcp-core (JSON)", "SDK / mcp-core (SSE)"}


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
def test_the_service_harness_times_both_eras(backend: str) -> None:
    # benchmarks.http_service: HttpService.handle without sockets; each case checks
    # that every request was answered 200.
    from benchmarks.http_service import main, measure

    figures = measure(20, backend)
    assert list(figures) == ["2026-07-28", "2025-11-25 session"]
    assert all(0 < micros < 1_000_000 for micros in figures.values())
    main(["5", "--backend", backend])


class _ClosesBadly:
    """A client whose goodbye fails, as FastMCP's may over HTTP under load."""

    def __init__(self) -> None:
        self.closed_with: list[type[BaseException] | None] = []

    async def __aenter__(self) -> str:
        return "connected"

    async def __aexit__(self, kind: type[BaseException] | None, *_: object) -> bool:
        self.closed_with.append(kind)
        raise ExceptionGroup("unhandled errors in a TaskGroup", [OSError("read error")])


def test_a_peer_that_fails_to_close_is_reported_and_the_run_goes_on() -> None:
    lines: list[str] = []

    async def main() -> None:
        client = _ClosesBadly()
        async with peer_client(client, "FastMCP", lines.append) as connected:
            assert connected == "connected"
        assert client.closed_with == [None]
        # A failure while it is in use is not hidden.
        failing = _ClosesBadly()
        with pytest.raises(ExceptionGroup):
            async with peer_client(failing, "FastMCP", lines.append):
                raise KeyError("in use")
        assert failing.closed_with == [KeyError]

    anyio.run(main)
    assert len(lines) == 1
    assert lines[0].startswith("FastMCP: its client did not close cleanly (ExceptionGroup(")


@pytest.mark.parametrize("count", [1, 3])
def test_free_ports_are_below_the_ephemeral_range(count: int) -> None:
    # A port from bind(0) may go to any other process before our child binds it
    # (Linux hands out 32768 and up); these come from below that range, and all
    # ``count`` of them can be bound.
    base = free_port(count)
    assert base >= 20_000 and base + count <= 32_000
    sockets = [socket.socket() for _ in range(count)]
    try:
        for offset, sock in enumerate(sockets):
            sock.bind(("127.0.0.1", base + offset))
    finally:
        for sock in sockets:
            sock.close()
