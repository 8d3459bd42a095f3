# The server application layer: a registry of tools, resources, prompts and a
# completion handler, and `dispatch`, which answers one RequestReceived.
#
# Theory of operation. The session (ServerSession) speaks the protocol: handshake
# or per-request envelope, capability gating, ping, logging/setLevel, discovery.
# What is left for the application arrives as RequestReceived events; the runtime
# awaits `Server.dispatch(event, ctx)` for each and sends what it returns with
# `send_response`, or the McpError it raises with `send_error`. Dispatch awaits
# nothing but the handler (and, through the Context, the runtime's Peer), so it runs
# under any event loop; mcp_core itself never imports one.
#
# Two ways to serve a feature:
#
# * registered functions: `@server.tool`, `@server.resource`, `@server.prompt`,
#   `@server.completion`. Schemas come from type hints (_schema), return values are
#   converted by fixed rules (_server_results), lists are paginated here.
# * advanced handlers (the "advanced service" of the Ballerina design):
#   `server.on_list_tools(fn)`, `server.on_call_tool(fn)` and so on take the typed
#   params Struct and the Context and return the result Struct. A handler replaces
#   the registry for its method; capabilities are still derived from it.
#
# Registry changes made after the server started serving (its first `config()` or
# `dispatch`) are recorded as pending list-changed notifications, which the runtime
# drains with `take_list_changes()` and publishes with `ServerSession.publish`.
#
# 2026-07-28 multi round-trip requests: see _context for the replay model. Here the
# Server seals the answers collected so far into `requestState`, bound to the
# method, the tool/prompt name or resource URI, and a digest of the arguments
# (_seal.request_binding), and opens it again on the retry.

from __future__ import annotations

import contextlib
import inspect
import logging
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from functools import partial
from types import CoroutineType
from typing import Any, Final, TypeAlias, TypeVar

import msgspec
from msgspec import UNSET, UnsetType

from ..http.shared import Bus, EventLog, SessionRegistry
from ..session.events import RequestReceived
from ..session.server import ServerConfig
from ..tasks.engine import TaskEngine
from ..tasks.serving import TaskService
from ..tasks.store import TaskStore
from ..types.base import Icon, Implementation, PaginatedRequestParams, Result
from ..types.client import InputRequiredResult
from ..types.methods import LEGACY_REVISIONS, REVISIONS
from ..types.server import (
    ListPromptsResult,
    ListResourcesResult,
    ListResourceTemplatesResult,
    ListToolsResult,
)
from ..wire.errors import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    METHOD_NOT_FOUND,
    RESOURCE_NOT_FOUND,
    SERVICE_UNAVAILABLE,
    SharedStateUnavailable,
)
from .context import (
    MRTR_METHODS,
    Context,
    Detach,
    InputNeeded,
    McpError,
    ResourceNotFoundError,
    UrlElicitationRequiredError,
)
from .registry import Registry, ResourceEntry, opt
from .request_state import (
    OnceStore,
    ReplayGuard,
    ReplayStore,
    StateRejected,
    StateSealer,
    request_binding,
)
from .results import (
    complete_result,
    error_result,
    page,
    prompt_result,
    read_result,
    tool_result,
)
from .signatures import FunctionInfo

__all__ = ["Lifespan", "LifespanError", "Middleware", "Server"]

_T = TypeVar("_T")

log = logging.getLogger("mcp_core")

Lifespan: TypeAlias = Callable[["Server"], contextlib.AbstractAsyncContextManager[Any]]
"""``lifespan(server)``: the resources a server holds while it serves (see `Server`)."""


class LifespanError(RuntimeError):
    """A server's lifespan failed to start; serving does not begin."""


Middleware: TypeAlias = Callable[
    [RequestReceived, Context, Callable[[], Awaitable[Any]]], Awaitable[Any]
]
"""An async function around every request a Server answers.

``await middleware(event, ctx, call_next)`` sees the request (``event.method``,
``event.params``, ``event.revision``) and who sent it (``ctx.principal``, the era
as ``ctx.modern``). It answers by returning ``await call_next()`` (the rest of the
chain, then the handler), or its own result; it refuses by raising `McpError`
(sent as that JSON-RPC error). Timing, logging, auth checks and rate limits are
middleware. It runs in the application layer, after the session's protocol checks,
whatever the transport.
"""


