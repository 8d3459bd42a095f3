# The async MCP client: one connection to one server, either era.
#
# Theory of operation. A Client owns a ClientSession and a Driver; a connector (the
# transport) wires the driver to the server. Entering the client opens the
# session the way mcp_core's ClientSession.start() decides (probe with
# server/discover, fall back to initialize) and waits for HandshakeCompleted.
#
# What the server may ask of us is answered by callbacks given to the Client, the
# same callbacks in both eras:
#
#   legacy  the server sends sampling/createMessage, elicitation/create or
#           roots/list as requests; the driver runs the callback in a task and
#           sends its result back.
#   modern  (2026-07-28 basic/patterns/mrtr.mdx) tools/call, prompts/get and
#           resources/read may answer with an InputRequiredResult. The client runs
#           the callbacks for its inputRequests and retries with inputResponses and
#           the same requestState (a new id each time), until the result is final.
#
# Capabilities follow the callbacks: sampling, elicitation (form) and roots are
# declared exactly when their callback is given.
#
# Notifications (log messages, list changes, resource updates) go to their
# callbacks in the order they arrived, from one task, so a slow async callback
# delays the next but never reorders them.

from __future__ import annotations

import inspect
import math
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from types import TracebackType
from typing import Any, Final, TypeVar

import anyio
import msgspec
from anyio.abc import TaskGroup
from msgspec import UNSET, UnsetType

from mcp_core import (
    REVISIONS,
    ClientConfig,
    ClientSession,
    Limits,
    McpError,
    SessionState,
    __version__,
)
from mcp_core.session import (
    ErrorReceived,
    Event,
    HandshakeCompleted,
    NotificationReceived,
    ProtocolViolation,
    RequestReceived,
)
from mcp_core.types import (
    CallToolRequestParams,
    CallToolResult,
    ClientCapabilities,
    CompleteRequestParams,
    CompleteResult,
    CompletionArgument,
    CompletionContext,
    CreateMessageRequestParams,
    CreateMessageResult,
    ElicitationCapability,
    ElicitRequestParams,
    ElicitResult,
    GetPromptRequestParams,
    GetPromptResult,
    Implementation,
    InputRequest,
    InputRequiredResult,
    ListPromptsResult,
    ListResourcesResult,
    ListResourceTemplatesResult,
    ListRootsResult,
    ListToolsResult,
    LoggingMessageNotificationParams,
    PaginatedRequestParams,
    Prompt,
    PromptReference,
    ReadResourceRequestParams,
    ReadResourceResult,
    Resource,
    ResourceTemplate,
    ResourceTemplateReference,
    Root,
    RootsCapability,
    SamplingCapability,
    SubscribeRequestParams,
    SubscriptionFilter,
    SubscriptionsListenRequestParams,
    Tool,
    UnsubscribeRequestParams,
)
from mcp_core.wire import DEFAULT_LIMITS, INTERNAL_ERROR, METHOD_NOT_FOUND, RequestId

from .driver import DEFAULT_MAX_CONCURRENCY, ConnectionClosed, Driver, ProgressCallback, _now

__all__ = ["Client", "Connector", "Subscription"]

_T = TypeVar("_T")
_R = TypeVar("_R")

Connector = Callable[[Driver], AbstractAsyncContextManager[Any]]
"""A transport: wires the driver to a server for as long as the context is entered."""

SamplingCallback = Callable[[CreateMessageRequestParams], Any]
ElicitationCallback = Callable[[ElicitRequestParams], Any]
RootsCallback = Callable[[], Any]
LogCallback = Callable[[LoggingMessageNotificationParams], Any]
NotificationCallback = Callable[[str, Any], Any]

_Note = tuple[Callable[..., Any], tuple[Any, ...]]

