"""The gateway: a manager's union served as one MCP server.

`gateway_server(manager)` is an `mcp_core.manager.Gateway` (a Server) whose
handlers ask the manager: its tools, resources and prompts are the union, named
``server.tool``; a call goes to the server that owns the tool. Served with any
runtime (`serve_stdio`, `serve_http`, the ASGI app), it speaks both protocol eras
to its clients whatever era each upstream speaks.

What passes through:

- calls, reads and prompts, with the upstream's answer or error as it came;
- progress: the upstream's progress notifications become the gateway's, on the
  gateway client's progress token;
- cancellation: a client cancelling its call cancels the handler, whose wait on the
  upstream sends the upstream a cancellation in turn;
- list changes: an upstream's list change, or its going away or coming back,
  becomes a list change of the gateway.

- an upstream's sampling, elicitation and roots requests during a call go to the
  gateway client that made the call, and its answer back (handshake-era gateway
  clients; a 2026-07-28 one cannot be asked mid-call, and the upstream is told
  so: `mcp_core.manager.Gateway.ask_client`). Which call caused such a request:
  the one whose task runs the callback (a 2026-07-28 upstream asks inside the
  call's own answer), else the calls in flight on that server when they are all
  of one gateway client session; else nobody can tell, and the upstream's
  request is refused. The gateway installs these callbacks on the manager:
  servers connected before learn the capabilities at their next connection.

A call to a server that is not connected, or whose connection broke during the
call, is a tool result with ``isError`` that says so (the model can read it); an
unknown name is -32602.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Coroutine
from contextlib import asynccontextmanager
from contextvars import ContextVar
from typing import Any

from msgspec import UnsetType

from mcp_core import McpError, __version__
from mcp_core.manager import RELAYED, Gateway, Kind
from mcp_core.server import Context
from mcp_core.session import ProgressReceived
from mcp_core.types import (
    CallToolRequestParams,
    CallToolResult,
    GetPromptRequestParams,
    GetPromptResult,
    ListPromptsResult,
    ListResourcesResult,
    ListResourceTemplatesResult,
    ListToolsResult,
    ReadResourceRequestParams,
    ReadResourceResult,
    Resource,
    TextContent,
)
from mcp_core.wire import INVALID_PARAMS, RESOURCE_NOT_FOUND

from .errors import CallInterrupted, ServerUnavailable, UnknownName
from .manager import Manager

__all__ = ["gateway_server"]


def _arguments(value: Any) -> Any:
    return None if isinstance(value, UnsetType) else value


def gateway_server(
    manager: Manager, *, name: str = "mcp-core-gateway", version: str = __version__
) -> Gateway:
    """A Server that serves ``manager``'s union; it follows the manager's list changes."""
    gateway = Gateway(name, version, instructions=f"The tools of: {', '.join(manager.servers)}.")
    upstream = manager.on_list_changed

    def changed(server: str, kind: Kind | None) -> None:
        gateway.lists_changed(kind)
        if upstream is not None:
            upstream(server, kind)

    manager.on_list_changed = changed
    calls = _Calls()
    manager.set_callbacks(**{kind: calls.relay(gateway, kind) for kind in RELAYED})

    @gateway.on_list_tools
    async def list_tools(params: Any, ctx: Context) -> ListToolsResult:
        return ListToolsResult(tools=await manager.tools())

    @gateway.on_call_tool
    async def call_tool(params: CallToolRequestParams, ctx: Context) -> CallToolResult:
        async def progress(event: ProgressReceived) -> None:
            await ctx.report_progress(event.progress, event.total, event.message)

        try:
            async with calls.serving(manager, "tools", params.name, ctx):
                return await manager.call_tool(
                    params.name,
                    _arguments(params.arguments),
                    on_progress=progress if ctx.request.progress_token is not None else None,
                )
        except UnknownName as exc:
            raise McpError(INVALID_PARAMS, str(exc)) from None
        except (ServerUnavailable, CallInterrupted) as exc:
            return CallToolResult(content=[TextContent(text=str(exc))], is_error=True)

    @gateway.on_list_resources
    async def list_resources(params: Any, ctx: Context) -> ListResourcesResult:
        items = await manager.resources()
        return ListResourcesResult(resources=[i for i in items if isinstance(i, Resource)])

    @gateway.on_list_resource_templates
    async def list_templates(params: Any, ctx: Context) -> ListResourceTemplatesResult:
        items = await manager.resources()
        templates = [i for i in items if not isinstance(i, Resource)]
        return ListResourceTemplatesResult(resource_templates=templates)

    @gateway.on_read_resource
    async def read_resource(params: ReadResourceRequestParams, ctx: Context) -> ReadResourceResult:
        try:
            return await manager.read_resource(params.uri)
        except (UnknownName, ServerUnavailable, CallInterrupted) as exc:
            raise McpError(RESOURCE_NOT_FOUND, str(exc), {"uri": params.uri}) from None

    @gateway.on_list_prompts
    async def list_prompts(params: Any, ctx: Context) -> ListPromptsResult:
        return ListPromptsResult(prompts=await manager.prompts())

    @gateway.on_get_prompt
    async def get_prompt(params: GetPromptRequestParams, ctx: Context) -> GetPromptResult:
        try:
            async with calls.serving(manager, "prompts", params.name, ctx):
                return await manager.get_prompt(params.name, _arguments(params.arguments))
        except (UnknownName, ServerUnavailable, CallInterrupted) as exc:
            raise McpError(INVALID_PARAMS, str(exc)) from None

    return gateway


_SERVING: ContextVar[tuple[str, Context] | None] = ContextVar("gateway_call", default=None)
"""The upstream server and gateway request the running task serves."""


class _Calls:
    """The gateway's calls in flight on each upstream server, to find the client
    an upstream's request during a call is for."""

    def __init__(self) -> None:
        self._in_flight: dict[str, list[Context]] = {}

    @asynccontextmanager
    async def serving(
        self, manager: Manager, kind: Kind, name: str, ctx: Context
    ) -> AsyncIterator[None]:
        found = manager.catalog.resolve(kind, name)
        if found is None:
            await manager.refresh(kind)
            found = manager.catalog.resolve(kind, name)
        if found is None:  # not listed: the manager's call says why
            yield
            return
        server = found[0]
        in_flight = self._in_flight.setdefault(server, [])
        in_flight.append(ctx)
        token = _SERVING.set((server, ctx))
        try:
            yield
        finally:
            _SERVING.reset(token)
            in_flight.remove(ctx)

    def caller(self, server: str) -> Context | None:
        """The gateway request an upstream's request from ``server`` belongs to."""
        current = _SERVING.get()
        if current is not None and current[0] == server:
            return current[1]
        in_flight = self._in_flight.get(server, [])
        sessions = {id(getattr(ctx.peer, "session", ctx.peer)) for ctx in in_flight}
        return in_flight[-1] if len(sessions) == 1 else None

    def relay(self, gateway: Gateway, kind: str) -> Callable[..., Coroutine[Any, Any, Any]]:
        """The manager's ``kind`` callback: ask the caller's client."""

        async def ask(server: str, *params: Any) -> Any:
            return await gateway.ask_client(self.caller(server), kind, *params)

        return ask
