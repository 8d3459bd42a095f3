"""An MCP server on mcp_core and the standard library only: no anyio, no event loop.

mcp_core is sans-IO: it turns bytes into events and answers into bytes, and leaves
reading and writing to its caller. Here the caller is a blocking loop over this
process's stdin and stdout, one request at a time, which is all the stdio transport
(NDJSON: one JSON-RPC message a line) needs. docs/sans-io.md walks through it.

Run it:

    python examples/stdlib_server.py                      # serve on stdio
    mcp-core call examples/stdlib_server.py add --arg a=1 --arg b=2
    python examples/stdlib_client.py python examples/stdlib_server.py

The tools are ordinary `Server` tools. Their handlers run inline: a plain function is
called here, and an ``async def`` is driven to completion without an event loop, so it
may await what the `Context` offers (progress, logging) but not an event loop's
sleeps or sockets. Requests that would ask the client something (sampling,
elicitation, roots) are refused: this loop never waits for two things at once.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Coroutine
from typing import Any, BinaryIO, TypeVar

from mcp_core import Context, McpError, Server, ServerSession
from mcp_core.session import RequestReceived
from mcp_core.wire import METHOD_NOT_FOUND, LineFramer, LineTooLong, encode_message, frame_line

_T = TypeVar("_T")

server = Server("stdlib", "1.0", instructions="Adds numbers; served by a plain blocking loop.")


@server.tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool
async def count(to: int, ctx: Context) -> str:
    """Count up to a number, reporting progress at each step."""
    for step in range(1, to + 1):
        await ctx.report_progress(step, to, f"step {step}")
    return f"counted to {to}"


@server.resource("stdlib://about", mime_type="text/plain")
def about() -> str:
    """What serves this resource."""
    return "a blocking loop over stdin and stdout"


def run_to_end(coroutine: Coroutine[Any, Any, _T]) -> _T:
    """Run a coroutine that never waits on an event loop, and return its value.

    `Server.dispatch` is ``async`` so that an event loop can serve many requests at
    once; mcp_core itself never suspends, so without one the coroutine finishes on
    its first step.
    """
    try:
        coroutine.send(None)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]
    coroutine.close()
    raise RuntimeError("a handler waited on an event loop, and this server runs none")


class Peer:
    """The Context's link to the client for one request (`mcp_core.server.Peer`):
    what a handler sends goes into the session, and out at once."""

    def __init__(self, session: ServerSession, request_id: Any, flush: Callable[[], None]) -> None:
        self.session = session
        self.request_id = request_id
        self.flush = flush

    async def send_progress(
        self, progress: float, total: float | None, message: str | None
    ) -> None:
        if self.session.send_progress(self.request_id, progress, total, message):
            self.flush()

    async def send_log(self, level: str, data: Any, logger: str | None) -> None:
        self.session.send_log(level, data, logger)
        self.flush()

    async def send_notification(self, method: str, params: Any) -> None:
        self.session.send_notification(method, params)
        self.flush()

    async def request(self, method: str, params: Any) -> Any:
        raise McpError(METHOD_NOT_FOUND, f"this server does not send {method} to its client")

    async def run_sync(self, fn: Callable[[], _T]) -> _T:
        return fn()  # a plain-function handler: called right here


def serve(app: Server, stdin: BinaryIO, stdout: BinaryIO) -> None:
    """Serve ``app`` on a pair of binary streams until ``stdin`` ends."""
    session = ServerSession(app.config())
    framer = LineFramer()

    def flush() -> None:
        for message in session.messages_to_send():
            stdout.write(frame_line(encode_message(message)))
        stdout.flush()

    def answer(event: RequestReceived) -> None:
        ctx = Context(event, Peer(session, event.id, flush), now=time.time())
        try:
            result = run_to_end(app.dispatch(event, ctx))
        except McpError as exc:
            session.send_error(event.id, exc.code, exc.message)
        else:
            session.send_response(event.id, app.wire_form(result))

    # read1: what has arrived, up to 64 KiB, without waiting for the rest.
    while chunk := stdin.read1(65536):  # type: ignore[attr-defined]
        for line in framer.feed(chunk):
            if isinstance(line, LineTooLong):
                session.receive_unreadable("the line is too long")
                continue
            for event in session.receive_bytes(line, now=time.monotonic()):
                if isinstance(event, RequestReceived):
                    answer(event)
                # Other events (the handshake done, a cancellation, a protocol
                # violation already answered by the session) need nothing here.
        flush()
    session.close()


if __name__ == "__main__":
    serve(server, sys.stdin.buffer, sys.stdout.buffer)
