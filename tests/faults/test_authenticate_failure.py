"""An authenticate hook that raises gives the client a 500 and the log a traceback;
the server goes on (it dropped the connection: 'can't handle event type
ConnectionClosed when role=SERVER'). h11 server, asyncio and trio; ASGI app."""

from __future__ import annotations

import logging

import anyio
import pytest
from asgi_helpers import uvicorn_serving
from net_helpers import port_of, serving

from mcp_core import Server
from mcp_core.http import HttpRequest
from transports import asgi_app

pytestmark = pytest.mark.anyio

INITIALIZE = (
    b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",'
    b'"capabilities":{},"clientInfo":{"name":"c","version":"1"}}}'
)


def broken_hook(head: HttpRequest) -> str:
    raise LookupError("the user table is gone")


async def post(port: int) -> bytes:
    request = (
        b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Accept: application/json, text/event-stream\r\nContent-Length: "
        + str(len(INITIALIZE)).encode()
        + b"\r\n\r\n"
        + INITIALIZE
    )
    async with await anyio.connect_tcp("127.0.0.1", port) as sock:
        await sock.send(request)
        answer = b""
        with anyio.fail_after(10):
            while b"\r\n\r\n" not in answer or not answer.endswith(b"Error"):
                try:
                    answer += await sock.receive()
                except (anyio.EndOfStream, anyio.BrokenResourceError):
                    break
    return answer


async def test_a_raising_hook_is_a_500_with_a_logged_traceback(
    anyio_backend: str, caplog: pytest.LogCaptureFixture
) -> None:
    async with serving(Server("auth", "1")) as (http, url):
        http.service.authenticate = broken_hook
        with caplog.at_level(logging.ERROR, logger="mcp_core.http"):
            for _ in range(2):  # and again: the server is still there
                answer = await post(port_of(url))
                assert answer.startswith(b"HTTP/1.1 500 "), answer
    failures = [r for r in caplog.records if "authenticate hook failed" in r.getMessage()]
    assert len(failures) == 2
    assert failures[0].exc_info is not None and failures[0].exc_info[0] is LookupError


@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_the_asgi_app_answers_500_too(
    anyio_backend: str, caplog: pytest.LogCaptureFixture
) -> None:
    app = asgi_app(Server("auth", "1"), authenticate=broken_hook)
    with caplog.at_level(logging.ERROR, logger="mcp_core.http"):
        async with uvicorn_serving(app) as port:
            answer = await post(port)
    assert answer.startswith(b"HTTP/1.1 500 "), answer
    assert any(r.exc_info and r.exc_info[0] is LookupError for r in caplog.records)
