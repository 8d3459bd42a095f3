"""OAuth as the command line uses it (``mcp-core call URL TOOL --auth``).

Credentials persist in a `FileStore` (``$MCP_CORE_OAUTH_DIR``, default
``~/.cache/mcp-core/oauth``), so the user authorizes once per server. The redirect
URI's port is derived from the server's URL: stable per server (a registered
client's redirect URI stays valid), different between servers.
"""

from __future__ import annotations

import hashlib
import os
import webbrowser
from pathlib import Path

from mcp_core.auth.config import OAuthConfig

from .oauth import OAuth, UserAgent
from .oauth_store import FileStore
from .oauth_user import browser_agent, headless_agent

__all__ = ["cli_oauth", "oauth_directory", "stable_redirect_uri", "user_agent_for"]

_PORTS = (33400, 1000)
"""Redirect ports: 33400 + (hash of the server URL) mod 1000."""


def stable_redirect_uri(server_url: str) -> str:
    """A loopback redirect URI whose port depends on the server only."""
    digest = hashlib.sha256(server_url.encode()).digest()
    port = _PORTS[0] + int.from_bytes(digest[:4], "big") % _PORTS[1]
    return f"http://127.0.0.1:{port}/callback"


def oauth_directory() -> Path:
    """Where the command line keeps credentials."""
    configured = os.environ.get("MCP_CORE_OAUTH_DIR")
    if configured:
        return Path(configured)
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "mcp-core" / "oauth"


def _can_open_browser() -> bool:
    try:
        webbrowser.get()
    except webbrowser.Error:
        return False
    return True


def user_agent_for(mode: str) -> UserAgent:
    """The user agent of ``mode``: "browser", "headless", or "auto" (the browser
    where one can be opened)."""
    if mode == "auto":
        mode = "browser" if _can_open_browser() else "headless"
    return browser_agent() if mode == "browser" else headless_agent()


def cli_oauth(server_url: str, mode: str) -> OAuth:
    """OAuth for ``server_url``; ``mode`` is "browser", "headless" or "auto"."""
    config = OAuthConfig(client_name="mcp-core", redirect_uri=stable_redirect_uri(server_url))
    return OAuth(config, store=FileStore(oauth_directory()), user_agent=user_agent_for(mode))
