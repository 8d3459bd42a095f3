"""Upstream calls parked while a 2026-07-28 gateway client answers their questions.

A forwarded call of a 2026-07-28 client that may be asked something runs in a
task of the manager's (`Parking.open`), apart from the request that made it, as a
`ParkedCall`. When its upstream asks (a handshake-era upstream's request, or a
2026-07-28 upstream's input request, both reach the manager's callbacks), the
question waits in the call (`ParkedCall.ask`) and the gateway's handler answers
its client with it (`mcp_core.manager.Gateway.ask_parked`); the call is then
*parked*: no request serves it, the upstream waits. The client's retry finds it
again (`Parking.resume`), its answers go to the waiting question, and the handler
waits for what comes next: the result, or another question.

Bounds: a parked call waits ``ttl`` seconds for its retry, then its upstream call
is cancelled and its ``requestState`` answers "expired"; at most ``max_parked``
calls are parked at once (past that an upstream's question is refused, and the
call goes on without it). A request serving a call that is cancelled, or whose
client goes away, cancels the upstream call.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any

import anyio

from mcp_core import McpError
from mcp_core.manager import Question, new_call_id, state_error
from mcp_core.server import Context
from mcp_core.wire import INTERNAL_ERROR

__all__ = ["ParkedCall", "Parking", "new_call_id"]


class _Asked:
    """One question of an upstream's, waiting for its answer."""

    __slots__ = ("answer", "done", "question")

    def __init__(self, question: Question) -> None:
        self.question = question
        self.answer: Any = None
        self.done = anyio.Event()

    def settle(self, answer: Any) -> None:
        if not self.done.is_set():
            self.answer = answer
            self.done.set()


class ParkedCall:
    """One forwarded call that may wait for its client's answers.

    Attributes:
        id: its name in the ``requestState``.
        ctx: the request serving it now (None while parked): where progress goes.
        round: the round of the retry it waits for, while parked.
        parked: waiting for a retry.
        resumed: set when a retry takes it again.
        expired: it waited parked longer than the ttl.
        finished: the upstream call ended (``result`` or ``error``).
        scope: the upstream call's cancel scope (its deadline: the ttl, while parked).
        prefix: before its questions' keys ("1", "2"...), so that a later
            call of the same request never takes an earlier one's answers.
    """

    def __init__(self, call_id: str, ctx: Context, prefix: str = "") -> None:
        self.id = call_id
        self.prefix = prefix
        self.ctx: Context | None = ctx
        self.round = 0
        self.parked = False
        self.finished = False
        self.expired = False
        self.result: Any = None
        self.error: BaseException | None = None
        self.scope = anyio.CancelScope()
        self._asked: list[_Asked] = []
        self._keys = 0
        self._wake = anyio.Event()
        self.resumed = anyio.Event()

    async def ask(self, kind: str, params: Any) -> Any:
        """An upstream's question: wait for the client's answer (the manager's
        callback, for a call of this one's).

        Raises:
            McpError: the answer is an error (the client cannot answer, or the call
                ended first).
        """
        self._keys += 1
        asked = _Asked((f"{self.prefix}{self._keys}", kind, params))
        self._asked.append(asked)
        self._wake.set()
        try:
            await asked.done.wait()
        finally:
            self._asked.remove(asked)
        if isinstance(asked.answer, McpError):
            raise asked.answer
        return asked.answer

    async def next_questions(self) -> list[_Asked]:
        """Wait until the upstream call ends (an empty list) or has questions
        without answers (them)."""
        while True:
            waiting = [asked for asked in self._asked if not asked.done.is_set()]
            if waiting or self.finished:
                return waiting
            self._wake = anyio.Event()
            await self._wake.wait()

    async def run(self, call: Callable[[], Awaitable[Any]]) -> None:
        """Make the upstream call (in a task of the manager's)."""
        try:
            with self.scope:
                self.result = await call()
        except Exception as exc:
            self.error = exc
        finally:
            # Cancelled by its own deadline: it waited parked too long.
            self.expired = self.parked and self.scope.cancelled_caught
            if self.result is None and self.error is None:
                what = "its wait for an answer expired" if self.expired else "it was cancelled"
                self.error = McpError(INTERNAL_ERROR, f"the upstream call ended: {what}")
            self.finished = True
            ended = McpError(INTERNAL_ERROR, "the gateway's call ended before its client answered")
            for asked in self._asked:
                asked.settle(ended)
            self._wake.set()

    def cancel(self) -> None:
        """Cancel the upstream call."""
        self.scope.cancel()


