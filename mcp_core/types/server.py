"""Server features: resources, prompts, tools, completion, logging, subscriptions.

Results of ``tools/list``, ``prompts/list``, ``resources/list``, ``resources/templates/list`` and
``resources/read`` carry ``ttlMs``/``cacheScope`` from 2026-07-28 (``CacheableResult``); they are
optional here because servers on older revisions never send them.
"""

from __future__ import annotations

from typing import Any, Literal, TypeAlias

from msgspec import UNSET, UnsetType, field

from .base import (
    Cursor,
    Icon,
    Implementation,
    InputResponses,
    LoggingLevel,
    MCPModel,
    NotificationParams,
    PaginatedRequestParams,
    RequestId,
    RequestParams,
    Result,
    Role,
)
from .content import Annotations, ContentBlock, Resource, ResourceContents
from .tasks import TaskMetadata, ToolExecution

CacheScope: TypeAlias = Literal["public", "private"]


class CacheableResult(Result, frozen=True, kw_only=True):
    """A result with a caching hint (2026-07-28)."""

    ttl_ms: int | UnsetType = UNSET
    cache_scope: CacheScope | UnsetType = UNSET


class _CacheablePage(CacheableResult, frozen=True, kw_only=True):
    """A paginated result with a caching hint (the list results)."""

    next_cursor: Cursor | UnsetType = UNSET


# --- Resources -----------------------------------------------------------------------------------


class ResourceTemplate(MCPModel, frozen=True, kw_only=True):
    """A template for resources the server can read."""

    uri_template: str
    name: str
    title: str | UnsetType = UNSET
    description: str | UnsetType = UNSET
    mime_type: str | UnsetType = UNSET
    annotations: Annotations | UnsetType = UNSET
    icons: list[Icon] | UnsetType = UNSET
    meta: dict[str, Any] | UnsetType = field(default=UNSET, name="_meta")


class ListResourcesRequest(
    MCPModel, frozen=True, kw_only=True, tag_field="method", tag="resources/list"
):
    """Lists resources."""

    jsonrpc: Literal["2.0"]
    id: RequestId
    params: PaginatedRequestParams | UnsetType = UNSET


class ListResourcesResult(_CacheablePage, frozen=True, kw_only=True):
    """Result of ``resources/list``."""

    resources: list[Resource]


class ListResourceTemplatesRequest(
    MCPModel, frozen=True, kw_only=True, tag_field="method", tag="resources/templates/list"
):
    """Lists resource templates."""

    jsonrpc: Literal["2.0"]
    id: RequestId
    params: PaginatedRequestParams | UnsetType = UNSET


class ListResourceTemplatesResult(_CacheablePage, frozen=True, kw_only=True):
    """Result of ``resources/templates/list``."""

    resource_templates: list[ResourceTemplate]


class ResourceRequestParams(RequestParams, frozen=True, kw_only=True):
    """Base params of requests about one resource."""

    uri: str


class ReadResourceRequestParams(ResourceRequestParams, frozen=True, kw_only=True):
    """Params of ``resources/read``."""

    input_responses: InputResponses | UnsetType = UNSET
    request_state: str | UnsetType = UNSET


class ReadResourceRequest(
    MCPModel, frozen=True, kw_only=True, tag_field="method", tag="resources/read"
):
    """Reads a resource."""

    jsonrpc: Literal["2.0"]
    id: RequestId
    params: ReadResourceRequestParams


class ReadResourceResult(CacheableResult, frozen=True, kw_only=True):
    """Result of ``resources/read``."""

    contents: list[ResourceContents]


class SubscribeRequestParams(ResourceRequestParams, frozen=True, kw_only=True):
    """Params of ``resources/subscribe``."""


class SubscribeRequest(
    MCPModel, frozen=True, kw_only=True, tag_field="method", tag="resources/subscribe"
):
    """Subscribes to updates of a resource (replaced by subscriptions/listen in 2026-07-28)."""

    jsonrpc: Literal["2.0"]
    id: RequestId
    params: SubscribeRequestParams


class UnsubscribeRequestParams(ResourceRequestParams, frozen=True, kw_only=True):
    """Params of ``resources/unsubscribe``."""


class UnsubscribeRequest(
    MCPModel, frozen=True, kw_only=True, tag_field="method", tag="resources/unsubscribe"
):
    """Cancels a resource subscription (removed in 2026-07-28)."""

    jsonrpc: Literal["2.0"]
    id: RequestId
    params: UnsubscribeRequestParams


class ResourceUpdatedNotificationParams(NotificationParams, frozen=True, kw_only=True):
    """Params of ``notifications/resources/updated``."""

    uri: str


class ResourceUpdatedNotification(
    MCPModel, frozen=True, kw_only=True, tag_field="method", tag="notifications/resources/updated"
):
    """A subscribed resource changed."""

    jsonrpc: Literal["2.0"]
    params: ResourceUpdatedNotificationParams


class ResourceListChangedNotification(
    MCPModel,
    frozen=True,
    kw_only=True,
    tag_field="method",
    tag="notifications/resources/list_changed",
):
    """The list of resources changed."""

    jsonrpc: Literal["2.0"]
    params: NotificationParams | UnsetType = UNSET