class _Default:
    """The type of `_DEFAULT`: "no argument given", where None means "none"."""


_DEFAULT: Final = _Default()


class _State(msgspec.Struct, frozen=True):
    """The sealed requestState payload: the answers so far (key -> method and
    answer), the questions just asked (key -> method), what the handler kept with
    `Context.once`, and how many round trips came before."""

    answers: dict[str, tuple[str, dict[str, Any]]] = {}
    pending: dict[str, str] = {}
    kept: dict[str, Any] = {}
    round: int = 0


async def _invoke(info: FunctionInfo, values: dict[str, Any], ctx: Context) -> Any:
    if info.threaded:
        # A plain function may block: the runtime runs it in a worker thread.
        result = await ctx.run_sync(partial(info.call, values, ctx))
    else:
        result = info.call(values, ctx)
    # An async def handler's coroutine first: isawaitable is a Python call.
    if type(result) is CoroutineType or inspect.isawaitable(result):
        result = await result
    return result


async def _given(value: _T) -> _T:
    return value


def _binding(method: str, name: str, arguments: Any) -> str:
    return request_binding(method, name, msgspec.json.encode(arguments, order="sorted"))


def _text(exc: BaseException) -> str:
    # What a client is told of a handler's exception: its message, with the type
    # where the message alone says nothing (KeyError('zz') is just "'zz'").
    text = str(exc)
    if not text:
        return type(exc).__name__
    return f"{type(exc).__name__}: {text}" if isinstance(exc, LookupError) else text


