"""The server every layer times, once per implementation: the tool ``echo(text)``,
that says the text back, written twice, as users write tools: ``echo_def`` a plain
``def`` and ``echo`` an ``async def``; and the checked call of it that the layers time.

Every layer that runs a tool times both and prints both rows, the ``def`` row first
(`KINDS`, `rows`): FastMCP, the official SDK and mcp-core run a ``def`` tool in a
worker thread, so the two rows differ by what each runtime pays to get there. A
handler written by hand (the SDK's low-level ``Server``) has one kind only: its
row keeps its plain label.

The SDK and FastMCP are imported on call (the ``bench`` extra may be missing): each
function returns the server object, for the layer to run in memory, on stdio or on
HTTP as it needs.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Awaitable, Callable, Collection, Iterator, Mapping
from contextlib import contextmanager, suppress
from typing import Any, Final, TypeVar

from mcp_core import Server

_T = TypeVar("_T")

__all__ = [
    "ASYNC",
    "DEF",
    "KINDS",
    "TOOLS",
    "echo_call",
    "fastmcp_server",
    "ours",
    "quiet_logging",
    "quiet_peers",
    "row",
    "rows",
    "ratios_by_kind",
    "sdk_decorated",
    "sdk_lowlevel",
]

DEF: Final = "def"
ASYNC: Final = "async def"
KINDS: Final = (DEF, ASYNC)
"""The kinds of tool handler, in the order their rows are printed."""
TOOLS: Final = {DEF: "echo_def", ASYNC: "echo"}
"""The echo tool of each kind, by name."""


def echo_def(text: str) -> str:
    """Say the text back."""
    # A plain function, as most users write their tools: every implementation
    # runs it in a worker thread (or however its runtime does it today).
    return text


async def echo(text: str) -> str:
    """Say the text back."""
    return text


def row(label: str, kind: str) -> str:
    """The row of implementation ``label`` calling the tool of ``kind``."""
    return f"{label} ({kind})"


def rows(labels: Mapping[str, _T], plain: Collection[str] = ()) -> dict[str, tuple[_T, str]]:
    """Each label's rows, the ``def`` row first: row label -> (the label's value, tool
    name). A label in ``plain`` (a floor, a handler written by hand) keeps its one row,
    calling ``echo``."""
    found: dict[str, tuple[_T, str]] = {}
    for label, value in labels.items():
        if label in plain:
            found[label] = (value, TOOLS[ASYNC])
            continue
        for kind in KINDS:
            found[row(label, kind)] = (value, TOOLS[kind])
    return found


def ratios_by_kind(
    ratios: Mapping[str, tuple[str, str]], plain: Collection[str] = ()
) -> dict[str, tuple[str, str]]:
    """``ratios`` between labels, each once per kind of tool, ``def`` first (a label
    in ``plain`` has one row, the same in both); then, for each label that leads a
    ratio, its ``def`` row over its ``async def`` row: what a user's plain function
    costs there."""

    def named(label: str, kind: str) -> str:
        return label if label in plain else row(label, kind)

    found = {
        row(name, kind): (named(a, kind), named(b, kind))
        for name, (a, b) in ratios.items()
        for kind in KINDS
    }
    for a, _ in ratios.values():
        if a not in plain:
            found[f"{a}: def / async def"] = (row(a, DEF), row(a, ASYNC))
    return found


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
    server.tool(echo_def)
    server.tool(echo)
    return server


def sdk_decorated(**options: Any) -> Any:
    """The official SDK's decorator server, ``MCPServer`` (``options`` go to it)."""
    mcpserver: Any = importlib.import_module("mcp.server.mcpserver")
    with quiet_logging():
        server = mcpserver.MCPServer("bench-server", **options)
    server.tool()(echo_def)
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
    server.tool(echo_def)
    server.tool(echo)
    return server


def _text_of(result: Any) -> str | None:
    content = getattr(result, "content", None)
    if not content or len(content) != 1:
        return None
    return getattr(content[0], "text", None)


async def echo_call(
    client: Any, text: str, tool: str = TOOLS[ASYNC]
) -> Callable[[], Awaitable[Any]]:
    """A call of ``client``'s echo ``tool`` (`TOOLS`) with ``text`` (any
    implementation's client), made once and checked before it is returned.

    Raises:
        AssertionError: the tool did not say the text back.
    """
    arguments = {"text": text}

    async def call() -> Any:
        return await client.call_tool(tool, arguments)

    result = await call()
    if _text_of(result) != text or getattr(result, "is_error", False):
        raise AssertionError(f"the {tool} tool did not echo {text[:20]!r}...: {result!r}")
    return call
