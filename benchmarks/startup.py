"""What it costs to start a stdio server: CPU and wall time from ``exec`` to exit,
for a server whose client closes its stdin at once (load, serve, read end of
input, leave).

    python -m benchmarks.startup [--runs N]

A desktop client starts a stdio server per session, and a test suite starts
hundreds, so this is paid again and again. Each command runs N times (default
21) after one untimed start; the figures are medians, CPU being the child's user
plus system time. The rows:

* ``mcp-core serve``: ``mcp-core serve examples/hello.py``, the command line;
* ``examples/hello.py``: the same server started as a script (`run_stdio`);
* ``mcp-core echo server``, ``SDK MCPServer``, ``FastMCP``: the stdio layer's echo
  servers (`benchmarks.stdio_server`), the same tool in each; the SDK's and
  FastMCP's rows are left out when they are not installed;
* ``floor``: ``python -c 'import anyio, msgspec, asyncio'``, what any server of
  ours must load before its own modules.
"""

from __future__ import annotations

import argparse
import importlib.util
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Final

__all__ = ["main", "measure"]

_ROOT: Final = Path(__file__).resolve().parent.parent

_PEERS: Final = {"SDK MCPServer": ("mcp", "sdk"), "FastMCP": ("fastmcp", "fastmcp")}


def commands() -> dict[str, list[str]]:
    """The rows: label -> argv, run in the repository's root."""
    python = sys.executable
    rows = {
        "mcp-core serve": [python, "-m", "transports", "serve", "examples/hello.py"],
        "examples/hello.py": [python, "examples/hello.py"],
        "mcp-core echo server": [python, "-m", "benchmarks.stdio_server", "ours"],
    }
    for label, (package, kind) in _PEERS.items():
        if importlib.util.find_spec(package) is not None:
            rows[label] = [python, "-m", "benchmarks.stdio_server", kind]
    rows["floor"] = [python, "-c", "import anyio, msgspec, asyncio"]
    return rows


def _start(argv: list[str]) -> tuple[float, float]:
    """One start to exit: (CPU seconds, wall seconds)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    done = subprocess.run(
        argv, cwd=_ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, check=False
    )
    wall = time.perf_counter() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"{argv} exited with status {done.returncode}")
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return cpu, wall


def measure(runs: int, rows: dict[str, list[str]] | None = None) -> dict[str, tuple[float, float]]:
    """Median (CPU ms, wall ms) per row of ``rows`` (by default `commands`), rows
    taken in turn ``runs`` times."""
    rows = commands() if rows is None else rows
    for argv in rows.values():
        _start(argv)  # untimed: the page cache and the bytecode
    taken: dict[str, list[tuple[float, float]]] = {label: [] for label in rows}
    for _ in range(runs):
        for label, argv in rows.items():
            taken[label].append(_start(argv))
    return {
        label: (
            statistics.median(cpu for cpu, _ in figures) * 1000,
            statistics.median(wall for _, wall in figures) * 1000,
        )
        for label, figures in taken.items()
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.startup", description=__doc__)
    parser.add_argument("--runs", type=int, default=21, help="starts per row (default 21)")
    args = parser.parse_args(argv)
    figures = measure(args.runs)
    floor = figures["floor"][0]
    print(f"stdio server start to exit, median of {args.runs}:")
    print(f"{'':24}{'CPU ms':>9}{'wall ms':>9}{'CPU above floor':>17}")
    for label, (cpu, wall) in figures.items():
        print(f"{label:24}{cpu:9.0f}{wall:9.0f}{cpu - floor:17.0f}")


if __name__ == "__main__":
    main()
