"""The trace switched on and off at run time, and a token that reaches the server
but never the trace."""

from __future__ import annotations

import functools

import anyio
import paths
import pytest
from manager_helpers import LIMIT, stdio
from runtime_helpers import only_text

from mcp_core import Server
from mcp_core.http.decisions import HttpRequest
from mcp_core.manager import ServerConfig, TokenAuth
from transports.http.server import serve_http
from transports.manager import Manager

pytestmark = pytest.mark.anyio

HELLO = str(paths.EXAMPLES / "hello.py")


async def test_the_trace_is_off_by_default_and_switched_per_server() -> None:
    with anyio.fail_after(LIMIT):
        async with Manager([stdio("hello", HELLO), stdio("again", HELLO)]) as manager:
            await manager.wait_ready()
            await manager.call_tool("hello.HelloTool", {"value": "a"})
            assert manager.trace() == []
            manager.set_trace(True, "hello")
            await manager.call_tool("hello.HelloTool", {"value": "b"})
            await manager.call_tool("again.HelloTool", {"value": "b"})
            kinds = [(e.server, e.direction, e.type, e.method) for e in manager.trace()]
            assert kinds == [
                ("hello", "sent", "request", "tools/call"),
                ("hello", "received", "response", "tools/call"),
            ]
            manager.set_trace(False)
            await manager.call_tool("hello.HelloTool", {"value": "c"})
            assert len(manager.trace()) == 2
            manager.set_trace(True)  # all servers
            await manager.call_tool("again.HelloTool", {"value": "d"})
            assert [e.server for e in manager.trace()][-2:] == ["again", "again"]


async def test_a_token_reaches_the_server_and_never_the_trace() -> None:
    with anyio.fail_after(LIMIT):
        server = Server("guarded", "1.0.0")

        @server.tool()
        def ping() -> str:
            """Answer pong."""
            return "pong"

        seen: list[str] = []

        def authenticate(request: HttpRequest) -> str | None:
            seen.append(request.headers.get("authorization", ""))
            return None

        async with anyio.create_task_group() as tg:
            serve = functools.partial(serve_http, server, port=0, authenticate=authenticate)
            port = await tg.start(serve)
            config = ServerConfig(
                name="guarded",
                url=f"http://127.0.0.1:{port}/mcp",
                headers={"X-Team": "blue"},
                auth=TokenAuth(token="s3cret-token"),
                trace=True,
            )
            async with Manager([config]) as manager:
                await manager.wait_for("guarded", "connected", LIMIT)
                assert only_text(await manager.call_tool("guarded.ping")) == "pong"
                lines = "\n".join(entry.line() for entry in manager.trace())
            tg.cancel_scope.cancel()
        assert seen and set(seen) == {"Bearer s3cret-token"}
        assert "s3cret" not in lines
        assert '"X-Team":"blue"' in lines and "<redacted>" in lines
