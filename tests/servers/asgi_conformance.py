"""examples/everything.py through the ASGI adapter: mounted in a Starlette app,
served by uvicorn, for the official conformance suite.

    python tests/servers/asgi_conformance.py --port N

serves ``http://127.0.0.1:N/mcp`` until interrupted;
``scripts/conformance server --cmd 'exec python
tests/servers/asgi_conformance.py --port 3001' --suite all --strict
http://127.0.0.1:3001/mcp`` runs the suite against it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import uvicorn
from starlette.applications import Starlette
from starlette.routing import Mount

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))

import everything

from transports.http.asgi import asgi_app


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, default=3001)
    parser.add_argument("--host", default="127.0.0.1")
    args = parser.parse_args()
    mcp = asgi_app(everything.server, path="/mcp")
    # Starlette does not pass lifespan events to mounted apps: its lifespan runs ours.
    app = Starlette(routes=[Mount("/", app=mcp)], lifespan=lambda _: mcp.running())
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
