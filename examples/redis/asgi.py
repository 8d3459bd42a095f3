"""The recipe's server (app.py) as an ASGI app, its state on Redis: run one
uvicorn per port behind examples/redis/haproxy.cfg (docs/tutorial/workers.md):

    export MCP_REDIS_URL=redis://127.0.0.1:6379/0 MCP_CORE_STATE_KEY=$(openssl rand -hex 32)
    uvicorn --app-dir examples/redis asgi:app --port 8001   # and 8002, 8003

The Redis connection opens in the ASGI lifespan (uvicorn runs it), with the
check that every worker seals requestState with the same key.
"""

from __future__ import annotations

import os

from app import server

from transports import asgi_app
from transports.cli.workers import state_keys_from_env
from transports.redis import share_on_redis

share_on_redis(server, os.environ["MCP_REDIS_URL"], state_keys=state_keys_from_env())
app = asgi_app(server)
