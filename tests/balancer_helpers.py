"""A many-process deployment for the tests, as the README recipe builds it:
``mcp-core serve examples/redis/app.py --workers 3 --redis URL`` behind HAProxy
with examples/redis/haproxy.cfg, round robin and no stickiness, on 127.0.0.1.

Each request goes on a new connection, so consecutive requests go to
consecutive workers. Every wait is bounded."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Final

import anyio
import h11
from debian_helpers import debian_program
from http_helpers import RawClient, data, has_response, initialize, modern_headers
from limits import HANG
from paths import EXAMPLES, ROOT
from redis_helpers import free_ports

WORKERS: Final = 3
START_LIMIT: Final = HANG
LIMIT: Final = HANG
MODERN: Final = "2026-07-28"
TASKS: Final = "io.modelcontextprotocol/tasks"
META: Final = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}, "extensions": {TASKS: {}}},
}


def _listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


class Deployment:
    """N workers (one ``mcp-core serve --workers N``) and HAProxy before them."""

    def __init__(
        self, redis_url: str, workers: int = WORKERS, log: Path | None = None, *extra: str
    ) -> None:
        self.redis_url = redis_url
        self.workers = workers
        #: Where ``mcp-core serve --workers`` writes its stderr (None: nowhere),
        #: and more arguments for it.
        self.log = log
        self.extra = list(extra)
        base = free_ports(workers + 1)
        self.port = base
        self.worker_ports = [base + 1 + n for n in range(workers)]
        self.processes: list[subprocess.Popen[bytes]] = []

    def start(self) -> None:
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        env["MCP_CORE_STATE_KEY"] = "ab" * 32
        self._start_workers(env)
        # HAProxy after the workers listen, so that its first checks pass.
        self._wait(self.worker_ports)
        haproxy = debian_program("haproxy", "haproxy")
        env.update(
            MCP_LB_PORT=str(self.port),
            **{f"MCP_WORKER_{n + 1}": str(p) for n, p in enumerate(self.worker_ports)},
        )
        self.processes.append(
            subprocess.Popen(
                [haproxy, "-f", str(EXAMPLES / "redis" / "haproxy.cfg"), "-db"],
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        )
        self._wait([self.port])

    def _start_workers(self, env: dict[str, str]) -> None:
        serve = subprocess.Popen(
            [
                sys.executable, "-m", "transports", "serve", str(EXAMPLES / "redis" / "app.py"),
                "--transport", "http", "--workers", str(self.workers),
                "--port", str(self.worker_ports[0]), "--redis", self.redis_url,
                "--shutdown-grace", "1", *self.extra,
            ],
            env=env,
            stderr=subprocess.DEVNULL if self.log is None else self.log.open("ab"),
        )  # fmt: skip
        self.processes.append(serve)

    def _wait(self, ports: list[int]) -> None:
        # Each process gets START_LIMIT to listen from the last one that did: on
        # a loaded machine N processes starting at once take N times as long, and
        # a bound for them all would fail the test for the machine's sake.
        deadline = time.monotonic() + START_LIMIT
        waiting = len(ports)
        while waiting:
            if any(p.poll() is not None for p in self.processes):
                self.stop()
                raise RuntimeError("a worker or haproxy exited at start")
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("the deployment did not start")
            time.sleep(0.05)
            left = sum(not _listening(p) for p in ports)
            if left < waiting:
                waiting, deadline = left, time.monotonic() + START_LIMIT

    def stop(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in self.processes:
            try:
                process.wait(LIMIT)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(LIMIT)
        self.processes.clear()


class AsgiDeployment(Deployment):
    """The same, with the ASGI app (examples/redis/asgi.py) under one uvicorn
    per worker port, as the README recipe runs it."""

    def _start_workers(self, env: dict[str, str]) -> None:
        env["MCP_REDIS_URL"] = self.redis_url
        for port in self.worker_ports:
            uvicorn = subprocess.Popen(
                [
                    sys.executable, "-m", "uvicorn", "--app-dir", str(EXAMPLES / "redis"),
                    "asgi:app", "--host", "127.0.0.1", "--port", str(port),
                    "--log-level", "warning", "--timeout-graceful-shutdown", "1",
                ],
                env=env,
                stderr=subprocess.DEVNULL,
            )  # fmt: skip
            self.processes.append(uvicorn)


@contextmanager
def deployed(kind: str, redis_url: str) -> Iterator[Deployment]:
    """The deployment of ``kind`` on the Redis at ``redis_url``, running within:
    "h11" (mcp-core serve --workers) or "uvicorn" (the ASGI app)."""
    running = AsgiDeployment(redis_url) if kind == "uvicorn" else Deployment(redis_url)
    running.start()
    try:
        yield running
    finally:
        running.stop()


class Modern:
    """2026-07-28 requests through the balancer, each on a new connection."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.next_id = 0

    async def request(self, method: str, params: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        self.next_id += 1
        name = params.get("taskId", params.get("name"))
        body = {
            "jsonrpc": "2.0",
            "id": self.next_id,
            "method": method,
            "params": {**params, "_meta": META},
        }
        with anyio.fail_after(LIMIT):
            async with RawClient(self.port) as raw:
                await raw.send("POST", body, **modern_headers(method, name))
                answer = await raw.answer()
        reply: dict[str, Any] = answer.json()
        return answer.status, reply

    async def result(self, method: str, params: dict[str, Any]) -> Any:
        status, reply = await self.request(method, params)
        assert status == 200 and "result" in reply, (status, reply)
        return reply["result"]

    async def text(self, name: str, **params: Any) -> str:
        result = await self.result("tools/call", {"name": name, "arguments": {}, **params})
        return str(result["content"][0]["text"])


def pause_call(request_id: int, seconds: float, **arguments: Any) -> dict[str, Any]:
    """A tools/call of the example's pause tool with a progress token: its
    progress notice, the first message of its stream, names the worker."""
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {
            "name": "pause",
            "arguments": {"seconds": seconds, **arguments},
            "_meta": {"progressToken": "p"},
        },
    }


