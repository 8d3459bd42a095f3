"""Python function calls per call in an HTTP server process, counted by cProfile.

    python -m benchmarks.server_profile KIND ERA ANSWERS CONNECTIONS BACKEND [CALLS]

The arguments are those of `benchmarks.server_counts`. The server runs in a child
process (``python -m benchmarks.server_profile --serve OUT ...``) whose profiler
SIGUSR1 starts, after 300 warm-up calls, and SIGUSR2 stops and writes to OUT; then
the calls each function made per call are summed by where the function lives (h11,
asyncio, anyio, transports, mcp_core, C builtins, other stdlib). A coroutine counts
once per resumption. The counts, unlike the profiler's times, do not depend on the
machine's load.
"""

from __future__ import annotations

import collections
import cProfile
import os
import pstats
import signal
import sys
import tempfile
import time
from typing import Any, Final

from .http_servers import free_port, listening
from .server_counts import raw_client

AREAS: Final = ("h11", "anyio", "sniffio", "asyncio", "mcp_core", "transports", "benchmarks")


def _serve(out: str, argv: list[str]) -> None:
    from .http_servers import main

    profile = cProfile.Profile()

    def start(*_: Any) -> None:
        profile.enable()

    def stop(*_: Any) -> None:
        profile.disable()
        profile.dump_stats(out)

    signal.signal(signal.SIGUSR1, start)
    signal.signal(signal.SIGUSR2, stop)
    main(argv)


def _area(path: str) -> str:
    if path == "~":
        return "builtins"
    for area in AREAS:
        if f"/{area}/" in path:
            return area
    return "other"


def count(
    kind: str, era: str, answers: str, connections: int, backend: str, calls: int
) -> dict[str, float]:
    """Function calls per call in the server, by area, and their sum ("all")."""
    port = free_port()
    scratch = tempfile.mkdtemp()
    out = os.path.join(scratch, "profile.out")
    argv = [sys.executable, "-m", "benchmarks.server_profile", "--serve", out, kind, str(port)]
    argv += ["--answers", answers, "--backend", backend]
    with listening(argv, port, f"{kind} under cProfile") as process:
        client, request_for = raw_client(era, port, connections)
        client.run(300, request_for)
        os.kill(process.pid, signal.SIGUSR1)
        client.run(calls, request_for)
        os.kill(process.pid, signal.SIGUSR2)
        deadline = time.monotonic() + 60
        while not os.path.exists(out) and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(0.5)  # the dump is written whole by then
        client.close()
    areas: collections.Counter[str] = collections.Counter()
    stats: Any = pstats.Stats(out).stats  # type: ignore[attr-defined]
    for (path, _line, _name), (_, ncalls, _tt, _ct, _callers) in stats.items():
        areas[_area(path)] += ncalls / calls
    os.unlink(out)
    os.rmdir(scratch)
    return {"all": sum(areas.values()), **dict(areas.most_common())}


def main() -> None:
    if sys.argv[1] == "--serve":
        _serve(sys.argv[2], sys.argv[3:])
        return
    kind, era, answers, connections, backend = sys.argv[1:6]
    calls = int(sys.argv[6]) if len(sys.argv) > 6 else 2000
    areas = count(kind, era, answers, int(connections), backend, calls)
    shown = ", ".join(f"{area} {n:,.0f}" for area, n in areas.items())
    print(f"{kind} {era} {answers} {connections} {backend}: calls per call: {shown}")


if __name__ == "__main__":
    main()
