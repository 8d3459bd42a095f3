"""Sessions: the MCP state machines of both eras, one per connection.

- `lifecycle`: the handshake-era lifecycle as a table (state x message kind);
- `requests`: ids, the tables of requests in flight both ways, cancellation, progress
  and timeouts from a caller clock;
- `base`: what both roles share (receive, flush, the sticky ERROR state);
- `client` / `opening`: the client side, and how it opens a session in either era
  (`initialize`, or `server/discover` and per-request `_meta`);
- `server` / `config`: the server side and the capability rules of what it offers;
- `per_request`: the 2026-07-28 per-request checks (`_meta`, protocol version,
  client capabilities) and the result envelope;
- `events`: what a session reports after it has read a message.
"""

from .base import (
    SessionState,
)
from .client import (
    ClientConfig,
    ClientSession,
)
from .events import (
    ErrorReceived,
    Event,
    HandshakeCompleted,
    InputRequired,
    NotificationReceived,
    ProgressReceived,
    ProtocolViolation,
    RequestCancelled,
    RequestReceived,
    RequestTimedOut,
    ResponseReceived,
)
from .server import (
    LOG_LEVELS,
    ClientInfo,
    ServerConfig,
    ServerSession,
)

__all__ = [
    "SessionState",
    "ClientConfig",
    "ClientSession",
    "ErrorReceived",
    "Event",
    "HandshakeCompleted",
    "InputRequired",
    "NotificationReceived",
    "ProgressReceived",
    "ProtocolViolation",
    "RequestCancelled",
    "RequestReceived",
    "RequestTimedOut",
    "ResponseReceived",
    "LOG_LEVELS",
    "ClientInfo",
    "ServerConfig",
    "ServerSession",
]
