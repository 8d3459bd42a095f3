"""The server the ``workers`` layer runs in each worker: the many-process recipe's
app (examples/redis/app.py, unchanged) with its ``worker`` tool written a second
time as a plain ``def``, ``worker_def``, as most users write tools.

    mcp-core serve benchmarks/worker_app.py --transport http --redis URL
"""

from __future__ import annotations

import os
import runpy
from pathlib import Path
from typing import Final

from mcp_core import Server

RECIPE: Final = Path(__file__).resolve().parent.parent / "examples" / "redis" / "app.py"

server: Server = runpy.run_path(str(RECIPE))["server"]


@server.tool
def worker_def() -> str:
    """The process id of the worker that served this call."""
    return str(os.getpid())
