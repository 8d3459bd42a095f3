# What a handler sees of the request it serves: the Context.
#
# Theory of operation. A handler (a tool, resource or prompt function) gets a
# Context when one of its parameters is annotated with it. Through the Context it
# reports progress, logs, and asks the client for input (sampling, elicitation,
# roots). The same handler code runs in both protocol eras:
#
#   legacy  (2024-11-05 .. 2025-11-25) - asking for input is a server-to-client
#           JSON-RPC request. The Context hands it to the Peer, which the runtime
#           implements (it sends the request and awaits the answer).
#   modern  (2026-07-28) - there are no server-to-client requests; the server
#           answers with an InputRequiredResult and the client retries the request
#           with the answers (basic/patterns/mrtr.mdx). We implement that by
#           *replay*: on the first ask the Context raises InputNeeded, the Server
#           turns it into an InputRequiredResult whose sealed requestState carries
#           the answers so far, and on the retry the handler runs again from the
#           start. Each ask has a key (the inputRequests key: by default its
#           ordinal, "1", "2"...; or one the handler names), and an ask whose key
#           has an answer returns it, so a handler that asks twice takes two round
#           trips. `Context.gather` asks several questions in one round trip.
#           Handlers must therefore be deterministic up to their last ask and keep
#           side effects after it.
#
# InputNeeded derives from BaseException, like GeneratorExit, so a handler's
# ``except Exception`` cannot swallow it.

from __future__ import annotations

import inspect
import secrets
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Final, Literal, Protocol, TypeVar

import msgspec
from msgspec import UNSET

from ..session.config import missing_client_capability
from ..session.events import RequestReceived
from ..session.server import LOG_LEVELS, ClientInfo
from ..types.base import LoggingLevel, RequestId
from ..types.client import (
    CreateMessageRequest,
    CreateMessageRequestParams,
    CreateMessageResult,
    ElicitationCompleteNotificationParams,
    ElicitRequest,
    ElicitRequestParams,
    ElicitRequestURLParams,
    ElicitResult,
    InputRequest,
    ListRootsRequest,
    ListRootsResult,
    ModelPreferences,
    RequestedSchema,
    SamplingMessage,
    ToolChoice,
)
from ..types.content import TextContent
from ..types.methods import LEGACY_REVISIONS, method_spec
from ..types.server import Tool
from ..wire.errors import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    URL_ELICITATION_REQUIRED,
)

__all__ = [
    "McpError",
    "UrlElicitationRequiredError",
    "ResourceNotFoundError",
    "Peer",
    "Context",
    "InputNeeded",
    "Detach",
]

_R = TypeVar("_R", bound=msgspec.Struct)
_A = TypeVar("_A")

#: Requests whose handlers may ask for input in 2026-07-28 (mrtr.mdx "Supported Requests").
MRTR_METHODS: Final = frozenset({"tools/call", "prompts/get", "resources/read"})


class McpError(Exception):
    """An error to answer a request with, as a JSON-RPC error object.

    Raise it from a handler to fail the request with this code; the runtime sends it
    with ``ServerSession.send_error(id, code, message, data)``.

    Attributes:
        code: the JSON-RPC error code (see the constants in ``mcp_core``).
        message: a short description, also ``str(error)``.
        data: optional details for the error object's ``data`` member, or None.
    """

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data