class Parking:
    """The parked calls of one gateway.

    Args:
        start_soon: runs a call's task (`transports.manager.Manager.start_soon`).
        ttl: seconds a parked call waits for its client's retry.
        max_parked: calls parked at once, at most.
    """

    def __init__(
        self,
        start_soon: Callable[..., None],
        *,
        ttl: float = 300.0,
        max_parked: int = 1000,
    ) -> None:
        if not (math.isfinite(ttl) and ttl > 0):
            raise ValueError(f"ttl must be a positive number of seconds, not {ttl!r}")
        if max_parked < 1:
            raise ValueError("max_parked must be at least 1")
        self.ttl = ttl
        self.max_parked = max_parked
        self._start_soon = start_soon
        self._calls: dict[str, ParkedCall] = {}
        self._parked = 0
        self._expired: OrderedDict[str, None] = OrderedDict()

    def __len__(self) -> int:
        """Calls parked now."""
        return self._parked

    def open(
        self, call_id: str, ctx: Context, call: Callable[[], Awaitable[Any]], prefix: str = ""
    ) -> ParkedCall:
        """Start an upstream call for the request served by ``ctx`` (``prefix``:
        see `ParkedCall`)."""
        parked = ParkedCall(call_id, ctx, prefix)
        self._calls[call_id] = parked
        self._start_soon(self._run, parked, call)
        return parked

    async def _run(self, parked: ParkedCall, call: Callable[[], Awaitable[Any]]) -> None:
        await parked.run(call)
        if parked.parked and not parked.expired:
            # It ended while its question was out (the upstream gave up on it):
            # the outcome waits for the retry, until the deadline.
            with anyio.CancelScope(deadline=parked.scope.deadline):
                await parked.resumed.wait()
            parked.expired = parked.parked
        if parked.expired:
            self._forget(parked)

    def park(self, parked: ParkedCall, round: int) -> bool:
        """Keep ``parked`` waiting for the retry of ``round``; False when too many
        calls are parked already (it is not parked)."""
        if self._parked >= self.max_parked:
            return False
        self._parked += 1
        parked.parked = True
        parked.round = round
        parked.ctx = None
        parked.resumed = anyio.Event()
        parked.scope.deadline = anyio.current_time() + self.ttl
        return True

    def resume(self, call_id: str, round: int, ctx: Context) -> ParkedCall:
        """The parked call a retry of ``round`` names, served by ``ctx`` from now.

        Raises:
            McpError: -32602 with ``data.reason`` "expired", "unknown" (no such
                call: it ended, or the gateway restarted) or "replayed" (the call
                is not waiting for this round).
        """
        parked = self._calls.get(call_id)
        if parked is not None and parked.parked and anyio.current_time() >= parked.scope.deadline:
            parked.expired = True  # its task has yet to see it
        if parked is None or parked.expired:
            if parked is not None or call_id in self._expired:
                raise state_error("expired", "the call waited too long for its answers")
            raise state_error("unknown", "the call it names is not waiting for answers")
        if not parked.parked or parked.round != round:
            raise state_error("replayed", "the call it names is not waiting for this retry")
        self._parked -= 1
        parked.parked = False
        parked.ctx = ctx
        parked.scope.deadline = math.inf
        parked.resumed.set()
        return parked

    def done(self, parked: ParkedCall) -> None:
        """The request serving ``parked`` ended without parking it: cancel the
        upstream call if it runs, and forget it."""
        if parked.parked:
            return
        parked.cancel()
        self._forget(parked)

    def _forget(self, parked: ParkedCall) -> None:
        if self._calls.get(parked.id) is not parked:
            return
        del self._calls[parked.id]
        if parked.parked:
            parked.parked = False
            self._parked -= 1
        if parked.expired:
            self._expired[parked.id] = None
            while len(self._expired) > self.max_parked:
                self._expired.popitem(last=False)
