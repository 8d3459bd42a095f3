"""The bring-your-own-I/O examples (docs/sans-io.md) against real peers, over stdio.

* examples/stdlib_server.py (mcp_core and the standard library, a blocking loop) is
  driven by our `Client` (both eras, on asyncio and trio) and by the official SDK's
  stdio client (its legacy handshake, and its dual-era probe);
* examples/stdlib_client.py (the same, with subprocess) drives our server through the
  command line (`python -m transports serve examples/hello.py`) and the SDK's
  `MCPServer` (tests/servers/sdk_server.py).

Every case spawns one process and finishes within `LIMIT`.
"""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType
from typing import Any, Final

import anyio
import mcp_types as sdk_types
import paths
import pytest
from mcp import Client as SdkClient
from mcp.client.stdio import StdioServerParameters
from runtime_helpers import ERAS

from mcp_core.session import ProgressReceived
from mcp_core.types import TextContent
from transports import connect_stdio

EXAMPLES = paths.ROOT / "examples"
SERVER = str(EXAMPLES / "stdlib_server.py")
ENV: Final = {"PYTHONPATH": str(paths.ROOT)}
LIMIT: Final = 20.0
"""Seconds one conversation may take, the spawn included (a loaded 2-core machine)."""


def load_client() -> ModuleType:
    spec = importlib.util.spec_from_file_location("stdlib_client", EXAMPLES / "stdlib_client.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def text_of(result: Any) -> str:
    (block,) = result.content
    return str(block.text)


@pytest.mark.anyio
@pytest.mark.parametrize("era", sorted(ERAS))
async def test_our_client_against_the_stdlib_server(era: str) -> None:
    progress: list[float] = []

    def on_progress(event: ProgressReceived) -> None:
        progress.append(event.progress)

    with anyio.fail_after(LIMIT):
        async with connect_stdio([sys.executable, SERVER], env=ENV, revisions=ERAS[era]) as client:
            assert client.server_info is not None
            assert client.server_info.name == "stdlib"
            assert sorted([tool.name async for tool in client.iter_tools()]) == ["add", "count"]
            added = await client.call_tool("add", {"a": 2, "b": 40})
            assert text_of(added) == "42"
            assert added.structured_content == {"result": 42}
            counted = await client.call_tool("count", {"to": 3}, on_progress=on_progress)
            assert text_of(counted) == "counted to 3"
            assert progress == [1, 2, 3]
            (contents,) = (await client.read_resource("stdlib://about")).contents
            assert isinstance(contents.text, str) and "blocking loop" in contents.text
            refused = await client.call_tool("add", {"a": "two"})
            assert refused.is_error


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_the_sdk_client_against_the_stdlib_server(mode: str, anyio_backend: str) -> None:
    if anyio_backend != "asyncio":
        pytest.skip("the SDK client is checked on asyncio; our side has no event loop")
    params = StdioServerParameters(command=sys.executable, args=[SERVER], env=ENV)
    with anyio.fail_after(LIMIT):
        async with SdkClient(params, mode=mode) as client:  # type: ignore[arg-type]
            tools = await client.list_tools()
            assert sorted(tool.name for tool in tools.tools) == ["add", "count"]
            result = await client.call_tool("add", {"a": 1, "b": 2})
            assert not result.is_error
            (block,) = result.content
            assert isinstance(block, sdk_types.TextContent)
            assert block.text == "3"


def test_the_stdlib_client_against_our_command_line() -> None:
    client = load_client().StdioClient(
        [sys.executable, "-m", "transports", "serve", str(EXAMPLES / "hello.py")]
    )
    try:
        opened = client.open()
        assert opened.peer_info.name == "hello"
        assert [tool.name for tool in client.request("tools/list").tools] == ["HelloTool"]
        result = client.request("tools/call", {"name": "HelloTool", "arguments": {"value": "Ada"}})
        (block,) = result.content
        assert isinstance(block, TextContent)
        assert block.text == "Hello-bonjour Ada!"
    finally:
        client.close()
    assert client.process.returncode == 0


def test_the_stdlib_client_against_the_sdk_server() -> None:
    client = load_client().StdioClient(
        [sys.executable, str(paths.TESTS / "servers" / "sdk_server.py")]
    )
    try:
        opened = client.open()
        assert opened.peer_info.name == "sdk-server"
        result = client.request("tools/call", {"name": "text", "arguments": {"value": "hi"}})
        (block,) = result.content
        assert block.text == "hi"
    finally:
        client.close()


def test_the_stdlib_client_says_when_its_server_exits() -> None:
    client = load_client().StdioClient([sys.executable, "-c", "raise SystemExit(3)"])
    try:
        with pytest.raises(ConnectionError, match="status 3"):
            client.open()
    finally:
        client.close()
