"""Files: the application answers tools/list and tools/call itself (the Ballerina MCP
"advanced service").

Instead of registering functions, the server hands both methods to two handlers
(``server.on_list_tools`` and ``server.on_call_tool``). They receive the request's
params and return the result Structs themselves. This suits tools that are only known
at run time, or an existing dispatcher.

The one tool, ``readFile``, reads a UTF-8 text file under a root directory. The root
is ``$MCP_FILES_ROOT``, or else the directory the server starts in. A path that does
not work (missing, a directory, outside the root through ``..`` or a symlink, not
UTF-8, too large) gets an ``isError`` result that explains why. The model can read it
and try another path. Asking for a tool that does not exist is a protocol error
(-32602), as the MCP tools page says.

Run it:

    MCP_FILES_ROOT=. python examples/files.py
    mcp-core call "python examples/files.py" readFile --arg path=README.md
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Final

from mcp_core import Context, McpError, Server
from mcp_core.types import (
    CallToolRequestParams,
    CallToolResult,
    ListToolsResult,
    PaginatedRequestParams,
    TextContent,
    Tool,
    ToolAnnotations,
)
from mcp_core.wire import INVALID_PARAMS
from transports import run_stdio

MAX_FILE_BYTES: Final = 1024 * 1024
"""The largest file readFile returns; a model has no use for more in one result."""

READ_FILE: Final = Tool(
    name="readFile",
    description="Read a UTF-8 text file under the server's root directory.",
    input_schema={
        "type": "object",
        "properties": {
            "path": {
                "type": "string",
                "description": "The file's path, relative to the root directory.",
            }
        },
        "required": ["path"],
        "additionalProperties": False,
    },
    annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False),
)


def _failed(message: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(text=message)], is_error=True)


def read_file(root: Path, path: str) -> CallToolResult:
    """Read ``path`` under ``root``; every failure is an ``isError`` result."""
    # resolve() follows symlinks and "..", so what is checked is where the file
    # really is. The check comes before any other: outside the root, even whether
    # a file exists is none of the caller's business.
    try:
        target = (root / path).resolve()
    except (OSError, ValueError, RuntimeError):  # a NUL byte, a symlink loop
        return _failed(f"{path!r}: not a usable path")
    if not target.is_relative_to(root):
        return _failed(f"{path}: outside the root directory")
    if not target.exists():
        return _failed(f"{path}: no such file")
    if not target.is_file():
        return _failed(f"{path}: not a regular file")
    try:
        if target.stat().st_size > MAX_FILE_BYTES:
            return _failed(f"{path}: larger than {MAX_FILE_BYTES} bytes")
        text = target.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        return _failed(f"{path}: not a UTF-8 text file")
    except OSError as exc:
        return _failed(f"{path}: {exc.strerror or exc}")
    return CallToolResult(content=[TextContent(text=text)])


def make_server(root: str | os.PathLike[str] | None = None) -> Server:
    """A server for the files under ``root`` (default: $MCP_FILES_ROOT, else ".")."""
    base = Path(root if root is not None else os.environ.get("MCP_FILES_ROOT", ".")).resolve()
    server = Server("files", "1.0.0", instructions=f"Reads text files under {base}.")

    @server.on_list_tools
    def list_tools(params: PaginatedRequestParams, ctx: Context) -> ListToolsResult:
        return ListToolsResult(tools=[READ_FILE])

    @server.on_call_tool
    def call_tool(params: CallToolRequestParams, ctx: Context) -> CallToolResult:
        if params.name != READ_FILE.name:
            raise McpError(INVALID_PARAMS, f"Unknown tool: {params.name}")
        arguments: Any = params.arguments
        path = arguments.get("path") if isinstance(arguments, dict) else None
        if not isinstance(path, str) or not path:
            return _failed("readFile needs a `path` argument: a non-empty string")
        return read_file(base, path)

    return server


server = make_server()

if __name__ == "__main__":
    run_stdio(server)
