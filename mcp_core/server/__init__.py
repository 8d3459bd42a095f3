"""The server application layer: what a server offers and how a request is answered.

- `app`: `Server`, the registry plus `dispatch`, which answers one request;
- `routes`: how `Server` answers each method (lists, tools/call, resources/read...);
- `rounds`: 2026-07-28 multi round-trip requests, answers sealed and opened again;
- `failures`: where handler failures are logged (``logging`` imported on the first);
- `registry`: tools, resources and templates, prompts, completions;
- `context`: `Context`, what a handler sees of the request it serves;
- `signatures`: from a Python function to a tool or prompt (JSON Schema, arguments);
- `results`: from what a handler returns to an MCP result, and pagination;
- `uri_template`: RFC 6570 templates for resource templates;
- `request_state`: sealing the 2026-07-28 multi round-trip `requestState`.

The only layer that awaits (the user's handlers); it never awaits anything of its own.
"""

from .app import (
    Lifespan,
    LifespanError,
    Middleware,
    Server,
)
from .context import (
    Context,
    McpError,
    Peer,
    ResourceNotFoundError,
    UrlElicitationRequiredError,
    url_elicitation,
)
from .request_state import (
    MemoryOnceStore,
    OnceStore,
    ReplayGuard,
    ReplayStore,
    StateRejected,
    StateSealer,
    request_binding,
)
from .uri_template import (
    UriTemplate,
    is_template,
)

__all__ = [
    "Lifespan",
    "LifespanError",
    "Middleware",
    "Server",
    "Context",
    "McpError",
    "Peer",
    "ResourceNotFoundError",
    "UrlElicitationRequiredError",
    "url_elicitation",
    "MemoryOnceStore",
    "OnceStore",
    "ReplayGuard",
    "ReplayStore",
    "StateRejected",
    "StateSealer",
    "request_binding",
    "UriTemplate",
    "is_template",
]
