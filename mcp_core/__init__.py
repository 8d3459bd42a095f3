"""mcp-core: the Model Context Protocol as sans-IO state machines.

Bytes and messages go in, events and bytes come out; nothing here reads a socket,
starts a task or looks at a clock. docs/architecture.md maps the packages.
"""

from typing import TYPE_CHECKING, Final

from .lazy import export

if TYPE_CHECKING:
    from .http import (
        HttpClientConfig,
        HttpClientEndpoint,
        HttpEndpoint,
        HttpServerConfig,
    )
    from .server import (
        Context,
        McpError,
        ResourceNotFoundError,
        Server,
        UrlElicitationRequiredError,
    )
    from .session import (
        ClientConfig,
        ClientSession,
        ServerConfig,
        ServerSession,
        SessionState,
    )
    from .types import (
        LATEST_REVISION,
        REVISIONS,
    )
    from .wire import (
        Limits,
        LocalProtocolError,
        ProtocolError,
        RemoteProtocolError,
    )

__version__ = "0.1.0"

__all__ = [
    "__version__",
    "Server",
    "Context",
    "McpError",
    "ResourceNotFoundError",
    "UrlElicitationRequiredError",
    "ClientSession",
    "ClientConfig",
    "ServerSession",
    "ServerConfig",
    "SessionState",
    "LocalProtocolError",
    "RemoteProtocolError",
    "ProtocolError",
    "HttpEndpoint",
    "HttpServerConfig",
    "HttpClientEndpoint",
    "HttpClientConfig",
    "Limits",
    "LATEST_REVISION",
    "REVISIONS",
]

# What the names above come from, imported when one is first asked for
# (mcp_core/lazy.py): a process loads only the modules it uses.
_WHERE: Final = {
    ".http": ("HttpClientConfig", "HttpClientEndpoint", "HttpEndpoint", "HttpServerConfig"),
    ".server": (
        "Context",
        "McpError",
        "ResourceNotFoundError",
        "Server",
        "UrlElicitationRequiredError",
    ),
    ".session": ("ClientConfig", "ClientSession", "ServerConfig", "ServerSession", "SessionState"),
    ".types": ("LATEST_REVISION", "REVISIONS"),
    ".wire": ("Limits", "LocalProtocolError", "ProtocolError", "RemoteProtocolError"),
}


def __getattr__(name: str) -> object:
    return export(__name__, name, _WHERE, globals())