# --- Prompts -------------------------------------------------------------------------------------


class PromptArgument(MCPModel, frozen=True, kw_only=True):
    """An argument a prompt template accepts."""

    name: str
    title: str | UnsetType = UNSET
    description: str | UnsetType = UNSET
    required: bool | UnsetType = UNSET


class Prompt(MCPModel, frozen=True, kw_only=True):
    """A prompt or prompt template."""

    name: str
    title: str | UnsetType = UNSET
    description: str | UnsetType = UNSET
    arguments: list[PromptArgument] | UnsetType = UNSET
    icons: list[Icon] | UnsetType = UNSET
    meta: dict[str, Any] | UnsetType = field(default=UNSET, name="_meta")


class ListPromptsRequest(
    MCPModel, frozen=True, kw_only=True, tag_field="method", tag="prompts/list"
):
    """Lists prompts."""

    jsonrpc: Literal["2.0"]
    id: RequestId
    params: PaginatedRequestParams | UnsetType = UNSET


class ListPromptsResult(_CacheablePage, frozen=True, kw_only=True):
    """Result of ``prompts/list``."""

    prompts: list[Prompt]


class GetPromptRequestParams(RequestParams, frozen=True, kw_only=True):
    """Params of ``prompts/get``."""

    name: str
    arguments: dict[str, str] | UnsetType = UNSET
    input_responses: InputResponses | UnsetType = UNSET
    request_state: str | UnsetType = UNSET


class GetPromptRequest(MCPModel, frozen=True, kw_only=True, tag_field="method", tag="prompts/get"):
    """Gets a prompt."""

    jsonrpc: Literal["2.0"]
    id: RequestId
    params: GetPromptRequestParams


class PromptMessage(MCPModel, frozen=True, kw_only=True):
    """One message of a prompt."""

    role: Role
    content: ContentBlock


class GetPromptResult(Result, frozen=True, kw_only=True):
    """Result of ``prompts/get``."""

    messages: list[PromptMessage]
    description: str | UnsetType = UNSET


class PromptListChangedNotification(
    MCPModel,
    frozen=True,
    kw_only=True,
    tag_field="method",
    tag="notifications/prompts/list_changed",
):
    """The list of prompts changed."""

    jsonrpc: Literal["2.0"]
    params: NotificationParams | UnsetType = UNSET


# --- Tools ---------------------------------------------------------------------------------------


class ToolAnnotations(MCPModel, frozen=True, kw_only=True):
    """Hints about a tool's behaviour (2025-03-26+)."""

    title: str | UnsetType = UNSET
    read_only_hint: bool | UnsetType = UNSET
    destructive_hint: bool | UnsetType = UNSET
    idempotent_hint: bool | UnsetType = UNSET
    open_world_hint: bool | UnsetType = UNSET


class Tool(MCPModel, frozen=True, kw_only=True):
    """A tool the client can call."""

    name: str
    # JSON Schema documents: kept as dicts so every keyword survives a round trip.
    input_schema: dict[str, Any]
    output_schema: dict[str, Any] | UnsetType = UNSET
    title: str | UnsetType = UNSET
    description: str | UnsetType = UNSET
    annotations: ToolAnnotations | UnsetType = UNSET
    execution: ToolExecution | UnsetType = UNSET
    icons: list[Icon] | UnsetType = UNSET
    meta: dict[str, Any] | UnsetType = field(default=UNSET, name="_meta")


class ListToolsRequest(MCPModel, frozen=True, kw_only=True, tag_field="method", tag="tools/list"):
    """Lists tools."""

    jsonrpc: Literal["2.0"]
    id: RequestId
    params: PaginatedRequestParams | UnsetType = UNSET


class ListToolsResult(_CacheablePage, frozen=True, kw_only=True):
    """Result of ``tools/list``."""

    tools: list[Tool]


class CallToolRequestParams(RequestParams, frozen=True, kw_only=True):
    """Params of ``tools/call``."""

    name: str
    arguments: dict[str, Any] | UnsetType = UNSET
    task: TaskMetadata | UnsetType = UNSET
    input_responses: InputResponses | UnsetType = UNSET
    request_state: str | UnsetType = UNSET


class CallToolRequest(MCPModel, frozen=True, kw_only=True, tag_field="method", tag="tools/call"):
    """Calls a tool."""

    jsonrpc: Literal["2.0"]
    id: RequestId
    params: CallToolRequestParams


class CallToolResult(Result, frozen=True, kw_only=True):
    """Result of ``tools/call``."""

    content: list[ContentBlock]
    # An object in 2025-06-18 and 2025-11-25, any JSON value from 2026-07-28.
    structured_content: Any | UnsetType = UNSET
    is_error: bool | UnsetType = UNSET


class ToolListChangedNotification(
    MCPModel, frozen=True, kw_only=True, tag_field="method", tag="notifications/tools/list_changed"
):
    """The list of tools changed."""

    jsonrpc: Literal["2.0"]
    params: NotificationParams | UnsetType = UNSET


