"""The client follows a redirect of its endpoint, from the wire, on asyncio and trio.

In front of our h11 server (endpoint at /mcp/, JSON answers) stands a raw h11
server on its own port: it answers /mcp with a 307 to /mcp/ and forwards every
other request, as it is, to our server, then the answer back. The client is given
http://127.0.0.1:FRONT/mcp: its first request is redirected, every later one goes
to /mcp/ at once, on the same keep-alive connection.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import h11
import pytest
from anyio.abc import SocketStream
from http_helpers import Gates, make_server
from net_helpers import LIMIT, port_of, serving
from runtime_helpers import only_text

from transports import connect_http

pytestmark = pytest.mark.anyio


async def _next(conn: h11.Connection, stream: SocketStream) -> Any:
    while True:
        event = conn.next_event()
        if event is not h11.NEED_DATA:
            return event
        conn.receive_data(await stream.receive(65536))


async def _whole(conn: h11.Connection, stream: SocketStream) -> tuple[Any, bytes]:
    # A request or response head, and its whole body.
    head = await _next(conn, stream)
    body = b""
    while True:
        event = await _next(conn, stream)
        if type(event) is h11.EndOfMessage:
            return head, body
        body += event.data


class Front:
    """The redirecting front server; ``seen`` lists the targets asked for."""

    def __init__(self, backend_port: int) -> None:
        self.backend_port = backend_port
        self.seen: list[str] = []
        self.connections = 0

    async def _serve(self, client: SocketStream) -> None:
        self.connections += 1
        conn = h11.Connection(h11.SERVER)
        async with client:
            while True:
                try:
                    request, body = await _whole(conn, client)
                except (anyio.EndOfStream, anyio.BrokenResourceError, h11.RemoteProtocolError):
                    return
                if type(request) is not h11.Request:
                    return
                target = request.target.decode()
                self.seen.append(target)
                if target == "/mcp":
                    headers = [("location", "/mcp/"), ("content-length", "0")]
                    data = conn.send(h11.Response(status_code=307, headers=headers))
                    data += conn.send(h11.EndOfMessage())
                else:
                    status, headers, answer = await self._forward(request, body)
                    data = conn.send(h11.Response(status_code=status, headers=headers))
                    data += conn.send(h11.Data(data=answer)) + conn.send(h11.EndOfMessage())
                await client.send(data)
                conn.start_next_cycle()

    async def _forward(self, request: Any, body: bytes) -> tuple[int, Any, bytes]:
        conn = h11.Connection(h11.CLIENT)
        async with await anyio.connect_tcp("127.0.0.1", self.backend_port) as upstream:
            head = h11.Request(
                method=request.method, target=request.target, headers=request.headers
            )
            await upstream.send(
                conn.send(head) + conn.send(h11.Data(data=body)) + conn.send(h11.EndOfMessage())
            )
            response, answer = await _whole(conn, upstream)
        headers = [
            (k, v)
            for k, v in response.headers
            if k not in (b"content-length", b"transfer-encoding", b"connection")
        ]
        headers.append((b"content-length", str(len(answer)).encode()))
        return response.status_code, headers, answer

    @asynccontextmanager
    async def running(self) -> AsyncIterator[int]:
        listener = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=0)
        async with listener, anyio.create_task_group() as tg:
            tg.start_soon(listener.serve, self._serve)
            try:
                yield listener.extra(anyio.abc.SocketAttribute.local_port)
            finally:
                tg.cancel_scope.cancel()


async def test_a_redirected_endpoint_is_followed_then_used() -> None:
    with anyio.fail_after(LIMIT * 2):
        async with serving(make_server(Gates()), path="/mcp/", response_mode="json") as (_, url):
            front = Front(port_of(url))
            async with front.running() as port:
                endpoint = f"http://127.0.0.1:{port}/mcp"
                async with connect_http(endpoint, revisions=("2026-07-28",)) as client:
                    for n in range(3):
                        text = await client.call_tool("echo", {"text": f"hi {n}"})
                        assert only_text(text) == f"hi {n}"
    # The opening's first request was redirected; everything after it went to
    # the new URL directly, over the connection the client kept.
    assert front.seen[0] == "/mcp" and front.seen.count("/mcp") == 1
    assert set(front.seen[1:]) == {"/mcp/"} and len(front.seen) >= 4
    assert front.connections == 1
