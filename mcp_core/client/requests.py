"""What a client asks: each client request as a `Call` (method, params, result type).

The async client never spells a method name; it asks a builder here for the call
and sends it. Builders take plain Python values and leave optional fields ``UNSET``,
so the wire carries only what the caller gave.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, Generic, TypeVar

from msgspec import UNSET

from ..types import (
    CallToolRequestParams,
    CallToolResult,
    CompleteRequestParams,
    CompleteResult,
    CompletionArgument,
    CompletionContext,
    EmptyResult,
    GetPromptRequestParams,
    GetPromptResult,
    ListPromptsResult,
    ListResourcesResult,
    ListResourceTemplatesResult,
    ListToolsResult,
    PaginatedRequestParams,
    PromptReference,
    ReadResourceRequestParams,
    ReadResourceResult,
    ResourceTemplateReference,
    SubscribeRequestParams,
    SubscriptionFilter,
    SubscriptionsListenRequestParams,
    SubscriptionsListenResult,
    UnsubscribeRequestParams,
)

__all__ = [
    "SET_LEVEL",
    "Call",
    "call_tool",
    "complete",
    "get_prompt",
    "list_prompts",
    "list_resource_templates",
    "list_resources",
    "list_tools",
    "listen",
    "ping",
    "read_resource",
    "subscribe",
    "unsubscribe",
]

R = TypeVar("R")

SET_LEVEL: Final = "logging/setLevel"
"""The handshake-era request that sets the log level (2025-11-25
server/utilities/logging.mdx "Setting Log Level"); 2026-07-28 carries the level
in each request's ``_meta`` instead."""


class Call(Generic[R]):
    """One request to send.

    Attributes:
        method: the MCP method.
        params: its params Struct, or ``UNSET`` for none.
        result_type: the type of its final result (the session decodes it; a
            2026-07-28 request may first answer with an InputRequiredResult).
    """

    __slots__ = ("method", "params", "result_type")

    def __init__(self, method: str, params: Any, result_type: type[R]) -> None:
        self.method = method
        self.params = params
        self.result_type = result_type

    def __repr__(self) -> str:
        return f"Call({self.method!r}, {self.params!r})"


def call_tool(name: str, arguments: Mapping[str, Any] | None = None) -> Call[CallToolResult]:
    """``tools/call`` of tool ``name`` with ``arguments``."""
    params = CallToolRequestParams(
        name=name, arguments=UNSET if arguments is None else dict(arguments)
    )
    return Call("tools/call", params, CallToolResult)


def read_resource(uri: str) -> Call[ReadResourceResult]:
    """``resources/read`` of ``uri``."""
    return Call("resources/read", ReadResourceRequestParams(uri=uri), ReadResourceResult)


def get_prompt(name: str, arguments: Mapping[str, str] | None = None) -> Call[GetPromptResult]:
    """``prompts/get`` of prompt ``name``, its arguments filled in."""
    params = GetPromptRequestParams(
        name=name, arguments=UNSET if arguments is None else dict(arguments)
    )
    return Call("prompts/get", params, GetPromptResult)


def complete(
    ref: PromptReference | ResourceTemplateReference,
    argument: str,
    value: str,
    context: Mapping[str, str] | None = None,
) -> Call[CompleteResult]:
    """``completion/complete`` of one argument of a prompt or resource template."""
    params = CompleteRequestParams(
        ref=ref,
        argument=CompletionArgument(name=argument, value=value),
        context=UNSET if context is None else CompletionContext(arguments=dict(context)),
    )
    return Call("completion/complete", params, CompleteResult)


def ping() -> Call[EmptyResult]:
    """``ping`` (handshake era; 2026-07-28 has none)."""
    return Call("ping", UNSET, EmptyResult)


def _page(cursor: str | None) -> PaginatedRequestParams:
    return PaginatedRequestParams(cursor=UNSET if cursor is None else cursor)


def list_tools(cursor: str | None = None) -> Call[ListToolsResult]:
    """One page of ``tools/list``."""
    return Call("tools/list", _page(cursor), ListToolsResult)


def list_resources(cursor: str | None = None) -> Call[ListResourcesResult]:
    """One page of ``resources/list``."""
    return Call("resources/list", _page(cursor), ListResourcesResult)


def list_resource_templates(cursor: str | None = None) -> Call[ListResourceTemplatesResult]:
    """One page of ``resources/templates/list``."""
    return Call("resources/templates/list", _page(cursor), ListResourceTemplatesResult)


def list_prompts(cursor: str | None = None) -> Call[ListPromptsResult]:
    """One page of ``prompts/list``."""
    return Call("prompts/list", _page(cursor), ListPromptsResult)


def subscribe(uri: str) -> Call[EmptyResult]:
    """``resources/subscribe`` to updates of ``uri`` (handshake era)."""
    return Call("resources/subscribe", SubscribeRequestParams(uri=uri), EmptyResult)


def unsubscribe(uri: str) -> Call[EmptyResult]:
    """``resources/unsubscribe`` from updates of ``uri`` (handshake era)."""
    return Call("resources/unsubscribe", UnsubscribeRequestParams(uri=uri), EmptyResult)


def listen(
    *,
    tools: bool = False,
    prompts: bool = False,
    resources: bool = False,
    resource_uris: list[str] | None = None,
) -> Call[SubscriptionsListenResult]:
    """``subscriptions/listen`` for the notifications asked for (2026-07-28).

    The filter asks only for what is True (absent members mean "not wanted",
    2026-07-28 basic/patterns/subscriptions.mdx); ``call.params.notifications``
    is what to assume granted if the server never says otherwise.
    """
    wanted = SubscriptionFilter(
        tools_list_changed=True if tools else UNSET,
        prompts_list_changed=True if prompts else UNSET,
        resources_list_changed=True if resources else UNSET,
        resource_subscriptions=UNSET if resource_uris is None else list(resource_uris),
    )
    params = SubscriptionsListenRequestParams(notifications=wanted)
    return Call("subscriptions/listen", params, SubscriptionsListenResult)
