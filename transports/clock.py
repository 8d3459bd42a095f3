# The event loop's clock, resolved once.
#
# `anyio.current_time()` asks which async library runs (sniffio) at every call,
# and the HTTP server reads the time a few times for every request. The answer
# cannot change while one event loop runs, so a server resolves the clock when it
# starts and calls it directly: the same time anyio gives, the running asyncio
# loop's ``time()`` or trio's ``current_time()`` (and so a trio test's clock).

from __future__ import annotations

import asyncio
from collections.abc import Callable

import trio

__all__ = ["loop_clock"]


def loop_clock() -> Callable[[], float]:
    """The clock `anyio.current_time` reads in the running event loop."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return trio.current_time
    return loop.time
