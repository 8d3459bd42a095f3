"""RFC 9112 section 6.3: a request with both Content-Length and Transfer-Encoding is
answered 400 and its connection closed, so nothing sent after it is served.

Behind ASGI the server owns the framing: uvicorn 0.3x (httptools) reads such a body
as chunked and then serves the request appended after it on the same connection
(seen with the bytes below: two answers, 400 then 400); an ASGI app cannot close
the connection, so deployments behind uvicorn rely on their proxy for this rule."""

from __future__ import annotations

import anyio
import pytest
from net_helpers import port_of, serving

from mcp_core import Server

pytestmark = pytest.mark.anyio

SMUGGLED = (
    b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
    b"Accept: application/json, text/event-stream\r\n"
    b"Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"
    b"DELETE /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n"
)


async def test_content_length_with_transfer_encoding_is_refused_and_closed(
    anyio_backend: str,
) -> None:
    async with serving(Server("smuggle", "1")) as (_, url):
        sock = await anyio.connect_tcp("127.0.0.1", port_of(url))
        async with sock:
            await sock.send(SMUGGLED)
            answer = b""
            with anyio.fail_after(10):
                while True:
                    try:
                        answer += await sock.receive()
                    except (anyio.EndOfStream, anyio.BrokenResourceError):
                        break
    assert answer.startswith(b"HTTP/1.1 400 ")
    assert answer.count(b"HTTP/1.1 ") == 1  # the request after it was never read
    assert b"connection: close" in answer.lower()
