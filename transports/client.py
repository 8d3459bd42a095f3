# The async MCP client: one connection to one server, either era.
#
# Theory of operation. A Client owns a ClientSession and a Driver; a connector (the
# transport) wires the driver to the server. Entering the client opens the
# session the way mcp_core's ClientSession.start() decides (probe with
# server/discover, fall back to initialize) and waits for HandshakeCompleted.
#
# The protocol decisions are mcp_core.client's; this adapter sends and awaits:
#
#   requests       each method is a Call built by mcp_core.client.requests.
#   server asks    Callbacks.answer (legacy server requests, run by the driver in a
#                  task) and Callbacks.answer_input (2026-07-28 input requests) say
#                  which callback to run; InputRounds decides each retry of a call
#                  answered with an InputRequiredResult.
#   notifications  Callbacks.deliver says which callback gets one, or which
#                  subscriptions/listen it acknowledges. Delivered notifications
#                  go to their callbacks in the order they arrived, from one task,
#                  so a slow async callback delays the next but never reorders them.
#   lists          Cursors stops a walk whose server repeats a cursor.

from __future__ import annotations

import inspect
import math
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from functools import partial
from types import TracebackType
from typing import TYPE_CHECKING, Any, Literal, TypeVar, overload

import anyio
import msgspec
from anyio.abc import TaskGroup
from msgspec import UNSET

from mcp_core import (
    REVISIONS,
    ClientConfig,
    ClientSession,
    Limits,
    McpError,
    SessionState,
    __version__,
)
from mcp_core.apps import View, ViewError, declare_apps, read_view, view_uri
from mcp_core.client import (
    Acknowledged,
    Call,
    Callbacks,
    Cursors,
    ElicitationCallback,
    ElicitationCompleteCallback,
    InputRounds,
    LogCallback,
    NotificationCallback,
    OutputSchemas,
    Reply,
    RootsCallback,
    SamplingCallback,
    requests,
)
from mcp_core.client.skills import SkillCache, with_skills
from mcp_core.client.tasks import TaskState, task_call, tasks_refused
from mcp_core.extensions import with_extension
from mcp_core.session import (
    ErrorReceived,
    Event,
    HandshakeCompleted,
    NotificationReceived,
    ProtocolViolation,
    RequestReceived,
)
from mcp_core.session.base import CLIENT_CAPABILITIES_KEY
from mcp_core.session.requests import with_meta
from mcp_core.types import (
    CallToolResult,
    ClientCapabilities,
    CompleteResult,
    GetPromptResult,
    Implementation,
    InputRequiredResult,
    ListPromptsResult,
    ListResourcesResult,
    ListResourceTemplatesResult,
    ListToolsResult,
    Prompt,
    PromptReference,
    ReadResourceResult,
    Resource,
    ResourceTemplate,
    ResourceTemplateReference,
    Root,
    SubscriptionFilter,
    Tool,
)
from mcp_core.wire import DEFAULT_LIMITS, RequestId

from .client_skills import Skills
from .client_tasks import TaskHandle
from .driver import DEFAULT_MAX_CONCURRENCY, ConnectionClosed, Driver, ProgressCallback, _now
from .telemetry import hooks

if TYPE_CHECKING:
    from .http.oauth import OAuth

__all__ = ["Client", "Connector", "Subscription", "TaskHandle"]

_T = TypeVar("_T")
_R = TypeVar("_R")

Connector = Callable[[Driver], AbstractAsyncContextManager[Any]]
"""A transport: wires the driver to a server for as long as the context is entered."""


async def _maybe_await(value: Any) -> Any:
    if inspect.isawaitable(value):
        return await value
    return value


class Subscription:
    """An open 2026-07-28 ``subscriptions/listen`` stream.

    Attributes:
        id: the listen request's id, which tags every notification of the stream.
        granted: what the server agreed to send (its acknowledgement).
    """

    def __init__(self, request_id: RequestId, granted: SubscriptionFilter) -> None:
        self.id = request_id
        self.granted = granted


