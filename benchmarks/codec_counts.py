"""Instructions per operation of the codec cases, counted by valgrind's callgrind.

Wall-clock timings move with the machine's load; instruction counts do not. Each
implementation of each case runs in its own process under ``valgrind
--tool=callgrind``, twice, ``--base`` and ``--base + --extra`` operations, and the
difference of the two totals divided by ``--extra`` is the count of one operation
(imports, payload building and the warm-up cancel out). Instructions are not time
(a cache miss costs more than an add), so the ratios here are a second opinion to
``mcp-core bench --only codec``, not a replacement.

    python -m benchmarks.codec_counts [--extra 2000]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from typing import Final

from .codec import MCP_CORE, MSGSPEC_TYPED, build_cases

_TOTAL: Final = re.compile(rb"^summary:\s+(\d+)", re.MULTILINE)


def _child(case: str, label: str, count: int) -> None:
    for name, factory in build_cases(None):
        if name == case:
            operation = factory().implementations[label]
            for _ in range(count):
                operation()
            return
    raise SystemExit(f"no case {case!r}")


def callgrind_total(module: str, arguments: list[str], scratch: str) -> int:
    """The instructions ``python -m MODULE ARGUMENTS`` runs, as callgrind counts
    them (its output file goes in ``scratch`` and is removed)."""
    handle, out = tempfile.mkstemp(prefix="cg.", dir=scratch)
    os.close(handle)
    command = [
        "valgrind",
        "--tool=callgrind",
        f"--callgrind-out-file={out}",
        sys.executable,
        "-m",
        module,
        *arguments,
    ]
    subprocess.run(command, check=True, capture_output=True)
    with open(out, "rb") as file:
        found = _TOTAL.search(file.read())
    os.unlink(out)
    if found is None:
        raise RuntimeError("callgrind wrote no summary")
    return int(found.group(1))


def _count(case: str, label: str, count: int, scratch: str) -> int:
    return callgrind_total("benchmarks.codec_counts", ["--child", case, label, str(count)], scratch)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=int, default=100)
    parser.add_argument("--extra", type=int, default=1000)
    parser.add_argument("--only", action="append", help="case name (repeatable)")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(args.child[0], args.child[1], int(args.child[2]))
        return
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed")
    print(f"{'case':20} {'mcp-core':>12} {'msgspec typed':>14} {'typed / mcp-core':>17}")
    with tempfile.TemporaryDirectory() as scratch:
        for name, _ in build_cases(None):
            if args.only and name not in args.only:
                continue
            extra = max(1, args.extra // 100) if name == "call_request_1mib" else args.extra
            base = max(1, args.base // 100) if name == "call_request_1mib" else args.base
            counts = {}
            for label in (MCP_CORE, MSGSPEC_TYPED):
                low = _count(name, label, base, scratch)
                high = _count(name, label, base + extra, scratch)
                counts[label] = (high - low) / extra
            ratio = counts[MSGSPEC_TYPED] / counts[MCP_CORE]
            print(
                f"{name:20} {counts[MCP_CORE]:12,.0f} {counts[MSGSPEC_TYPED]:14,.0f} {ratio:16.2f}x"
            )


if __name__ == "__main__":
    main()
