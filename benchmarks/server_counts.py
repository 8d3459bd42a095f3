"""Instructions per call in an HTTP server process, counted by callgrind.

    python -m benchmarks.server_counts KIND ERA ANSWERS CONNECTIONS BACKEND [CALLS]

KIND is ``ours`` or ``h11`` (the floor); ERA ``legacy``, ``modern`` or ``floor``
(which request the raw client sends, as in `benchmarks.servers`). The server runs
under ``valgrind --tool=callgrind``; after 200 warm-up calls its counters are zeroed
(``callgrind_control --zero``), CALLS calls are made, and the counters dumped: the
total over CALLS is the server's instructions per call, which the load of other jobs
does not move (unlike its CPU time).
"""

from __future__ import annotations

import glob
import os
import re
import subprocess
import sys
import tempfile
from typing import Final

from .http_servers import free_port, listening
from .raw_client import RawHttpClient
from .servers import Requester, _floor, _legacy, _modern

_TOTAL: Final = re.compile(rb"^(?:summary|totals):\s+(\d+)", re.MULTILINE)


def raw_client(era: str, port: int, connections: int) -> tuple[RawHttpClient, Requester]:
    """The raw client on ``port`` and what it sends in ``era`` (legacy: the session
    opened already)."""
    client = RawHttpClient("127.0.0.1", port, connections)
    host = f"127.0.0.1:{port}"
    request_for: Requester = (
        _legacy(client, host)
        if era == "legacy"
        else _modern(host)
        if era == "modern"
        else _floor(host)
    )
    return client, request_for


def count(kind: str, era: str, answers: str, connections: int, backend: str, calls: int) -> float:
    """The server's instructions per call."""
    port = free_port()
    out = os.path.join(tempfile.mkdtemp(), "callgrind.out")
    argv = ["valgrind", "-q", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable]
    argv += ["-m", "benchmarks.http_servers", kind, str(port)]
    argv += ["--answers", answers, "--backend", backend]
    # Python starts slowly under callgrind, the more so on a loaded machine.
    with listening(argv, port, f"{kind} under callgrind", within=300.0) as process:
        client, request_for = raw_client(era, port, connections)
        client.run(200, request_for)
        subprocess.run(
            ["callgrind_control", "--zero", str(process.pid)], check=True, capture_output=True
        )
        client.run(calls, request_for)
        subprocess.run(
            ["callgrind_control", "--dump=measured", str(process.pid)],
            check=True,
            capture_output=True,
        )
        client.close()
    return measured_total(out) / calls


def measured_total(out: str) -> int:
    """The instructions of callgrind's dump named ``measured`` (``--dump=measured``),
    from the files of ``--callgrind-out-file=out``; removes them and their folder."""
    total = None
    for path in glob.glob(out + "*"):
        with open(path, "rb") as file:
            data = file.read()
        if b"measured" in data[:4000]:
            found = _TOTAL.search(data)
            total = int(found.group(1)) if found else None
        os.unlink(path)
    os.rmdir(os.path.dirname(out))
    if total is None:
        raise RuntimeError("callgrind wrote no dump of the measured calls")
    return total


def main() -> None:
    kind, era, answers, connections, backend = sys.argv[1:6]
    calls = int(sys.argv[6]) if len(sys.argv) > 6 else 1000
    figure = count(kind, era, answers, int(connections), backend, calls)
    print(f"{kind} {era} {answers} {connections} {backend}: {figure:,.0f} instructions per call")


if __name__ == "__main__":
    main()
