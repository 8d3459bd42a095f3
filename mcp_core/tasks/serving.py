"""Tasks on the server: when a tool call becomes a task, and the ``tasks/*`` methods.

Both eras share one `TaskEngine`; what differs is decided here.

When a ``tools/call`` becomes a task:

* 2026-07-28 (tasks extension, tasks.mdx "Capability Negotiation"): the client
  declares ``io.modelcontextprotocol/tasks`` in the request's capabilities and
  the server decides; a client that does not declare it never gets a
  CreateTaskResult, and a tool that cannot run otherwise fails with -32021 and
  the extension in ``data.requiredCapabilities``. The extension's text says
  -32003 in one version; the 2026-07-28 core (basic/index.mdx, "Missing
  Required Client Capability") and conformance 0.2.0-alpha.12
  (tasks-required-task-error, tasks-capability-negotiation) use -32021, which
  is followed here. A legacy ``params.task`` is ignored.
* 2025-11-25 (basic/utilities/tasks.mdx "Tool-Level Negotiation"): the client
  sends ``params.task``; a tool without task support answers -32601 (SHOULD),
  and a ``required`` one called without it answers -32601 (MUST).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Final

import msgspec
from msgspec import UNSET

from ..extensions import Extension
from ..server.context import Context, McpError
from ..server.failures import log_failure
from ..session.config import declares_extension, extension_required
from ..session.events import RequestReceived
from ..types.tasks import TASKS_EXTENSION
from ..wire.errors import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    METHOD_NOT_FOUND,
    MISSING_REQUIRED_CLIENT_CAPABILITY,
)
from .context import TaskContext, TaskRun
from .engine import TaskEngine, TaskNotFound
from .host import TaskHost
from .record import LEGACY_ERA, TaskRecord
from .render import (
    RELATED_TASK_KEY,
    legacy_created,
    legacy_task,
    modern_created,
    modern_detailed,
)
from .store import StoreFull

__all__ = ["TASKS_EXTENSION", "TaskService", "TasksExtension", "declares_tasks"]

LEGACY_TASKS_REVISION: Final = LEGACY_ERA
LIST_PAGE: Final = 50

Handler = Callable[[TaskContext], Awaitable[Any]]
TaskWatcher = Callable[[str, str, Any], None]
Route = Callable[[RequestReceived, Context], Awaitable[Any]]


def declares_tasks(ctx: Context) -> bool:
    """Whether a 2026-07-28 request's client declared the tasks extension."""
    return declares_extension(ctx.client.capabilities, TASKS_EXTENSION)


def _missing_extension() -> McpError:
    return McpError(
        MISSING_REQUIRED_CLIENT_CAPABILITY,
        "Missing required client capability",
        data=extension_required(TASKS_EXTENSION),
    )


class TasksExtension(Extension):
    """The 2026-07-28 tasks extension on the extension API: declared while some
    tool may run as a task (tasks extension "Capability Negotiation"), in
    2026-07-28 only (the handshake era has the ``tasks`` capability instead);
    its methods are in the method table already (types/methods.py), and its
    routes serve both eras' ``tasks/*`` (2025-11-25 ``tasks/result`` and
    ``tasks/list`` included)."""

    id = TASKS_EXTENSION
    handshake = False

    def __init__(self, service: TaskService) -> None:
        self.service = service

    def settings(self) -> dict[str, Any] | None:
        return {} if self.service.offered() else None

    def routes(self) -> Mapping[str, Route]:
        return self.service.routes()


def _error_bytes(code: int, message: str, data: Any = None) -> bytes:
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return msgspec.json.encode(error)


