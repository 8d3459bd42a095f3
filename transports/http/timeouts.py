# How long the HTTP server waits for a client, on the h11 server and behind ASGI.

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

__all__ = ["DEFAULT_TIMEOUTS", "HttpTimeouts"]


@dataclass(frozen=True, slots=True)
class HttpTimeouts:
    """Seconds the server waits for a client.

    Attributes:
        keep_alive: an idle connection between requests (browsers and HTTP
            clients reuse connections within seconds, or not at all).
        head: from the first byte of a request to the end of its head.
        body: to read a whole body (4 MiB at a slow 150 KB/s).
        write: for one write to be taken by a client that stopped reading.
        sse_ping: quiet time on an SSE stream before a keep-alive comment
            (2026-07-28 streamable-http.mdx suggests them for long streams;
            proxies commonly cut idle connections after 30-60 s).
        session_sweep: how often idle sessions are looked for.

    The h11 server looks for reads past ``keep_alive``, ``head`` or ``body``, and
    writes past ``write``, every eighth of the shortest of the four: a wait is
    cut off at most that much after its deadline.

    Behind ASGI, the ASGI server owns the connection: only ``body``, ``write``,
    ``sse_ping`` and ``session_sweep`` apply.
    """

    keep_alive: float = 15.0
    head: float = 10.0
    body: float = 30.0
    write: float = 30.0
    sse_ping: float = 15.0
    session_sweep: float = 30.0


DEFAULT_TIMEOUTS: Final = HttpTimeouts()
"""The timeouts used when none are given."""
