"""A server with an MCP Apps view, for the gateway's tests (stdio, own process).

    python view_server.py --name NAME [--revision REV ...]

It declares MCP Apps (``io.modelcontextprotocol/ui``) and a made-up extension with
no methods, ``mcp-core.tests/badge`` (settings ``{"colour": NAME}``); its view is
``ui://NAME/view.html`` and its tool ``show`` renders in it, answering what the
client of the call declared: ``{"apps": client_supports_apps(ctx), "extensions":
[the identifiers of its extensions, sorted]}``.
"""

from __future__ import annotations

import argparse
from typing import Any

from mcp_core import Context, Server
from mcp_core.apps import Apps, client_supports_apps
from mcp_core.extensions import Declared
from transports import run_stdio

BADGE = "mcp-core.tests/badge"
"""An extension of this server's that defines no methods."""

parser = argparse.ArgumentParser()
parser.add_argument("--name", default="views")
parser.add_argument("--revision", action="append", default=[], help="serve only these")
options = parser.parse_args()

server = Server(options.name, "1.0.0")
server.extend(Declared(BADGE, {"colour": options.name}, handshake=True))
apps = Apps(server)
view = f"ui://{options.name}/view.html"
apps.view(view, f"<!doctype html><p>{options.name}</p>", prefers_border=True)


@apps.tool(view=view)
def show(ctx: Context) -> dict[str, Any]:
    """What the client of this call declared."""
    extensions = ctx.client.capabilities.extensions
    declared = sorted(extensions) if isinstance(extensions, dict) else []
    return {"apps": client_supports_apps(ctx), "extensions": declared}


if __name__ == "__main__":
    run_stdio(server, **({"revisions": tuple(options.revision)} if options.revision else {}))