class TaskService:
    """The server's tasks: the decision, the background run, the methods.

    Args:
        engine: the task engine (and through it, the store).
        offered: whether the server offers tasks now (some tool supports them:
            the 2025-11-25 capability, the 2026-07-28 extension).
    """

    def __init__(self, engine: TaskEngine, offered: Callable[[], bool]) -> None:
        self.engine = engine
        self.offered = offered
        self._watchers: dict[object, TaskWatcher] = {}
        engine.listen(self._changed)

    def watch(self, watcher: TaskWatcher) -> Callable[[], None]:
        """Call ``watcher(principal, method, params)`` with each 2026-07-28 task
        status notification; a runtime passes it to the connections of that
        principal (``ServerSession.publish`` then sends it on the
        subscriptions/listen streams that asked for the task).

        Returns:
            A function that stops watching.
        """
        token = object()
        self._watchers[token] = watcher
        return lambda: self._watchers.pop(token, None) and None

    def _changed(self, record: TaskRecord) -> None:
        # 2026-07-28 tasks extension "Task Status Notifications": each carries the
        # DetailedTask tasks/get would return (without resultType).
        if not self._watchers or record.era == LEGACY_TASKS_REVISION:
            return
        params = modern_detailed(record, result_type=False)
        for watcher in list(self._watchers.values()):
            watcher(record.principal, "notifications/tasks", params)

    def routes(self) -> dict[str, Route]:
        """The ``tasks/*`` methods, for the Server's routing table."""
        return {
            "tasks/get": self.get,
            "tasks/update": self.update,
            "tasks/cancel": self.cancel,
            "tasks/result": self.result,
            "tasks/list": self.list,
        }

    # --- tools/call ------------------------------------------------------------------------

    def decide(self, event: RequestReceived, ctx: Context, support: str | None) -> bool:
        """Whether this ``tools/call`` runs as a task (``support``: the tool's
        "optional", "required", or None).

        Raises:
            McpError: the call cannot be served as asked (see the module).
        """
        # isinstance against a runtime-checkable Protocol costs microseconds
        # (benchmarks/README.md, issue 20): asked only where the answer matters.
        if ctx.modern:
            if declares_tasks(ctx):
                host = isinstance(ctx.peer, TaskHost)
                if support == "required" and not host:
                    raise McpError(INTERNAL_ERROR, "this runtime cannot run tasks")
                return support is not None and host
            if support == "required":
                raise _missing_extension()
            return False
        asked = getattr(event.params, "task", UNSET) is not UNSET
        if not asked and support != "required":
            # Not a task, whatever is offered: asked first, as `offered` looks
            # at every tool and nearly every call asks for no task.
            return False
        if event.revision != LEGACY_TASKS_REVISION or not self.offered():
            # Before 2025-11-25 there are no tasks; and without the capability
            # declared, params.task is ignored (tasks.mdx "Task Support and
            # Handling").
            return False
        if asked and support is None:
            raise McpError(METHOD_NOT_FOUND, "This tool does not support task execution")
        if not asked and support == "required":
            raise McpError(METHOD_NOT_FOUND, "This tool must be called as a task")
        if asked and not isinstance(ctx.peer, TaskHost):
            raise McpError(INTERNAL_ERROR, "this runtime cannot run tasks")
        return asked

    async def start(
        self,
        event: RequestReceived,
        ctx: Context,
        handler: Handler,
        *,
        answers: dict[str, tuple[str, dict[str, Any]]] | None = None,
        kept: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Create the task, start ``handler`` on it in the background, and return
        the CreateTaskResult of the request's era."""
        host = ctx.peer
        assert isinstance(host, TaskHost)
        ttl: int | None = None
        if not ctx.modern:
            task = getattr(event.params, "task", UNSET)
            found = getattr(task, "ttl", UNSET)
            ttl = found if isinstance(found, int) else None
        try:
            record = await self.engine.create(ctx.principal, event.revision, ctx.now, ttl_ms=ttl)
        except StoreFull as exc:
            raise McpError(INTERNAL_ERROR, f"Cannot create a task: {exc}") from None
        run = TaskRun(self.engine, record, host)
        tctx = TaskContext(
            event,
            ctx.peer,
            now=ctx.now,
            principal=ctx.principal,
            run=run,
            answers=answers,
            kept=kept,
        )
        tctx.lifespan = ctx.lifespan
        stops: list[Callable[[], None]] = []

        def stop() -> None:
            for cancel in stops:
                cancel()

        unstop = self.engine.on_stop(record, stop)
        unwatch = (
            None
            if ctx.modern
            # 2025-11-25 tasks.mdx "Task Status Notification": the requestor's
            # connection hears each change (while it is open).
            else self.engine.watch(
                record, lambda r: host.notify("notifications/tasks/status", legacy_task(r))
            )
        )

        def unregister() -> None:
            unstop()
            if unwatch is not None:
                unwatch()

        stops.append(host.start_task(lambda: self._run(run, tctx, handler, unregister)))
        return modern_created(record) if ctx.modern else legacy_created(record)

    async def _run(
        self,
        run: TaskRun,
        ctx: TaskContext,
        handler: Handler,
        unregister: Callable[[], None],
    ) -> None:
        engine, clock = self.engine, run.host.clock
        try:
            try:
                result = await handler(ctx)
            except McpError as exc:
                await engine.finish(
                    run.record,
                    clock(),
                    error=_error_bytes(exc.code, exc.message, exc.data),
                    message=exc.message,
                )
                return
            except Exception as exc:
                log_failure("task %s failed", run.record.task_id, exc=exc)
                await engine.finish(
                    run.record,
                    clock(),
                    error=_error_bytes(INTERNAL_ERROR, f"Internal error: {exc}"),
                    message="the task failed",
                )
                return
            tool_error = getattr(result, "is_error", False) is True
            await engine.finish(
                run.record, clock(), result=msgspec.json.encode(result), tool_error=tool_error
            )
        finally:
            run.close()
            unregister()

    # --- tasks/* ---------------------------------------------------------------------------

    def _offered(self, event: RequestReceived) -> None:
        # No task-capable tool: no tasks capability or extension declared, so the
        # methods are not there (2026-07-28 schema MethodNotFoundError: "gated
        # behind a server capability the server did not advertise").
        if not self.offered():
            raise McpError(METHOD_NOT_FOUND, f"Method not found: {event.method}")

    async def _find(self, event: RequestReceived, ctx: Context) -> TaskRecord:
        self._offered(event)
        if ctx.modern and not declares_tasks(ctx):
            # 2026-07-28 tasks extension "Capability Negotiation"; conformance
            # tasks-capability-negotiation checks -32021 on all three methods.
            raise _missing_extension()
        try:
            return await self.engine.get(ctx.principal, event.params.task_id, ctx.now)
        except TaskNotFound as exc:
            # Both eras: an unknown (or expired) taskId is -32602 (2025-11-25
            # tasks.mdx "Protocol Errors"; tasks extension "Error Handling").
            raise McpError(INVALID_PARAMS, f"Failed to retrieve task: {exc}") from None

    async def get(self, event: RequestReceived, ctx: Context) -> Any:
        """``tasks/get``: the DetailedTask (2026-07-28) or the Task (2025-11-25)."""
        record = await self._find(event, ctx)
        return modern_detailed(record) if ctx.modern else legacy_task(record)

    async def update(self, event: RequestReceived, ctx: Context) -> Any:
        """``tasks/update`` (2026-07-28): deliver answers; an empty acknowledgement.
        Keys not outstanding are ignored (tasks extension "Task Update Requests")."""
        record = await self._find(event, ctx)
        responses = {
            key: msgspec.json.encode(value) for key, value in event.params.input_responses.items()
        }
        try:
            await self.engine.deliver(ctx.principal, record.task_id, responses, ctx.now)
        except TaskNotFound as exc:
            raise McpError(INVALID_PARAMS, f"Failed to update task: {exc}") from None
        return {}

    async def cancel(self, event: RequestReceived, ctx: Context) -> Any:
        """``tasks/cancel``. 2026-07-28: an empty acknowledgement, also for a
        terminal task (tasks extension "Task Cancellation"; conformance
        tasks-lifecycle, tasks-cancel-terminal-idempotent-ack). 2025-11-25: the
        cancelled task, and -32602 for a terminal one (tasks.mdx "Task
        Cancellation")."""
        record = await self._find(event, ctx)
        if not ctx.modern and record.terminal:
            raise McpError(
                INVALID_PARAMS, f"Cannot cancel task: already in terminal status {record.status!r}"
            )
        try:
            record = await self.engine.cancel(ctx.principal, record.task_id, ctx.now)
        except TaskNotFound as exc:
            raise McpError(INVALID_PARAMS, f"Failed to cancel task: {exc}") from None
        return {} if ctx.modern else legacy_task(record)

    async def result(self, event: RequestReceived, ctx: Context) -> Any:
        """``tasks/result`` (2025-11-25): wait until the task ends, then answer
        what the request would have (tasks.mdx "Result Retrieval"), with the
        related-task ``_meta``."""
        record = await self._find(event, ctx)
        host = ctx.peer
        if not record.terminal:
            if not isinstance(host, TaskHost):
                raise McpError(INTERNAL_ERROR, "this runtime cannot wait for tasks")
            signal = host.signal()
            unwatch = self.engine.watch(record, lambda r: signal.set())
            try:
                while not record.terminal:
                    await signal.wait()
                    record = await self.engine.get(ctx.principal, record.task_id, host.clock())
            except TaskNotFound as exc:
                raise McpError(INVALID_PARAMS, f"Failed to retrieve task: {exc}") from None
            finally:
                unwatch()
        related = {RELATED_TASK_KEY: {"taskId": record.task_id}}
        if record.result is not None:
            payload: dict[str, Any] = msgspec.json.decode(record.result)
            meta = payload.get("_meta")
            payload["_meta"] = {**(meta if isinstance(meta, dict) else {}), **related}
            return payload
        if record.error is not None:
            error = msgspec.json.decode(record.error)
            raise McpError(
                error.get("code", INTERNAL_ERROR), error.get("message", ""), error.get("data")
            )
        raise McpError(INVALID_PARAMS, "The task was cancelled; it has no result")

    async def list(self, event: RequestReceived, ctx: Context) -> Any:
        """``tasks/list`` (2025-11-25): the caller's tasks, a page at a time; the
        cursor is the last task id of the page (opaque to the client)."""
        self._offered(event)
        params = event.params
        cursor = getattr(params, "cursor", UNSET) if params is not None else UNSET
        after = cursor if isinstance(cursor, str) else None
        if after is not None and await self.engine.store.get(ctx.principal or "", after) is None:
            raise McpError(INVALID_PARAMS, "Invalid cursor")
        records = await self.engine.page(ctx.principal, after, LIST_PAGE + 1, ctx.now)
        result: dict[str, Any] = {"tasks": [legacy_task(r) for r in records[:LIST_PAGE]]}
        if len(records) > LIST_PAGE:
            result["nextCursor"] = records[LIST_PAGE - 1].task_id
        return result
