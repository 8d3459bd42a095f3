"""The method table: which methods exist in which revision, who sends them, and their types.

Theory of operation
-------------------
``METHODS`` is keyed by ``(method, revision)``; a missing key means the method does not exist in
that revision. The facts come from each revision's schema.json:
``ClientRequest``/``ServerRequest``/``ClientNotification``/``ServerNotification`` give method,
sender and kind, and in 2026-07-28 ``InputRequest`` lists the *input requests*:
``sampling/createMessage``, ``elicitation/create`` and ``roots/list`` are no longer JSON-RPC
requests there but travel inside an ``InputRequiredResult`` and are answered through the retried
request's ``inputResponses`` (2026-07-28 basic/patterns/mrtr). tests/test_methods.py re-derives
the table from the schemas.

Some methods go both ways (``ping``, ``notifications/cancelled``, and ``tasks/*``), so ``sender``
may be ``"both"``.

Decoding is two-stage: the envelope leaves params/result as ``Raw``, then
``params_decoder(spec)`` / ``result_decoder(spec)`` give the typed decoder, built once. A result
may also be an ``InputRequiredResult`` (2026-07-28, ``spec.input_required``) or a
``CreateTaskResult`` (2025-11-25, ``spec.task_augmentable``); ``decode_method_result`` picks.
"""

from __future__ import annotations

import functools
from typing import Any, Literal

import msgspec
from msgspec import UNSET, UnsetType

from ..wire.jsonrpc import OnePassDecoder
from . import base as b
from . import client as c
from . import server as s
from . import skills as k
from . import tasks as t

__all__ = [
    "LATEST_REVISION",
    "LEGACY_REVISIONS",
    "EXTENSION_METHODS",
    "METHODS",
    "REVISIONS",
    "MethodSpec",
    "decode_method_result",
    "message_decoder",
    "method_spec",
    "params_decoder",
    "register_method",
    "result_decoder",
]

REVISIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28")
"""Every supported protocol revision, oldest first."""

LATEST_REVISION = "2026-07-28"
"""The newest revision: stateless, no ``initialize`` handshake."""

LEGACY_REVISIONS = REVISIONS[:4]
"""The revisions that open a session with ``initialize``."""

Sender = Literal["client", "server", "both"]
Kind = Literal["request", "notification", "input_request"]


class MethodSpec(msgspec.Struct, frozen=True, kw_only=True):
    """One method in one revision."""

    method: str
    revision: str
    #: Who sends it; ``"both"`` for methods either peer may send.
    sender: Sender
    #: ``"input_request"``: a 2026-07-28 server request carried inside an InputRequiredResult.
    kind: Kind
    params_type: type[msgspec.Struct]
    #: Whether the schema requires ``params`` (absent params decode as ``{}`` otherwise).
    params_required: bool
    #: None for notifications; a dict alias for ``tasks/result`` (its payload varies).
    result_type: Any = None
    #: 2026-07-28: the result may be an InputRequiredResult (multi round-trip request).
    input_required: bool = False
    #: 2025-11-25: a request with ``params.task`` may be answered with a CreateTaskResult.
    task_augmentable: bool = False
    #: The identifier of the extension that defines the method (SEP-2133), or None for the
    #: core protocol's. A server takes it only while it declares that extension.
    extension: str | None = None


_L = LEGACY_REVISIONS
_ALL = REVISIONS
_NEW = (LATEST_REVISION,)
_TASKS = ("2025-11-25",)
_PRE_TASKS = REVISIONS[:3]

METHODS: dict[tuple[str, str], MethodSpec] = {}
"""(method, revision) -> MethodSpec; a missing key means "no such method in that revision"."""


def _add(
    method: str,
    revisions: tuple[str, ...],
    sender: Sender,
    kind: Kind,
    params_type: type[msgspec.Struct],
    result_type: Any = None,
    *,
    params_required: bool = True,
    input_required: bool = False,
    task_augmentable: bool = False,
) -> None:
    for revision in revisions:
        METHODS[method, revision] = MethodSpec(
            method=method,
            revision=revision,
            sender=sender,
            kind=kind,
            params_type=params_type,
            params_required=params_required,
            result_type=result_type,
            input_required=input_required,
            task_augmentable=task_augmentable,
        )


