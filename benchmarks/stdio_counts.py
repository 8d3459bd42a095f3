"""Instructions per call in a stdio server process, counted by callgrind.

    python -m benchmarks.stdio_counts KIND ERA IN_FLIGHT BACKEND [CALLS] [TOOL]

KIND is ``ours`` or ``lines`` (the line echo floor); ERA ``legacy`` or ``modern``
(which request the line writer sends, as in `benchmarks.servers`; the floor echoes
either); TOOL ``async`` (the default: the ``async def`` echo tool) or ``def`` (the
same tool as a plain function, which the runtime runs in a worker thread; the count
is of every thread of the server). The server runs under ``valgrind
--tool=callgrind``, driven by the raw line writer of the ``servers`` layer; after
200 warm-up calls its counters are zeroed (``callgrind_control --zero``), CALLS
calls are made, and the counters dumped: the total over CALLS is the server's
instructions per call, which the load of other jobs does not move (unlike its CPU
time).

So that the count does not depend on timing either, the writer waits until the
server sleeps before each write, and writes IN_FLIGHT lines at once: every call
(or every batch of IN_FLIGHT) finds the server waiting for input, reads in one
go, and is answered whole before the next write. (In a real run, a server that
has not gone back to waiting when the next line comes saves that wait: how often
depends on the scheduler.)
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable

from .echo_servers import ASYNC, DEF, TOOLS
from .raw_client import RawLineClient
from .server_counts import measured_total
from .servers import _ROOT, _line_legacy, _line_modern, _line_requester
from .stdio import server_argv

__all__ = ["count"]


def _asleep(pid: int) -> bool:
    with open(f"/proc/{pid}/stat", "rb") as file:
        return file.read().rsplit(b")", 1)[1].split()[0] == b"S"


def _in_batches(
    client: RawLineClient, calls: int, in_flight: int, request_for: Callable[[int], bytes]
) -> None:
    for first in range(0, calls, in_flight):
        while not _asleep(client.pid):
            time.sleep(0.0005)
        batch = [request_for(first + i) for i in range(min(in_flight, calls - first))]
        client.exchange(b"\n".join(batch), answers=len(batch))


def count(
    kind: str, era: str, in_flight: int, backend: str, calls: int, tool: str = ASYNC
) -> float:
    """The server's instructions per call (of ``tool``: `echo_servers.DEF` or ``ASYNC``)."""
    out = os.path.join(tempfile.mkdtemp(), "callgrind.out")
    argv = ["valgrind", "-q", "--tool=callgrind", f"--callgrind-out-file={out}"]
    argv += server_argv(kind, backend)
    client = RawLineClient(argv, env={**os.environ, "PYTHONPATH": _ROOT}, wait_seconds=600)
    try:
        if kind == "lines":
            request_for = _line_requester("}")
        else:
            name = TOOLS[tool]
            if era == "legacy":
                request_for = _line_legacy(client, tool=name)
            else:
                request_for = _line_modern(client, tool=name)
        _in_batches(client, 200, in_flight, request_for)
        pid = str(client.pid)
        subprocess.run(["callgrind_control", "--zero", pid], check=True, capture_output=True)
        _in_batches(client, calls, in_flight, request_for)
        subprocess.run(
            ["callgrind_control", "--dump=measured", pid], check=True, capture_output=True
        )
    finally:
        client.close()
    return measured_total(out) / calls


def main() -> None:
    kind, era, in_flight, backend = sys.argv[1:5]
    calls = int(sys.argv[5]) if len(sys.argv) > 5 else 1000
    tool = {"async": ASYNC, "def": DEF}[sys.argv[6] if len(sys.argv) > 6 else "async"]
    figure = count(kind, era, int(in_flight), backend, calls, tool)
    print(f"{kind} {era} {in_flight} {backend} {tool}: {figure:,.0f} instructions per call")


if __name__ == "__main__":
    main()
