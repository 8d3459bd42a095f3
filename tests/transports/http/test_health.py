"""Health probes (/healthz, /readyz) from the wire: on the h11 server (asyncio and
trio) and the ASGI app (mounted under uvicorn; driven by hand on both backends):
alive, ready, HEAD, 405, any Host, HTTP/1.0 as HAProxy's check sends it, not
ready before the lifespan and while draining, and with its Redis down."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import h11
import pytest
from adapter_flavours import by_flavour, flavour_fixture  # noqa: F401
from asgi_helpers import starlette_app, uvicorn_serving
from http_helpers import LIMIT, Gates, RawClient, call, make_server, open_session
from redis_helpers import RedisProcess

from mcp_core import Server
from mcp_core.http.health import HealthRules
from mcp_core.http.server import HttpServerConfig
from transports.http.asgi import asgi_app
from transports.http.server import HttpServer, default_config
from transports.http.service import HttpService

pytestmark = pytest.mark.anyio


@asynccontextmanager
async def serving(
    flavour: tuple[str, str], server: Server
) -> AsyncIterator[tuple[int, str, HttpService]]:
    """The port, the mount point and the service of ``server`` served by ``flavour``."""
    if flavour[1] == "h11":
        http = HttpServer(server, default_config("127.0.0.1"))
        async with anyio.create_task_group() as tg:
            port = await tg.start(http.serve, "127.0.0.1", 0)
            try:
                yield port, "", http.service
            finally:
                tg.cancel_scope.cancel()
    else:
        app = asgi_app(server)
        async with uvicorn_serving(starlette_app(app)) as port:  # mounted at /api
            yield port, "/api", app.service


async def probe(port: int, target: str, method: str = "GET", **headers: str) -> Any:
    async with RawClient(port, target) as raw:
        await raw.send(method, **headers)
        return await raw.answer()


async def test_alive_and_ready(flavour: tuple[str, str]) -> None:
    async with serving(flavour, make_server(Gates())) as (port, mount, service):
        alive = await probe(port, f"{mount}/healthz")
        assert (alive.status, alive.body) == (200, b"alive\n")
        assert alive.headers["content-type"].startswith("text/plain")
        assert alive.headers["cache-control"] == "no-store"
        ready = await probe(port, f"{mount}/readyz?verbose")
        assert (ready.status, ready.body) == (200, b"ready\n")
        head = await probe(port, f"{mount}/readyz", "HEAD")
        assert (head.status, head.body) == (200, b"")
        # An orchestrator names the pod's address: probes answer any Host, the
        # MCP endpoint does not.
        other = {"host": "10.1.2.3:8000"}
        assert (await probe(port, f"{mount}/readyz", **other)).status == 200
        assert (await probe(port, f"{mount}/mcp", "POST", **other)).status == 421
        assert service.sessions == {} and service.sse_sessions == {}


async def test_probes_take_get_and_head_only(flavour: tuple[str, str]) -> None:
    async with serving(flavour, make_server(Gates())) as (port, mount, _):
        for method in ("POST", "DELETE", "PUT"):
            answer = await probe(port, f"{mount}/healthz", method)
            assert answer.status == 405 and answer.headers["allow"] == "GET, HEAD"
        assert (await probe(port, f"{mount}/readyz/more")).status == 404


async def test_haproxys_http_1_0_check(flavour: tuple[str, str]) -> None:
    # `option httpchk GET /readyz`: HTTP/1.0, no Host; the server closes after.
    async with serving(flavour, make_server(Gates())) as (port, mount, _):
        with anyio.fail_after(LIMIT):
            async with await anyio.connect_tcp("127.0.0.1", port) as sock:
                await sock.send(f"GET {mount}/readyz HTTP/1.0\r\n\r\n".encode())
                got = b""
                while True:
                    try:
                        got += await sock.receive()
                    except (anyio.EndOfStream, anyio.BrokenResourceError):
                        break
        assert got.startswith(b"HTTP/1.1 200 ") and got.endswith(b"\r\n\r\nready\n")


def test_a_probe_path_cannot_be_an_mcp_path() -> None:
    with pytest.raises(ValueError, match="/mcp"):
        HealthRules(HttpServerConfig(ready_path="/mcp"))
    rules = HealthRules(HttpServerConfig(health_path=None))
    assert rules.paths == {"/readyz": True}


# --- draining ------------------------------------------------------------------------------


async def pipelined_probe(raw: RawClient, target: str) -> bytes:
    """The bytes of a GET ``target`` sent behind the request in flight on ``raw``."""
    probe = h11.Connection(h11.CLIENT)
    data = probe.send(h11.Request(method="GET", target=target, headers=[("host", "127.0.0.1")]))
    return (data or b"") + (probe.send(h11.EndOfMessage()) or b"")


async def next_answer(raw: RawClient, target: str) -> Any:
    # The client's h11 side learns of the request sent by hand, then reads its answer.
    raw.h11.start_next_cycle()
    raw.h11.send(h11.Request(method="GET", target=target, headers=[("host", "127.0.0.1")]))
    raw.h11.send(h11.EndOfMessage())
    return await raw.answer()


@pytest.mark.parametrize("anyio_backend", ["asyncio", "trio"])
async def test_h11_draining_is_not_ready_but_alive(anyio_backend: str) -> None:
    # Two SSE answers in flight when the shutdown begins, each with a probe sent
    # behind it on its connection: once the answers end, the probes are answered
    # (the connections then close): not ready (draining), but alive.
    gates = Gates()
    http = HttpServer(make_server(gates), default_config("127.0.0.1"))
    answers: dict[str, Any] = {}
    with anyio.fail_after(LIMIT):
        async with anyio.create_task_group() as tg:
            port = await tg.start(http.serve, "127.0.0.1", 0)
            clients = {target: RawClient(port) for target in ("/readyz", "/healthz")}
            for target, raw in clients.items():
                await raw.__aenter__()
                session_id = await open_session(raw)  # 2025-11-25: answers on SSE
                await raw.send("POST", call("hang", {}), mcp_session_id=session_id)
                assert (await raw.head()).headers["content-type"] == "text/event-stream"
                await raw.sock.send(await pipelined_probe(raw, target))
            await gates.started.wait()
            http.shutdown()
            gates.release.set()
            for target, raw in clients.items():
                await raw.events()  # the answer in flight, to its end
                answers[target] = await next_answer(raw, target)
                assert await raw.closed()
                await raw.__aexit__(None, None, None)
    ready, alive = answers["/readyz"], answers["/healthz"]
    assert (ready.status, ready.body) == (503, b"not ready: draining\n")
    assert ready.headers["connection"] == "close"
    assert (alive.status, alive.body) == (200, b"alive\n")


class Exchange:
    """One GET for an ASGI app at ``path``, and what it sends back."""

    def __init__(self, path: str) -> None:
        self.scope = {
            "type": "http",
            "method": "GET",
            "path": path,
            "root_path": "",
            "query_string": b"",
            "headers": [(b"host", b"127.0.0.1")],
        }
        self.sent: list[dict[str, Any]] = []

    async def receive(self) -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(self, message: dict[str, Any]) -> None:
        self.sent.append(message)


async def asked(app: Any, path: str) -> tuple[int, bytes]:
    exchange = Exchange(path)
    await app(exchange.scope, exchange.receive, exchange.send)
    return exchange.sent[0]["status"], b"".join(m.get("body", b"") for m in exchange.sent[1:])


@pytest.mark.parametrize("anyio_backend", ["asyncio", "trio"])
async def test_asgi_readiness_follows_the_lifespan(anyio_backend: str) -> None:
    stopping = anyio.Event()
    release = anyio.Event()

    @asynccontextmanager
    async def lifespan(_: Server) -> AsyncIterator[None]:
        yield
        stopping.set()
        await release.wait()  # the application's own cleanup, taking its time

    app = asgi_app(Server("life", "1", lifespan=lifespan))
    assert await asked(app, "/healthz") == (200, b"alive\n")
    assert await asked(app, "/readyz") == (503, b"not ready: not started\n")
    assert (await asked(app, "/mcp"))[0] == 503  # what it answered before

    messages = ["lifespan.startup"]
    started = anyio.Event()
    shutdown = anyio.Event()

    async def receive() -> dict[str, Any]:
        if messages:
            return {"type": messages.pop()}
        await shutdown.wait()
        return {"type": "lifespan.shutdown"}

    async def send(message: dict[str, Any]) -> None:
        started.set()

    with anyio.fail_after(LIMIT):
        async with anyio.create_task_group() as tg:
            tg.start_soon(app, {"type": "lifespan"}, receive, send)
            await started.wait()
            assert await asked(app, "/readyz") == (200, b"ready\n")
            shutdown.set()
            await stopping.wait()
            assert await asked(app, "/readyz") == (503, b"not ready: draining\n")
            assert await asked(app, "/healthz") == (200, b"alive\n")
            release.set()


# --- Redis -----------------------------------------------------------------------------------


@pytest.fixture
def redis(tmp_path: Path) -> Any:
    server = RedisProcess(tmp_path)
    server.start()
    try:
        yield server
    finally:
        server.stop()


async def test_redis_down_is_not_ready(
    flavour: tuple[str, str], redis: RedisProcess, caplog: pytest.LogCaptureFixture
) -> None:
    from transports.redis import share_on_redis

    server = make_server(Gates())
    # Stopped, Redis refuses connections at once: the timeout only bounds a slow
    # answer, and a loaded machine may be slow to give the first one (at start).
    share_on_redis(server, redis.url, timeout=LIMIT)
    caplog.set_level(logging.INFO, "mcp_core.http")
    async with serving(flavour, server) as (port, mount, _):
        assert (await probe(port, f"{mount}/readyz")).status == 200
        redis.stop()
        down = await probe(port, f"{mount}/readyz")
        assert (down.status, down.body) == (503, b"not ready: shared state store unreachable\n")
        assert redis.url not in down.body.decode()  # the address stays in the log
        assert (await probe(port, f"{mount}/healthz")).status == 200
        redis.start()
        with anyio.fail_after(LIMIT * 4):  # Redis starting again, then a reconnect
            while (await probe(port, f"{mount}/readyz")).status != 200:
                await anyio.sleep(0.05)  # coredis reconnects on a later command
    said = [r.getMessage() for r in caplog.records if r.name == "mcp_core.http"]
    assert any(m.startswith("not ready: shared state store unreachable (") for m in said)
    assert "ready again" in said