# fmt: off
# Lifecycle and utilities
_add("initialize", _L, "client", "request", b.InitializeRequestParams, b.InitializeResult)
_add("ping", _L, "both", "request", b.RequestParams, b.EmptyResult, params_required=False)
_add("server/discover", _NEW, "client", "request", b.RequestParams, b.DiscoverResult)
_add("notifications/initialized", _L, "client", "notification", b.NotificationParams,
     params_required=False)
_add("notifications/cancelled", _ALL, "both", "notification", b.CancelledNotificationParams)
_add("notifications/progress", _L, "both", "notification", b.ProgressNotificationParams)
_add("notifications/progress", _NEW, "server", "notification", b.ProgressNotificationParams)

# Resources. List params become required in 2026-07-28 because ``_meta`` is.
_add("resources/list", _L, "client", "request", b.PaginatedRequestParams,
     s.ListResourcesResult, params_required=False)
_add("resources/list", _NEW, "client", "request", b.PaginatedRequestParams,
     s.ListResourcesResult)
_add("resources/templates/list", _L, "client", "request", b.PaginatedRequestParams,
     s.ListResourceTemplatesResult, params_required=False)
_add("resources/templates/list", _NEW, "client", "request", b.PaginatedRequestParams,
     s.ListResourceTemplatesResult)
_add("resources/read", _L, "client", "request", s.ReadResourceRequestParams,
     s.ReadResourceResult)
_add("resources/read", _NEW, "client", "request", s.ReadResourceRequestParams,
     s.ReadResourceResult, input_required=True)
_add("resources/subscribe", _L, "client", "request", s.SubscribeRequestParams, b.EmptyResult)
_add("resources/unsubscribe", _L, "client", "request", s.UnsubscribeRequestParams,
     b.EmptyResult)
_add("notifications/resources/list_changed", _ALL, "server", "notification",
     b.NotificationParams, params_required=False)
_add("notifications/resources/updated", _ALL, "server", "notification",
     s.ResourceUpdatedNotificationParams)

# Subscriptions (2026-07-28)
_add("subscriptions/listen", _NEW, "client", "request", s.SubscriptionsListenRequestParams,
     s.SubscriptionsListenResult)
_add("notifications/subscriptions/acknowledged", _NEW, "server", "notification",
     s.SubscriptionsAcknowledgedNotificationParams)

# Prompts
_add("prompts/list", _L, "client", "request", b.PaginatedRequestParams, s.ListPromptsResult,
     params_required=False)
_add("prompts/list", _NEW, "client", "request", b.PaginatedRequestParams, s.ListPromptsResult)
_add("prompts/get", _L, "client", "request", s.GetPromptRequestParams, s.GetPromptResult)
_add("prompts/get", _NEW, "client", "request", s.GetPromptRequestParams, s.GetPromptResult,
     input_required=True)
_add("notifications/prompts/list_changed", _ALL, "server", "notification",
     b.NotificationParams, params_required=False)

# Tools
_add("tools/list", _L, "client", "request", b.PaginatedRequestParams, s.ListToolsResult,
     params_required=False)
_add("tools/list", _NEW, "client", "request", b.PaginatedRequestParams, s.ListToolsResult)
_add("tools/call", _PRE_TASKS, "client", "request", s.CallToolRequestParams, s.CallToolResult)
_add("tools/call", _TASKS, "client", "request", s.CallToolRequestParams, s.CallToolResult,
     task_augmentable=True)
_add("tools/call", _NEW, "client", "request", s.CallToolRequestParams, s.CallToolResult,
     input_required=True)
_add("notifications/tools/list_changed", _ALL, "server", "notification",
     b.NotificationParams, params_required=False)

# Completion and logging (``logging/setLevel`` became a ``_meta`` key in 2026-07-28)
_add("completion/complete", _ALL, "client", "request", s.CompleteRequestParams,
     s.CompleteResult)
_add("logging/setLevel", _L, "client", "request", s.SetLevelRequestParams, b.EmptyResult)
_add("notifications/message", _ALL, "server", "notification",
     s.LoggingMessageNotificationParams)

