"""The floor of the HTTP layer: h11 on anyio, and no MCP.

`H11EchoClient` POSTs a small fixed JSON-RPC request over keep-alive h11
connections, one connection per call in flight (as the MCP clients' pools do),
and reads the whole answer. `serve_echo` is its server (``python -m
benchmarks.http_servers h11 PORT``): every POST is answered with a small fixed
JSON-RPC response, as a JSON body with a Content-Length, or, for SSE answers,
as one ``message`` event on a chunked ``text/event-stream`` body (which is how
an MCP server streams an answer). Neither side sets timeouts, reads a header or
decodes JSON: the figures are what one HTTP/1.1 exchange costs through h11 and
anyio on this machine, under any MCP implementation written the same way.
"""

from __future__ import annotations

from types import TracebackType
from typing import Any, Final

import anyio
import h11
from anyio.abc import SocketAttribute, SocketStream, TaskStatus

__all__ = ["ANSWER", "REQUEST", "H11EchoClient", "answer_body", "serve_echo"]

_READ_BYTES: Final = 65536

REQUEST: Final = (
    b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo",'
    b'"arguments":{"text":"hello"}}}'
)
"""What the client POSTs: about the size of a small tools/call request."""

ANSWER: Final = (
    b'{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hello"}],'
    b'"isError":false}}'
)
"""What the server answers: about the size of the echo tool's result."""

_JSON_HEADERS: Final = [
    ("content-type", "application/json"),
    ("content-length", str(len(ANSWER))),
]
_SSE_HEADERS: Final = [("content-type", "text/event-stream"), ("cache-control", "no-cache")]
_SSE_EVENT: Final = b"event: message\ndata: " + ANSWER + b"\n\n"


def answer_body(answers: str) -> bytes:
    """The body the echo server sends for ``answers`` ("sse", else JSON)."""
    return _SSE_EVENT if answers == "sse" else ANSWER


async def _serve_connection(sock: SocketStream, answers: str) -> None:
    sse = answers == "sse"
    connection = h11.Connection(h11.SERVER)
    async with sock:
        while True:
            event = connection.next_event()
            if event is h11.NEED_DATA:
                try:
                    data = await sock.receive(_READ_BYTES)
                except (anyio.EndOfStream, anyio.BrokenResourceError):
                    return
                connection.receive_data(data)
            elif type(event) is h11.EndOfMessage:
                if sse:
                    out = connection.send(h11.Response(status_code=200, headers=_SSE_HEADERS))
                    out = (out or b"") + (connection.send(h11.Data(data=_SSE_EVENT)) or b"")
                else:
                    out = connection.send(h11.Response(status_code=200, headers=_JSON_HEADERS))
                    out = (out or b"") + (connection.send(h11.Data(data=ANSWER)) or b"")
                out += connection.send(h11.EndOfMessage()) or b""
                try:
                    await sock.send(out)
                except (anyio.BrokenResourceError, anyio.ClosedResourceError):
                    return
                if connection.our_state is not h11.DONE or connection.their_state is not h11.DONE:
                    return
                connection.start_next_cycle()
            elif type(event) is h11.ConnectionClosed:
                return
            # else a Request head or a Data chunk of its body: read on.


async def serve_echo(
    port: int,
    answers: str = "json",
    *,
    task_status: TaskStatus[int] = anyio.TASK_STATUS_IGNORED,
) -> None:
    """Answer every POST on 127.0.0.1:``port`` until cancelled; ``task_status``
    gets the port bound (0 picks one)."""
    listener = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=port)

    async def serve(sock: SocketStream) -> None:
        await _serve_connection(sock, answers)

    async with listener:
        task_status.started(int(listener.extra(SocketAttribute.local_port)))
        await listener.serve(serve)


class _Connection:
    __slots__ = ("h11", "stream")

    def __init__(self, stream: SocketStream) -> None:
        self.stream = stream
        self.h11 = h11.Connection(h11.CLIENT)


class H11EchoClient:
    """POSTs `REQUEST` to ``http://host:port/path`` over a keep-alive pool; use it
    with ``async with``. A call takes an idle connection (or opens one) and puts
    it back when the answer has been read, so N calls in flight use N connections.
    """

    def __init__(self, host: str, port: int, path: str = "/mcp") -> None:
        self.host = host
        self.port = port
        self._headers = [
            ("host", f"{host}:{port}"),
            ("content-type", "application/json"),
            ("accept", "application/json, text/event-stream"),
            ("content-length", str(len(REQUEST))),
        ]
        self._target = path
        self._idle: list[_Connection] = []

    async def __aenter__(self) -> H11EchoClient:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        idle, self._idle = self._idle, []
        for connection in idle:
            await connection.stream.aclose()

    async def call(self) -> bytes:
        """One POST; returns the answer's body.

        Raises:
            RuntimeError: the answer is not a 200.
        """
        connection = (
            self._idle.pop()
            if self._idle
            else _Connection(await anyio.connect_tcp(self.host, self.port))
        )
        conn = connection.h11
        out = conn.send(h11.Request(method="POST", target=self._target, headers=self._headers))
        out = (out or b"") + (conn.send(h11.Data(data=REQUEST)) or b"")
        out += conn.send(h11.EndOfMessage()) or b""
        await connection.stream.send(out)
        body: list[bytes] = []
        while True:
            event: Any = conn.next_event()
            if event is h11.NEED_DATA:
                conn.receive_data(await connection.stream.receive(_READ_BYTES))
            elif type(event) is h11.Data:
                body.append(bytes(event.data))
            elif type(event) is h11.Response:
                if event.status_code != 200:
                    raise RuntimeError(f"the echo server answered {event.status_code}")
            elif type(event) is h11.EndOfMessage:
                break
            else:
                raise RuntimeError(f"unexpected {event!r} from the echo server")
        conn.start_next_cycle()
        self._idle.append(connection)
        return b"".join(body)
