"""Instructions per call in the calling process, direct or through a gateway (callgrind).

    python -m benchmarks.gateway_counts WAY BACKEND

WAY is ``client`` (a `Client` over stdio to ``benchmarks.stdio_server ours``),
``gateway`` (a `Client` in memory to a gateway whose manager has that stdio server),
``memory-client`` or ``memory-gateway`` (the same with the upstream in memory). This
process runs under ``valgrind --tool=callgrind`` twice, making 200 warm-up calls and
then 100 or 500 calls; the upstream child is not traced. The difference of the two
totals over 400 is the instructions per call of the client and the gateway together,
which the load of other jobs does not move. A plain run first compiles the bytecode
that the counted runs would otherwise compile in one of them.

The gateway's cost over stdio is the direct call plus one in-memory hop
(``memory-gateway`` minus ``memory-client``) plus what is left: see benchmarks/README.md,
"stdio, second pass".
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from contextlib import AsyncExitStack
from typing import Any

import anyio

from mcp_core.manager import ServerConfig

from .echo_servers import echo_call, ours
from .manager import _ENV, SERVER, _Prefixed

__all__ = ["count"]

WARM_UP = 200
_TOTALS = re.compile(rb"\ntotals: (\d+)")


async def _drive(way: str, backend: str, calls: int) -> None:
    from transports import Client, connect_in_memory
    from transports.manager import Manager, gateway_server
    from transports.memory import pipe
    from transports.stdio import stdio_connector

    argv = [sys.executable, "-m", "benchmarks.stdio_server", "ours", backend]
    in_memory = way.startswith("memory-")
    async with AsyncExitStack() as stack:
        if way.endswith("client"):
            connector: Any = pipe(ours()) if in_memory else stdio_connector(argv, env=_ENV)
            client = await stack.enter_async_context(Client(connector))
            call = await echo_call(client, "hello")
        else:
            config = ServerConfig(name=SERVER, command=argv[0], args=argv[1:], env=_ENV)
            managed = await stack.enter_async_context(Manager())
            managed.add(config, connector=pipe(ours()) if in_memory else None)
            await managed.wait_for(SERVER, "connected", timeout=120)
            front = await stack.enter_async_context(connect_in_memory(gateway_server(managed)))
            call = await echo_call(_Prefixed(front), "hello")
        for _ in range(WARM_UP + calls):
            await call()


def _command(way: str, backend: str, calls: int) -> list[str]:
    return [sys.executable, "-m", "benchmarks.gateway_counts", "--drive", way, backend, str(calls)]


def _total(way: str, backend: str, calls: int) -> int:
    out = os.path.join(tempfile.mkdtemp(), "callgrind.out")
    argv = ["valgrind", "-q", "--tool=callgrind", f"--callgrind-out-file={out}"]
    subprocess.run(argv + _command(way, backend, calls), check=True)
    with open(out, "rb") as file:
        found = _TOTALS.search(file.read())
    os.unlink(out)
    os.rmdir(os.path.dirname(out))
    if found is None:
        raise RuntimeError("callgrind wrote no totals")
    return int(found.group(1))


def count(way: str, backend: str) -> float:
    """Instructions per call of ``way`` on ``backend`` (see the module doc)."""
    subprocess.run(_command(way, backend, 1), check=True)
    return (_total(way, backend, 500) - _total(way, backend, 100)) / 400


def main() -> None:
    if sys.argv[1] == "--drive":
        way, backend, calls = sys.argv[2], sys.argv[3], int(sys.argv[4])
        anyio.run(_drive, way, backend, calls, backend=backend)
        return
    way, backend = sys.argv[1:3]
    print(f"{way} {backend}: {count(way, backend):,.0f} instructions per call")


if __name__ == "__main__":
    main()