# Sampling, roots, elicitation: server requests, then input requests in 2026-07-28
_add("sampling/createMessage", _PRE_TASKS, "server", "request", c.CreateMessageRequestParams,
     c.CreateMessageResult)
_add("sampling/createMessage", _TASKS, "server", "request", c.CreateMessageRequestParams,
     c.CreateMessageResult, task_augmentable=True)
_add("sampling/createMessage", _NEW, "server", "input_request", c.CreateMessageRequestParams,
     c.CreateMessageResult)
_add("roots/list", _L, "server", "request", b.RequestParams, c.ListRootsResult,
     params_required=False)
_add("roots/list", _NEW, "server", "input_request", b.RequestParams, c.ListRootsResult,
     params_required=False)
_add("notifications/roots/list_changed", _L, "client", "notification", b.NotificationParams,
     params_required=False)
_add("elicitation/create", ("2025-06-18",), "server", "request", c.ElicitRequestParams,
     c.ElicitResult)
_add("elicitation/create", _TASKS, "server", "request", c.ElicitRequestParams, c.ElicitResult,
     task_augmentable=True)
_add("elicitation/create", _NEW, "server", "input_request", c.ElicitRequestParams,
     c.ElicitResult)
_add("notifications/elicitation/complete", _TASKS, "server", "notification",
     c.ElicitationCompleteNotificationParams)

# Tasks (2025-11-25 only; an extension from 2026-07-28)
_add("tasks/get", _TASKS, "both", "request", t.TaskRequestParams, t.GetTaskResult)
_add("tasks/result", _TASKS, "both", "request", t.TaskRequestParams, t.GetTaskPayloadResult)
_add("tasks/cancel", _TASKS, "both", "request", t.TaskRequestParams, t.CancelTaskResult)
_add("tasks/list", _TASKS, "both", "request", b.PaginatedRequestParams, t.ListTasksResult,
     params_required=False)
_add("notifications/tasks/status", _TASKS, "both", "notification",
     t.TaskStatusNotificationParams)
# fmt: on


EXTENSION_METHODS: dict[tuple[str, str], MethodSpec] = {}
"""Methods of extensions (SEP-2133), each tagged with its extension's identifier, kept apart
from METHODS, which mirrors the core schemas. `register_method` adds to it (mcp_core.extensions
does, for an extension written anywhere); the built-in ones are here so that the one-pass
decoder reads their params:

* the 2026-07-28 tasks extension ``io.modelcontextprotocol/tasks`` (experimental-ext-tasks,
  tasks.mdx: ``tasks/get``, ``tasks/update``, ``tasks/cancel``; no ``tasks/result`` nor
  ``tasks/list``, so those stay -32601);
* Skills, ``io.modelcontextprotocol/skills`` (SEP-2640, tests/spec/extensions/): ``skills/list``,
  ``skills/get`` and ``resources/directory/read``, in every revision (SEP-2133 "Negotiation"
  declares extensions in the handshake as well).
"""


def register_method(spec: MethodSpec) -> None:
    """Add an extension's method to EXTENSION_METHODS; the same extension registering it
    again replaces it (a module loaded twice).

    Raises:
        ValueError: ``spec`` has no extension, names a core method of its revision, or a
            method another extension registered under that name and revision.
    """
    key = (spec.method, spec.revision)
    if spec.extension is None:
        raise ValueError(f"{spec.method}: an extension method names its extension")
    if key in METHODS:
        raise ValueError(f"{spec.method} is a core method in {spec.revision}")
    known = EXTENSION_METHODS.get(key)
    if known is not None and known.extension != spec.extension:
        raise ValueError(
            f"{spec.method} ({spec.revision}) is already registered by {known.extension}"
        )
    EXTENSION_METHODS[key] = spec


def _add_extension(
    extension: str,
    method: str,
    revisions: tuple[str, ...],
    params_type: type[msgspec.Struct],
    result_type: Any,
    *,
    params_required: bool = True,
) -> None:
    for revision in revisions:
        register_method(
            MethodSpec(
                method=method,
                revision=revision,
                sender="client",
                kind="request",
                params_type=params_type,
                params_required=params_required,
                result_type=result_type,
                extension=extension,
            )
        )


