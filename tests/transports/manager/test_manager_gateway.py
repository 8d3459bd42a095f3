"""The gateway: a manager's union served as one server, to clients of either era,
over upstream servers in other processes. asyncio and trio."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import paths
import pytest
from manager_helpers import ENV, LIMIT, MANAGER_SERVER, stdio
from runtime_helpers import only_text

from mcp_core import McpError
from mcp_core.manager import Backoff, TraceEntry
from mcp_core.session import ProgressReceived
from mcp_core.types import (
    CallToolRequestParams,
    CreateMessageResult,
    InputRequiredResult,
    TextContent,
)
from mcp_core.wire import INVALID_PARAMS
from transports import Client
from transports.manager import Manager, gateway_server
from transports.memory import pipe
from transports.stdio import stdio_connector

pytestmark = pytest.mark.anyio

HELLO = str(paths.EXAMPLES / "hello.py")
ERAS = pytest.mark.parametrize("era", ["2026-07-28", "2025-11-25"])


@ERAS
@pytest.mark.parametrize("upstream_era", ["2026-07-28", "2025-11-25"])
async def test_the_union_as_one_server_with_list_changes(era: str, upstream_era: str) -> None:
    with anyio.fail_after(LIMIT):
        changed = anyio.Event()

        def note(method: str, params: Any) -> None:
            if method.endswith("tools/list_changed"):
                changed.set()

        servers = [stdio("hello", HELLO), stdio("m", MANAGER_SERVER)]
        upstream = {"revisions": (upstream_era,)}
        async with Manager(servers, client_options=upstream) as manager:
            await manager.wait_ready()
            assert manager.status_of("m").revision == upstream_era
            gateway = gateway_server(manager)
            async with Client(pipe(gateway), revisions=(era,), on_notification=note) as client:
                assert client.revision == era
                names = [tool.name async for tool in client.iter_tools()]
                assert names[:2] == ["hello.HelloTool", "m.pid"]
                hello = await client.call_tool("hello.HelloTool", {"value": "gateway"})
                assert only_text(hello) == "Hello-bonjour gateway!"
                with pytest.raises(McpError) as refused:
                    await client.call_tool("nobody.nothing")
                assert refused.value.code == INVALID_PARAMS

                async def grow() -> None:
                    await client.call_tool("m.grow", {"name": "leaf"})
                    await changed.wait()

                if era == "2026-07-28":
                    async with client.listen(tools=True):
                        await grow()
                else:
                    await grow()
                names = [tool.name async for tool in client.iter_tools()]
                assert "m.leaf" in names
                assert only_text(await client.call_tool("m.leaf")) == "leaf"


async def test_progress_and_cancellation_pass_through() -> None:
    with anyio.fail_after(LIMIT):
        cancelled = anyio.Event()

        def on_trace(entry: TraceEntry) -> None:
            if entry.direction == "sent" and entry.method == "notifications/cancelled":
                cancelled.set()

        async with Manager([stdio("m", MANAGER_SERVER)], trace=True, on_trace=on_trace) as manager:
            await manager.wait_ready()
            async with Client(pipe(gateway_server(manager))) as client:
                seen: list[tuple[float, float | None, str | None]] = []

                def progress(event: ProgressReceived) -> None:
                    seen.append((event.progress, event.total, event.message))

                result = await client.call_tool("m.count", {"n": 3}, on_progress=progress)
                assert only_text(result) == "counted 3"
                assert seen == [(1, 3, "step 1"), (2, 3, "step 2"), (3, 3, "step 3")]

                with pytest.raises(TimeoutError):
                    await client.call_tool("m.block", timeout=0.5)
                await cancelled.wait()  # the upstream was told
                assert only_text(await client.call_tool("m.whoami")) == "manager-server"


async def test_the_gateway_survives_an_upstream_restart() -> None:
    with anyio.fail_after(LIMIT):
        changes: list[str] = []
        went = anyio.Event()
        reconnected = anyio.Event()

        def note(method: str, params: Any) -> None:
            changes.append(method)
            if len(changes) >= 3:
                went.set()
            if len(changes) >= 6:  # three lists when it went away, three when it came back
                reconnected.set()

        config = stdio("m", MANAGER_SERVER, max_reconnect_attempts=10)
        # Long enough a wait that the outage outlasts the checks made during it.
        backoff = Backoff(initial=1.5, maximum=1.5, jitter=0.0)
        async with Manager([config], backoff=backoff) as manager:
            await manager.wait_ready()
            # A legacy session: its list changes need no subscriptions/listen.
            gateway = gateway_server(manager)
            legacy = ("2025-11-25",)
            async with Client(pipe(gateway), revisions=legacy, on_notification=note) as client:
                first = int(only_text(await client.call_tool("m.pid")))
                os.kill(first, signal.SIGKILL)
                await manager.wait_until(lambda: manager.status_of("m").state != "connected")
                down = await client.call_tool("m.pid")
                assert down.is_error is True and "'m'" in only_text(down)
                # Its tools have left the union, and the client was told.
                await went.wait()
                assert "m.pid" not in [tool.name async for tool in client.iter_tools()]
                await manager.wait_for("m", "connected", LIMIT)
                await reconnected.wait()
                assert sorted(set(changes)) == [
                    "notifications/prompts/list_changed",
                    "notifications/resources/list_changed",
                    "notifications/tools/list_changed",
                ]
                assert int(only_text(await client.call_tool("m.pid"))) != first


def servers_file(directory: Path) -> str:
    path = directory / "servers.json"
    servers = {
        "hello": {"command": "python", "args": [HELLO], "env": ENV},
        "m": {"command": "python", "args": [MANAGER_SERVER], "env": ENV},
    }
    path.write_text(json.dumps({"mcpServers": servers}))
    return str(path)


async def test_mcp_core_gateway_on_stdio(tmp_path: Path) -> None:
    with anyio.fail_after(LIMIT):
        argv = [sys.executable, "-m", "transports", "gateway", "--config", servers_file(tmp_path)]
        connector = stdio_connector(argv, env=ENV, cwd=paths.ROOT)
        async with Client(connector) as client:
            names = [tool.name async for tool in client.iter_tools()]
            assert names[:2] == ["hello.HelloTool", "m.pid"]
            result = await client.call_tool("hello.HelloTool", {"value": "stdio"})
            assert only_text(result) == "Hello-bonjour stdio!"


async def test_mcp_core_gateway_on_http(tmp_path: Path) -> None:
    with anyio.fail_after(LIMIT):
        argv = [sys.executable, "-m", "transports", "gateway", "--config", servers_file(tmp_path)]
        argv += ["--transport", "http", "--port", "0"]
        process = await anyio.open_process(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env={**os.environ, **ENV},
            cwd=paths.ROOT,
        )
        try:
            assert process.stderr is not None
            seen = b""
            while b"gateway serving on " not in seen or not seen.endswith(b"\n"):
                seen += await process.stderr.receive()
            url = seen.decode().split("gateway serving on ")[1].split()[0]
            async with Client(url) as client:
                result = await client.call_tool("m.whoami")
                assert only_text(result) == "manager-server"
        finally:
            process.terminate()
            with anyio.CancelScope(shield=True):
                await process.wait()


async def test_mcp_core_gateway_takes_its_parking_bounds(tmp_path: Path) -> None:
    # --max-parked 1: while one call waits for a 2026-07-28 client's answer, the
    # next call's question is refused (the default bound is 1,000); a bound below
    # 1 is a usage error.
    with anyio.fail_after(LIMIT):
        argv = [sys.executable, "-m", "transports", "gateway", "--config", servers_file(tmp_path)]
        bad = await anyio.run_process(
            [*argv, "--max-parked", "0"], env={**os.environ, **ENV}, cwd=paths.ROOT, check=False
        )
        assert bad.returncode == 2 and b"must be at least 1" in bad.stderr
        argv += ["--max-parked", "1", "--parked-ttl", "30"]
        connector = stdio_connector(argv, env=ENV, cwd=paths.ROOT)
        async with Client(connector, revisions=("2026-07-28",), sampling=_sampled) as client:
            params = CallToolRequestParams(name="m.interview", arguments={"rounds": 1})
            first = await client.request("tools/call", params)
            assert type(first) is InputRequiredResult
            with pytest.raises(McpError, match="holds as many calls"):
                await client.request("tools/call", params)


def _sampled(params: Any) -> CreateMessageResult:
    return CreateMessageResult(role="assistant", content=TextContent(text="a"), model="m")