class Server(Registry):
    """An MCP server application: what it offers, and how it answers.

    Args:
        name: the server's name (``serverInfo.name``).
        version: its version.
        instructions: guidance for the model, sent in the handshake/discovery.
        title: a display name.
        description: what the server is for, for people (serverInfo).
        icons: icons for user interfaces (Icon, or dicts of one: ``src``,
            ``mimeType``, ``sizes``, ``theme``).
        website_url: the server's home page.
        extensions: ``capabilities.extensions``, by extension identifier
            (2026-07-28); left out of the answer to older revisions, as are
            ``description``, ``icons`` and ``website_url`` before 2025-11-25
            and ``title`` before 2025-06-18 (each revision's schema).
        page_size: items per page of every list; None (default) lists everything
            in one page.
        state_key: the key that seals 2026-07-28 ``requestState`` (32+ bytes),
            or a keyring (a sequence of keys: the first seals, any opens, for
            rotation). By default a random per-process key: states then do not
            survive a restart or travel between replicas, so give every replica
            the same keyring when running several (`state_fingerprint` tells
            whether they do).
        state_ttl: seconds a ``requestState`` stays valid (default 300).
        subscribe: offer ``resources.subscribe`` (the application then reports
            changes with `resource_updated`).
        replay_guard: where used ``requestState`` tokens are remembered so each is
            accepted once (2026-07-28 basic/patterns/mrtr.mdx, "Server
            Requirements"). By default an in-process `ReplayGuard`; several
            replicas need a shared one: a `ReplayStore`, or an asynchronous
            `OnceStore` (Redis: transports.redis); None turns single use off (the
            expiry, request binding and principal still bound reuse).
        mask_errors: tell clients only that a handler failed, not its exception's
            message (which may hold paths, queries or secrets). Either way every
            handler exception is logged with its traceback on the ``mcp_core``
            logger.
        middleware: functions around every request, outermost first; see
            `Middleware` and `Server.use`.
        lifespan: ``lifespan(server)`` is an async context manager entered once
            when serving starts (any transport: `Server.running`) and left when it
            ends; what it yields is ``ctx.lifespan`` in every handler (a database
            pool, a client, loaded models).
        threaded: run plain-function handlers in the runtime's worker threads
            (the default: a warm pool, transports/threads.py). False runs them
            inline on the event loop, unless a handler is registered with
            ``threaded=True``: for an application whose plain functions never
            block (computation on small inputs, in-memory lookups), where the
            thread hop would be most of a call's cost (server CPU per call two
            to four times the same call inline, one call at a time; see
            benchmarks/README.md, "def handlers, first pass").
        task_store: where tasks live (tools registered with ``task=``); by
            default a bounded in-memory `mcp_core.tasks.MemoryTaskStore`.
        task_ttl_ms: how long a task is kept from its creation (None: no limit).
        task_poll_interval_ms: the polling interval suggested to clients.

    Handlers may be plain functions or ``async def``. Plain functions run in a
    worker thread of the runtime (a bounded pool), so one that blocks stalls no
    other request; ``threaded=False`` at registration runs a quick one inline.
    """

    def __init__(
        self,
        name: str,
        version: str,
        *,
        instructions: str | None = None,
        title: str | None = None,
        description: str | None = None,
        icons: Sequence[Icon | Mapping[str, Any]] | None = None,
        website_url: str | None = None,
        extensions: Mapping[str, Mapping[str, Any]] | None = None,
        page_size: int | None = None,
        state_key: bytes | Sequence[bytes] | None = None,
        state_ttl: float = 300.0,
        subscribe: bool = False,
        replay_guard: ReplayStore | OnceStore | _Default | None = _DEFAULT,
        mask_errors: bool = False,
        middleware: Sequence[Middleware] = (),
        lifespan: Lifespan | None = None,
        threaded: bool = True,
        task_store: TaskStore | None = None,
        task_ttl_ms: int | None = 3_600_000,
        task_poll_interval_ms: int | None = 500,
    ) -> None:
        if page_size is not None and page_size < 1:
            raise ValueError("page_size must be at least 1")
        super().__init__(subscribe=subscribe, threaded=threaded)
        self.info = Implementation(
            name=name,
            version=version,
            title=opt(title),
            description=opt(description),
            icons=UNSET
            if icons is None
            else [msgspec.convert(icon, Icon, from_attributes=True) for icon in icons],
            website_url=opt(website_url),
        )
        self.extensions = (
            None if extensions is None else {k: dict(v) for k, v in extensions.items()}
        )
        self.instructions = instructions
        self.page_size = page_size
        keys = [secrets.token_bytes(32)] if state_key is None else state_key
        if isinstance(keys, bytes | bytearray):
            keys = [bytes(keys)]
        if not keys:
            raise ValueError("state_key must name at least one key")
        guard = ReplayGuard() if isinstance(replay_guard, _Default) else replay_guard
        # A synchronous guard is the sealer's; a shared asynchronous one is
        # claimed here after the sealer verified the token (see `_open`).
        self._once: OnceStore | None = None
        sync_guard: ReplayStore | None = None
        if isinstance(guard, ReplayGuard) or hasattr(guard, "consume"):
            sync_guard = guard  # type: ignore[assignment]
        else:
            self._once = guard
        self._sealer = StateSealer(
            keys[0], ttl=state_ttl, old_keys=keys[1:], replay_guard=sync_guard
        )
        self._configs: dict[tuple[Any, ...], ServerConfig] = {}
        self.mask_errors = mask_errors
        self.middleware: list[Middleware] = list(middleware)
        self.lifespan = lifespan
        #: What the lifespan yielded, while serving.
        self.lifespan_value: Any = None
        self._serving = 0
        self._lifespan_exit: contextlib.AbstractAsyncContextManager[Any] | None = None
        self._routes: dict[str, Callable[[RequestReceived, Context], Awaitable[Any]]] = {
            "tools/list": self._list_tools,
            "tools/call": self._call_tool,
            "resources/list": self._list_resources,
            "resources/templates/list": self._list_templates,
            "resources/read": self._read_resource,
            "resources/subscribe": self._subscription,
            "resources/unsubscribe": self._subscription,
            "prompts/list": self._list_prompts,
            "prompts/get": self._get_prompt,
            "completion/complete": self._complete,
        }
        #: The tasks of this server (mcp_core/tasks): the engine and the methods.
        self.tasks = TaskService(
            TaskEngine(task_store, ttl_ms=task_ttl_ms, poll_interval_ms=task_poll_interval_ms),
            lambda: any(entry.task for entry in self._tools.values()),
        )
        self._routes.update(self.tasks.routes())
        #: Where HTTP sessions are shared between replicas (see `share_state`).
        self.session_registry: SessionRegistry | None = None
        #: Where SSE events are shared between replicas (see `share_state`).
        self.event_log: EventLog | None = None
        #: How replicas reach each other (see `share_state`).
        self.bus: Bus | None = None

    def share_state(
        self,
        *,
        once: OnceStore | None = None,
        tasks: TaskStore | None = None,
        sessions: SessionRegistry | None = None,
        events: EventLog | None = None,
        bus: Bus | None = None,
        state_keys: Sequence[bytes] | None = None,
    ) -> None:
        """Use shared stores, for several replicas (before serving starts).

        Args:
            sessions: where handshake-era HTTP sessions are registered, so that
                any replica serves any session (the HTTP transports read it).
            events: where handshake-era SSE events are kept for a client that
                resumes on another replica (the HTTP transports read it).
            bus: how replicas tell each other about change notifications and
                ended sessions (the HTTP transports read it).
            state_keys: the keyring that seals ``requestState`` (as ``state_key``),
                the same on every replica.
            once: where used ``requestState`` nonces are claimed (in place of the
                in-process guard).
            tasks: where tasks live (in place of the in-memory store).
        """
        if state_keys is not None:
            if not state_keys:
                raise ValueError("state_keys must name at least one key")
            self._sealer = StateSealer(
                state_keys[0],
                ttl=self._sealer.ttl,
                old_keys=state_keys[1:],
                replay_guard=self._sealer.replay_guard,
            )
        if once is not None:
            # `_open` then verifies without the sealer's guard and claims here.
            self._once = once
        if tasks is not None:
            self.tasks.engine.store = tasks
        if sessions is not None:
            self.session_registry = sessions
        if events is not None:
            self.event_log = events
        if bus is not None:
            self.bus = bus

    @property
    def state_ttl(self) -> float:
        """Seconds a sealed ``requestState`` stays valid."""
        return self._sealer.ttl

    @property
    def state_fingerprint(self) -> str:
        """The public name of the key that seals ``requestState``: every replica
        of one deployment must show the same (see `StateSealer.fingerprint`)."""
        return self._sealer.fingerprint

    def config(self, *, revisions: tuple[str, ...] = REVISIONS, **options: Any) -> ServerConfig:
        """A ServerConfig for sessions serving this application.

        Args:
            revisions: protocol revisions to serve (default all).
            options: other ServerConfig fields (``discover_ttl_ms`` ...).

        Registry changes after this call are recorded for `take_list_changes`.
        """
        self._started = True
        capabilities = self.capabilities()
        if self.extensions is not None:
            capabilities = msgspec.structs.replace(capabilities, extensions=self.extensions)
        key = (revisions, tuple(sorted(options.items()))) if options else revisions
        cached = self._configs.get(key)
        # The same config object while nothing changed, so that sessions share
        # what they derive from it (an idle HTTP session should cost little; a
        # 2026-07-28 HTTP request makes a session each).
        if (
            cached is not None
            and (cached.capabilities is capabilities or cached.capabilities == capabilities)
            and cached.server_info == self.info
            and cached.instructions == self.instructions
        ):
            return cached
        config = ServerConfig(
            server_info=self.info,
            capabilities=capabilities,
            instructions=self.instructions,
            revisions=revisions,
            **options,
        )
        self._configs[key] = config
        return config

    # --- dispatch ----------------------------------------------------------------------

    async def dispatch(self, event: RequestReceived, ctx: Context) -> Any:
        """Answer one request.

        Args:
            event: the request, from ``ServerSession``.
            ctx: the Context for it, built by the runtime with its Peer.

        Returns:
            The result Struct to send with ``send_response``: the method's result,
            or (2026-07-28, tools/call, prompts/get, resources/read) an
            InputRequiredResult when a handler asked for input.

        Raises:
            McpError: send it with ``send_error(id, code, message, data)``. Handler
                exceptions are converted: tool errors become ``isError`` results,
                other handlers' errors -32603, and a shared store that cannot be
                reached (`SharedStateUnavailable`) SERVICE_UNAVAILABLE.
        """
        self._started = True
        ctx.lifespan = self.lifespan_value
        try:
            if not self.middleware:
                return await self._route(event, ctx)
            call: Callable[[], Awaitable[Any]] = partial(self._route, event, ctx)
            for layer in reversed(self.middleware):
                call = partial(self._around, layer, event, ctx, call)
            return await call()
        except SharedStateUnavailable as exc:
            raise McpError(SERVICE_UNAVAILABLE, str(exc)) from None
        except McpError as exc:
            # A store that failed under a handler: its wrapper made it -32603.
            if isinstance(exc.__cause__, SharedStateUnavailable):
                raise McpError(SERVICE_UNAVAILABLE, str(exc.__cause__)) from None
            raise

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[Any]:
        """Serve inside this block: the lifespan (if any) is entered by the first
        of nested blocks and left by the last, so a transport that serves many
        connections and each connection may both use it. Yields the lifespan's
        value.

        Raises:
            LifespanError: the lifespan failed to start (the cause is chained).
        """
        if self._serving == 0 and self.lifespan is not None:
            manager = self.lifespan(self)
            try:
                self.lifespan_value = await manager.__aenter__()
            except Exception as exc:
                raise LifespanError(
                    f"the lifespan of server {self.info.name!r} failed to start: {exc!r}"
                ) from exc
            self._lifespan_exit = manager
        self._serving += 1
        try:
            yield self.lifespan_value
        finally:
            self._serving -= 1
            if self._serving == 0 and self._lifespan_exit is not None:
                manager, self._lifespan_exit = self._lifespan_exit, None
                self.lifespan_value = None
                await manager.__aexit__(None, None, None)

    def use(self, middleware: Middleware) -> Middleware:
        """Add ``middleware`` inside those already added; usable as a decorator.

        Returns:
            ``middleware``, unchanged.
        """
        self.middleware.append(middleware)
        return middleware

    async def _around(
        self,
        layer: Middleware,
        event: RequestReceived,
        ctx: Context,
        call_next: Callable[[], Awaitable[Any]],
    ) -> Any:
        try:
            return await layer(event, ctx, call_next)
        except McpError:
            raise
        except Exception as exc:
            raise McpError(INTERNAL_ERROR, self._failed("middleware", event, exc)) from exc

    def _route(self, event: RequestReceived, ctx: Context) -> Awaitable[Any]:
        # The route's own awaitable, not a coroutine of ours around it: one frame
        # less for every request.
        route = self._routes.get(event.method)
        if route is None:
            raise McpError(METHOD_NOT_FOUND, f"Method not found: {event.method}")
        return route(event, ctx)

    def _failed(self, what: str, event: RequestReceived, exc: BaseException) -> str:
        # Every handler exception is logged with its traceback; the client is told
        # its message, or only that it failed (mask_errors).
        log.error("%s failed serving %s (request %r)", what, event.method, event.id, exc_info=exc)
        return f"{what} failed" if self.mask_errors else _text(exc)

    async def _advanced(self, event: RequestReceived, ctx: Context, params: Any = None) -> Any:
        handler = self._handlers[event.method]
        try:
            result = handler(event.params if params is None else params, ctx)
            if inspect.isawaitable(result):
                result = await result
        except McpError:
            raise
        except ResourceNotFoundError:
            if event.method == "resources/read":
                raise self._not_found(event.params.uri, event.revision) from None
            raise McpError(INTERNAL_ERROR, "Internal error: resource not found") from None
        except Exception as exc:
            text = self._failed("handler", event, exc)
            raise McpError(INTERNAL_ERROR, f"Internal error: {text}") from exc
        return result

    def _page(self, event: RequestReceived, items: list[_T]) -> tuple[list[_T], str | UnsetType]:
        return page(items, _cursor(event), self.page_size)

    async def _list_advanced(self, event: RequestReceived, ctx: Context) -> Any:
        params = event.params
        if isinstance(params, UnsetType) or params is None:
            params = PaginatedRequestParams()
        return await self._advanced(event, ctx, params)

    async def _list_tools(self, event: RequestReceived, ctx: Context) -> Any:
        if event.method in self._handlers:
            return await self._list_advanced(event, ctx)
        # The same page object while the tools stay the same (tool_pages.py).
        return self._tool_pages.get(lambda: self.tools, _cursor(event), self.page_size)

    def wire_form(self, result: Any) -> Any:
        """What ``dispatch`` returned, as a transport that encodes the answer
        should send it: a tools/list page of an unchanged registry with its tools
        encoded once (the same bytes); anything else as it is. A transport that
        hands the client the objects themselves sends ``result``."""
        if type(result) is not ListToolsResult:
            return result  # the common case, without a call
        return self._tool_pages.wire_form(result)

    async def _list_resources(self, event: RequestReceived, ctx: Context) -> Any:
        if event.method in self._handlers:
            return await self._list_advanced(event, ctx)
        resources, cursor = self._page(event, self.resources)
        return ListResourcesResult(resources=resources, next_cursor=cursor)

    async def _list_templates(self, event: RequestReceived, ctx: Context) -> Any:
        if event.method in self._handlers:
            return await self._list_advanced(event, ctx)
        templates, cursor = self._page(event, self.resource_templates)
        return ListResourceTemplatesResult(resource_templates=templates, next_cursor=cursor)

    async def _list_prompts(self, event: RequestReceived, ctx: Context) -> Any:
        if event.method in self._handlers:
            return await self._list_advanced(event, ctx)
        prompts, cursor = self._page(event, self.prompts)
        return ListPromptsResult(prompts=prompts, next_cursor=cursor)

    def _call_tool(self, event: RequestReceived, ctx: Context) -> Awaitable[Any]:
        # A plain function that picks the coroutine to await (as `_route` does): one
        # frame less for every call.
        params = event.params
        arguments = {} if isinstance(params.arguments, UnsetType) else params.arguments
        if "tools/call" not in self._handlers:
            entry = self._tools.get(params.name)
            if (
                entry is not None
                and (entry.task is not None or not ctx.modern)
                and self.tasks.decide(event, ctx, entry.task)
            ):
                return self._call_as_task(event, ctx, entry, arguments)

        if not ctx.modern:
            # Nothing to replay before 2026-07-28 (see _replay): no closure, no frame.
            return self._call_now(event, ctx, arguments)
        run = partial(self._call_now, event, ctx, arguments)
        return self._replay(event, ctx, params.name, arguments, run)

    def _call_now(self, event: RequestReceived, ctx: Context, arguments: Any) -> Awaitable[Any]:
        # One run of a tools/call (a 2026-07-28 replay may run it again): the
        # coroutine to await, as `_call_tool` picks it.
        if "tools/call" in self._handlers:
            return self._advanced(event, ctx)
        name = event.params.name
        entry = self._tools.get(name)
        if entry is None:
            # 2025-11-25 server/tools.mdx "Error Handling": unknown tools are
            # protocol errors, and the example uses -32602.
            raise McpError(INVALID_PARAMS, f"Unknown tool: {name}")
        # Invalid arguments and failures are tool execution errors, reported in
        # the result so the model can correct itself (2025-11-25 server/tools.mdx).
        try:
            values = entry.info.convert(arguments)
        except msgspec.ValidationError as exc:
            return _given(error_result(f"Invalid arguments for tool {name!r}: {exc}"))
        return self._run_tool(entry, values, event, ctx)

    async def _run_tool(
        self, entry: Any, values: dict[str, Any], event: RequestReceived, ctx: Context
    ) -> Any:
        info = entry.info
        try:
            if info.threaded:
                value = await _invoke(info, values, ctx)
            else:  # _invoke's other half, inlined: one coroutine less per call
                value = info.call(values, ctx)
                if type(value) is CoroutineType or inspect.isawaitable(value):
                    value = await value
            return tool_result(value, structured=entry.structured, wrap=entry.wrap)
        except McpError:
            raise
        except Exception as exc:
            return error_result(self._failed(f"tool {event.params.name!r}", event, exc))

    async def _call_as_task(
        self, event: RequestReceived, ctx: Context, entry: Any, arguments: dict[str, Any]
    ) -> Any:
        # A call that becomes a task (mcp_core/tasks/serving.py decides): bad
        # arguments are answered at once, as a tool error; otherwise the task is
        # created and the function runs in the background on a TaskContext.
        name = event.params.name
        try:
            values = entry.info.convert(arguments)
        except msgspec.ValidationError as exc:
            return error_result(f"Invalid arguments for tool {name!r}: {exc}")

        async def run(tctx: Context) -> Any:
            return await self._run_tool(entry, values, event, tctx)

        if not (entry.ask_first and ctx.modern):
            return await self.tasks.start(event, ctx, run)
        # ask_first: the questions before ctx.detach() are multi round-trip
        # requests; at detach the task starts, and replays them from the answers.
        gathered: dict[str, Any] = {}

        async def until_detached() -> Any:
            ctx._may_detach = True
            try:
                return await run(ctx)
            except Detach:
                gathered["answers"] = dict(ctx._answers or {})
                gathered["kept"] = dict(ctx._kept or {})
                raise

        try:
            return await self._replay(event, ctx, name, arguments, until_detached)
        except Detach:
            return await self.tasks.start(
                event, ctx, run, answers=gathered["answers"], kept=gathered["kept"]
            )

    def _not_found(self, uri: str, revision: str) -> McpError:
        # 2026-07-28 server/resources.mdx "Error Handling": -32602; earlier -32002.
        code = RESOURCE_NOT_FOUND if revision in LEGACY_REVISIONS else INVALID_PARAMS
        return McpError(code, "Resource not found", data={"uri": uri})

    async def _read_resource(self, event: RequestReceived, ctx: Context) -> Any:
        uri = event.params.uri

        async def run() -> Any:
            if "resources/read" in self._handlers:
                return await self._advanced(event, ctx)
            entry, values = self._match(uri)
            if entry is None:
                raise self._not_found(uri, event.revision)
            try:
                value = await _invoke(entry.info, values, ctx)
                return read_result(value, uri, entry.mime_type)
            except McpError:
                raise
            except ResourceNotFoundError:
                raise self._not_found(uri, event.revision) from None
            except Exception as exc:
                text = self._failed("resource", event, exc)
                raise McpError(INTERNAL_ERROR, f"Error reading resource: {text}") from exc

        return await self._replay(event, ctx, uri, None, run)

    def _match(self, uri: str) -> tuple[ResourceEntry | None, dict[str, Any]]:
        entry = self._resources.get(uri)
        if entry is not None:
            return entry, {}
        for template in self._templates.values():
            assert template.matcher is not None
            found = template.matcher.match(uri)
            if found is None:
                continue
            try:
                return template, template.info.convert(found, strict=False)
            except msgspec.ValidationError:
                continue
        return None, {}

    async def _subscription(self, event: RequestReceived, ctx: Context) -> Any:
        # The session records legacy subscriptions itself; there is nothing to add.
        return Result()

    async def _get_prompt(self, event: RequestReceived, ctx: Context) -> Any:
        params = event.params
        arguments: Mapping[str, str] = (
            {} if isinstance(params.arguments, UnsetType) else params.arguments
        )

        async def run() -> Any:
            if "prompts/get" in self._handlers:
                return await self._advanced(event, ctx)
            entry = self._prompts.get(params.name)
            if entry is None:
                raise McpError(INVALID_PARAMS, f"Unknown prompt: {params.name}")
            try:
                values = entry.info.convert(arguments, strict=False)
            except msgspec.ValidationError as exc:
                raise McpError(
                    INVALID_PARAMS, f"Invalid arguments for prompt {params.name!r}: {exc}"
                ) from None
            try:
                value = await _invoke(entry.info, values, ctx)
                description = entry.prompt.description
                return prompt_result(value, None if description is UNSET else description)
            except McpError:
                raise
            except Exception as exc:
                text = self._failed("prompt", event, exc)
                raise McpError(INTERNAL_ERROR, f"Error in prompt: {text}") from exc

        return await self._replay(event, ctx, params.name, arguments, run)

    async def _complete(self, event: RequestReceived, ctx: Context) -> Any:
        info = self._completion
        if info is None:
            raise McpError(METHOD_NOT_FOUND, "This server offers no completions")
        params = event.params
        context = params.context
        resolved = {} if context is UNSET or context.arguments is UNSET else context.arguments
        names = [p.name for p in info.parameters[:3]]
        values = dict(zip(names, (params.ref, params.argument, resolved), strict=True))
        try:
            return complete_result(await _invoke(info, values, ctx))
        except McpError:
            raise
        except Exception as exc:
            text = self._failed("completion", event, exc)
            raise McpError(INTERNAL_ERROR, f"Error in completion: {text}") from exc

    # --- 2026-07-28 multi round-trip requests ------------------------------------------

    async def _replay(
        self,
        event: RequestReceived,
        ctx: Context,
        name: str,
        arguments: Any,
        run: Callable[[], Awaitable[Any]],
    ) -> Any:
        if not ctx.modern or event.method not in MRTR_METHODS:
            return await run()
        params = event.params
        # The binding (a digest of the arguments) is only needed to open or seal a
        # requestState, so a call that carries none and asks nothing skips it.
        binding: str | None = None
        if not isinstance(params.request_state, UnsetType):
            binding = _binding(event.method, name, arguments)
        # Nothing to open without a requestState (most calls): no coroutine.
        state = (
            _State() if binding is None else await self._open(params.request_state, binding, ctx)
        )
        answers = dict(state.answers)
        responses = params.input_responses
        # Answers count only beside the requestState sealed with the questions:
        # this server seals one into every InputRequiredResult it sends, and the
        # client MUST echo it back with its answers (2026-07-28
        # basic/patterns/mrtr.mdx "Client Requirements (Basic Workflow)").
        # Answers without it answer no question of ours: taking them would skip
        # the single-use check and run the handler again on the same answers.
        # They are ignored, and the handler asks again (same page, "Error
        # Handling": re-request what is missing rather than fail).
        if not isinstance(params.request_state, UnsetType) and not isinstance(responses, UnsetType):
            # Only answers to the questions asked last count; other keys are
            # ignored, and a question left unanswered is asked again (same
            # section: re-request missing information rather than fail).
            for key, method in state.pending.items():
                response = responses.get(key)
                if response is not None:
                    answers[key] = (method, response)
        ctx._begin_replay(answers, state.kept, state.round)
        try:
            try:
                return await run()
            except UrlElicitationRequiredError as required:
                raise InputNeeded(ctx._url_asks(required)) from None
        except InputNeeded as asked:
            if binding is None:
                binding = _binding(event.method, name, arguments)
            pending = {k: str(type(r).__struct_config__.tag) for k, r in asked.requests.items()}
            kept = ctx._kept or {}
            payload = msgspec.json.encode(
                _State(answers=answers, pending=pending, kept=kept, round=state.round + 1)
            )
            return InputRequiredResult(
                result_type="input_required",
                input_requests=asked.requests,
                request_state=self._sealer.seal(
                    payload, now=ctx.now, request_binding=binding, principal=ctx.principal
                ),
            )
        finally:
            ctx._end_replay()

    async def _open(self, token: str | UnsetType, binding: str | None, ctx: Context) -> _State:
        if isinstance(token, UnsetType) or binding is None:
            return _State()
        try:
            if self._once is None:
                payload = self._sealer.open(
                    token, now=ctx.now, request_binding=binding, principal=ctx.principal
                )
            else:
                verified = self._sealer.verify(
                    token, now=ctx.now, request_binding=binding, principal=ctx.principal
                )
                # Claimed only once otherwise valid, as the sealer's own guard.
                if not await self._once.claim(verified.nonce, verified.expiry, now=ctx.now):
                    raise StateRejected("replayed")
                payload = verified.payload
        except StateRejected as exc:
            raise McpError(
                INVALID_PARAMS, "invalid requestState", data={"reason": exc.reason}
            ) from None
        # Sealed by us, so it decodes; a key shared with another program could
        # still yield foreign payloads, which fail here as invalid params.
        try:
            return msgspec.json.decode(payload, type=_State)
        except msgspec.DecodeError:
            raise McpError(
                INVALID_PARAMS, "invalid requestState", data={"reason": "malformed"}
            ) from None


def _cursor(event: RequestReceived) -> str | UnsetType:
    # The cursor of a list request (absent params: the first page).
    params = event.params
    return UNSET if isinstance(params, UnsetType) or params is None else params.cursor