class UrlElicitationRequiredError(McpError):
    """The request cannot go on until the user completes URL-mode elicitations.

    A handler raises it; up to 2025-11-25 the client gets error -32042 with the
    elicitations in ``data`` (2025-11-25 client/elicitation.mdx "URL Elicitation
    Required Error"), and retries once the user is done. 2026-07-28 has no -32042
    (basic/index.mdx): the server answers with an InputRequiredResult carrying the
    same URL elicitations, and the client's retry runs the handler again.

    The client raises it too, for a -32042 answer (see `from_error`).

    Args:
        elicitations: URL-mode ``elicitation/create`` params, each with an
            ``elicitation_id`` (`url_elicitation` builds one).
        message: the error message.

    Attributes:
        elicitations: the URL-mode elicitations, as ElicitRequestURLParams.
    """

    def __init__(
        self,
        elicitations: Sequence[ElicitRequestParams | Mapping[str, Any]],
        message: str = "This request requires more information.",
    ) -> None:
        self.elicitations = [
            msgspec.convert(e, ElicitRequestURLParams, from_attributes=True) for e in elicitations
        ]
        data = {"elicitations": msgspec.to_builtins(self.elicitations)}
        super().__init__(URL_ELICITATION_REQUIRED, message, data)

    @classmethod
    def from_error(cls, error: McpError) -> UrlElicitationRequiredError | None:
        """The -32042 error ``error`` as a UrlElicitationRequiredError; None if it
        is another error, or its ``data`` holds no valid URL elicitations."""
        if error.code != URL_ELICITATION_REQUIRED or not isinstance(error.data, dict):
            return None
        try:
            return cls(error.data.get("elicitations", ()), error.message)
        except (msgspec.ValidationError, TypeError):
            return None


def url_elicitation(
    url: str, message: str, *, elicitation_id: str | None = None
) -> ElicitRequestURLParams:
    """URL-mode ``elicitation/create`` params, with a fresh random
    ``elicitation_id`` unless one is given (2025-11-25 client/elicitation.mdx:
    the id is unique, and ties ``notifications/elicitation/complete`` to it)."""
    if elicitation_id is None:
        elicitation_id = secrets.token_hex(16)
    return ElicitRequestURLParams(
        mode="url", message=message, url=url, elicitation_id=elicitation_id
    )


class ResourceNotFoundError(Exception):
    """Raised by a resource handler when the URI names nothing.

    The server answers with the not-found code of the request's revision: -32002 up
    to 2025-11-25, -32602 from 2026-07-28 (server/resources.mdx "Error Handling").
    """


class InputNeeded(BaseException):
    """Internal: a modern-era handler needs input the client has not given yet.

    The Server catches it and answers with an InputRequiredResult.

    Attributes:
        requests: the input requests to send, by inputRequests key (one, or
            several from `Context.gather`).
    """

    def __init__(self, requests: dict[str, InputRequest]) -> None:
        super().__init__(*requests)
        self.requests = requests


class Detach(BaseException):
    """Internal: a handler asked to go on as a task (`Context.detach`) while the
    request can still become one; the Server starts the task and runs the
    handler again there, with the answers gathered so far."""


class Peer(Protocol):
    """What the runtime provides to a Context: its link to the requesting client.

    One Peer serves one incoming request, so it knows the request id and progress
    token and where notifications for the request go.
    """

    async def send_progress(
        self, progress: float, total: float | None, message: str | None
    ) -> None:
        """Send ``notifications/progress`` with the request's progress token."""
        ...

    async def send_log(self, level: str, data: Any, logger: str | None) -> None:
        """Send ``notifications/message`` related to the request."""
        ...

    async def request(self, method: str, params: Any) -> Any:
        """Send a server-to-client request (legacy era only) and return its result.

        Args:
            method: "sampling/createMessage", "elicitation/create" or "roots/list".
            params: the params Struct, or ``UNSET`` for ``roots/list``.

        Returns:
            The typed result (CreateMessageResult, ElicitResult, ListRootsResult);
            a plain dict is accepted and converted.

        Raises:
            McpError: the client answered with an error.
        """
        ...

    def run_sync(self, fn: Callable[[], _A]) -> Awaitable[_A]:
        """Run a plain function off the event loop (a worker thread): awaited,
        return its result or raise its exception. (A plain method returning the
        awaitable, so that the runtime can hand back what needs no frame.)"""
        ...

    async def send_notification(self, method: str, params: Any) -> None:
        """Send a notification to the client on the request's connection."""
        ...


