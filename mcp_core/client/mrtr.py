"""The 2026-07-28 multi round-trip request (MRTR), from the client's side.

Theory of operation (2026-07-28 basic/patterns/mrtr.mdx, "Client Requirements").
``tools/call``, ``prompts/get`` and ``resources/read`` may answer with an
InputRequiredResult instead of their result. The client then

1. answers every entry of its ``inputRequests`` (sampling, elicitation, roots;
   `Callbacks.answer_input` says which callback) before retrying;
2. retries the *original* request with those answers as ``inputResponses``, under
   the same keys, and echoes ``requestState`` exactly, or sends none if the server
   sent none ("MUST echo back the exact value ... MUST NOT include one");
3. sends the retry under a new JSON-RPC id (the session allocates one per send).

A server may keep asking ("MAY ... return an InputRequiredResult on multiple
attempts"), so the rounds are counted and the call fails after `MAX_INPUT_ROUNDS`:
a server that never settles must not hold the client forever.

A URL-mode elicitation is different: the user's "accept" only consents to opening
the URL, the interaction happens out of band, and a retry that finds it unfinished
gets another InputRequiredResult (2026-07-28 client/elicitation.mdx, "URL Mode
Elicitation Requests": clients SHOULD let the user retry or cancel). So one call
opens URLs in one round only: when a later round asks for a URL again, the call ends
with `UrlElicitationRequiredError` (-32042, what a 2025-11-25 server answers), for
the application to call again once the user is done, instead of opening page after
page as fast as the server answers.

`InputRounds` makes these decisions for one call; the adapter sends, awaits the
callbacks and feeds the answers back.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, Generic, TypeVar

import msgspec
from msgspec import UNSET, UnsetType

from ..server.context import McpError, UrlElicitationRequiredError
from ..session.config import request_feature
from ..types import ElicitRequest, InputRequest, InputRequiredResult
from ..wire import INTERNAL_ERROR
from .requests import Call

__all__ = ["MAX_INPUT_ROUNDS", "InputRounds"]

R = TypeVar("R")

MAX_INPUT_ROUNDS: Final = 32
"""Retries of one call before the client gives up. The spec sets no bound; 32 rounds
is far beyond any dialogue a person would answer, and small enough to stop a loop."""


class InputRounds(Generic[R]):
    """The retries of one call that answered with an InputRequiredResult.

    Use::

        rounds = InputRounds(call)
        while type(result) is InputRequiredResult:
            asks = rounds.input_required(result)
            answers = {key: <run callbacks.answer_input(ask)> for key, ask in asks.items()}
            result = <send rounds.retry(answers)>

    Args:
        call: the original request.
        max_rounds: retries allowed before `input_required` raises.
    """

    def __init__(self, call: Call[R], max_rounds: int = MAX_INPUT_ROUNDS) -> None:
        self.call = call
        self.max_rounds = max_rounds
        #: Retries decided so far.
        self.rounds = 0
        self._state: str | UnsetType = UNSET
        self._urls_opened = False

    def input_required(self, result: InputRequiredResult) -> Mapping[str, InputRequest]:
        """Take an InputRequiredResult: what must be answered before the retry.

        Returns:
            The input requests by key (empty: retry at once, mrtr.mdx "MAY retry
            the original request immediately").

        Raises:
            UrlElicitationRequiredError: -32042, a URL-mode elicitation asked for
                after an earlier round of this call asked for one; give up on the
                call until the user has completed it.
            McpError: -32603 (internal error), the call still needs input after
                ``max_rounds`` retries; give up on it.
        """
        self.rounds += 1
        if self.rounds > self.max_rounds:
            raise McpError(
                INTERNAL_ERROR,
                f"{self.call.method} still needs input after {self.max_rounds} rounds",
            )
        self._state = result.request_state
        requests = result.input_requests
        if isinstance(requests, UnsetType):
            return {}
        urls = [
            msgspec.to_builtins(ask.params)
            for ask in requests.values()
            if isinstance(ask, ElicitRequest)
            and request_feature("elicitation/create", ask.params) == "url"
        ]
        if urls:
            if self._urls_opened:
                raise UrlElicitationRequiredError(
                    urls,
                    f"{self.call.method} still needs the user to complete a URL elicitation;"
                    " call again once they have",
                )
            self._urls_opened = True
        return requests

    def retry(self, answers: Mapping[str, Any]) -> Call[R]:
        """The retry of the original request, carrying ``answers`` and the state.

        Args:
            answers: each input request's result, by the key it was asked under.

        Returns:
            The original call with ``inputResponses`` (absent when there are none)
            and the last ``requestState`` echoed (absent when the server sent none).
        """
        call = self.call
        responses = {key: msgspec.to_builtins(value) for key, value in answers.items()}
        params = msgspec.structs.replace(
            call.params,
            input_responses=responses if responses else UNSET,
            request_state=self._state,
        )
        return Call(call.method, params, call.result_type)