MAX_INPUT_ROUNDS: Final = 32
"""Multi round-trip retries of one call before the client gives up."""


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
        elicitation: answers form-mode ``elicitation/create``: ``fn(params)``
            returning an ElicitResult (or a dict).
        roots: answers ``roots/list``: ``fn()`` returning a list of Root (or
            ListRootsResult).
        on_log: receives each ``notifications/message`` params.
        on_notification: receives ``(method, params)`` of every other server
            notification (list changes, resource updates, ...).
        timeout: default seconds a request may take (None: no limit).
        handshake_timeout: seconds the opening may take.
        probe_timeout: seconds to wait for a server/discover answer before
            treating the server as legacy.
        limits: message size and nesting limits.
        max_concurrency: server requests (legacy) served at once.
    """

    def __init__(
        self,
        connector: Connector | str,
        *,
        name: str = "mcp-core",
        version: str = __version__,
        revisions: tuple[str, ...] = REVISIONS,
        sampling: SamplingCallback | None = None,
        elicitation: ElicitationCallback | None = None,
        roots: RootsCallback | None = None,
        on_log: LogCallback | None = None,
        on_notification: NotificationCallback | None = None,
        timeout: float | None = None,
        handshake_timeout: float = 30.0,
        probe_timeout: float = 10.0,
        limits: Limits = DEFAULT_LIMITS,
        max_concurrency: int = DEFAULT_MAX_CONCURRENCY,
    ) -> None:
        if isinstance(connector, str):
            from .http.client import http_connector

            connector = http_connector(connector)  # ValueError for a bad URL
        self._connector: Connector = connector
        self._sampling = sampling
        self._elicitation = elicitation
        self._roots = roots
        self._on_log = on_log
        self._on_notification = on_notification
        self.timeout = timeout
        self._handshake_timeout = handshake_timeout
        self._probe_timeout = probe_timeout
        self._max_concurrency = max_concurrency
        capabilities = ClientCapabilities(
            sampling=SamplingCapability() if sampling is not None else UNSET,
            elicitation=ElicitationCapability(form={}) if elicitation is not None else UNSET,
            roots=RootsCapability(list_changed=True) if roots is not None else UNSET,
        )
        self.session = ClientSession(
            ClientConfig(
                client_info=Implementation(name=name, version=version),
                capabilities=capabilities,
                revisions=revisions,
            ),
            limits,
        )
        self._driver: Driver | None = None
        self._stack: AsyncExitStack | None = None
        self._ready = anyio.Event()
        self._failure: BaseException | None = None
        self._notes: Any = None
        self._listening: dict[RequestId, _Listening] = {}

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
            if self._on_log is not None or self._on_notification is not None:
                self._start_notes(tg)
            await stack.enter_async_context(self._connector(driver))
            stack.callback(driver.close, "the client was closed")
            await self._open(driver)
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
        method = event.method
        if method == "notifications/subscriptions/acknowledged":
            meta = event.params.meta if not isinstance(event.params.meta, UnsetType) else {}
            subscription_id = meta.get("io.modelcontextprotocol/subscriptionId")
            listening = (
                self._listening.get(subscription_id) if subscription_id is not None else None
            )
            if listening is not None:
                listening.granted = event.params.notifications
                listening.settled.set()
            return
        if method == "notifications/message":
            if self._on_log is not None:
                self._notes.send_nowait((self._on_log, (event.params,)))
        elif self._on_notification is not None:
            self._notes.send_nowait((self._on_notification, (method, event.params)))

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
        return await self._answer(event.method, event.params)

    async def _answer(self, method: str, params: Any) -> Any:
        if method == "sampling/createMessage" and self._sampling is not None:
            value = await _maybe_await(self._sampling(params))
            return _as(value, CreateMessageResult)
        if method == "elicitation/create" and self._elicitation is not None:
            value = await _maybe_await(self._elicitation(params))
            return _as(value, ElicitResult)
        if method == "roots/list" and self._roots is not None:
            value = await _maybe_await(self._roots())
            if isinstance(value, ListRootsResult):
                return value
            return ListRootsResult(roots=[_as(root, Root) for root in value])
        raise McpError(METHOD_NOT_FOUND, f"this client does not handle {method}")

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
        return await self.driver.request(
            method,
            params,
            timeout=self.timeout if timeout is None else timeout,
            on_progress=on_progress,
        )

    async def _with_input(
        self,
        method: str,
        params: Any,
        timeout: float | None,
        on_progress: ProgressCallback | None,
    ) -> Any:
        result = await self.request(method, params, timeout=timeout, on_progress=on_progress)
        rounds = 0
        while type(result) is InputRequiredResult:
            rounds += 1
            if rounds > MAX_INPUT_ROUNDS:
                raise McpError(
                    INTERNAL_ERROR, f"{method} still needs input after {MAX_INPUT_ROUNDS} rounds"
                )
            responses: dict[str, Any] = {}
            requests: Mapping[str, InputRequest] = (
                {} if isinstance(result.input_requests, UnsetType) else result.input_requests
            )
            for key, input_request in requests.items():
                method_of = type(input_request).__struct_config__.tag
                params_of = getattr(input_request, "params", UNSET)
                answer = await self._answer(str(method_of), params_of)
                responses[key] = msgspec.to_builtins(answer)
            params = msgspec.structs.replace(
                params,
                input_responses=responses if responses else UNSET,
                request_state=result.request_state,
            )
            result = await self.request(method, params, timeout=timeout, on_progress=on_progress)
        return result

    async def call_tool(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        timeout: float | None = None,
        on_progress: ProgressCallback | None = None,
    ) -> CallToolResult:
        """Call a tool. A failing tool is a result with ``is_error``, not an exception.

        Raises:
            McpError: a protocol error (unknown tool, invalid params...).
        """
        params = CallToolRequestParams(
            name=name, arguments=UNSET if arguments is None else dict(arguments)
        )
        result: CallToolResult = await self._with_input("tools/call", params, timeout, on_progress)
        return result

    async def read_resource(self, uri: str, *, timeout: float | None = None) -> ReadResourceResult:
        """Read a resource by URI."""
        params = ReadResourceRequestParams(uri=uri)
        result: ReadResourceResult = await self._with_input("resources/read", params, timeout, None)
        return result

    async def get_prompt(
        self,
        name: str,
        arguments: Mapping[str, str] | None = None,
        *,
        timeout: float | None = None,
    ) -> GetPromptResult:
        """Get a prompt, with its arguments filled in."""
        params = GetPromptRequestParams(
            name=name, arguments=UNSET if arguments is None else dict(arguments)
        )
        result: GetPromptResult = await self._with_input("prompts/get", params, timeout, None)
        return result

    async def complete(
        self,
        ref: PromptReference | ResourceTemplateReference,
        argument: str,
        value: str,
        *,
        context: Mapping[str, str] | None = None,
    ) -> CompleteResult:
        """Ask for completions of one argument of a prompt or resource template."""
        params = CompleteRequestParams(
            ref=ref,
            argument=CompletionArgument(name=argument, value=value),
            context=UNSET if context is None else CompletionContext(arguments=dict(context)),
        )
        result: CompleteResult = await self.request("completion/complete", params)
        return result

    async def ping(self) -> None:
        """Check the server is alive (legacy era; 2026-07-28 has no ping)."""
        await self.request("ping")

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

    # --- lists ------------------------------------------------------------------------

    async def _page(self, method: str, cursor: str | None) -> Any:
        params = PaginatedRequestParams(cursor=UNSET if cursor is None else cursor)
        return await self.request(method, params)

    async def list_tools(self, cursor: str | None = None) -> ListToolsResult:
        """One page of tools; pass ``next_cursor`` back for the next."""
        result: ListToolsResult = await self._page("tools/list", cursor)
        return result

    async def list_resources(self, cursor: str | None = None) -> ListResourcesResult:
        """One page of resources."""
        result: ListResourcesResult = await self._page("resources/list", cursor)
        return result

    async def list_resource_templates(
        self, cursor: str | None = None
    ) -> ListResourceTemplatesResult:
        """One page of resource templates."""
        result: ListResourceTemplatesResult = await self._page("resources/templates/list", cursor)
        return result

    async def list_prompts(self, cursor: str | None = None) -> ListPromptsResult:
        """One page of prompts."""
        result: ListPromptsResult = await self._page("prompts/list", cursor)
        return result

    async def _walk(
        self, fetch: Callable[[str | None], Awaitable[_R]], items: Callable[[_R], list[_T]]
    ) -> AsyncIterator[_T]:
        cursor: str | None = None
        seen: set[str] = set()
        while True:
            page = await fetch(cursor)
            for item in items(page):
                yield item
            next_cursor = page.next_cursor  # type: ignore[attr-defined]
            if isinstance(next_cursor, UnsetType) or next_cursor is None:
                return
            if next_cursor in seen:
                raise McpError(INTERNAL_ERROR, f"the server repeated cursor {next_cursor!r}")
            seen.add(next_cursor)
            cursor = next_cursor

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
        await self.request("resources/subscribe", SubscribeRequestParams(uri=uri))

    async def unsubscribe(self, uri: str) -> None:
        """Stop updates about ``uri`` (legacy era)."""
        await self.request("resources/unsubscribe", UnsubscribeRequestParams(uri=uri))

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
        the stream. Yields once the server has acknowledged it.
        """
        wanted = SubscriptionFilter(
            tools_list_changed=True if tools else UNSET,
            prompts_list_changed=True if prompts else UNSET,
            resources_list_changed=True if resources else UNSET,
            resource_subscriptions=UNSET if resource_uris is None else list(resource_uris),
        )
        params = SubscriptionsListenRequestParams(notifications=wanted)
        listening = _Listening()

        def sent(request_id: RequestId) -> None:
            listening.id = request_id
            self._listening[request_id] = listening

        async def run() -> None:
            # The request stays open while the stream lives; it ends when the server
            # ends the subscription, or with the cancellation below.
            try:
                await self.driver.request("subscriptions/listen", params, sent=sent)
            except Exception as exc:
                listening.error = exc
            listening.settled.set()

        async with anyio.create_task_group() as tg:
            tg.start_soon(run)
            try:
                await listening.settled.wait()
                if listening.error is not None:
                    raise listening.error
                assert listening.id is not None
                yield Subscription(listening.id, listening.granted or wanted)
            finally:
                if listening.id is not None:
                    self._listening.pop(listening.id, None)
                tg.cancel_scope.cancel()


class _Listening:
    """A subscriptions/listen request on its way to being acknowledged."""

    def __init__(self) -> None:
        self.settled = anyio.Event()
        self.id: RequestId | None = None
        self.granted: SubscriptionFilter | None = None
        self.error: BaseException | None = None


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


def _as(value: Any, kind: type[_T]) -> _T:
    if isinstance(value, kind):
        return value
    return msgspec.convert(value, kind, from_attributes=True)