class Context:
    """The request a handler is serving, and what it can do about it.

    The runtime builds one per incoming request and passes it to
    ``Server.dispatch``; handlers get it by annotating a parameter with
    ``Context``.

    Args:
        request: the RequestReceived event being served.
        peer: the runtime's link to the client.
        now: wall-clock seconds (``time.time()``) when the request arrived; used to
            seal and check the 2026-07-28 ``requestState`` expiry.
        principal: who the transport authenticated the request as, or None. A
            ``requestState`` sealed for one principal is refused for another
            (2026-07-28 basic/patterns/mrtr.mdx, "Server Requirements").
    """

    def __init__(
        self, request: RequestReceived, peer: Peer, *, now: float, principal: str | None = None
    ) -> None:
        self.request = request
        #: True for 2026-07-28 (stateless, multi round-trip) requests. Decided
        #: once: a tools/call asks it several times.
        self.modern = request.revision not in LEGACY_REVISIONS
        self.peer = peer
        self.now = now
        self.principal = principal
        #: What the server's lifespan yielded (see `Server`), set by the Server.
        self.lifespan: Any = None
        # Modern replay: the answers collected so far (key -> (method, answer)), or
        # None outside a replayable request. Set by the Server (see _begin_replay).
        self._answers: dict[str, tuple[str, dict[str, Any]]] | None = None
        # Values kept across round trips by `once` (None: nothing to keep them in).
        self._kept: dict[str, Any] | None = None
        #: Which round trip of a 2026-07-28 multi round-trip request this is: 0 for
        #: the first call, 1 for the first retry with answers, and so on.
        self.round = 0
        self._asked = 0
        self._gathering = False

    # --- what is being served -----------------------------------------------------------

    @property
    def request_id(self) -> RequestId:
        """The JSON-RPC id of the request."""
        return self.request.id

    @property
    def method(self) -> str:
        """The MCP method being served, e.g. "tools/call"."""
        return self.request.method

    @property
    def revision(self) -> str:
        """The protocol revision the request is served under."""
        return self.request.revision

    @property
    def client(self) -> ClientInfo:
        """The client's capabilities, identity and log level."""
        client = self.request.client
        assert isinstance(client, ClientInfo)
        return client

    # --- progress and logging -----------------------------------------------------------

    async def run_sync(self, fn: Callable[[], _A]) -> _A:
        """Run a plain function in one of the runtime's worker threads (a bounded
        pool) and return its result: blocking work (a file, a database driver)
        that would otherwise stall every request of the process. Plain-function
        handlers already run this way unless registered with ``threaded=False``.

        Raises:
            Exception: whatever ``fn`` raises.
        """
        return await self.peer.run_sync(fn)

    async def report_progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        """Report progress, if the client asked for it with a progress token.

        Without a token this does nothing (basic/utilities/progress.mdx: progress
        is only sent for requests that carry one).
        """
        if self.request.progress_token is None:
            return
        await self.peer.send_progress(progress, total, message)

    async def log(self, level: LoggingLevel, data: Any, logger: str | None = None) -> None:
        """Send a log message if the client wants this level.

        The threshold is the request's ``logLevel`` (2026-07-28) or the session's
        ``logging/setLevel`` (legacy, as of when the request arrived). Without one, a
        legacy client gets everything and a modern client nothing (2026-07-28
        server/utilities/logging.mdx: MUST NOT emit for a request without logLevel).

        Raises:
            ValueError: ``level`` is not a syslog level name.
        """
        if level not in LOG_LEVELS:
            raise ValueError(f"unknown log level {level!r}")
        threshold = self.client.log_level
        if threshold is None:
            if self.modern:
                return
        elif LOG_LEVELS.index(level) < LOG_LEVELS.index(threshold):
            return
        await self.peer.send_log(level, data, logger)

    async def debug(self, data: Any, logger: str | None = None) -> None:
        """``log("debug", ...)``."""
        await self.log("debug", data, logger)

    async def info(self, data: Any, logger: str | None = None) -> None:
        """``log("info", ...)``."""
        await self.log("info", data, logger)

    async def warning(self, data: Any, logger: str | None = None) -> None:
        """``log("warning", ...)``."""
        await self.log("warning", data, logger)

    async def error(self, data: Any, logger: str | None = None) -> None:
        """``log("error", ...)``."""
        await self.log("error", data, logger)

    # --- asking the client --------------------------------------------------------------

    async def sample(
        self,
        messages: str | Sequence[SamplingMessage | str],
        max_tokens: int,
        *,
        system_prompt: str | None = None,
        temperature: float | None = None,
        stop_sequences: Sequence[str] | None = None,
        model_preferences: ModelPreferences | None = None,
        include_context: Literal["none", "thisServer", "allServers"] | None = None,
        metadata: dict[str, Any] | None = None,
        tools: Sequence[Tool | Mapping[str, Any]] | None = None,
        tool_choice: ToolChoice | Literal["auto", "required", "none"] | None = None,
        key: str | None = None,
    ) -> CreateMessageResult:
        """Ask the client to sample its LLM (``sampling/createMessage``).

        With ``tools`` the model may answer with ``tool_use`` content
        (``stop_reason == "toolUse"``); the handler runs the tools and samples
        again with the history plus a user message of ``tool_result`` blocks
        (2025-11-25 client/sampling.mdx "Sampling with Tools").

        Args:
            messages: the conversation; a str is one user text message.
            max_tokens: the most tokens to sample.
            tools: tools the model may use (Tool or dicts of one); they need
                not be tools this server registered.
            tool_choice: "auto" (the default), "required" or "none".
            key: the question's key in 2026-07-28 ``inputRequests`` (unique
                within the request); by default its ordinal ("1", "2"...).

        Raises:
            McpError: the client did not declare ``sampling`` (or, with tools,
                ``sampling.tools``): -32021 in 2026-07-28, -32600 before; or,
                legacy, it answered with an error.
        """
        if isinstance(tool_choice, str):
            tool_choice = ToolChoice(mode=tool_choice)
        if isinstance(messages, str):
            messages = [messages]
        params = CreateMessageRequestParams(
            messages=[
                SamplingMessage(role="user", content=TextContent(text=m))
                if isinstance(m, str)
                else m
                for m in messages
            ],
            max_tokens=max_tokens,
            system_prompt=_unset(system_prompt),
            temperature=_unset(temperature),
            stop_sequences=UNSET if stop_sequences is None else list(stop_sequences),
            model_preferences=_unset(model_preferences),
            include_context=_unset(include_context),
            metadata=_unset(metadata),
            tools=UNSET
            if tools is None
            else [msgspec.convert(t, Tool, from_attributes=True) for t in tools],
            tool_choice=_unset(tool_choice),
        )
        self._require("sampling/createMessage", params)
        return await self._ask(
            "sampling/createMessage", CreateMessageRequest(params=params), CreateMessageResult, key
        )

    async def elicit(
        self,
        message: str,
        requested_schema: RequestedSchema | dict[str, Any],
        *,
        key: str | None = None,
    ) -> ElicitResult:
        """Ask the user for structured input through the client (form mode).

        In 2026-07-28 the handler is run again from the top when the answer comes
        back (a multi round-trip request): anything done before this call is done
        again, unless it is done with `once`. See `once` and `round`.

        Args:
            message: what to ask.
            requested_schema: a flat object schema of primitive fields
                (client/elicitation.mdx "Requested Schema").
            key: the question's 2026-07-28 ``inputRequests`` key (see `sample`).

        Raises:
            McpError: the client cannot do form elicitation (-32021 in 2026-07-28,
                -32600 before), or, legacy, it answered with an error.
            msgspec.ValidationError: ``requested_schema`` is not a valid
                elicitation schema.
        """
        schema = msgspec.convert(requested_schema, RequestedSchema, from_attributes=True)
        params = ElicitRequestParams(message=message, requested_schema=schema)
        self._require("elicitation/create", params)
        return await self._ask(
            "elicitation/create", ElicitRequest(params=params), ElicitResult, key
        )

    async def elicit_url(
        self,
        url: str,
        message: str,
        *,
        elicitation_id: str | None = None,
        key: str | None = None,
    ) -> ElicitResult:
        """Send the user to ``url`` for something that must not pass through the
        client (credentials, a payment, a third-party OAuth flow): URL-mode
        elicitation (2025-11-25 client/elicitation.mdx "URL Mode").

        "accept" means the user agreed to open the URL, not that they are done:
        the interaction happens out of band. Up to 2025-11-25 the server may say
        when it is done with `complete_elicitation`; in 2026-07-28 the client
        retries the request and the handler checks its own state.

        Args:
            url: the page to open.
            message: why.
            elicitation_id: the id to send (2025-11-25 only); by default a random
                one. Give your own to call `complete_elicitation` with it later.
            key: the question's 2026-07-28 ``inputRequests`` key (see `sample`).

        Raises:
            McpError: the client did not declare ``elicitation.url`` (-32021 in
                2026-07-28, -32600 before), or, legacy, it answered with an error.
        """
        params: ElicitRequestParams
        if self.modern:  # 2026-07-28 ElicitRequestURLParams has no elicitationId
            params = ElicitRequestURLParams(mode="url", message=message, url=url)
        else:
            params = url_elicitation(url, message, elicitation_id=elicitation_id)
        self._require("elicitation/create", params)
        return await self._ask(
            "elicitation/create", ElicitRequest(params=params), ElicitResult, key
        )

    async def complete_elicitation(self, elicitation_id: str) -> bool:
        """Tell the client a URL-mode elicitation is done
        (``notifications/elicitation/complete``, 2025-11-25 only).

        May be called after the handler returned, while the connection lives:
        the notification goes to the client that made this request, as the spec
        requires ("MUST only send the notification to the client that initiated
        the elicitation request").

        Returns:
            Whether it was sent: not in revisions without the notification, nor to
            a client that did not declare ``elicitation.url``.
        """
        method = "notifications/elicitation/complete"
        if method_spec(method, self.revision) is None:
            return False
        if missing_client_capability(self.client.capabilities, "elicitation/create", _URL):
            return False
        params = ElicitationCompleteNotificationParams(elicitation_id=elicitation_id)
        await self.peer.send_notification(method, params)
        return True

    async def list_roots(self, *, key: str | None = None) -> ListRootsResult:
        """Ask the client for its roots (``roots/list``).

        Args:
            key: the question's 2026-07-28 ``inputRequests`` key (see `sample`).

        Raises:
            McpError: the client did not declare ``roots`` (-32021 in 2026-07-28,
                -32600 before), or, legacy, it answered with an error.
        """
        self._require("roots/list", UNSET)
        return await self._ask("roots/list", ListRootsRequest(), ListRootsResult, key)

    async def gather(self, *asks: Awaitable[_A]) -> list[_A]:
        """Ask several questions at once: ``await ctx.gather(ctx.elicit(...),
        ctx.sample(...))`` returns their answers in order.

        In 2026-07-28 every question not answered yet goes into one
        InputRequiredResult, so they cost one round trip
        (basic/patterns/mrtr.mdx: ``inputRequests`` is a map). Up to 2025-11-25
        they are server-to-client requests, sent one after another.

        Raises:
            McpError: as the questions' own methods raise.
        """
        pending = list(asks)
        answers: list[_A] = []
        missing: dict[str, InputRequest] = {}
        collect = self.modern and self._answers is not None and not self._gathering
        self._gathering = self._gathering or collect
        try:
            while pending:
                ask = pending.pop(0)
                try:
                    answers.append(await ask)
                except InputNeeded as needed:
                    if not collect:
                        raise
                    missing.update(needed.requests)
        finally:
            if collect:
                self._gathering = False
            for left in pending:  # after a failure: never awaited, so close them
                close = getattr(left, "close", None)
                if close is not None:
                    close()
        if missing:
            raise InputNeeded(missing)
        return answers

    def _require(self, method: str, params: Any) -> None:
        missing = missing_client_capability(self.client.capabilities, method, params)
        if missing is None:
            return
        # 2026-07-28 basic/index.mdx: a request that needs an undeclared client
        # capability fails with -32021 listing it. Legacy revisions have no such
        # code; the request cannot be served to this client, hence -32600.
        name, flag = missing
        code = MISSING_REQUIRED_CLIENT_CAPABILITY if self.modern else INVALID_REQUEST
        raise McpError(
            code,
            f"Server requires the {name if flag is None else f'{name}.{flag}'} "
            "capability for this request",
            data={"requiredCapabilities": {name: {} if flag is None else {flag: {}}}},
        )

    def _url_asks(self, required: UrlElicitationRequiredError) -> dict[str, InputRequest]:
        # 2026-07-28 has no -32042: the elicitations become input requests.
        asks: dict[str, InputRequest] = {}
        for number, elicitation in enumerate(required.elicitations, 1):
            params = msgspec.structs.replace(elicitation, elicitation_id=UNSET)
            self._require("elicitation/create", params)
            asks[f"url-{number}"] = ElicitRequest(params=params)
        return asks

    async def _ask(
        self, method: str, request: InputRequest, result_type: type[_R], key: str | None
    ) -> _R:
        if not self.modern:
            result = await self.peer.request(method, request.params)
            if isinstance(result, result_type):
                return result
            return msgspec.convert(result, result_type)
        if self._answers is None:
            raise McpError(
                INTERNAL_ERROR,
                f"{method} is not possible while serving {self.method}: in "
                "2026-07-28 only tools/call, prompts/get and resources/read can ask for input",
            )
        self._asked += 1
        if key is None:
            key = str(self._asked)
        found = self._answers.get(key)
        if found is None:
            raise InputNeeded({key: request})
        answered, response = found
        if answered not in ("", method):
            raise McpError(
                INTERNAL_ERROR,
                "the handler asked for different input when replayed; handlers must "
                "ask the same questions in the same order on every round trip",
            )
        try:
            return msgspec.convert(response, result_type)
        except msgspec.ValidationError as exc:
            raise McpError(INVALID_PARAMS, f"inputResponses[{key!r}] is invalid: {exc}") from None

    async def once(self, key: str, fn: Callable[[], Awaitable[_A] | _A]) -> _A | Any:
        """Do ``fn`` once for this request, however many round trips it takes.

        In 2026-07-28 a handler that asks for input (`elicit`, `sample`,
        `list_roots`) does not wait for the answer: the client calls again with
        it, and the handler runs again from the top (basic/patterns/mrtr.mdx,
        the server keeps no state between the calls). Work done before the
        question runs on every round. ``await ctx.once("order", create_order)``
        runs ``create_order`` on the first round only and keeps its result in the
        sealed ``requestState``, which the client hands back with its answers;
        later rounds get the kept value. Up to 2025-11-25 a question is a
        request the handler waits for, so ``fn`` just runs.

        Args:
            key: names the value within the request.
            fn: a function or coroutine function; its result must be JSON (it
                travels in the requestState), and on later rounds comes back as
                plain JSON values (dicts, lists, strings, numbers).

        Returns:
            ``fn``'s result, or the one kept from an earlier round.
        """
        kept = self._kept
        if kept is not None and key in kept:
            return kept[key]
        value = fn()
        if inspect.isawaitable(value):
            value = await value
        if kept is not None:
            # A copy on the first write: the dict came from the opened state.
            self._kept = kept = {**kept, key: msgspec.to_builtins(value)}
        return value

    #: Whether `detach` moves the handler into a task (set by the Server for a
    #: tool registered with ``task=`` and ``ask_first=True``, when the request may
    #: become a task).
    _may_detach: bool = False

    async def detach(self) -> None:
        """Go on as a task from here: for a tool registered with ``task=`` and
        ``ask_first=True``, the questions asked before this call are asked in
        the request (2026-07-28 multi round-trip requests; the tasks extension
        "Task Creation": servers SHOULD resolve those before answering with a
        CreateTaskResult), and the rest runs as a task. Does nothing when the
        request does not become a task, or already is one.
        """
        if self._may_detach:
            raise Detach()

    async def report_status(self, message: str) -> None:
        """Set the task's ``statusMessage`` when the handler runs as a task
        (mcp_core/tasks); otherwise nothing."""

    def _begin_replay(
        self,
        answers: dict[str, tuple[str, dict[str, Any]]],
        kept: dict[str, Any] | None = None,
        round: int = 0,
    ) -> None:
        self._answers = answers
        self._kept = _NOTHING_KEPT if kept is None else kept
        self.round = round
        self._asked = 0

    def _end_replay(self) -> None:
        self._answers = None
        self._asked = 0


_URL: Final = {"mode": "url"}

_NOTHING_KEPT: Final[dict[str, Any]] = {}
"""Shared by requests that kept nothing; `Context.once` copies before writing."""


def _unset(value: Any) -> Any:
    return UNSET if value is None else value
