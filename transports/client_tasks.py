# A tool call that became a task, as the async client holds it.
#
# The decisions (what a result says, what to do next, which request to send) are
# mcp_core/client/tasks.py's; this handle only sends, sleeps and runs callbacks.

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import anyio

from mcp_core.client.tasks import (
    TaskState,
    cancel_call,
    final,
    get_call,
    legacy_payload,
    next_step,
    payload_call,
    update_call,
)
from mcp_core.types import CallToolResult

if TYPE_CHECKING:
    from .client import Client

__all__ = ["TaskHandle"]


class TaskHandle:
    """A tool call running as a task (``client.call_tool(..., task=True)``).

    ``await handle.result()`` waits for the end (polling ``tasks/get`` every
    ``pollIntervalMs`` in 2026-07-28, answering input requests through the
    client's callbacks with ``tasks/update``; waiting on ``tasks/result`` in
    2025-11-25), ``handle.status`` is the last status seen, ``await
    handle.refresh()`` asks again, ``await handle.cancel()`` cancels. A call the
    server answered at once is a handle already completed (``task_id`` None).
    """

    def __init__(self, client: Client, state: TaskState, timeout: float | None = None) -> None:
        self._client = client
        self._timeout = timeout
        self._answered: set[str] = set()
        #: The task as last seen.
        self.state = state

    def __repr__(self) -> str:
        return f"TaskHandle({self.task_id!r}, {self.status!r})"

    @property
    def task_id(self) -> str | None:
        """The task's id (None: the server answered at once)."""
        return self.state.task_id

    @property
    def status(self) -> str:
        """The last status seen."""
        return self.state.status

    @property
    def status_message(self) -> str | None:
        """The server's last status message."""
        return self.state.status_message

    @property
    def _capabilities(self) -> Any:
        # The client's own; the calls add the tasks extension (2026-07-28).
        return self._client.session.config.capabilities

    async def _send(self, call: Any) -> Any:
        return await self._client.request(call.method, call.params, timeout=self._timeout)

    async def refresh(self) -> TaskState:
        """Ask the server for the task's state (``tasks/get``)."""
        state = self.state
        if state.task_id is None or (state.terminal and state.result is not None):
            return state
        found = await self._send(get_call(state, self._capabilities))
        self.state = TaskState.modern_task(found) if state.modern else TaskState.legacy_task(found)
        return self.state

    async def result(self) -> CallToolResult:
        """Wait for the task to end; its result.

        Raises:
            McpError: the task failed with a JSON-RPC error, or was cancelled.
        """
        while True:
            step, delay = next_step(self.state, self._answered)
            if step == "done":
                return final(self.state)
            if step == "wait_result":
                payload = await self._send(payload_call(self.state))
                result = legacy_payload(payload)
                self.state.result, self.state.status = result, "completed"
                return result
            if step == "answer":
                await self._answer()
            else:
                await anyio.sleep(delay)
            await self.refresh()

    async def _answer(self) -> None:
        # Each outstanding key once, by the callbacks that answer input requests.
        pending = {
            key: ask for key, ask in self.state.input_requests.items() if key not in self._answered
        }
        answers = {key: await self._client._answer_input(ask) for key, ask in pending.items()}
        self._answered.update(answers)
        await self._send(update_call(self.state, answers, self._capabilities))

    async def cancel(self) -> None:
        """Cancel the task (``tasks/cancel``); the status shows it after."""
        state = self.state
        if state.task_id is None or state.terminal:
            return
        found = await self._send(cancel_call(state, self._capabilities))
        if state.modern:
            await self.refresh()
        else:
            self.state = TaskState.legacy_task(found)
