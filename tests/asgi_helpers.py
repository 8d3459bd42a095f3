"""A real uvicorn on loopback, in the test's own event loop (asyncio only)."""

from __future__ import annotations

import contextlib
import socket
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import anyio
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Mount, Route

from mcp_core import Server
from transports.http.asgi import AsgiApp, asgi_app


class _Uvicorn(uvicorn.Server):
    """uvicorn without its signal handlers: pytest keeps Ctrl-C; ``on_shutdown``
    is called as its shutdown begins (how `AsgiApp.shutdown` is hooked in)."""

    on_shutdown: Callable[[], None] | None = None

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        if self.on_shutdown is not None:
            self.on_shutdown()
        await super().shutdown(sockets)


@contextlib.asynccontextmanager
async def uvicorn_serving(app: Any) -> AsyncIterator[int]:
    """Serve ``app`` with uvicorn on a free loopback port; yields the port."""
    async with uvicorn_server(app) as (port, _):
        yield port


@contextlib.asynccontextmanager
async def uvicorn_server(
    app: Any, on_shutdown: Callable[[], None] | None = None
) -> AsyncIterator[tuple[int, uvicorn.Server]]:
    """Serve ``app`` with uvicorn on a free loopback port; yields the port and the
    server (``should_exit = True`` shuts it down; the block's end does too).
    ``on_shutdown``: called when uvicorn begins to shut down."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    config = uvicorn.Config(
        app, log_level="warning", access_log=False, lifespan="on", timeout_graceful_shutdown=1
    )
    server = _Uvicorn(config)
    server.on_shutdown = on_shutdown
    with sock:
        async with anyio.create_task_group() as tg:
            tg.start_soon(server.serve, [sock])
            try:
                yield sock.getsockname()[1], server
            finally:
                server.should_exit = True
        assert server.started


async def health(request: Request) -> PlainTextResponse:
    return PlainTextResponse("ok")


def starlette_app(mcp: AsgiApp) -> Starlette:
    """The MCP app mounted under /api beside a route of the outer app; Starlette
    does not pass lifespan events to mounted apps, so its lifespan runs ours."""
    return Starlette(
        routes=[Route("/health", health), Mount("/api", app=mcp)],
        lifespan=lambda app: mcp.running(),
    )


@contextlib.asynccontextmanager
async def mounted(server: Server) -> AsyncIterator[int]:
    async with uvicorn_serving(starlette_app(asgi_app(server))) as port:
        yield port
