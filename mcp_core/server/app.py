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
#   `@server.completion` (registry.py). Schemas come from type hints
#   (signatures.py), return values are converted by fixed rules (results.py),
#   lists are paginated (routes.py).
# * advanced handlers (the "advanced service" of the Ballerina design):
#   `server.on_list_tools(fn)`, `server.on_call_tool(fn)` and so on take the typed
#   params Struct and the Context and return the result Struct. A handler replaces
#   the registry for its method; capabilities are still derived from it.
#
# Registry changes made after the server started serving (its first `config()` or
# `dispatch`) are recorded as pending list-changed notifications, which the runtime
# drains with `take_list_changes()` and publishes with `ServerSession.publish`.
#
# One class, one concept per module: `Server` (here: options, shared state,
# configs, dispatch, middleware, lifespan) extends `Routes` (routes.py: how each
# method is answered), which extends `RoundTrips` (rounds.py: 2026-07-28 multi
# round-trip requests, the answers sealed into `requestState` and opened on the
# retry), which extends `Registry` (registry.py: what the server offers).

from __future__ import annotations

import contextlib
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from functools import partial
from typing import Any, Final, TypeAlias

import msgspec
from msgspec import UNSET

from ..extensions import Declared, Extension, NotificationRoute, register
from ..http.shared import Bus, EventLog, SessionRegistry
from ..session.events import RequestReceived
from ..session.server import ServerConfig
from ..tasks.engine import TaskEngine
from ..tasks.serving import TaskService, TasksExtension
from ..tasks.store import TaskStore
from ..types.base import Icon, Implementation
from ..types.methods import REVISIONS
from ..wire.errors import (
    INTERNAL_ERROR,
    METHOD_NOT_FOUND,
    SERVICE_UNAVAILABLE,
    SharedStateUnavailable,
)
from .context import Context, McpError
from .registry import opt
from .request_state import OnceStore, ReplayGuard, ReplayStore, StateSealer
from .routes import Routes

__all__ = ["Lifespan", "LifespanError", "Middleware", "Server"]


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


class Server(Routes):
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
        extensions: the extensions offered (mcp_core.extensions, SEP-2133):
            `Extension` objects, each declared, negotiated and routed as
            `extend` does; or a mapping of identifier -> settings, declared in
            2026-07-28 only and routing nothing (`Declared`). ``description``,
            ``icons`` and ``website_url`` are left out of answers before
            2025-11-25 and ``title`` before 2025-06-18 (each revision's schema).
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
        extensions: Mapping[str, Mapping[str, Any]] | Sequence[Extension] | None = None,
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
            self.offers_tasks,
        )
        self._notification_routes: dict[str, NotificationRoute] = {}
        self._handshake_extensions: frozenset[str] = frozenset()
        self.extend(TasksExtension(self.tasks))
        if isinstance(extensions, Mapping):
            extensions = [Declared(name, settings) for name, settings in extensions.items()]
        for extension in extensions or ():
            self.extend(extension)
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

    def config(self, *, revisions: tuple[str, ...] = REVISIONS, **options: Any) -> ServerConfig:
        """A ServerConfig for sessions serving this application.

        Args:
            revisions: protocol revisions to serve (default all).
            options: other ServerConfig fields (``discover_ttl_ms`` ...).

        Registry changes after this call are recorded for `take_list_changes`.
        """
        self._started = True
        capabilities = self.capabilities()
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
            and cached.handshake_extensions == self._handshake_extensions
        ):
            return cached
        config = ServerConfig(
            server_info=self.info,
            capabilities=capabilities,
            instructions=self.instructions,
            revisions=revisions,
            handshake_extensions=self._handshake_extensions,
            **options,
        )
        self._configs[key] = config
        return config

    # --- extensions --------------------------------------------------------------------

    def extend(self, extension: Extension) -> Extension:
        """Offer ``extension`` (mcp_core.extensions, SEP-2133): its methods join
        the method table, its settings ``capabilities.extensions`` (and the
        ``initialize`` answer's unless ``extension.handshake`` is False), its
        routes this server's; then ``extension.attach(self)``.

        Returns:
            ``extension``.

        Raises:
            ValueError: another extension has its identifier, or one of its
                methods is routed already.
        """
        if extension.id in self._extensions:
            raise ValueError(f"extension {extension.id!r} is offered already")
        register(extension)
        routes = dict(extension.routes())
        taken = sorted(set(routes) & set(self._routes))
        if taken:
            raise ValueError(f"extension {extension.id!r}: {', '.join(taken)} routed already")
        self._extensions[extension.id] = extension
        self._routes.update(routes)
        self._notification_routes.update(extension.notification_routes())
        if extension.resource_schemes:
            self._resource_extensions = (*self._resource_extensions, extension)
        if extension.handshake:
            self._handshake_extensions = self._handshake_extensions | {extension.id}
        self._generation += 1  # capabilities are derived anew
        extension.attach(self)
        return extension

    @property
    def extensions(self) -> Mapping[str, Extension]:
        """The extensions offered, by identifier."""
        return self._extensions

    def notified(self, method: str, params: Any) -> bool:
        """Hand a client notification to the extension that routes it (a
        runtime calls this with each NotificationReceived).

        Returns:
            Whether an extension took it.
        """
        route = self._notification_routes.get(method)
        if route is None:
            return False
        route(method, params)
        return True

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