async def ports_by_pid(deployment: Deployment) -> dict[str, int]:
    """Each worker's port, by the process id its ``worker`` tool names."""
    return {await Modern(port).text("worker"): port for port in deployment.worker_ports}


async def exited(pid: int) -> None:
    """Wait (within LIMIT) until process ``pid`` has exited: gone, or a zombie,
    whose sockets, its listening one included, are closed. A worker killed with
    SIGKILL can cut a stream before its exit has closed the listening socket;
    a connection HAProxy opens meanwhile is accepted and then reset, and its
    request answered 502 (seen once in a full run with six xdist workers)."""
    stat = Path(f"/proc/{pid}/stat")
    with anyio.fail_after(LIMIT):
        while True:
            try:
                state = stat.read_text().rpartition(")")[2].split()[0]
            except (FileNotFoundError, ProcessLookupError, IndexError):
                return
            if state in ("Z", "X"):
                return
            await anyio.sleep(0.01)


async def stopped_on(port: int, label: str) -> None:
    """Wait (within LIMIT) until the worker on ``port`` lists ``label`` among
    the calls cancelled there (its handler notes it as it unwinds)."""
    with anyio.fail_after(LIMIT):
        while label not in (await Modern(port).text("stopped")).split("\n"):
            await anyio.sleep(0.02)


class Legacy:
    """A 2025-11-25 session through the balancer, each request on a new
    connection (so each on the next worker)."""

    def __init__(self, port: int, version: str = "2025-11-25") -> None:
        self.port = port
        self.version = version
        self.session_id = ""
        self.next_id = 0

    async def post(self, body: dict[str, Any], **headers: str) -> tuple[int, Any, dict[str, str]]:
        """Status, JSON-RPC answer (the JSON body, or the response on a stream;
        None for 202) and headers."""
        if self.session_id:
            headers.setdefault("mcp_session_id", self.session_id)
        with anyio.fail_after(LIMIT):
            async with RawClient(self.port) as raw:
                await raw.send("POST", body, mcp_protocol_version=self.version, **headers)
                head = await raw.head()
                if head.headers.get("content-type") == "text/event-stream":
                    messages = data(await raw.events(has_response))
                    return head.status, messages[-1], head.headers
                chunks = []
                while not isinstance(event := await raw._event(), h11.EndOfMessage):
                    chunks.append(bytes(event.data))
                body_bytes = b"".join(chunks)
        reply = json.loads(body_bytes) if body_bytes else None
        return head.status, reply, head.headers

    @property
    def headers(self) -> dict[str, str]:
        """The session's headers, for requests sent by hand."""
        return {"mcp_session_id": self.session_id, "mcp_protocol_version": self.version}

    async def open(self, capabilities: dict[str, Any] | None = None) -> None:
        hello = initialize(self.version)
        hello["params"]["capabilities"] = capabilities or {}
        status, reply, headers = await self.post(hello)
        assert status == 200 and "result" in reply, reply
        self.session_id = headers["mcp-session-id"]
        status, _, _ = await self.post({"jsonrpc": "2.0", "method": "notifications/initialized"})
        assert status == 202

    async def call(self, tool: str, **arguments: Any) -> tuple[int, Any]:
        self.next_id += 1
        body = {
            "jsonrpc": "2.0",
            "id": self.next_id,
            "method": "tools/call",
            "params": {"name": tool, "arguments": arguments},
        }
        status, reply, _ = await self.post(body)
        return status, reply
