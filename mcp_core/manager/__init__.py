"""The policies of a client manager (many servers at once), without I/O.

- `config`: `ServerConfig`, one server (URL or command, transport, headers, auth,
  reconnection, timeouts), and `parse_servers`, the ``mcpServers`` JSON of
  desktop clients;
- `backoff`: `Backoff`, `Retries` and `Restarts`, when to try a lost server (or a
  dead worker process) again;
- `names`: ``server.tool`` names, safe mode, collisions (`assign_names`);
- `catalog`: `Catalog`, each server's listings cached (list changes, reconnects,
  2026-07-28 ``ttlMs``) and their union;
- `trace`: `Trace`, a bounded record of the messages of each connection;
- `gateway`: `Gateway`, a Server whose lists are the union (it tells its clients
  when they change), and how an upstream's questions reach its clients (a
  2026-07-28 client's through a parked call);
- `skills`: each server's skills (SEP-2640) under its name in the union
  (`prefixed`, `unprefixed`).

The manager that runs them on anyio is `transports.manager`.
"""

from .backoff import DEFAULT_BACKOFF, Backoff, Restarts, Retries
from .catalog import KINDS, Catalog, Entry, Kind, changed_kind, ttl_of
from .config import (
    TRANSPORTS,
    Auth,
    ConfigError,
    NoAuth,
    OAuthAuth,
    ServerConfig,
    ServersRead,
    TokenAuth,
    Transport,
    parse_servers,
    read_servers,
    server_config,
    unknown_keys,
)
from .gateway import (
    PARKED_KEY,
    RELAYED,
    Gateway,
    Question,
    forwarded,
    new_call_id,
    state_error,
)
from .names import MAX_SAFE_LENGTH, Collision, Names, assign_names, describe, sanitise
from .trace import REDACTED, Trace, TraceEntry, redact_headers

__all__ = [
    "DEFAULT_BACKOFF",
    "KINDS",
    "MAX_SAFE_LENGTH",
    "REDACTED",
    "TRANSPORTS",
    "Auth",
    "Backoff",
    "Catalog",
    "Collision",
    "ConfigError",
    "Entry",
    "PARKED_KEY",
    "RELAYED",
    "Gateway",
    "Kind",
    "Names",
    "NoAuth",
    "OAuthAuth",
    "Question",
    "Restarts",
    "Retries",
    "ServerConfig",
    "ServersRead",
    "TokenAuth",
    "Trace",
    "TraceEntry",
    "Transport",
    "assign_names",
    "changed_kind",
    "describe",
    "forwarded",
    "new_call_id",
    "parse_servers",
    "read_servers",
    "redact_headers",
    "sanitise",
    "server_config",
    "unknown_keys",
    "state_error",
    "ttl_of",
]
