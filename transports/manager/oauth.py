"""OAuth for a manager's server: its `OAuthAuth` configuration as an `OAuth`.

Credentials go in a `FileStore` directory (the configured ``store``, else the
command line's), so a server the user authorized once, through the manager or
``mcp-core call --auth``, needs no second authorization. The redirect URI is
``http://127.0.0.1:PORT/callback``: the configured port, else the command line's
port derived from the server's URL (stable for it, as a registered client's
redirect URI must be).
"""

from __future__ import annotations

from mcp_core.auth.config import OAuthConfig
from mcp_core.manager import OAuthAuth, ServerConfig

from ..http.oauth import OAuth
from ..http.oauth_cli import oauth_directory, stable_redirect_uri, user_agent_for
from ..http.oauth_store import FileStore

__all__ = ["server_oauth"]


def server_oauth(server: ServerConfig) -> OAuth | None:
    """The `OAuth` of ``server``, or None when its auth is not OAuth."""
    auth = server.auth
    if not isinstance(auth, OAuthAuth) or server.url is None:
        return None
    if auth.redirect_port is not None:
        redirect_uri = f"http://127.0.0.1:{auth.redirect_port}/callback"
    else:
        redirect_uri = stable_redirect_uri(server.url)
    config = OAuthConfig(
        client_name=auth.client_name,
        redirect_uri=redirect_uri,
        client_id=auth.client_id,
        client_secret=auth.client_secret,
        client_metadata_url=auth.client_metadata_url,
        scopes=tuple(auth.scopes) if auth.scopes is not None else None,
    )
    store = FileStore(auth.store if auth.store is not None else oauth_directory())
    return OAuth(config, store=store, user_agent=user_agent_for(auth.mode))
