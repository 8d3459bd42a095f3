"""The layer rule: mcp_core does no I/O and loads no async library (DESIGN.md)."""

from __future__ import annotations

import json
import subprocess
import sys

FORBIDDEN = [
    "asyncio",
    "anyio",
    "trio",
    "socket",
    "threading",
    "selectors",
    "subprocess",
    "h11",
]


def test_importing_mcp_core_loads_no_io_module() -> None:
    # A fresh interpreter: this test process has loaded pytest, asyncio and more.
    # -S skips site (which may import anything); -I isolates from the environment.
    code = (
        "import sys, json\n"
        f"sys.path[:0] = {json.dumps(sys.path)}\n"
        "before = set(sys.modules)\n"
        "import mcp_core, mcp_core.__init__\n"
        "print(json.dumps(sorted(set(sys.modules) - before)))\n"
    )
    out = subprocess.run(
        [sys.executable, "-I", "-S", "-c", code], capture_output=True, text=True, check=True
    )
    loaded = set(json.loads(out.stdout))
    bad = sorted(m for m in loaded if m.split(".")[0] in FORBIDDEN)
    assert "mcp_core" in loaded
    assert bad == [], f"mcp_core pulled in {bad}"
