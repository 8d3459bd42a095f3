"""How a `Server` answers each method it routes: the lists (paginated), ``tools/call``
(now, or as a task), ``resources/read``, ``prompts/get``, ``completion/complete``,
and the advanced handlers that replace the registry for a method.

Registered functions get their arguments converted from the type hints
(signatures.py) and their return values turned into results by fixed rules
(results.py). A tool's failure is a tool execution error in its result; other
handlers' failures are -32603. Each is logged (failures.py).
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping
from functools import partial
from types import CoroutineType
from typing import Any, TypeVar

import msgspec
from msgspec import UNSET, UnsetType

from ..session.events import RequestReceived
from ..tasks.serving import TaskService
from ..types.base import PaginatedRequestParams, Result
from ..types.methods import LEGACY_REVISIONS
from ..types.server import (
    ListPromptsResult,
    ListResourcesResult,
    ListResourceTemplatesResult,
    ListToolsResult,
)
from ..wire.errors import INTERNAL_ERROR, INVALID_PARAMS, METHOD_NOT_FOUND, RESOURCE_NOT_FOUND
from .context import Context, Detach, McpError, ResourceNotFoundError
from .failures import log_failure
from .registry import ResourceEntry
from .results import (
    complete_result,
    error_result,
    page,
    prompt_result,
    read_result,
    tool_result,
)
from .rounds import RoundTrips
from .signatures import FunctionInfo

__all__ = ["Routes"]

_T = TypeVar("_T")

_NOT_AWAITABLE = frozenset({str, dict, list, tuple, int, float, bool, bytes, type(None)})
"""Results that cannot be awaited, by exact type: what most handlers return skips
`inspect.isawaitable` (a Python call and an ABC check). Being a plain function,
known when it is registered, does not say as much: a ``def`` may return an
awaitable (one that wraps an ``async def`` without saying so), which is awaited."""


async def _invoke(info: FunctionInfo, values: dict[str, Any], ctx: Context) -> Any:
    if info.threaded:
        # A plain function may block: the runtime runs it in a worker thread. The
        # peer's own wait, not `Context.run_sync`'s around it: one frame less.
        result = await ctx.peer.run_sync(partial(info.call, values, ctx))
    else:
        result = info.call(values, ctx)
    # An async def handler's coroutine first: isawaitable is a Python call.
    kind = type(result)
    if kind is CoroutineType or (kind not in _NOT_AWAITABLE and inspect.isawaitable(result)):
        result = await result
    return result


async def _given(value: _T) -> _T:
    return value


def _text(exc: BaseException) -> str:
    # What a client is told of a handler's exception: its message, with the type
    # where the message alone says nothing (KeyError('zz') is just "'zz'").
    text = str(exc)
    if not text:
        return type(exc).__name__
    return f"{type(exc).__name__}: {text}" if isinstance(exc, LookupError) else text


def _cursor(event: RequestReceived) -> str | UnsetType:
    # The cursor of a list request (absent params: the first page).
    params = event.params
    return UNSET if isinstance(params, UnsetType) or params is None else params.cursor


class Routes(RoundTrips):
    """The part of `Server` that answers the methods it routes."""

    page_size: int | None
    mask_errors: bool
    tasks: TaskService
    #: With an advanced ``tools/call`` handler and "tasks" declared: a tool's
    #: ``execution.taskSupport`` by name ("optional", "required" or None; maybe
    #: awaitable), so that its calls become tasks as a registered tool's do.
    task_support: Callable[[str], Awaitable[str | None] | str | None] | None = None

    def _failed(self, what: str, event: RequestReceived, exc: BaseException) -> str:
        # Every handler exception is logged with its traceback; the client is told
        # its message, or only that it failed (mask_errors).
        log_failure("%s failed serving %s (request %r)", what, event.method, event.id, exc=exc)
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
        listed = self.resources
        for extension in self._resource_extensions:
            # An extension's own resources after the registry's (mcp_core/extensions.py).
            listed = [*listed, *await extension.list_resources(ctx)]
        resources, cursor = self._page(event, listed)
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
        elif self.task_support is not None:
            return self._call_advanced(event, ctx, arguments)
        return self._call_plain(event, ctx, arguments)

    def _call_plain(self, event: RequestReceived, ctx: Context, arguments: Any) -> Awaitable[Any]:
        if not ctx.modern:
            # Nothing to replay before 2026-07-28 (see _replay): no closure, no frame.
            return self._call_now(event, ctx, arguments)
        run = partial(self._call_now, event, ctx, arguments)
        return self._replay(event, ctx, event.params.name, arguments, run)

    async def _call_advanced(self, event: RequestReceived, ctx: Context, arguments: Any) -> Any:
        # An advanced handler's call, which becomes a task as a registered
        # tool's would (mcp_core/tasks/serving.py decides) given `task_support`.
        assert self.task_support is not None
        support = self.task_support(event.params.name)
        if inspect.isawaitable(support):
            support = await support
        if (support is not None or not ctx.modern) and self.tasks.decide(event, ctx, support):
            return await self.tasks.start(event, ctx, partial(self._advanced, event))
        return await self._call_plain(event, ctx, arguments)

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
            # `_invoke`, inlined: one coroutine less per call.
            if info.threaded:
                value = await ctx.peer.run_sync(partial(info.call, values, ctx))
            else:
                value = info.call(values, ctx)
            kind = type(value)  # as in `_invoke`
            if kind is CoroutineType or (kind not in _NOT_AWAITABLE and inspect.isawaitable(value)):
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
            for extension in self._resource_extensions:
                if uri.startswith(extension.resource_schemes):
                    value = await extension.read_resource(uri, ctx)
                    if value is not None:
                        return read_result(value, uri, None)
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