# --- Completion ----------------------------------------------------------------------------------


class PromptReference(MCPModel, frozen=True, kw_only=True, tag_field="type", tag="ref/prompt"):
    """Identifies a prompt to complete arguments for."""

    name: str
    title: str | UnsetType = UNSET


class ResourceTemplateReference(
    MCPModel, frozen=True, kw_only=True, tag_field="type", tag="ref/resource"
):
    """Identifies a resource template; ``ResourceReference`` before 2025-06-18."""

    uri: str


class CompletionArgument(MCPModel, frozen=True, kw_only=True):
    """CompleteRequestParams.argument: the argument being completed."""

    name: str
    value: str


class CompletionContext(MCPModel, frozen=True, kw_only=True):
    """CompleteRequestParams.context: already-resolved arguments (2025-06-18+)."""

    arguments: dict[str, str] | UnsetType = UNSET


class CompleteRequestParams(RequestParams, frozen=True, kw_only=True):
    """Params of ``completion/complete``."""

    ref: PromptReference | ResourceTemplateReference
    argument: CompletionArgument
    context: CompletionContext | UnsetType = UNSET


class CompleteRequest(
    MCPModel, frozen=True, kw_only=True, tag_field="method", tag="completion/complete"
):
    """Asks for argument completions."""

    jsonrpc: Literal["2.0"]
    id: RequestId
    params: CompleteRequestParams


class Completion(MCPModel, frozen=True, kw_only=True):
    """CompleteResult.completion."""

    values: list[str]
    total: int | UnsetType = UNSET
    has_more: bool | UnsetType = UNSET


class CompleteResult(Result, frozen=True, kw_only=True):
    """Result of ``completion/complete``."""

    completion: Completion


# --- Logging -------------------------------------------------------------------------------------


class SetLevelRequestParams(RequestParams, frozen=True, kw_only=True):
    """Params of ``logging/setLevel``."""

    level: LoggingLevel


class SetLevelRequest(
    MCPModel, frozen=True, kw_only=True, tag_field="method", tag="logging/setLevel"
):
    """Sets the server's log level (replaced by a ``_meta`` key in 2026-07-28)."""

    jsonrpc: Literal["2.0"]
    id: RequestId
    params: SetLevelRequestParams


class LoggingMessageNotificationParams(NotificationParams, frozen=True, kw_only=True):
    """Params of ``notifications/message``."""

    level: LoggingLevel
    data: Any
    logger: str | UnsetType = UNSET


class LoggingMessageNotification(
    MCPModel, frozen=True, kw_only=True, tag_field="method", tag="notifications/message"
):
    """A log message from the server."""

    jsonrpc: Literal["2.0"]
    params: LoggingMessageNotificationParams


# --- Subscriptions (2026-07-28) ------------------------------------------------------------------


class SubscriptionFilter(MCPModel, frozen=True, kw_only=True):
    """Which change notifications a ``subscriptions/listen`` stream carries."""

    tools_list_changed: bool | UnsetType = UNSET
    prompts_list_changed: bool | UnsetType = UNSET
    resources_list_changed: bool | UnsetType = UNSET
    resource_subscriptions: list[str] | UnsetType = UNSET
    #: The tasks extension's ``notifications/tasks`` for these tasks
    #: (experimental-ext-tasks tasks.mdx "Task Status Notifications").
    task_ids: list[str] | UnsetType = UNSET


class SubscriptionsListenRequestParams(RequestParams, frozen=True, kw_only=True):
    """Params of ``subscriptions/listen``."""

    notifications: SubscriptionFilter


class SubscriptionsListenRequest(
    MCPModel, frozen=True, kw_only=True, tag_field="method", tag="subscriptions/listen"
):
    """Opens a long-lived stream of change notifications."""

    jsonrpc: Literal["2.0"]
    id: RequestId
    params: SubscriptionsListenRequestParams


class SubscriptionsListenResultMetaObject(MCPModel, frozen=True, kw_only=True):
    """Reserved ``_meta`` keys of SubscriptionsListenResult."""

    subscription_id: RequestId = field(name="io.modelcontextprotocol/subscriptionId")
    server_info: Implementation | UnsetType = field(
        default=UNSET, name="io.modelcontextprotocol/serverInfo"
    )


class SubscriptionsListenResult(Result, frozen=True, kw_only=True):
    """Result of ``subscriptions/listen``, sent when the server ends the stream."""

    # Required here: it carries the subscription id (SubscriptionsListenResultMetaObject).
    meta: dict[str, Any] = field(name="_meta")


class SubscriptionsAcknowledgedNotificationParams(NotificationParams, frozen=True, kw_only=True):
    """Params of ``notifications/subscriptions/acknowledged``."""

    notifications: SubscriptionFilter


class SubscriptionsAcknowledgedNotification(
    MCPModel,
    frozen=True,
    kw_only=True,
    tag_field="method",
    tag="notifications/subscriptions/acknowledged",
):
    """The server accepted a ``subscriptions/listen`` request."""

    jsonrpc: Literal["2.0"]
    params: SubscriptionsAcknowledgedNotificationParams
