"""MCP Apps (extension ``io.modelcontextprotocol/ui``, SEP-1865, stable text of
2026-01-26): interactive HTML views that hosts render for tools.

- `meta`: the identifier, the MIME profile, and the ``_meta.ui`` of views and tools.
- `server`: `Apps`, views and linked tools on a `Server`; `client_supports_apps`.
- `host`: the host side: declare the extension, find and read a tool's view, the
  agent's tool list, the CSP and iframe permissions a view asks for.

The text followed is vendored in tests/spec/extensions/apps-2026-01-26.md.
"""

from .host import (
    DEFAULT_CSP,
    View,
    ViewError,
    declare_apps,
    for_app,
    for_model,
    offers_apps,
    read_view,
    supports_apps,
    tool_ui,
    view_uri,
)
from .meta import EXTENSION_ID, MIME_TYPE, Csp, Permissions, ToolUi, ViewUi
from .server import Apps, client_supports_apps

__all__ = [
    "DEFAULT_CSP",
    "EXTENSION_ID",
    "MIME_TYPE",
    "Apps",
    "Csp",
    "Permissions",
    "ToolUi",
    "View",
    "ViewError",
    "ViewUi",
    "client_supports_apps",
    "declare_apps",
    "for_app",
    "for_model",
    "offers_apps",
    "read_view",
    "supports_apps",
    "tool_ui",
    "view_uri",
]
