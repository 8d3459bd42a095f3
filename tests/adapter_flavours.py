"""The servers a test module can run against: the h11 server on asyncio and on
trio, and the ASGI app under uvicorn (asyncio). A module takes them with

    from adapter_flavours import by_flavour, flavour_fixture  # noqa: F401

and its tests then get ``flavour`` (backend, adapter), with ``anyio_backend``
following it (pytest finds fixtures by their ``name``, not the name imported)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, Final

import anyio
import pytest
from asgi_helpers import starlette_app, uvicorn_serving

from mcp_core import Server
from mcp_core.http.server import HttpServerConfig
from transports.http.asgi import asgi_app
from transports.http.server import HttpServer

FLAVOURS: Final = [("asyncio", "h11"), ("trio", "h11"), ("asyncio", "asgi")]


@pytest.fixture(name="flavour", params=FLAVOURS, ids=["h11-asyncio", "h11-trio", "asgi-uvicorn"])
def flavour_fixture(request: pytest.FixtureRequest) -> tuple[str, str]:
    value: tuple[str, str] = request.param
    return value


@pytest.fixture(name="anyio_backend")
def by_flavour(flavour: tuple[str, str]) -> str:
    return flavour[0]


@asynccontextmanager
async def served(
    flavour: tuple[str, str],
    server: Server,
    config: HttpServerConfig | None = None,
    authenticate: Any = None,
) -> AsyncIterator[tuple[int, str]]:
    """``server`` served by ``flavour`` on a free port: the port, and the mount
    point ("" for the h11 server, "/api" for the ASGI app in `starlette_app`)."""
    config = config or HttpServerConfig()
    if flavour[1] == "h11":
        http = HttpServer(server, config, authenticate=authenticate)
        async with anyio.create_task_group() as tg:
            port = await tg.start(http.serve, "127.0.0.1", 0)
            try:
                yield port, ""
            finally:
                tg.cancel_scope.cancel()
    else:
        app = asgi_app(server, config=config, authenticate=authenticate)
        async with uvicorn_serving(starlette_app(app)) as port:
            yield port, "/api"
