"""The server every layer times, once per implementation: one tool, ``echo(text)``,
that says the text back; and the checked call of it that the layers time.

The SDK and FastMCP are imported on call (the ``bench`` extra may be missing): each
function returns the server object, for the layer to run in memory, on stdio or on
HTTP as it needs.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager, suppress
from typing import Any

from mcp_core import Server

__all__ = [
    "echo_call",
    "fastmcp_server",
    "ours",
    "quiet_logging",
    "quiet_peers",
    "sdk_decorated",
    "sdk_lowlevel",
]


async def echo(text: str) -> str:
    """Say the text back."""
    # async def, for every implementation alike: a plain function is run in a
    # worker thread by mcp-core (and FastMCP), which would time the thread pool.
    return text


_PEER_LOGGERS = ("fastmcp", "mcp", "httpx", "uvicorn", "docket")
"""Loggers of the peers that would print into the benchmark's tables."""


@contextmanager
def quiet_logging() -> Iterator[None]:
    """Keep a peer's logging out of the benchmark's output: constructing the SDK's
    ``MCPServer`` sets the root logger to INFO with a rich handler (so every
    ``httpx`` request of its client printed a line), and FastMCP gives its own
    logger rich handlers. The root logger is put back as it was, and the peers'
    loggers say warnings and worse only."""
    root = logging.getLogger()
    level, handlers = root.level, root.handlers[:]
    try:
        yield
    finally:
        root.setLevel(level)
        root.handlers[:] = handlers
        for name in _PEER_LOGGERS:
            logging.getLogger(name).setLevel(logging.WARNING)


def quiet_peers() -> None:
    """Import the peers that are installed with their logging kept quiet: FastMCP
    configures its loggers when first imported, wherever that happens."""
    for name in ("mcp.server.mcpserver", "fastmcp"):
        with quiet_logging(), suppress(ImportError):
            importlib.import_module(name)


def ours() -> Server:
    """mcp-core's decorator server."""
    server = Server("bench-server", "1")
    server.tool(echo)
    return server


def sdk_decorated(**options: Any) -> Any:
    """The official SDK's decorator server, ``MCPServer`` (``options`` go to it)."""
    mcpserver: Any = importlib.import_module("mcp.server.mcpserver")
    with quiet_logging():
        server = mcpserver.MCPServer("bench-server", **options)
    server.tool()(echo)
    return server


def sdk_lowlevel() -> Any:
    """The SDK's low-level ``Server``, its handlers written by hand."""
    with quiet_logging():
        lowlevel: Any = importlib.import_module("mcp.server")
        types: Any = importlib.import_module("mcp_types")
    tool = types.Tool(
        name="echo",
        input_schema={
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
        },
    )

    async def on_call_tool(ctx: Any, params: Any) -> Any:
        text = params.arguments["text"]
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)])

    async def on_list_tools(ctx: Any, params: Any) -> Any:
        return types.ListToolsResult(tools=[tool])

    return lowlevel.Server("bench-server", on_call_tool=on_call_tool, on_list_tools=on_list_tools)


def fastmcp_server() -> Any:
    """FastMCP's server."""
    with quiet_logging():
        fastmcp: Any = importlib.import_module("fastmcp")
        server = fastmcp.FastMCP("bench-server")
    server.tool(echo)
    return server


def _text_of(result: Any) -> str | None:
    content = getattr(result, "content", None)
    if not content or len(content) != 1:
        return None
    return getattr(content[0], "text", None)


async def echo_call(client: Any, text: str) -> Callable[[], Awaitable[Any]]:
    """A call of ``client``'s echo tool with ``text`` (any implementation's client),
    made once and checked before it is returned.

    Raises:
        AssertionError: the tool did not say the text back.
    """
    arguments = {"text": text}

    async def call() -> Any:
        return await client.call_tool("echo", arguments)

    result = await call()
    if _text_of(result) != text or getattr(result, "is_error", False):
        raise AssertionError(f"the echo tool did not echo {text[:20]!r}...: {result!r}")
    return call
