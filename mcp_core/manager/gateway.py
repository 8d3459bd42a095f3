"""A server that offers what other servers offer: the gateway's application side.

`Gateway` is a `mcp_core.Server` that declares tools, resources and prompts and
whose lists belong to someone else (a client manager's union): its runtime answers
``tools/list`` and the rest with advanced handlers, and calls `Gateway.lists_changed`
whenever an upstream server's list changes or it reconnects, which sends the
gateway's own clients ``notifications/tools/list_changed`` (and resources, prompts)
as a Server does when its registry changes (2025-11-25 server/tools.mdx "List
Changed Notification"; in 2026-07-28 on the clients' ``subscriptions/listen``
streams).

An upstream's own requests during a call (sampling, elicitation, roots) go to
the gateway client whose call caused them:

- a handshake-era client is asked with a request of the gateway's
  (`Gateway.ask_client`), and its answer goes back to the upstream;
- a 2026-07-28 client cannot be asked in the middle of a call: it answers by
  calling again with ``inputResponses`` and the ``requestState`` of an
  InputRequiredResult (2026-07-28 basic/patterns/mrtr.mdx), a new request that
  would run the upstream's tool a second time if the gateway forwarded it as a
  call. So the upstream's call is *parked*: it goes on waiting for its answer,
  the client gets the question in an InputRequiredResult whose sealed
  ``requestState`` (the Server's, bound to the call and the principal) names
  the parked call (`PARKED_KEY`), and its retry hands the answers to the
  waiting upstream instead of calling it again (`Gateway.ask_parked`; the
  waiting is the runtime's, `transports.manager`). Each question has a key of
  its own for the whole call ("1", "2"...), so an answer never counts for a
  later question. A ``requestState`` naming a call that is not waiting for it
  gets the error the Server gives any bad ``requestState`` (`state_error`).

Which client capabilities the upstreams are told (`forwarded`):

- a 2026-07-28 upstream reads a client's capabilities in each request's
  ``_meta`` (2026-07-28 basic/index.mdx), so each forwarded call declares
  exactly what the gateway client that made it declared of sampling (tools
  and context included), elicitation (form, url) and roots: the upstream asks
  only what that client can answer, and refuses itself (-32021) a call that
  needs more; its error reaches the client as it came;
- a handshake-era upstream's session is one for every gateway client, and its
  capabilities are settled at ``initialize``: it is told everything the gateway
  can relay (sampling with tools, elicitation in form and URL modes, roots with
  ``listChanged``). When it asks for something the client whose call caused
  the request did not declare, the gateway answers its request with the error
  that client's own server would get for it (`Context`'s rule: -32021 in
  2026-07-28, -32600 before, naming the capability in
  ``data.requiredCapabilities``): the upstream's tool may go on without it, or
  fail, and its failure carries that error to the client. Declaring less
  would refuse every client what some can do; declaring per client is not
  possible on a shared session.

Extensions (SEP-2133, tests/spec/extensions/sep-2133-extensions.md "Negotiation"):

- the gateway declares to its clients every extension a connected upstream
  declares that it serves in full without knowing it: one that defines no
  method of its own (`mcp_core.extensions.defines_methods`), whose additions
  are metadata on what the core methods carry. MCP Apps is one
  (``io.modelcontextprotocol/ui``: its views are resources, read through the
  gateway as any resource is, and its tools keep their ``_meta.ui``, whose
  ``resourceUri`` needs no rewriting since the union keeps resource URIs). Its
  settings are the first such upstream's (`Relayed`); it is declared while one
  is connected. An extension that defines methods is the gateway's to serve
  (tasks, below) or not declared;
- a client's own declarations go upstream as its sampling does: whole, in each
  forwarded call's ``_meta``, to a 2026-07-28 upstream (`forwarded`), but for the
  extensions the gateway serves itself; a handshake-era upstream is told at
  ``initialize`` the ones the gateway's runtime is given (MCP Apps by default:
  its servers' tools answer with meaningful content for any client, "Server
  Behavior" of tests/spec/extensions/apps-2026-01-26.md).

Tasks are the gateway's own: it declares them (the 2025-11-25 capability, the
2026-07-28 extension) and lists each tool's ``execution.taskSupport`` as its
upstream does; a call its client asks to be a task becomes a task of the
gateway's (`Server.task_support`), whose upstream call is plain, or a task of
the upstream's followed to its end (a tool listed "required"). An upstream's
questions during it go to the client through the task (`ask_client` on a
`TaskContext`). So ``tasks`` and the tasks extension are not forwarded as
capabilities, nor is ``experimental``.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Collection, Sequence
from typing import Any, Final

from msgspec import UNSET

from ..extensions import Extension, defines_methods
from ..server.app import Server
from ..server.context import Context, InputNeeded, McpError
from ..session.config import missing_client_capability
from ..tasks.context import TaskContext
from ..types.base import ClientCapabilities, ServerCapabilities
from ..types.client import (
    CreateMessageRequest,
    CreateMessageResult,
    ElicitRequest,
    ElicitResult,
    InputRequest,
    ListRootsRequest,
    ListRootsResult,
)
from ..wire import INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST
from .catalog import KINDS, Kind

__all__ = [
    "PARKED_KEY",
    "RELAYED",
    "Gateway",
    "Question",
    "Relayed",
    "forwarded",
    "new_call_id",
    "state_error",
]

RELAYED: Final = {
    "sampling": "sampling/createMessage",
    "elicitation": "elicitation/create",
    "roots": "roots/list",
}
"""The client callbacks of a manager, and the requests of an upstream they answer."""

PARKED_KEY: Final = "mcp-core.gateway/parked"
"""The name under which a call's ``requestState`` keeps the id of its parked
upstream call (`Context.once`)."""

ROOTS_CHANGED: Final = "notifications/roots/list_changed"
"""A client's notice that its roots changed, which the gateway passes upstream."""