for _method, _params, _result in (
    ("tasks/get", t.TaskRequestParams, t.DetailedTask),
    ("tasks/update", t.UpdateTaskRequestParams, b.Result),
    ("tasks/cancel", t.TaskRequestParams, b.Result),
):
    _add_extension(t.TASKS_EXTENSION, _method, _NEW, _params, _result)
_add_extension(
    k.SKILLS_EXTENSION,
    "skills/list",
    _ALL,
    b.PaginatedRequestParams,
    k.ListSkillsResult,
    params_required=False,
)
_add_extension(k.SKILLS_EXTENSION, "skills/get", _ALL, k.GetSkillParams, k.GetSkillResult)
_add_extension(
    k.SKILLS_EXTENSION,
    "resources/directory/read",
    _ALL,
    k.DirectoryReadParams,
    k.DirectoryReadResult,
)


def method_spec(method: str, revision: str) -> MethodSpec | None:
    """Look up a method in a revision (core, then EXTENSION_METHODS).

    Returns:
        The MethodSpec, or None when the method does not exist in that revision.
    """
    return METHODS.get((method, revision)) or EXTENSION_METHODS.get((method, revision))


@functools.cache
def _decoder(type_: Any) -> msgspec.json.Decoder[Any]:
    return msgspec.json.Decoder(type_)


def params_decoder(spec: MethodSpec) -> msgspec.json.Decoder[Any]:
    """The cached decoder for a method's params (feed it ``{}`` when params are absent)."""
    return _decoder(spec.params_type)


def result_decoder(spec: MethodSpec) -> msgspec.json.Decoder[Any]:
    """The cached decoder for a request's ordinary (complete) result.

    Raises:
        ValueError: ``spec`` is a notification, which has no result.
    """
    if spec.result_type is None:
        raise ValueError(f"{spec.method} is a notification and has no result")
    return _decoder(spec.result_type)


class _ResultProbe(msgspec.Struct, rename="camel"):
    """Just enough of a result to choose its type; everything else is skipped."""

    result_type: str | UnsetType = UNSET
    task: msgspec.Raw | UnsetType = UNSET


_probe_decoder = msgspec.json.Decoder(_ResultProbe)


def decode_method_result(spec: MethodSpec, data: bytes | msgspec.Raw) -> Any:
    """Decode a request's result, choosing between its possible result types.

    ``resultType: "input_required"`` gives an InputRequiredResult where the method allows it
    (2026-07-28); ``resultType: "task"`` a DetailedTask for ``tools/call`` (the 2026-07-28
    tasks extension); a ``task`` member gives a CreateTaskResult for task-augmentable methods
    (2025-11-25); anything else, including an absent ``resultType`` from older servers, is the
    ordinary result.

    Raises:
        msgspec.ValidationError: the result does not fit the chosen type.
        msgspec.DecodeError: ``data`` is not JSON.
        ValueError: ``spec`` is a notification.
    """
    probe = _probe_decoder.decode(data)
    if spec.input_required and probe.result_type == "input_required":
        return _decoder(c.InputRequiredResult).decode(data)
    if probe.result_type == "task" and spec.method == "tools/call":
        # The 2026-07-28 tasks extension's flat CreateTaskResult (tasks.mdx
        # "Polymorphic Results"), for a client that declared the extension.
        return _decoder(t.DetailedTask).decode(data)
    if spec.task_augmentable and not isinstance(probe.task, UnsetType):
        return _decoder(t.CreateTaskResult).decode(data)
    return result_decoder(spec).decode(data)


def _one_pass_decoder() -> OnePassDecoder:
    # Every method has one params type across revisions (the types are a superset),
    # so the method alone chooses it; which revision has the method is the
    # session's question, asked after decoding as before.
    requests: dict[str, Any] = {}
    notifications: dict[str, Any] = {}
    for spec in (*METHODS.values(), *EXTENSION_METHODS.values()):
        table = notifications if spec.kind == "notification" else requests
        table[spec.method] = spec.params_type
    return OnePassDecoder(requests, notifications)


message_decoder: OnePassDecoder = _one_pass_decoder()
"""One-pass decoding of any MCP message (`mcp_core.wire.OnePassDecoder`): the params of
every method in the tables come out typed, as ``params_decoder`` reads them."""
