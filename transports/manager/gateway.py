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
  gateway client that made the call, and its answer back. A handshake-era client
  is asked with a request of the gateway's. A 2026-07-28 client is answered with
  an InputRequiredResult carrying the question, while the upstream call waits,
  parked (`transports.manager.parking`); the client's retry with its answers
  resumes that call, so the upstream's tool runs once. Which call caused such a
  request: the one whose task runs the callback (a 2026-07-28 upstream asks
  inside the call's own answer), else the calls in flight on that server when
  they are all of one gateway client session; else nobody can tell, and the
  upstream's request is refused. The gateway installs these callbacks on the
  manager: servers connected before learn the capabilities at their next
  connection.
- client capabilities: a 2026-07-28 upstream is told, in each forwarded call,
  the sampling, elicitation and roots capabilities of the client that made
  it; a handshake-era upstream everything the gateway relays, sampling with
  tools and URL elicitation included (why: `mcp_core.manager.gateway`).
- tasks: a call its client asks to be a task is a task of the gateway's, for a
  tool its upstream lists as task-capable (`mcp_core.manager.gateway`).
- roots: a handshake-era client's ``notifications/roots/list_changed`` goes to
  every handshake-era upstream (`Manager.roots_changed`), which asks for the roots
  again; a 2026-07-28 upstream asks for them within each call anyway.
- skills (SEP-2640): the upstreams' skills, each under its server's name
  (``skill://billing/refunds/SKILL.md`` is ``refunds`` of server ``billing``), listed,
  got and read through the gateway, bytes unchanged (`transports.manager.skills`).
- a URL elicitation's completion (``notifications/elicitation/complete``, up to
  2025-11-25) goes to the one gateway client that was asked for it, when that
  client speaks a revision that has it (client/elicitation.mdx: "MUST only send
  the notification to the client that initiated the elicitation request").
- extensions (SEP-2133): an upstream's extension that defines no methods (MCP
  Apps, ``io.modelcontextprotocol/ui``) is declared by the gateway while that
  upstream is connected; its tools keep their ``_meta.ui`` and its views are
  read as any resource. A client's extensions go in each forwarded call to a
  2026-07-28 upstream, but the gateway's own (tasks); a handshake-era upstream
  is told ``client_extensions`` at ``initialize`` (why: `mcp_core.manager.gateway`).

A call to a server that is not connected, or whose connection broke during the
call, is a tool result with ``isError`` that says so (the model can read it); an
unknown name is -32602.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Mapping
from contextlib import asynccontextmanager, suppress
from contextvars import ContextVar
from typing import Any, NamedTuple

from msgspec import UNSET, UnsetType

from mcp_core import McpError, UrlElicitationRequiredError, __version__
from mcp_core.apps.host import SETTINGS as APPS_SETTINGS
from mcp_core.apps.meta import EXTENSION_ID as APPS
from mcp_core.client.callbacks import MAX_OPEN_ELICITATIONS
from mcp_core.extensions import server_settings
from mcp_core.manager import RELAYED, Gateway, Kind, forwarded
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

from ..driver import ProgressCallback
from .errors import CallInterrupted, ServerUnavailable, UnknownName
from .manager import Manager
from .parking import ParkedCall, Parking
from .skills import GatewaySkills

__all__ = ["gateway_server"]

Forward = Callable[[ProgressCallback | None], Awaitable[Any]]
"""A forwarded request, given where the upstream's progress goes."""


def _arguments(value: Any) -> Any:
    return None if isinstance(value, UnsetType) else value


def gateway_server(
    manager: Manager,
    *,
    name: str = "mcp-core-gateway",
    client_extensions: Mapping[str, Mapping[str, Any]] | None = None,
    version: str = __version__,
    parked_ttl: float | None = None,
    max_parked: int = 1000,
    skills: bool = True,
    **options: Any,
) -> Gateway:
    """A Server that serves ``manager``'s union; it follows the manager's list changes.

    Args:
        client_extensions: the client extensions declared to a handshake-era
            upstream at ``initialize`` (default: MCP Apps, views being resources
            the gateway relays); a 2026-07-28 upstream is told, in each call,
            those of the client that made it.
        parked_ttl: seconds a call waits, parked, for a 2026-07-28 client's answers
            (default: the ``requestState``'s lifetime, the Server's ``state_ttl``).
        max_parked: calls parked at once, at most (past that an upstream's
            question to a 2026-07-28 client is refused).
        skills: serve the upstreams' skills (SEP-2640), each under its server's
            name (`transports.manager.skills`); the manager declares the
            extension to its servers from their next connection.
        options: other `mcp_core.Server` options (``state_key``, ``replay_guard``...).
    """
    gateway = Gateway(
        name, version, instructions=f"The tools of: {', '.join(manager.servers)}.", **options
    )
    upstream = manager.on_list_changed

    def extension_settings(extension: str) -> dict[str, Any] | None:
        for status in manager.status():
            if status.state == "connected" and status.capabilities is not None:
                settings = server_settings(status.capabilities, extension)
                if settings is not None:
                    return settings
        return None

    def changed(server: str, kind: Kind | None) -> None:
        if kind is None and server in manager.servers:  # connected, or gone
            capabilities = manager.status_of(server).capabilities
            if capabilities is not None:
                gateway.relay_extensions(capabilities, extension_settings)
        gateway.lists_changed(kind)
        if upstream is not None:
            upstream(server, kind)

    manager.on_list_changed = changed
    manager.declare_extensions(
        {APPS: APPS_SETTINGS} if client_extensions is None else client_extensions
    )

    async def task_support(name: str) -> str | None:
        found = manager.catalog.resolve("tools", name)
        if found is None:  # not listed yet
            await manager.refresh("tools")
            found = manager.catalog.resolve("tools", name)
        return None if found is None else manager.catalog.task_support(*found)

    gateway.task_support = task_support
    gateway.on_roots_changed = manager.roots_changed
    ttl = gateway.state_ttl if parked_ttl is None else parked_ttl
    calls = _Calls(manager, gateway, Parking(manager.start_soon, ttl=ttl, max_parked=max_parked))
    relays: dict[str, Any] = {kind: calls.relay(kind) for kind in RELAYED}
    manager.set_callbacks(
        sampling_tools=True,
        skills=skills,
        elicitation_url=calls.relay("elicitation"),
        on_elicitation_complete=calls.completed,
        **relays,
    )
    if skills:
        gateway.extend(GatewaySkills(manager))

    @gateway.on_list_tools
    async def list_tools(params: Any, ctx: Context) -> ListToolsResult:
        return ListToolsResult(tools=await manager.tools())

    @gateway.on_call_tool
    async def call_tool(params: CallToolRequestParams, ctx: Context) -> CallToolResult:
        arguments = _arguments(params.arguments)

        capabilities = forwarded(ctx.client.capabilities, gateway.own_extensions)

        def call(on_progress: ProgressCallback | None) -> Awaitable[CallToolResult]:
            return manager.call_tool(
                params.name, arguments, on_progress=on_progress, capabilities=capabilities
            )

        try:
            result: CallToolResult = await calls.forward(ctx, "tools", params.name, call)
            return result
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
            try:
                return await manager.read_resource(params.uri)
            except UnknownName:
                if not skills:
                    raise
                # A skill's file, its server's name in the URI (transports.manager.skills).
                return await manager.read_skill_file(params.uri)
        except (UnknownName, ServerUnavailable, CallInterrupted) as exc:
            raise McpError(RESOURCE_NOT_FOUND, str(exc), {"uri": params.uri}) from None

    @gateway.on_list_prompts
    async def list_prompts(params: Any, ctx: Context) -> ListPromptsResult:
        return ListPromptsResult(prompts=await manager.prompts())

    @gateway.on_get_prompt
    async def get_prompt(params: GetPromptRequestParams, ctx: Context) -> GetPromptResult:
        arguments = _arguments(params.arguments)

        capabilities = forwarded(ctx.client.capabilities, gateway.own_extensions)

        def get(on_progress: ProgressCallback | None) -> Awaitable[GetPromptResult]:
            return manager.get_prompt(params.name, arguments, capabilities=capabilities)

        try:
            result: GetPromptResult = await calls.forward(ctx, "prompts", params.name, get)
            return result
        except (UnknownName, ServerUnavailable, CallInterrupted) as exc:
            raise McpError(INVALID_PARAMS, str(exc)) from None

    return gateway


class _Call(NamedTuple):
    """A gateway request in flight on an upstream: the request that made it, and
    (2026-07-28 client) the parked call that waits for its answers."""

    ctx: Context
    parked: ParkedCall | None


_SERVING: ContextVar[tuple[str, _Call] | None] = ContextVar("gateway_call", default=None)
"""The upstream server and gateway call the running task serves."""


def _progress(current: Callable[[], Context | None]) -> ProgressCallback:
    """Upstream progress, sent on the progress token of the request ``current()``."""

    async def progress(event: ProgressReceived) -> None:
        ctx = current()
        if ctx is not None and ctx.request.progress_token is not None:
            await ctx.report_progress(event.progress, event.total, event.message)

    return progress


class _Calls:
    """The gateway's calls in flight on each upstream server, to find the client
    an upstream's request during a call is for."""

    def __init__(self, manager: Manager, gateway: Gateway, parking: Parking) -> None:
        self._manager = manager
        self._gateway = gateway
        self._parking = parking
        self._in_flight: dict[str, list[_Call]] = {}
        # URL elicitations relayed to a handshake-era client, by (server, id):
        # the request that asked, whose client hears of their completion.
        self._elicited: OrderedDict[tuple[str, str], Context] = OrderedDict()

    async def forward(self, ctx: Context, kind: Kind, name: str, call: Forward) -> Any:
        """Make ``call`` for the request served by ``ctx``: in its own task, where
        a 2026-07-28 client may be asked (then parked, or resumed by its retry)."""
        if not self._gateway.may_park(ctx):
            async with self.serving(kind, name, _Call(ctx, None)):
                token = ctx.request.progress_token
                return await call(None if token is None else _progress(lambda: ctx))
        call_id, started = await self._gateway.parked_call(ctx)
        if ctx.round == started:
            parked: ParkedCall | None = None

            async def run() -> Any:
                assert parked is not None
                async with self.serving(kind, name, _Call(ctx, parked)):
                    return await call(_progress(lambda: None if parked is None else parked.ctx))

            prefix = f"{started}." if started else ""
            parked = self._parking.open(call_id, ctx, run, prefix)
        else:
            parked = self._parking.resume(call_id, ctx.round, ctx)
        try:
            return await self._serve(ctx, parked)
        except UrlElicitationRequiredError:
            self._gateway.call_again(ctx)
            raise

    async def _serve(self, ctx: Context, parked: ParkedCall) -> Any:
        """Wait for ``parked``'s outcome, relaying its questions to ``ctx``'s client."""
        waiting = False

        def park(round: int) -> bool:
            nonlocal waiting
            waiting = self._parking.park(parked, round)
            return waiting

        try:
            while questions := await parked.next_questions():
                asked = [each.question for each in questions]
                answers = await self._gateway.ask_parked(ctx, asked, park)
                for each, answer in zip(questions, answers, strict=True):
                    each.settle(answer)
        finally:
            if not waiting:  # done, failed, cancelled, or its client went away
                self._parking.done(parked)
        if parked.error is not None:
            raise parked.error
        return parked.result

    @asynccontextmanager
    async def serving(self, kind: Kind, name: str, call: _Call) -> AsyncIterator[None]:
        manager = self._manager
        found = manager.catalog.resolve(kind, name)
        if found is None:
            await manager.refresh(kind)
            found = manager.catalog.resolve(kind, name)
        if found is None:  # not listed: the manager's call says why
            yield
            return
        server = found[0]
        in_flight = self._in_flight.setdefault(server, [])
        in_flight.append(call)
        token = _SERVING.set((server, call))
        try:
            yield
        except UrlElicitationRequiredError as required:
            # Its completion notices go to this call's client (a handshake-era one).
            for elicitation in required.elicitations:
                self._elicited_by(server, elicitation.elicitation_id, call.ctx)
            raise
        finally:
            _SERVING.reset(token)
            in_flight.remove(call)

    def caller(self, server: str) -> _Call | None:
        """The gateway call an upstream's request from ``server`` belongs to."""
        current = _SERVING.get()
        if current is not None and current[0] == server:
            return current[1]
        in_flight = self._in_flight.get(server, [])
        sessions = {id(getattr(call.ctx.peer, "session", call.ctx.peer)) for call in in_flight}
        return in_flight[-1] if len(sessions) == 1 else None

    def relay(self, kind: str) -> Callable[..., Coroutine[Any, Any, Any]]:
        """The manager's ``kind`` callback: ask the caller's client."""

        async def ask(server: str, params: Any = UNSET) -> Any:
            call = self.caller(server)
            if call is not None and call.parked is not None:
                return await call.parked.ask(kind, params)
            ctx = None if call is None else call.ctx
            answer = await self._gateway.ask_client(ctx, kind, params)
            if ctx is not None:
                self._elicited_by(server, getattr(params, "elicitation_id", None), ctx)
            return answer

        return ask

    def _elicited_by(self, server: str, elicitation_id: Any, ctx: Context) -> None:
        """``server``'s URL elicitation ``elicitation_id`` went to ``ctx``'s client."""
        if isinstance(elicitation_id, str):
            self._elicited[server, elicitation_id] = ctx
            if len(self._elicited) > MAX_OPEN_ELICITATIONS:
                self._elicited.popitem(last=False)

    async def completed(self, server: str, elicitation_id: str) -> None:
        """``server`` says its URL elicitation ``elicitation_id`` is done: tell
        the client it was relayed to (nobody else; once)."""
        ctx = self._elicited.pop((server, elicitation_id), None)
        if ctx is None:
            return
        with suppress(Exception):  # that client is gone: nobody else may be told
            await ctx.complete_elicitation(elicitation_id)
