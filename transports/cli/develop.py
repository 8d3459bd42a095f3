"""Commands for working on a server: ``mcp-core dev``.

``dev SERVER`` hands the server to the MCP Inspector, the reference web UI for
trying a server by hand: it becomes ``npx @modelcontextprotocol/inspector [-e
PYTHONPATH=...] -- ARGV`` (``--server-url URL`` for a URL). The Inspector starts the
server with a short list of our environment variables, so PYTHONPATH, which a
source checkout needs to import ``transports``, is handed on explicitly. npx
downloads the Inspector on first use; without Node.js there is nothing to run, and
``dev`` says so and exits 1.
"""

from __future__ import annotations

import os
import shutil
import sys
from typing import Final

from .connect import UsageError, error, is_url, server_argv

__all__ = ["INSPECTOR", "inspector_argv", "run_dev"]

INSPECTOR: Final = "@modelcontextprotocol/inspector"
"""The npm package of the MCP Inspector."""


# --- dev ------------------------------------------------------------------------------------


def inspector_argv(npx: str, server: str) -> list[str]:
    """The command that opens ``server`` (a URL, TARGET or command) in the Inspector.

    Raises:
        UsageError: a server command that cannot be split, or a missing target file.
    """
    if is_url(server):
        return [npx, INSPECTOR, "--server-url", server]
    environment = []
    if pythonpath := os.environ.get("PYTHONPATH"):
        environment = ["-e", f"PYTHONPATH={pythonpath}"]
    return [npx, INSPECTOR, *environment, "--", *server_argv(server)]


def run_dev(server: str) -> int:
    """``mcp-core dev SERVER``: replace this process with the Inspector."""
    npx = shutil.which("npx")
    if npx is None:
        error(
            "the MCP Inspector runs on Node.js, and npx is not on PATH; install Node.js "
            "(https://nodejs.org), or try the server with `mcp-core inspect` and `mcp-core call`"
        )
        return 1
    try:
        argv = inspector_argv(npx, server)
    except UsageError as exc:
        error(str(exc))
        return 2
    print(f"mcp-core: running {' '.join(argv)}", file=sys.stderr, flush=True)
    sys.stdout.flush()
    os.execv(npx, argv)