STARTED_KEY: Final = "mcp-core.gateway/started"
"""The round at which the request's current upstream call started (absent: 0)."""

Question = tuple[str, str, Any]
"""An upstream's question to a 2026-07-28 client: its ``inputRequests`` key, its
kind (a key of `RELAYED`) and its params (``UNSET`` for roots)."""

_RESULTS: Final[dict[str, type[Any]]] = {
    "sampling": CreateMessageResult,
    "elicitation": ElicitResult,
    "roots": ListRootsResult,
}


def _input_request(kind: str, params: Any) -> InputRequest:
    if kind == "sampling":
        return CreateMessageRequest(params=params)
    if kind == "elicitation":
        return ElicitRequest(params=params)
    return ListRootsRequest()


def new_call_id() -> str:
    """A parked call's id: 128 random bits, so that nobody guesses another's."""
    return secrets.token_urlsafe(16)


def forwarded(capabilities: ClientCapabilities, own: Collection[str] = ()) -> ClientCapabilities:
    """What a forwarded call declares to a 2026-07-28 upstream, for a gateway
    client that declared ``capabilities``: its sampling, elicitation and roots,
    which the gateway relays, and its extensions but those in ``own``, which
    the gateway serves itself (see the module)."""
    extensions = capabilities.extensions
    if extensions is not UNSET:
        extensions = {k: v for k, v in extensions.items() if k not in own} or UNSET
    return ClientCapabilities(
        sampling=capabilities.sampling,
        elicitation=capabilities.elicitation,
        roots=capabilities.roots,
        extensions=extensions,
    )


