"""examples/hello.py on HTTP with few file descriptors, for the fd-exhaustion tests.

    python tests/servers/fd_limited_http.py NOFILE BACKEND [MAX_CONNECTIONS]

lowers the soft limit on open files to NOFILE, serves on a free loopback port and
prints the endpoint's URL on stdout.
"""

from __future__ import annotations

import logging
import resource
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))

from hello import server

from transports import run_http

if __name__ == "__main__":
    nofile, backend = int(sys.argv[1]), sys.argv[2]
    cap = int(sys.argv[3]) if len(sys.argv) > 3 else None
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, hard))
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s %(message)s")
    run_http(
        server,
        port=0,
        max_connections=cap,
        backend=backend,
        on_listening=lambda url: print(url, flush=True),
    )
