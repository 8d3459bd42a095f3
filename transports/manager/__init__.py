"""The client manager: many MCP servers at once (`Manager`).

Its policies (backoff, names, the catalog, the trace, the configuration) are pure
code in `mcp_core.manager`; this package connects, waits and reconnects:

- `manager`: `Manager`, the servers and their union;
- `link`: `Link`, one server's connection and its reconnection; `ServerStatus`;
- `listing`: fetching one kind of listing from one server;
- `tracing`: the trace's hooks on a live connection;
- `gateway`: `gateway_server`, the union served as one MCP server;
- `parking`: a gateway's upstream calls waiting for a 2026-07-28 client's answers;
- `errors`: `ServerUnavailable`, `CallInterrupted`, `UnknownName`.
"""

from mcp_core.manager import ServerConfig, TokenAuth, parse_servers

from .errors import CallInterrupted, ManagerError, ServerUnavailable, UnknownName
from .gateway import gateway_server
from .link import ServerStatus, State
from .manager import Manager

__all__ = [
    "CallInterrupted",
    "Manager",
    "ManagerError",
    "ServerConfig",
    "ServerStatus",
    "ServerUnavailable",
    "State",
    "TokenAuth",
    "UnknownName",
    "gateway_server",
    "parse_servers",
]