class Client:
    """An MCP client on one connection.

    Use it with ``async with``; the handshake (or 2026-07-28 discovery) is done on
    entry, and every pending call fails with ConnectionClosed on exit.

    Args:
        connector: the transport (`transports.memory.pipe(server)`,
            `stdio_connector(argv)`, `http_connector(url)`...), or the URL of
            an MCP server on HTTP (``http://`` or ``https://``), which means
            ``http_connector(url)``: streamable HTTP of either era, falling back to
            the HTTP+SSE transport of 2024-11-05.
        name: our ``clientInfo.name``.
        version: our ``clientInfo.version``.
        revisions: protocol revisions we speak (default all: both eras).
        sampling: answers ``sampling/createMessage``: ``fn(params)`` returning a
            CreateMessageResult (or a dict of one), maybe async.
        sampling_tools: ``sampling`` handles ``params.tools`` and
            ``params.tool_choice`` (it may answer with ``tool_use`` content):
            declares ``sampling.tools``. Without it a request with tools is
            refused (-32602) and servers must not send one.
        elicitation: answers form-mode ``elicitation/create``: ``fn(params)``
            returning an ElicitResult (or a dict).
        elicitation_url: answers URL-mode ``elicitation/create`` (declares
            ``elicitation.url``): ``fn(params)`` shows ``params.url`` and asks
            the user's consent before opening it; returns an ElicitResult
            ("accept" once opened).
        roots: answers ``roots/list``: ``fn()`` returning a list of Root (or
            ListRootsResult), or the list of roots itself; see `set_roots`.
        log_level: the least severe log level wanted from the server: sent with
            ``logging/setLevel`` after the handshake (up to 2025-11-25, when the
            server offers logging), or in every request's ``_meta`` (2026-07-28).
        on_log: receives each ``notifications/message`` params.
        on_elicitation_complete: receives the id of each URL-mode elicitation
            the server says is done (``notifications/elicitation/complete``).
        on_notification: receives ``(method, params)`` of every other server
            notification (list changes, resource updates, ...).
        apps: declare MCP Apps (``io.modelcontextprotocol/ui`` with
            ``text/html;profile=mcp-app``): this client renders views; see
            `read_view` and `mcp_core.apps`.
        extensions: other extensions to declare (SEP-2133): identifier ->
            settings (``{}``: supported, no settings).
        timeout: default seconds a request may take (None: no limit).
        handshake_timeout: seconds the opening may take.
        probe_timeout: seconds to wait for a server/discover answer before
            treating the server as legacy.
        limits: message size and nesting limits.
        max_concurrency: server requests (legacy) served at once.
        auth: OAuth (`transports.http.oauth.OAuth`) for a ``connector`` that is a
            URL; give a ``handshake_timeout`` that allows for the user's login.
        skills: declare the skills extension (SEP-2640) and use it through
            `skills` (`transports.client_skills.Skills`).
        skill_cache: where `skills` keeps listings, entries and verified files
            (a `mcp_core.client.skills.SkillCache`; one of its own by default;
            several clients may share one, "public" results then being shared).
    """

    def __init__(
        self,
        connector: Connector | str,
        *,
        name: str = "mcp-core",
        version: str = __version__,
        revisions: tuple[str, ...] = REVISIONS,
        sampling: SamplingCallback | None = None,
        sampling_tools: bool = False,
        elicitation: ElicitationCallback | None = None,
        elicitation_url: ElicitationCallback | None = None,
        roots: RootsCallback | Sequence[Root | dict[str, Any]] | None = None,
        log_level: str | None = None,
        on_log: LogCallback | None = None,
        on_elicitation_complete: ElicitationCompleteCallback | None = None,
        on_notification: NotificationCallback | None = None,
        apps: bool = False,
        extensions: Mapping[str, Mapping[str, Any]] | None = None,
        timeout: float | None = None,
        handshake_timeout: float = 30.0,
        probe_timeout: float = 10.0,
        limits: Limits = DEFAULT_LIMITS,
        max_concurrency: int = DEFAULT_MAX_CONCURRENCY,
        auth: OAuth | None = None,
        skills: bool = False,
        skill_cache: SkillCache | None = None,
    ) -> None:
        if isinstance(connector, str):
            from .http.client import http_connector

            connector = http_connector(connector, auth=auth)  # ValueError for a bad URL
        elif auth is not None:
            raise ValueError("auth= goes with a URL; give it to http_connector instead")
        self._connector: Connector = connector
        self._callbacks = callbacks = Callbacks(
            sampling=sampling,
            sampling_tools=sampling_tools,
            elicitation=elicitation,
            elicitation_url=elicitation_url,
            roots=roots,
            on_log=on_log,
            on_elicitation_complete=on_elicitation_complete,
            on_notification=on_notification,
        )
        self._outputs = OutputSchemas()
        self.declares_skills = skills
        #: The skills extension (SEP-2640): list, get, load and verify.
        self.skills = Skills(self, skill_cache)
        capabilities = callbacks.capabilities()
        if skills:
            capabilities = with_skills(capabilities)
        self.timeout = timeout
        self._handshake_timeout = handshake_timeout
        self._probe_timeout = probe_timeout
        self._max_concurrency = max_concurrency
        self.session = ClientSession(
            ClientConfig(
                client_info=Implementation(name=name, version=version),
                capabilities=capabilities,
                revisions=revisions,
            ),
            limits,
        )
        # 2026-07-28: the level rides in every request's _meta, the opening's too.
        self.session.log_level = log_level
        config = self.session.config
        declared = declare_apps(config.capabilities) if apps else config.capabilities
        for extension, settings in (extensions or {}).items():
            declared = with_extension(declared, extension, settings)
        if declared is not config.capabilities:
            self.session.config = msgspec.structs.replace(config, capabilities=declared)
        #: What the connector gave once connected (the HTTP endpoint, the stdio
        #: process), for telemetry to say where the client talks to.
        self.transport: Any = None
        self._driver: Driver | None = None
        self._stack: AsyncExitStack | None = None
        self._ready = anyio.Event()
        self._failure: BaseException | None = None
        self._notes: Any = None
        self._listening: dict[RequestId, _Listening] = {}
        observer = hooks.client
        if observer is not None:  # before the session sends or hears anything
            observer.observe(self)

    # --- lifetime ---------------------------------------------------------------------

    async def __aenter__(self) -> Client:
        if self._stack is not None:
            raise RuntimeError("a Client is entered once")
        stack = self._stack = AsyncExitStack()
        await stack.__aenter__()
        try:
            tg = await stack.enter_async_context(anyio.create_task_group())
            stack.callback(tg.cancel_scope.cancel)
            self._driver = driver = Driver(
                self.session,
                tg,
                handle_request=self._serve,
                handle_event=self._on_event,
                max_concurrency=self._max_concurrency,
            )
            driver.on_close(self._closed_early)
            if self._callbacks.notified:
                self._start_notes(tg)
            self.transport = await stack.enter_async_context(self._connector(driver))
            stack.callback(driver.close, "the client was closed")
            await self._open(driver)
            observer = hooks.client
            if observer is not None:
                stack.callback(observer.session_started(self), None)
        except BaseException:
            await _unwind(stack)
            raise
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        # The exception (the handshake's, or the caller's from the block) is not our
        # tasks' business: handing it to our task groups would only wrap it in an
        # ExceptionGroup, and `except McpError` around the block would miss it.
        assert self._stack is not None
        await _unwind(self._stack)

    async def _open(self, driver: Driver) -> None:
        # The driver's clock, which keeps the session's deadlines; not anyio's
        # (trio's clock has an origin of its own).
        self.session.start(_now(), timeout=self._probe_timeout)
        driver.flush()
        driver.watch_deadlines()
        with anyio.fail_after(self._handshake_timeout):
            await self._ready.wait()
        if self._failure is not None:
            raise self._failure
        level = self.session.log_level
        if level is not None and self.session.can_send(requests.SET_LEVEL):
            await self.set_logging_level(level)

    @property
    def era(self) -> str:
        """ "legacy" (handshake, 2024-11-05..2025-11-25) or "modern" (2026-07-28)."""
        return self.session.era or "unknown"

    @property
    def revision(self) -> str | None:
        """The protocol revision in use."""
        return self.session.revision

    @property
    def server_info(self) -> Implementation | None:
        """The server's name and version, as it told us."""
        return self.session.server_info

    @property
    def server_capabilities(self) -> Any:
        """What the server offers (a ServerCapabilities)."""
        return self.session.server_capabilities

    @property
    def instructions(self) -> str | None:
        """The server's instructions for the model, if any."""
        return self.session.instructions

    # --- events from the session ------------------------------------------------------

    def _closed_early(self, reason: str) -> None:
        # The connection ended before the handshake finished (the server exited).
        if not self._ready.is_set():
            error = self._driver.close_error if self._driver is not None else None
            self._failure = error or ConnectionClosed(f"handshake failed: {reason}")
            self._ready.set()

    def _on_event(self, event: Event) -> None:
        if type(event) is NotificationReceived:
            self._notification(event)
        elif type(event) is HandshakeCompleted:
            self._ready.set()
        elif self.session.state is SessionState.ERROR and not self._ready.is_set():
            # The opening broke the session (initialize or server/discover refused,
            # or its answer unreadable): the session says so, and the event why.
            if type(event) is ErrorReceived:
                error = event.error
                data = None if error.data is UNSET else error.data
                self._failure = McpError(error.code, f"handshake failed: {error.message}", data)
                self._ready.set()
            elif type(event) is ProtocolViolation:
                self._failure = McpError(event.code, f"handshake failed: {event.message}")
                self._ready.set()

    def _notification(self, event: NotificationReceived) -> None:
        decision = self._callbacks.deliver(event.method, event.params)
        if decision is None:
            return
        if isinstance(decision, Acknowledged):
            listening = self._listening.get(decision.subscription_id)
            if listening is not None:
                listening.granted = decision.granted
                listening.settled.set()
            return
        self._notes.send_nowait((decision.callback, decision.args))

    def _start_notes(self, tg: TaskGroup) -> None:
        send, receive = anyio.create_memory_object_stream[
            tuple[Callable[..., Any], tuple[Any, ...]]
        ](math.inf)
        self._notes = send

        async def deliver() -> None:
            async for callback, args in receive:
                await _maybe_await(callback(*args))

        tg.start_soon(deliver)

    # --- what the server asks of us ---------------------------------------------------

    async def _serve(self, event: RequestReceived) -> Any:
        # Legacy server-to-client requests; the session refused what we did not declare.
        observer = hooks.client
        if observer is None:
            return await _run(self._callbacks.answer(event.method, event.params))
        return await observer.answer(self, event, self._answer(event))

    async def _answer(self, event: RequestReceived) -> Any:
        # Inside the observer's span: a method we do not serve is its error too.
        return await _run(self._callbacks.answer(event.method, event.params))

    # --- requests ---------------------------------------------------------------------

    @property
    def driver(self) -> Driver:
        if self._driver is None:
            raise RuntimeError("use the Client inside `async with`")
        return self._driver

    async def request(
        self,
        method: str,
        params: Any = UNSET,
        *,
        timeout: float | None = None,
        on_progress: ProgressCallback | None = None,
    ) -> Any:
        """Send any request and return its typed result (no multi round-trip handling).

        Raises:
            McpError: the server answered with an error.
            TimeoutError: no answer in time.
            ConnectionClosed: the connection ended first.
        """
        if timeout is None:
            timeout = self.timeout
        observer = hooks.client
        try:
            if observer is None:
                return await self.driver.request(
                    method, params, timeout=timeout, on_progress=on_progress
                )
            send = partial(self.driver.request, method, timeout=timeout, on_progress=on_progress)
            return await observer.request(self, method, params, send)
        except McpError as exc:
            # -32042 (2025-11-25): a distinct error, with the elicitations to show.
            required = self._callbacks.url_required(exc)
            if required is None:
                raise
            raise required from None

    async def _call(
        self,
        call: Call[_R],
        timeout: float | None = None,
        on_progress: ProgressCallback | None = None,
    ) -> _R:
        result: Any = await self.request(
            call.method, call.params, timeout=timeout, on_progress=on_progress
        )
        if type(result) is InputRequiredResult:
            rounds = InputRounds(call)
            while type(result) is InputRequiredResult:
                asks = rounds.input_required(result)
                callbacks = self._callbacks
                answers = {
                    key: await _run(callbacks.answer_input(ask)) for key, ask in asks.items()
                }
                retry = rounds.retry(answers)
                result = await self.request(
                    retry.method, retry.params, timeout=timeout, on_progress=on_progress
                )
        return result  # type: ignore[no-any-return]

    @overload
    async def call_tool(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        timeout: float | None = None,
        on_progress: ProgressCallback | None = None,
        task: Literal[False] = False,
        ttl_ms: int | None = None,
        capabilities: ClientCapabilities | None = None,
    ) -> CallToolResult: ...

    @overload
    async def call_tool(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        timeout: float | None = None,
        on_progress: ProgressCallback | None = None,
        task: Literal[True],
        ttl_ms: int | None = None,
        capabilities: ClientCapabilities | None = None,
    ) -> TaskHandle: ...

    async def call_tool(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        timeout: float | None = None,
        on_progress: ProgressCallback | None = None,
        task: bool = False,
        ttl_ms: int | None = None,
        capabilities: ClientCapabilities | None = None,
    ) -> CallToolResult | TaskHandle:
        """Call a tool. A failing tool is a result with ``is_error``, not an exception.

        Args:
            task: return a `TaskHandle` (see mcp_core/client/tasks.py): in
                2025-11-25 the call asks for a task (``params.task``, with
                ``ttl_ms``); in 2026-07-28 the call declares the tasks extension
                and the server decides. Without it, a 2026-07-28 call does not
                declare the extension (a tool with optional task support answers
                inline); one the server turns into a task anyway (2025-11-25), or
                that a task-only tool refuses (-32021, then sent again declaring
                the extension), is followed to its end here.
            timeout: seconds each request may take (the call, each poll).
            capabilities: what this call declares (2026-07-28, in its own
                ``_meta``) instead of the client's capabilities: a gateway
                forwards its own client's (see `declaring`).

        Raises:
            McpError: a protocol error (unknown tool, invalid params...), or a
                task that failed with one.
            UrlElicitationRequiredError: the server needs the user to complete
                URL-mode elicitations first (2025-11-25, -32042); retry after.
            ToolOutputError: the tool was listed with an ``outputSchema`` and
                its ``structuredContent`` is missing or does not match it.
        """

        def call(as_task: bool) -> Call[CallToolResult]:
            made = task_call(
                name,
                arguments,
                task=as_task,
                revision=self.revision,
                ttl_ms=ttl_ms,
                capabilities=capabilities or self.session.config.capabilities,
            )
            return made if as_task else self.declaring(made, capabilities)

        try:
            result: Any = await self._call(call(task), timeout, on_progress)
        except McpError as exc:
            if task or not tasks_refused(exc):
                raise
            # A tool that runs only as a task refused the plain call (it did not
            # run): once more, declaring the tasks extension, and follow the task.
            result = await self._call(call(True), timeout, on_progress)
        if type(result) is CallToolResult and not task:
            return self._outputs.check(name, result)
        handle = TaskHandle(self, TaskState.of(result), timeout)
        if task:
            return handle
        return self._outputs.check(name, await handle.result())

    async def _answer_input(self, ask: Any) -> Any:
        return await _run(self._callbacks.answer_input(ask))

    async def read_resource(self, uri: str, *, timeout: float | None = None) -> ReadResourceResult:
        """Read a resource by URI."""
        return await self._call(requests.read_resource(uri), timeout)

    async def read_view(self, tool: Tool | str, *, timeout: float | None = None) -> View:
        """Read the MCP Apps view of ``tool`` (a listed Tool, or a view's
        ``ui://`` URI): its HTML and the sandbox it asks for
        (`mcp_core.apps.View`).

        Raises:
            ViewError: the tool names no view, or the server's answer is not a
                view (URI scheme, MIME type, contents).
        """
        uri = tool if isinstance(tool, str) else view_uri(tool)
        if uri is None:
            raise ViewError(f"the tool {tool.name!r} has no view")  # type: ignore[union-attr]
        return read_view(await self.read_resource(uri, timeout=timeout), uri)

    async def get_prompt(
        self,
        name: str,
        arguments: Mapping[str, str] | None = None,
        *,
        timeout: float | None = None,
        capabilities: ClientCapabilities | None = None,
    ) -> GetPromptResult:
        """Get a prompt, with its arguments filled in (``capabilities``: as for
        `call_tool`)."""
        call = self.declaring(requests.get_prompt(name, arguments), capabilities)
        return await self._call(call, timeout)

    def declaring(self, call: Call[_R], capabilities: ClientCapabilities | None) -> Call[_R]:
        """``call`` declaring ``capabilities`` in its own ``_meta`` instead of
        the session's (2026-07-28 basic/index.mdx: a request's capabilities
        travel in its ``_meta``, and a server asks for input only within them),
        its retries too; unchanged in the handshake era, whose capabilities are
        the session's, or without ``capabilities``."""
        if capabilities is None or self.session.era != "modern":
            return call
        params = with_meta(call.params, {CLIENT_CAPABILITIES_KEY: capabilities})
        return Call(call.method, params, call.result_type)

    async def complete(
        self,
        ref: PromptReference | ResourceTemplateReference,
        argument: str,
        value: str,
        *,
        context: Mapping[str, str] | None = None,
    ) -> CompleteResult:
        """Ask for completions of one argument of a prompt or resource template."""
        return await self._send(requests.complete(ref, argument, value, context))

    async def ping(self) -> None:
        """Check the server is alive (legacy era; 2026-07-28 has no ping)."""
        await self._send(requests.ping())

    async def _send(self, call: Call[_R]) -> _R:
        # A request that cannot need input: no multi round-trip loop.
        result: _R = await self.request(call.method, call.params)
        return result

    async def set_logging_level(self, level: str) -> None:
        """Ask for log messages of ``level`` and above.

        Legacy: sends logging/setLevel. Modern: every later request carries the
        level in its ``_meta``.
        """
        request_id = self.session.set_log_level(level)
        if request_id is None:
            return
        # set_log_level queued the request itself; wait for its answer.
        await self.driver.wait_for(request_id, timeout=self.timeout)

    async def set_roots(self, roots: Sequence[Root | dict[str, Any]]) -> None:
        """Answer ``roots/list`` with ``roots`` from now on, and tell the server
        they changed (``notifications/roots/list_changed``, up to 2025-11-25; a
        2026-07-28 server asks for roots within each request anyway).

        Raises:
            RuntimeError: the client was made without ``roots=``, so it declared
                no roots capability.
        """
        callbacks = self._callbacks
        if callbacks.roots is None:
            raise RuntimeError("this client declared no roots: pass roots=[...] to Client")
        callbacks.set_roots(roots)
        self.roots_changed()

    def roots_changed(self) -> bool:
        """Tell the server that the roots changed (``notifications/roots/list_changed``)
        where its revision has the notification (up to 2025-11-25) and the client
        declared roots; a 2026-07-28 server asks for roots within each request.

        Returns:
            Whether the notification was sent.
        """
        method = self._callbacks.roots_changed(self.session.revision)
        if method is None or self._driver is None or self._driver.closed:
            return False
        self.session.send_notification(method)
        self._driver.flush()
        return True

    # --- lists ------------------------------------------------------------------------

    async def list_tools(self, cursor: str | None = None) -> ListToolsResult:
        """One page of tools; pass ``next_cursor`` back for the next."""
        page = await self._send(requests.list_tools(cursor))
        self._outputs.learn(page)
        return page

    async def list_resources(self, cursor: str | None = None) -> ListResourcesResult:
        """One page of resources."""
        return await self._send(requests.list_resources(cursor))

    async def list_resource_templates(
        self, cursor: str | None = None
    ) -> ListResourceTemplatesResult:
        """One page of resource templates."""
        return await self._send(requests.list_resource_templates(cursor))

    async def list_prompts(self, cursor: str | None = None) -> ListPromptsResult:
        """One page of prompts."""
        return await self._send(requests.list_prompts(cursor))

    async def _walk(
        self, fetch: Callable[[str | None], Awaitable[_R]], items: Callable[[_R], list[_T]]
    ) -> AsyncIterator[_T]:
        cursors = Cursors()
        cursor: str | None = None
        while True:
            page = await fetch(cursor)
            for item in items(page):
                yield item
            cursor = cursors.follow(page)
            if cursor is None:
                return

    def iter_tools(self) -> AsyncIterator[Tool]:
        """Every tool, walking all pages."""
        return self._walk(self.list_tools, lambda page: page.tools)

    def iter_resources(self) -> AsyncIterator[Resource]:
        """Every resource, walking all pages."""
        return self._walk(self.list_resources, lambda page: page.resources)

    def iter_resource_templates(self) -> AsyncIterator[ResourceTemplate]:
        """Every resource template, walking all pages."""
        return self._walk(self.list_resource_templates, lambda page: page.resource_templates)

    def iter_prompts(self) -> AsyncIterator[Prompt]:
        """Every prompt, walking all pages."""
        return self._walk(self.list_prompts, lambda page: page.prompts)

    # --- change notifications ---------------------------------------------------------

    async def subscribe(self, uri: str) -> None:
        """Ask for ``notifications/resources/updated`` about ``uri`` (legacy era)."""
        await self._send(requests.subscribe(uri))

    async def unsubscribe(self, uri: str) -> None:
        """Stop updates about ``uri`` (legacy era)."""
        await self._send(requests.unsubscribe(uri))

    @asynccontextmanager
    async def listen(
        self,
        *,
        tools: bool = False,
        prompts: bool = False,
        resources: bool = False,
        resource_uris: list[str] | None = None,
    ) -> AsyncIterator[Subscription]:
        """Open a 2026-07-28 ``subscriptions/listen`` stream for as long as the block runs.

        Notifications arrive at ``on_notification``; leaving the block cancels
        the stream. Yields once the server has acknowledged it. Should the
        server end the stream (shutting down, it answers the listen request:
        2026-07-28 basic/patterns/subscriptions.mdx "Graceful Closure"), the
        block is cancelled and ends without an error; should the stream fail
        (its connection broke for good), the block is cancelled and the failure
        raised out of it.
        """
        call = requests.listen(
            tools=tools, prompts=prompts, resources=resources, resource_uris=resource_uris
        )
        listening = _Listening()

        def sent(request_id: RequestId) -> None:
            listening.id = request_id
            self._listening[request_id] = listening

        async def run() -> None:
            # The request stays open while the stream lives; it ends when the server
            # ends the subscription, or with the cancellation below.
            try:
                await self.driver.request(call.method, call.params, sent=sent)
            except Exception as exc:
                if listening.settled.is_set():
                    # Broke once open (the connection died): end the block with it.
                    listening.broken = exc
                    tg.cancel_scope.cancel()
                listening.error = exc
            else:
                if listening.settled.is_set():
                    tg.cancel_scope.cancel()  # ended by the server: the block ends too
            listening.settled.set()

        async with anyio.create_task_group() as tg:
            tg.start_soon(run)
            try:
                await listening.settled.wait()
                if listening.error is not None:
                    raise listening.error
                assert listening.id is not None
                yield Subscription(listening.id, listening.granted or call.params.notifications)
            finally:
                if listening.id is not None:
                    self._listening.pop(listening.id, None)
                tg.cancel_scope.cancel()
        if listening.broken is not None:
            raise listening.broken


class _Listening:
    """A subscriptions/listen request on its way to being acknowledged."""

    def __init__(self) -> None:
        self.settled = anyio.Event()
        self.id: RequestId | None = None
        self.granted: SubscriptionFilter | None = None
        self.error: BaseException | None = None
        self.broken: BaseException | None = None


async def _unwind(stack: AsyncExitStack) -> None:
    # contextlib's exit stacks (CPython 3.11) link an exception to itself when an
    # exit callback re-raises the exception an earlier one raised while another is
    # being handled, as our task group does when the connector's exit raises a
    # native cancellation (a Ctrl-C under asyncio). The next exit stack up would then
    # follow that __context__ chain forever, at full CPU, and never shut the server
    # down. Cut the loop on the way out.
    try:
        await stack.__aexit__(None, None, None)
    except BaseException as exc:
        seen = {id(exc)}
        link = exc
        while (context := link.__context__) is not None:
            if id(context) in seen:
                link.__context__ = None
                break
            seen.add(id(context))
            link = context
        raise


async def _run(reply: Reply) -> Any:
    value = reply.callback(*reply.args)
    if inspect.isawaitable(value):
        value = await value
    return reply.finish(value)
