"""For the fault tests (tests/faults): a tool that counts its starts, and our h11
server that a test can kill mid-call and start again on the same port."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import anyio
from anyio.abc import TaskGroup, TaskStatus

from mcp_core import Context, Server
from mcp_core.http.server import HttpServerConfig
from transports import Client, OutcomeUnknownError
from transports.http.server import HttpServer


class Counted:
    """A server with a quick tool and a tool, `work`, that counts its starts and
    waits for the test."""

    def __init__(self) -> None:
        self.starts = 0
        self.started = anyio.Event()
        self.release = anyio.Event()

    def server(self) -> Server:
        server = Server("counted", "1")

        @server.tool
        def quick() -> str:
            return "quick"

        @server.tool
        async def work(ctx: Context) -> str:
            self.starts += 1
            await ctx.info("working")  # on the call's stream, if it has one
            self.started.set()
            await self.release.wait()
            return "done"

        return server


async def failed_work(client: Client, interrupt: Callable[[], Awaitable[None]]) -> str:
    """Call `work` and run ``interrupt`` meanwhile; the call must fail with
    `OutcomeUnknownError`: its text."""
    failure: list[OutcomeUnknownError] = []

    async def call() -> None:
        try:
            await client.call_tool("work")
        except OutcomeUnknownError as exc:
            failure.append(exc)

    async with anyio.create_task_group() as tg:
        tg.start_soon(call)
        await interrupt()
    (failed,) = failure
    assert failed.method in ("POST", "GET")
    return str(failed)


class Killable:
    """Our h11 server for ``server`` on 127.0.0.1; `kill` stops it at once (its
    listener and every connection close), `start` starts a new one (no sessions)
    on the same port."""

    def __init__(self, server: Server, **config: Any) -> None:
        self.server = server
        self.config = HttpServerConfig(**config)
        self.port = 0
        self._scope: anyio.CancelScope | None = None
        self._stopped = anyio.Event()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}{self.config.path}"

    async def start(self, tg: TaskGroup) -> None:
        self.port = await tg.start(self._serve)

    async def kill(self) -> None:
        """Stop the server and wait until its port is free."""
        assert self._scope is not None
        self._scope.cancel()
        await self._stopped.wait()

    async def _serve(self, *, task_status: TaskStatus[int]) -> None:
        self._stopped = anyio.Event()
        try:
            with anyio.CancelScope() as self._scope:
                await HttpServer(self.server, self.config).serve(
                    "127.0.0.1", self.port, task_status=task_status
                )
        finally:
            self._stopped.set()
