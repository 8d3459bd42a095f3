"""2026-07-28 multi round-trip requests, on the server: the answers collected so far
are sealed into ``requestState`` and opened again on the retry.

In 2026-07-28 a handler that asks for input (``ctx.elicit``, ``ctx.sample``,
``ctx.list_roots``) and has no answer yet raises `InputNeeded` from its Context, and
one that raises `UrlElicitationRequiredError` asks the same way; `RoundTrips._replay`
answers with an InputRequiredResult whose ``requestState`` seals the answers so
far, the questions just asked and what the handler kept with `Context.once`,
bound to the method, the tool/prompt name or resource URI, and a digest of the
arguments (`request_state.request_binding`). On the retry it opens the state and
runs the handler again from the start with the answers (see context.py for the
replay model). 2026-07-28 basic/patterns/mrtr.mdx.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import msgspec
from msgspec import UnsetType

from ..session.events import RequestReceived
from ..types.client import InputRequiredResult
from ..wire.errors import INVALID_PARAMS
from .context import MRTR_METHODS, Context, InputNeeded, McpError, UrlElicitationRequiredError
from .registry import Registry
from .request_state import OnceStore, StateRejected, StateSealer, request_binding

__all__ = ["RoundTrips"]


class _State(msgspec.Struct, frozen=True):
    """The sealed requestState payload: the answers so far (key -> method and
    answer), the questions just asked (key -> method), what the handler kept with
    `Context.once`, and how many round trips came before."""

    answers: dict[str, tuple[str, dict[str, Any]]] = {}
    pending: dict[str, str] = {}
    kept: dict[str, Any] = {}
    round: int = 0


def _binding(method: str, name: str, arguments: Any) -> str:
    return request_binding(method, name, msgspec.json.encode(arguments, order="sorted"))


class RoundTrips(Registry):
    """The part of `Server` that seals and opens ``requestState``."""

    _sealer: StateSealer
    # A shared asynchronous single-use store, claimed after the sealer verified a
    # token; None when the sealer's own (synchronous) guard does it.
    _once: OnceStore | None

    @property
    def state_ttl(self) -> float:
        """Seconds a sealed ``requestState`` stays valid."""
        return self._sealer.ttl

    @property
    def state_fingerprint(self) -> str:
        """The public name of the key that seals ``requestState``: every replica
        of one deployment must show the same (see `StateSealer.fingerprint`)."""
        return self._sealer.fingerprint

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
