"""Transports for mcp-core: the async runtime on anyio (asyncio and trio alike).

mcp_core holds the protocol; this package runs it: a `Client`, a
`ServerConnection` per served client, the `Driver` underneath both, and the
transports that carry messages: in-memory pipes, stdio, streamable HTTP (an h11
server, an ASGI app for Starlette, FastAPI or any ASGI server, and an h11 client
that also speaks the deprecated HTTP+SSE transport).
"""

from typing import TYPE_CHECKING, Final

from mcp_core.lazy import export

# Not lazy: importing the submodule `transports.pump` (every stdio server does) sets
# the package's attribute `pump` to that module, hiding the function; importing
# the function here, after the submodule, keeps the name the function.
from .pump import pump

if TYPE_CHECKING:
    from .client import Client, Connector, Subscription
    from .driver import ConnectionClosed, Driver
    from .http.asgi import AsgiApp, asgi_app
    from .http.client import (
        HttpClientTimeouts,
        HttpError,
        HttpStatusError,
        OutcomeUnknownError,
        connect_http,
        http_connector,
    )
    from .http.server import HttpServer, HttpTimeouts, run_http, serve_http
    from .memory import connect_in_memory, couple, pipe
    from .server_connection import ServerConnection, serve_stream
    from .stdio import connect_stdio, run_stdio, serve_stdio, stdio_connector

__all__ = [
    "Client",
    "Connector",
    "Subscription",
    "ConnectionClosed",
    "Driver",
    "pump",
    "ServerConnection",
    "serve_stream",
    "connect_in_memory",
    "couple",
    "pipe",
    "connect_stdio",
    "run_stdio",
    "serve_stdio",
    "stdio_connector",
    "HttpClientTimeouts",
    "HttpError",
    "HttpStatusError",
    "OutcomeUnknownError",
    "connect_http",
    "http_connector",
    "HttpServer",
    "HttpTimeouts",
    "run_http",
    "serve_http",
    "AsgiApp",
    "asgi_app",
]

# What the names above come from, imported when one is first asked for
# (mcp_core/lazy.py): a process loads only the modules it uses.
_WHERE: Final = {
    ".client": ("Client", "Connector", "Subscription"),
    ".driver": ("ConnectionClosed", "Driver"),
    ".http.asgi": ("AsgiApp", "asgi_app"),
    ".http.client": (
        "HttpClientTimeouts",
        "HttpError",
        "HttpStatusError",
        "OutcomeUnknownError",
        "connect_http",
        "http_connector",
    ),
    ".http.server": ("HttpServer", "HttpTimeouts", "run_http", "serve_http"),
    ".memory": ("connect_in_memory", "couple", "pipe"),
    ".server_connection": ("ServerConnection", "serve_stream"),
    ".stdio": ("connect_stdio", "run_stdio", "serve_stdio", "stdio_connector"),
}


def __getattr__(name: str) -> object:
    return export(__name__, name, _WHERE, globals())