class Relayed(Extension):
    """An upstream's extension the gateway declares as its own (see the module).

    Args:
        id: its identifier.
        settings_of: ``settings_of(id)``, the settings a connected upstream
            declares for it, or None when none does (then it is not declared).
    """

    def __init__(self, id: str, settings_of: Callable[[str], dict[str, Any] | None]) -> None:
        self.id = id
        self._settings_of = settings_of

    def settings(self) -> dict[str, Any] | None:
        return self._settings_of(self.id)


def state_error(reason: str, detail: str) -> McpError:
    """The error for a ``requestState`` that names no call waiting for it: the
    code and message the Server answers any bad ``requestState`` with (-32602,
    ``data.reason``; 2026-07-28 basic/patterns/mrtr.mdx "Server Requirements":
    reject state that is expired or replayed).

    Args:
        reason: "expired", "replayed" or "unknown".
        detail: what happened, for a person.
    """
    return McpError(INVALID_PARAMS, f"invalid requestState: {detail}", data={"reason": reason})


class Gateway(Server):
    """A Server whose tools, resources and prompts are a union of other servers'.

    Args:
        name: its ``serverInfo.name``.
        version: its ``serverInfo.version``.
        instructions: for the model.
        options: other `Server` options (``state_ttl``, ``replay_guard``...).
    """

    #: The extensions the gateway serves itself (tasks...), which its clients'
    #: calls do not declare upstream (kept by `extend`: read on every call).
    own_extensions: frozenset[str] = frozenset()

    def __init__(
        self, name: str, version: str, *, instructions: str | None = None, **options: Any
    ) -> None:
        super().__init__(name, version, instructions=instructions, threaded=False, **options)
        # Tasks: a tool its upstream lists as task-capable runs as a task of the
        # gateway's when its client asks (`Server.task_support`), however its
        # upstream runs it.
        self.declare(*KINDS, "tasks")
        #: Called when a client says its roots changed: the runtime tells the
        #: upstreams (`transports.manager.Manager.roots_changed`).
        self.on_roots_changed: Callable[[], object] | None = None

    def notified(self, method: str, params: Any) -> bool:
        """A client's ``notifications/roots/list_changed`` (2025-11-25
        client/roots.mdx "List Changed Notification") goes to `on_roots_changed`:
        the roots the upstreams see are that client's, asked for afresh on their
        next ``roots/list``; other notifications go to the extensions."""
        if method == ROOTS_CHANGED and self.on_roots_changed is not None:
            self.on_roots_changed()
            return True
        return super().notified(method, params)

    def lists_changed(self, kind: Kind | None = None) -> None:
        """The union's list of ``kind`` (None: every kind) changed: tell the clients."""
        for each in KINDS if kind is None else (kind,):
            self._changed(each)

    def relay_extensions(
        self,
        upstream: ServerCapabilities,
        settings_of: Callable[[str], dict[str, Any] | None],
    ) -> list[str]:
        """Declare from now on the extensions ``upstream`` (a server that just
        connected) declares that the gateway serves without knowing them, with
        the settings ``settings_of(id)`` gives (`Relayed`).

        Returns:
            The identifiers declared for the first time.
        """
        added = []
        for name in () if upstream.extensions is UNSET else upstream.extensions:
            if name not in self.extensions and not defines_methods(name):
                self.extend(Relayed(name, settings_of))
                added.append(name)
        return added

    def extend(self, extension: Extension) -> Extension:
        super().extend(extension)
        if not isinstance(extension, Relayed):
            self.own_extensions = self.own_extensions | {extension.id}
        return extension

    def may_park(self, ctx: Context) -> bool:
        """Whether a forwarded call of ``ctx``'s must run apart from its request,
        to be parked if its upstream asks: the client speaks 2026-07-28 and
        declared at least one capability an upstream's question needs, in any
        mode (a client that declared none cannot be asked anything)."""
        if not ctx.modern or isinstance(ctx, TaskContext):
            return False  # a task's questions wait on the task
        capabilities = ctx.client.capabilities
        for method in RELAYED.values():
            missing = missing_client_capability(capabilities, method, UNSET)
            if missing is None or missing[1] is not None:  # elicitation.url alone
                return True
        return False

    async def parked_call(self, ctx: Context) -> tuple[str, int]:
        """The id of the parked upstream call a 2026-07-28 request names, and
        the round it started at: a new call when that round is ``ctx.round``."""
        call_id: str = await ctx.once(PARKED_KEY, new_call_id)
        started = (ctx._kept or {}).get(STARTED_KEY, 0)
        return call_id, started if isinstance(started, int) else 0

    def call_again(self, ctx: Context) -> None:
        """The request's upstream call ended asking for URL elicitations (-32042,
        a handshake-era upstream): they go to the client as input requests
        (2026-07-28 has no -32042), and its retry starts a new upstream call,
        as a direct client's retry would (2025-11-25 client/elicitation.mdx
        "URL Elicitation Required Error"): a new id in the ``requestState``."""
        kept = ctx._kept or {}
        ctx._kept = {**kept, PARKED_KEY: new_call_id(), STARTED_KEY: ctx.round + 1}

    async def ask_client(self, ctx: Context | None, kind: str, params: Any = UNSET) -> Any:
        """Relay an upstream's request of ``kind`` (a key of `RELAYED`) to the
        handshake-era gateway client served by ``ctx``; its answer.

        Raises:
            McpError: -32600 when there is no such call (``ctx`` None); the
                error of a missing capability when the client did not declare
                what the request needs (-32021 in 2026-07-28, -32600 before);
                for a 2026-07-28 client whose call was not parked, -32600; the
                client's own error when it refuses.
        """
        method = RELAYED[kind]
        if ctx is None:
            raise McpError(
                INVALID_REQUEST,
                f"the gateway cannot tell which of its clients {method} is for: no call "
                "of exactly one client is in flight on this server",
            )
        ctx._require(method, params)
        if isinstance(ctx, TaskContext):
            # The gateway's own task: its client answers through the task
            # (tasks/update in 2026-07-28, a request with the related task before).
            return await ctx._ask(method, _input_request(kind, params), _RESULTS[kind], None)
        if ctx.modern:
            raise McpError(
                INVALID_REQUEST,
                f"the gateway cannot ask its client for {method}: its call was not "
                "made so that it can wait for the answer",
            )
        return await ctx.peer.request(method, params)

    async def ask_parked(
        self, ctx: Context, questions: Sequence[Question], park: Callable[[int], bool]
    ) -> list[Any]:
        """The answers of the 2026-07-28 client served by ``ctx`` to an upstream's
        ``questions``, when its request carries them; else the questions go to
        it in an InputRequiredResult.

        Returns:
            Per question, the typed answer, or the McpError to give the upstream
            instead: the client lacks the capability the question needs (-32021),
            or the gateway holds too many parked calls.

        Raises:
            InputNeeded: (for the Server) some answers are missing; ``park`` was
                called first with the round the client's retry will carry, and
                returned True (it keeps the upstream's call waiting for it).
            McpError: an answer is not valid for its question (-32602).
        """
        answers: list[Any] = [None] * len(questions)
        asks = []
        for number, (key, kind, params) in enumerate(questions):
            method = RELAYED[kind]
            try:
                ctx._require(method, params)
            except McpError as exc:
                answers[number] = exc
                continue
            asks.append(
                (number, ctx._ask(method, _input_request(kind, params), _RESULTS[kind], key))
            )
        try:
            gathered = await ctx.gather(*(ask for _, ask in asks))
        except InputNeeded:
            if park(ctx.round + 1):
                raise
            refused = McpError(
                INTERNAL_ERROR,
                "the gateway cannot ask its client: it already holds as many calls "
                "waiting for their clients' answers as it may",
            )
            return [refused if answer is None else answer for answer in answers]
        for (number, _), answer in zip(asks, gathered, strict=True):
            answers[number] = answer
        return answers
