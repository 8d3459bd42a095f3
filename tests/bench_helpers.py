"""Running `mcp-core bench` for real in the layer tests: a child process with tiny
settings, its JSON read back."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any


def bench_layer(
    tmp_path: Path, layer: str, *options: str, timeout: float
) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    """Run ``mcp-core bench --only LAYER OPTIONS --json FILE``; what it printed, and
    the layer's figures from FILE.

    Raises:
        AssertionError: the command failed (its stderr says why).
    """
    out = tmp_path / "bench.json"
    done = subprocess.run(
        [
            *(sys.executable, "-m", "transports", "bench", "--only", layer),
            *(*options, "--json", str(out)),
        ],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert done.returncode == 0, done.stderr
    figures: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))["layers"][layer]
    return done, figures
