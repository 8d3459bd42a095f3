"""The HTTP service without sockets: ``python -m benchmarks.http_service [N] [--backend B]``.

Times `HttpService.handle` (the part of an HTTP server that is MCP: the endpoint's
rules, sessions, the handler, the answer) for a ``tools/call`` of the echo tool,
with a responder that keeps the answer instead of writing it: a 2026-07-28
request (a connection of its own per request) and a request of an open
2025-11-25 session, JSON answers. Prints microseconds per request, the best of
five runs of N requests each. A tuning aid beside ``mcp-core bench --only http``,
which measures the same server with sockets, h11 and a client.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

import anyio

from mcp_core import HttpServerConfig
from mcp_core.http import HttpRequest, Reply
from transports.http.service import HttpService

from .echo_servers import ours

__all__ = ["Recorder", "main", "measure"]

_MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"},
}


class Recorder:
    """A Responder that keeps the last answer: status, headers and body."""

    def __init__(self) -> None:
        self.status: int | None = None
        self.headers: dict[str, str] = {}
        self.body = b""
        self.ended = False

    async def reply(self, reply: Reply) -> None:
        self.status, self.headers = reply.status, dict(reply.headers)
        self.body, self.ended = reply.body, True

    async def start(self, status: int, headers: Any, data: bytes = b"", end: bool = False) -> None:
        self.status, self.headers = status, dict(headers)
        self.body, self.ended = data, end

    async def send(self, data: bytes) -> None:
        self.body += data

    async def end(self, data: bytes = b"") -> None:
        self.body += data
        self.ended = True

    async def watched(self, write: Any) -> None:
        await write()

    async def ending(self, write: Any) -> None:
        await write()

    def closing(self) -> None:
        return None

    def watch(self) -> bool:
        return True

    def gone(self) -> None:
        pass


def _head(body: bytes, extra: list[tuple[str, str]]) -> HttpRequest:
    fields = [
        ("host", "127.0.0.1:8000"),
        ("accept", "application/json, text/event-stream"),
        ("content-type", "application/json"),
        ("content-length", str(len(body))),
        *extra,
    ]
    return HttpRequest.from_pairs("POST", "/mcp", fields)


def _body(message: dict[str, Any]) -> bytes:
    return json.dumps({"jsonrpc": "2.0", **message}).encode()


async def _legacy_fields(service: HttpService, out: Recorder) -> list[tuple[str, str]]:
    params = {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "1"},
    }
    body = _body({"id": 0, "method": "initialize", "params": params})
    await service.handle(out, _head(body, []), body)
    fields = [("mcp-session-id", out.headers["mcp-session-id"])]
    fields.append(("mcp-protocol-version", "2025-11-25"))
    body = _body({"method": "notifications/initialized"})
    await service.handle(out, _head(body, fields), body)
    return fields


async def _measure(requests: int) -> dict[str, float]:
    service = HttpService(ours(), HttpServerConfig(response_mode="json"))
    out = Recorder()
    figures: dict[str, float] = {}
    async with service.running():
        call = {"name": "echo", "arguments": {"text": "hello"}}
        modern = _body({"id": 1, "method": "tools/call", "params": {**call, "_meta": _MODERN_META}})
        modern_fields = [
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", "echo"),
        ]
        legacy = _body({"id": 1, "method": "tools/call", "params": call})
        cases = {
            "2026-07-28": (_head(modern, modern_fields), modern),
            "2025-11-25 session": (_head(legacy, await _legacy_fields(service, out)), legacy),
        }
        for label, (head, body) in cases.items():
            best = float("inf")
            for _ in range(5):
                started = time.perf_counter()
                for _ in range(requests):
                    await service.handle(out, head, body)
                best = min(best, (time.perf_counter() - started) / requests)
                if out.status != 200:
                    raise AssertionError(f"{label}: answered {out.status}")
            figures[label] = best * 1e6
    return figures


def measure(requests: int = 20_000, backend: str = "asyncio") -> dict[str, float]:
    """Microseconds per request, by case."""
    return anyio.run(_measure, requests, backend=backend)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.http_service")
    parser.add_argument("requests", nargs="?", type=int, default=20_000)
    parser.add_argument("--backend", choices=("asyncio", "trio"), default="asyncio")
    args = parser.parse_args(argv)
    for label, micros in measure(args.requests, args.backend).items():
        print(f"{label:<20} {micros:7.1f} us per request (best of 5 x {args.requests:,})")


if __name__ == "__main__":
    main()
