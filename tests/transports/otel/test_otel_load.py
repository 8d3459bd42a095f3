"""Under load: while 64 calls of a slow tool are in flight on the h11 server, the
Prometheus scrape (parsed by prometheus_client's text-format parser) and the
health probes answer, and the scrape counts the 64 requests being served; once
they are released, the 64 durations. asyncio and trio; raw HTTP, 2026-07-28
requests, each on a connection of its own."""

from __future__ import annotations

import urllib.request
from typing import Any, Final

import anyio
import pytest
from http_helpers import LIMIT, META, RawClient, call, modern_headers, running

pytest.importorskip("prometheus_client")

from prometheus_client.parser import text_string_to_metric_families

from mcp_core import Server
from transports.otel import uninstrument
from transports.otel.setup import configure

pytestmark = pytest.mark.anyio

IN_FLIGHT: Final = 64


def scrape(url: str) -> dict[str, Any]:
    with urllib.request.urlopen(url, timeout=LIMIT) as answer:
        assert answer.status == 200
        text = answer.read().decode()
    return {family.name: family for family in text_string_to_metric_families(text)}


def value(families: dict[str, Any], name: str, suffix: str = "", **labels: str) -> float:
    """The sum of ``name``'s samples with ``labels`` (0 for a metric not seen yet)."""
    family = families.get(name)
    return sum(
        sample.value
        for sample in (family.samples if family is not None else ())
        if sample.name == name + suffix
        and all(sample.labels.get(key) == wanted for key, wanted in labels.items())
    )


async def probe(port: int, path: str) -> tuple[int, bytes]:
    async with RawClient(port, path) as raw:
        await raw.send("GET")
        answer = await raw.answer()
        return answer.status, answer.body


async def test_metrics_and_probes_answer_with_64_calls_in_flight() -> None:
    server = Server("loaded", "1.0")
    started = 0
    all_started = anyio.Event()
    release = anyio.Event()

    @server.tool
    async def slow() -> str:
        nonlocal started
        started += 1
        if started == IN_FLIGHT:
            all_started.set()
        await release.wait()
        return "done"

    telemetry = configure(traces=False, metrics=False, scrape=("127.0.0.1", 0))
    url = "http://{}:{}/metrics".format(*(telemetry.scrape or ()))
    try:
        with anyio.fail_after(LIMIT):
            async with running(server) as port:
                answers: list[int] = []

                async def one(n: int) -> None:
                    async with RawClient(port) as raw:
                        body = call("slow", {}, id=n, _meta=META)
                        await raw.send("POST", body, **modern_headers("tools/call", "slow"))
                        answers.append((await raw.answer()).status)

                async with anyio.create_task_group() as tg:
                    for n in range(IN_FLIGHT):
                        tg.start_soon(one, n)
                    await all_started.wait()
                    during = await anyio.to_thread.run_sync(scrape, url)
                    alive = await probe(port, "/healthz")
                    ready = await probe(port, "/readyz")
                    release.set()
                after = await anyio.to_thread.run_sync(scrape, url)
    finally:
        uninstrument()
        telemetry.shutdown()
    assert (alive, ready) == ((200, b"alive\n"), (200, b"ready\n"))
    assert value(during, "mcp_core_server_requests_active") == IN_FLIGHT
    assert answers == [200] * IN_FLIGHT
    assert value(after, "mcp_core_server_requests_active") == 0
    duration = "mcp_server_operation_duration_seconds"
    assert value(after, duration, "_count", gen_ai_tool_name="slow") == IN_FLIGHT
    assert value(during, duration, "_count", gen_ai_tool_name="slow") == 0
