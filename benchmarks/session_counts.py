"""Instructions per session round trip, counted by valgrind's callgrind.

The `CorePair` of `benchmarks.sessions` (a ``tools/call`` round trip through a client
and a server session, no I/O) runs in its own process under ``valgrind
--tool=callgrind``, twice, ``--base`` and ``--base + --extra`` bursts; the difference of
the two totals divided by the round trips of ``--extra`` bursts is the count of one
round trip (imports and set-up cancel out). On a loaded machine, where the wall-clock
figures of ``mcp-core bench --only session`` move by more than a step costs, these
do not.

    PYTHONHASHSEED=0 python -m benchmarks.session_counts [--base 4] [--extra 40]
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
from typing import Final

from .codec_counts import callgrind_total

_CASES: Final = {"legacy": (True, True), "modern": (False, True)}
"""Label: (legacy, wire) of `CorePair`."""


def _child(label: str, count: int) -> None:
    from .sessions import CorePair

    legacy, wire = _CASES[label]
    operation = CorePair(legacy=legacy, wire=wire).operation()
    for _ in range(count):
        operation()


def _count(label: str, count: int, scratch: str) -> int:
    return callgrind_total("benchmarks.session_counts", ["--child", label, str(count)], scratch)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=int, default=4)
    parser.add_argument("--extra", type=int, default=40)
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(args.child[0], int(args.child[1]))
        return
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed")
    from .sessions import ROUND_TRIPS_PER_OP

    with tempfile.TemporaryDirectory() as scratch:
        for label in _CASES:
            base = _count(label, args.base, scratch)
            total = _count(label, args.base + args.extra, scratch)
            per_trip = (total - base) / (args.extra * ROUND_TRIPS_PER_OP)
            print(f"{label:8} {per_trip:10,.0f} instructions per round trip", flush=True)


if __name__ == "__main__":
    main()
