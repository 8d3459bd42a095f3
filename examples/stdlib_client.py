"""An MCP client on mcp_core and the standard library only: no anyio, no event loop.

It starts a server command with subprocess, speaks NDJSON (one JSON-RPC message a
line) on its stdin and stdout, and drives a `ClientSession`: the session says what
to write, and turns each line read back into events. docs/sans-io.md walks through it.

Run it:

    python examples/stdlib_client.py python examples/stdlib_server.py
    python examples/stdlib_client.py --call add '{"a": 1, "b": 2}' python examples/stdlib_server.py
    python examples/stdlib_client.py --call HelloTool '{"value": "Ada"}' \\
        python -m transports serve examples/hello.py

Without ``--call`` it lists the server's tools. The session finds out the server's
era by itself: ``server/discover`` first (2026-07-28), ``initialize`` if the server
does not know it.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from typing import Any

from mcp_core import ClientConfig, ClientSession
from mcp_core.session import (
    ErrorReceived,
    HandshakeCompleted,
    NotificationReceived,
    ProgressReceived,
    ResponseReceived,
)
from mcp_core.types import Implementation
from mcp_core.wire import LineFramer, LineTooLong, encode_message, frame_line

TIMEOUT = 30.0
"""Seconds to wait for each answer (the session times requests by the clock we give)."""


class StdioClient:
    """One server process and the session that talks to it, one request at a time."""

    def __init__(self, command: list[str]) -> None:
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.session = ClientSession(
            ClientConfig(client_info=Implementation(name="stdlib", version="1.0"))
        )
        self.framer = LineFramer()

    def flush(self) -> None:
        """Write what the session queued."""
        assert self.process.stdin is not None
        for message in self.session.messages_to_send():
            self.process.stdin.write(frame_line(encode_message(message)))
        self.process.stdin.flush()

    def events(self) -> list[Any]:
        """Block until the server sends something; the events its lines caused."""
        assert self.process.stdout is not None
        chunk = self.process.stdout.read1(65536)  # type: ignore[attr-defined]
        if not chunk:
            raise ConnectionError(f"the server exited (status {self.process.wait()})")
        now = time.monotonic()
        events: list[Any] = []
        for line in self.framer.feed(chunk):
            if isinstance(line, LineTooLong):
                events += self.session.receive_unreadable("the line is too long", line.head)
            else:
                events += self.session.receive_bytes(line, now=now)
        # Expired requests fail with an event too (and a cancellation to send).
        events += self.session.handle_timeouts(now)
        self.flush()  # what the session answered by itself (a ping, an error)
        return events

    def open(self) -> HandshakeCompleted:
        """Open the session (either era); the server's answer."""
        self.session.start(now=time.monotonic(), timeout=TIMEOUT)
        self.flush()
        while True:
            for event in self.events():
                if isinstance(event, HandshakeCompleted):
                    return event
                if isinstance(event, ErrorReceived):
                    raise ConnectionError(f"the server refused: {event.error.message}")

    def request(self, method: str, params: Any = None) -> Any:
        """Send one request and wait for its typed result."""
        request_id = self.session.send_request(
            method, params, now=time.monotonic(), timeout=TIMEOUT, progress=True
        )
        self.flush()
        while True:
            for event in self.events():
                if isinstance(event, ResponseReceived) and event.id == request_id:
                    return event.result
                if isinstance(event, ErrorReceived) and event.id == request_id:
                    raise RuntimeError(f"{method} failed: {event.error.message}")
                if isinstance(event, ProgressReceived):
                    print(f"progress {event.progress}/{event.total}", file=sys.stderr)
                elif isinstance(event, NotificationReceived):
                    print(f"{event.method}: {event.params}", file=sys.stderr)

    def close(self) -> None:
        """Close stdin, then wait for the server to exit (the spec's stdio shutdown)."""
        self.session.close()
        assert self.process.stdin is not None
        self.process.stdin.close()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.terminate()
            self.process.wait()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--call", nargs=2, metavar=("TOOL", "JSON"), help="call a tool")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="the server command")
    args = parser.parse_args(argv)
    if not args.command:
        parser.error("give the command that starts the server")
    client = StdioClient(args.command)
    try:
        opened = client.open()
        print(f"connected to {opened.peer_info.name} ({opened.revision})", file=sys.stderr)
        if args.call:
            name, arguments = args.call[0], json.loads(args.call[1])
            result = client.request("tools/call", {"name": name, "arguments": arguments})
            for block in result.content:
                print(getattr(block, "text", block))
        else:
            for tool in client.request("tools/list").tools:
                print(tool.name)
    finally:
        client.close()


if __name__ == "__main__":
    main()
