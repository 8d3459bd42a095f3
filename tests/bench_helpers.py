"""Running `mcp-core bench` for real in the layer tests: a child process with tiny
settings, its JSON read back."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def bench_layer(
    tmp_path: Path, layer: str, *options: str, timeout: float
) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    """Run ``mcp-core bench --only LAYER OPTIONS --json FILE`` in ``tmp_path`` (where
    ``--quick`` draws its picture); what it printed, and the layer's figures from FILE.

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
        cwd=tmp_path,
        env={
            **os.environ,
            "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
        },
    )
    assert done.returncode == 0, done.stderr
    figures: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))["layers"][layer]
    return done, figures


def assert_kinds_in_pairs(labels: Iterable[str], plain: Iterable[str] = ()) -> None:
    """Every row but the ``plain`` ones calls a def tool or an async def tool, and
    each implementation's "(def)" row comes right before its "(async def)" row.

    Raises:
        AssertionError: a row of one kind alone, or the two the wrong way round.
    """
    rows = [label for label in labels if label not in set(plain)]
    assert rows, "no row calls a tool"
    assert len(rows) % 2 == 0, rows
    for first, second in zip(rows[::2], rows[1::2], strict=True):
        assert first.endswith(" (def)"), (first, second)
        assert second == first.removesuffix(" (def)") + " (async def)", (first, second)
