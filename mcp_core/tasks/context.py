"""The Context of a handler that runs as a task.

A task's handler is the tool's own function; what changes is how it asks for
input. In the request (2026-07-28) it could not wait, so asking meant a multi
round-trip reply. A task can wait: ``ctx.elicit(...)`` posts the input request on
the task (``input_required``, shown in ``tasks/get`` as ``inputRequests``) and
waits for ``tasks/update`` to answer it (2026-07-28 tasks extension "Task Update
Requests"). ``ctx.gather`` posts all its questions before waiting, so they are
outstanding together. In 2025-11-25 the question is a server-to-client request
carrying the related-task ``_meta`` (tasks.mdx "Input Required Status"), and the
task is ``input_required`` while it waits.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any, TypeVar

import msgspec

from ..server.context import Context, McpError, Peer
from ..session.events import RequestReceived
from ..types.client import InputRequest
from ..wire.errors import INTERNAL_ERROR, INVALID_PARAMS
from .engine import TaskEngine
from .host import TaskHost
from .record import TaskConflict, TaskRecord
from .render import RELATED_TASK_KEY

__all__ = ["TaskContext", "TaskRun"]

_R = TypeVar("_R", bound=msgspec.Struct)
_A = TypeVar("_A")


class _Posted(BaseException):
    # Internal to gather: the question went out; its answer is waited for later.
    def __init__(self, key: str, result_type: type[Any]) -> None:
        super().__init__(key)
        self.key = key
        self.result_type = result_type


class TaskRun:
    """One running task as its handler sees it: post questions, wait for answers."""

    def __init__(self, engine: TaskEngine, record: TaskRecord, host: TaskHost) -> None:
        self.engine = engine
        self.record = record
        self.host = host
        self._signal = host.signal()
        self._unwatch = engine.watch(record, self._seen)

    def _seen(self, record: TaskRecord) -> None:
        self.record = record
        self._signal.set()

    def close(self) -> None:
        """Stop watching the task (its work ended)."""
        self._unwatch()

    async def post(self, key: str, request: InputRequest) -> None:
        """Post one input request under ``key``.

        Raises:
            McpError: the key was used before in this task.
        """
        try:
            await self.engine.ask(
                self.record, {key: msgspec.json.encode(request)}, self.host.clock()
            )
        except TaskConflict as exc:
            raise McpError(INTERNAL_ERROR, str(exc)) from None

    async def answer(self, key: str) -> bytes:
        """Wait for the answer under ``key`` and take it."""
        while True:
            found = await self.engine.take(self.record, key, self.host.clock())
            if found is not None:
                return found
            await self._signal.wait()


def _convert(answer: bytes, result_type: type[_R], key: str) -> _R:
    try:
        return msgspec.json.decode(answer, type=result_type)
    except (msgspec.ValidationError, msgspec.DecodeError) as exc:
        raise McpError(INVALID_PARAMS, f"inputResponses[{key!r}] is invalid: {exc}") from None


class TaskContext(Context):
    """A Context whose asks wait on the task (see the module's description).

    Args:
        request, peer, now, principal: as for `Context`.
        run: the task.
        answers: answers gathered in the request before the task started
            (a tool with ``ask_first``): the handler's first questions are
            answered from them again, as in a multi round-trip retry.
        kept: values kept with `Context.once` before the task started.
    """

    def __init__(
        self,
        request: RequestReceived,
        peer: Peer,
        *,
        now: float,
        principal: str | None,
        run: TaskRun,
        answers: dict[str, tuple[str, dict[str, Any]]] | None = None,
        kept: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(request, peer, now=now, principal=principal)
        self.run = run
        self._replayed = answers or {}
        self._kept = dict(kept) if kept else None
        self._collecting = False

    @property
    def task_id(self) -> str:
        """The task's id."""
        return self.run.record.task_id

    async def detach(self) -> None:
        """Already a task: nothing to do."""

    async def report_status(self, message: str) -> None:
        """Set the task's ``statusMessage`` (shown by ``tasks/get``)."""
        await self.run.engine.report(self.run.record, message, self.run.host.clock())

    async def _ask(
        self, method: str, request: InputRequest, result_type: type[_R], key: str | None
    ) -> _R:
        self._asked += 1
        if key is None:
            key = str(self._asked)
        replayed = self._replayed.get(key)
        if replayed is not None:
            return msgspec.convert(replayed[1], result_type)
        if not self.modern:
            return await self._ask_legacy(method, request, result_type)
        await self.run.post(key, request)
        if self._collecting:
            raise _Posted(key, result_type)
        return _convert(await self.run.answer(key), result_type, key)

    async def _ask_legacy(self, method: str, request: InputRequest, result_type: type[_R]) -> _R:
        # 2025-11-25 tasks.mdx "Input Required Status": the request carries the
        # related-task _meta, and the task is input_required meanwhile.
        engine, run = self.run.engine, self.run
        params: Any = getattr(request, "params", msgspec.UNSET)
        related = {RELATED_TASK_KEY: {"taskId": run.record.task_id}}
        if isinstance(params, msgspec.Struct):
            meta = getattr(params, "meta", msgspec.UNSET)
            merged = {**(meta if isinstance(meta, dict) else {}), **related}
            params = msgspec.structs.replace(params, meta=merged)
        await engine.mark(run.record, "input_required", run.host.clock())
        try:
            result = await self.peer.request(method, params)
        finally:
            await engine.mark(run.record, "working", run.host.clock())
        if isinstance(result, result_type):
            return result
        return msgspec.convert(result, result_type)

    async def gather(self, *asks: Awaitable[_A]) -> list[_A]:
        """Ask several questions at once: all are outstanding on the task
        together (``inputRequests`` holds them all), and answers may come in
        any order, one ``tasks/update`` at a time or together."""
        if not self.modern:
            return await super().gather(*asks)
        answers: list[Any] = []
        posted: list[tuple[int, _Posted]] = []
        self._collecting = True
        try:
            for index, ask in enumerate(asks):
                try:
                    answers.append(await ask)
                except _Posted as question:
                    answers.append(None)
                    posted.append((index, question))
        finally:
            self._collecting = False
        for index, out in posted:
            answers[index] = _convert(await self.run.answer(out.key), out.result_type, out.key)
        return answers
