"""Which Python type implements each definition of each revision's schema.json.

``SCHEMA_TYPES[revision][definition]`` is a type msgspec can decode: a Struct class, or an alias
(a union, ``Literal``, ``dict[str, Any]`` ...). One superset class usually serves every revision
that has the definition; the few definitions whose *shape* changed between revisions (the
request/notification unions, ``JSONRPCResponse``, ``EnumSchema``, ``ClientResult``) get a
per-revision entry.

Untagged unions that msgspec cannot decode map to ``dict[str, Any]``: the caller knows the
concrete type from context (the request's method, the input request's key) and converts.
tests/test_schema_map.py checks this table against every schema.json.
"""

from __future__ import annotations

import functools
import operator
from typing import Any

from . import base as b
from . import client as c
from . import content as ct
from . import responses as rs
from . import server as s
from . import tasks as t

__all__ = ["SCHEMA_TYPES", "UNTYPED"]

#: Definitions deliberately left without a type, name -> reason. Empty: every definition of
#: every revision has a type.
UNTYPED: dict[str, str] = {}


def _union(*members: object) -> object:
    return functools.reduce(operator.or_, members)


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


_JSON_OBJECT = dict[str, Any]

# The type of each definition, for every revision that has it unless overridden below.
_TYPES: dict[str, object] = {
    # Scalars, enums and JSON aliases
    "Cursor": b.Cursor,
    "JSONArray": b.JSONArray,
    "JSONObject": b.JSONObject,
    "JSONValue": b.JSONValue,
    "LoggingLevel": b.LoggingLevel,
    "MetaObject": b.MetaObject,
    "ProgressToken": b.ProgressToken,
    "RequestId": b.RequestId,
    "ResultType": b.ResultType,
    "Role": b.Role,
    "TaskStatus": t.TaskStatus,
    # Base protocol
    "BaseMetadata": b.BaseMetadata,
    "CacheableResult": s.CacheableResult,
    "ClientCapabilities": b.ClientCapabilities,
    "EmptyResult": b.EmptyResult,
    "Error": b.Error,
    "Icon": b.Icon,
    "Icons": b.Icons,
    "Implementation": b.Implementation,
    "Notification": b.Notification,
    "NotificationMetaObject": b.NotificationMetaObject,
    "NotificationParams": b.NotificationParams,
    "PaginatedRequest": b.PaginatedRequest,
    "PaginatedRequestParams": b.PaginatedRequestParams,
    "PaginatedResult": b.PaginatedResult,
    "Request": b.Request,
    "RequestMetaObject": b.RequestMetaObject,
    "RequestParams": b.RequestParams,
    "Result": b.Result,
    "ResultMetaObject": b.ResultMetaObject,
    "ServerCapabilities": b.ServerCapabilities,
    # JSON-RPC envelopes; the message unions are untagged (told apart by id/result/error keys)
    "JSONRPCBatchRequest": list[_JSON_OBJECT],
    "JSONRPCBatchResponse": list[_JSON_OBJECT],
    "JSONRPCError": b.JSONRPCErrorResponse,
    "JSONRPCErrorResponse": b.JSONRPCErrorResponse,
    "JSONRPCMessage": _JSON_OBJECT,
    "JSONRPCNotification": b.JSONRPCNotification,
    "JSONRPCRequest": b.JSONRPCRequest,
    "JSONRPCResponse": _JSON_OBJECT,
    "JSONRPCResultResponse": b.JSONRPCResultResponse,
    # Errors
    "HeaderMismatchError": b.HeaderMismatchError,
    "InternalError": b.InternalError,
    "InvalidParamsError": b.InvalidParamsError,
    "InvalidRequestError": b.InvalidRequestError,
    "MethodNotFoundError": b.MethodNotFoundError,
    "MissingRequiredClientCapabilityError": b.MissingRequiredClientCapabilityError,
    "ParseError": b.ParseError,
    "URLElicitationRequiredError": c.URLElicitationRequiredError,
    "UnsupportedProtocolVersionError": b.UnsupportedProtocolVersionError,
    # Lifecycle, discovery, utilities
    "CancelledNotification": b.CancelledNotification,
    "CancelledNotificationParams": b.CancelledNotificationParams,
    "DiscoverRequest": b.DiscoverRequest,
    "DiscoverResult": b.DiscoverResult,
    "DiscoverResultResponse": rs.DiscoverResultResponse,
    "InitializeRequest": b.InitializeRequest,
    "InitializeRequestParams": b.InitializeRequestParams,
    "InitializeResult": b.InitializeResult,
    "InitializedNotification": b.InitializedNotification,
    "PingRequest": b.PingRequest,
    "ProgressNotification": b.ProgressNotification,
    "ProgressNotificationParams": b.ProgressNotificationParams,
    # Content
    "Annotated": ct.Annotated,
    "Annotations": ct.Annotations,
    "AudioContent": ct.AudioContent,
    "BlobResourceContents": ct.BlobResourceContents,
    "ContentBlock": ct.ContentBlock,
    "EmbeddedResource": ct.EmbeddedResource,
    "ImageContent": ct.ImageContent,
    "ResourceContents": ct.ResourceContents,
    "ResourceLink": ct.ResourceLink,
    "SamplingMessageContentBlock": ct.SamplingMessageContentBlock,
    "TextContent": ct.TextContent,
    "TextResourceContents": ct.TextResourceContents,
    "ToolResultContent": ct.ToolResultContent,
    "ToolUseContent": ct.ToolUseContent,
    # Resources
    "ListResourceTemplatesRequest": s.ListResourceTemplatesRequest,
    "ListResourceTemplatesResult": s.ListResourceTemplatesResult,
    "ListResourceTemplatesResultResponse": rs.ListResourceTemplatesResultResponse,
    "ListResourcesRequest": s.ListResourcesRequest,
    "ListResourcesResult": s.ListResourcesResult,
    "ListResourcesResultResponse": rs.ListResourcesResultResponse,
    "ReadResourceRequest": s.ReadResourceRequest,
    "ReadResourceRequestParams": s.ReadResourceRequestParams,
    "ReadResourceResult": s.ReadResourceResult,
    "ReadResourceResultResponse": rs.ReadResourceResultResponse,
    "Resource": ct.Resource,
    "ResourceListChangedNotification": s.ResourceListChangedNotification,
    "ResourceRequestParams": s.ResourceRequestParams,
    "ResourceTemplate": s.ResourceTemplate,
    "ResourceUpdatedNotification": s.ResourceUpdatedNotification,
    "ResourceUpdatedNotificationParams": s.ResourceUpdatedNotificationParams,
    "SubscribeRequest": s.SubscribeRequest,
    "SubscribeRequestParams": s.SubscribeRequestParams,
    "UnsubscribeRequest": s.UnsubscribeRequest,
    "UnsubscribeRequestParams": s.UnsubscribeRequestParams,
    # Subscriptions
    "SubscriptionFilter": s.SubscriptionFilter,
    "SubscriptionsAcknowledgedNotification": s.SubscriptionsAcknowledgedNotification,
    "SubscriptionsAcknowledgedNotificationParams": s.SubscriptionsAcknowledgedNotificationParams,
    "SubscriptionsListenRequest": s.SubscriptionsListenRequest,
    "SubscriptionsListenRequestParams": s.SubscriptionsListenRequestParams,
    "SubscriptionsListenResult": s.SubscriptionsListenResult,
    "SubscriptionsListenResultMetaObject": s.SubscriptionsListenResultMetaObject,
    "SubscriptionsListenResultResponse": rs.SubscriptionsListenResultResponse,
    # Prompts
    "GetPromptRequest": s.GetPromptRequest,
    "GetPromptRequestParams": s.GetPromptRequestParams,
    "GetPromptResult": s.GetPromptResult,
    "GetPromptResultResponse": rs.GetPromptResultResponse,
    "ListPromptsRequest": s.ListPromptsRequest,
    "ListPromptsResult": s.ListPromptsResult,
    "ListPromptsResultResponse": rs.ListPromptsResultResponse,
    "Prompt": s.Prompt,
    "PromptArgument": s.PromptArgument,
    "PromptListChangedNotification": s.PromptListChangedNotification,
    "PromptMessage": s.PromptMessage,
    # Tools
    "CallToolRequest": s.CallToolRequest,
    "CallToolRequestParams": s.CallToolRequestParams,
    "CallToolResult": s.CallToolResult,
    "CallToolResultResponse": rs.CallToolResultResponse,
    "ListToolsRequest": s.ListToolsRequest,
    "ListToolsResult": s.ListToolsResult,
    "ListToolsResultResponse": rs.ListToolsResultResponse,
    "Tool": s.Tool,
    "ToolAnnotations": s.ToolAnnotations,
    "ToolExecution": t.ToolExecution,
    "ToolListChangedNotification": s.ToolListChangedNotification,
    # Completion and logging
    "CompleteRequest": s.CompleteRequest,
    "CompleteRequestParams": s.CompleteRequestParams,
    "CompleteResult": s.CompleteResult,
    "CompleteResultResponse": rs.CompleteResultResponse,
    "LoggingMessageNotification": s.LoggingMessageNotification,
    "LoggingMessageNotificationParams": s.LoggingMessageNotificationParams,
    "PromptReference": s.PromptReference,
    "ResourceReference": s.ResourceTemplateReference,
    "ResourceTemplateReference": s.ResourceTemplateReference,
    "SetLevelRequest": s.SetLevelRequest,
    "SetLevelRequestParams": s.SetLevelRequestParams,
    # Tasks
    "CancelTaskRequest": t.CancelTaskRequest,
    "CancelTaskResult": t.CancelTaskResult,
    "CreateTaskResult": t.CreateTaskResult,
    "GetTaskPayloadRequest": t.GetTaskPayloadRequest,
    "GetTaskPayloadResult": t.GetTaskPayloadResult,
    "GetTaskRequest": t.GetTaskRequest,
    "GetTaskResult": t.GetTaskResult,
    "ListTasksRequest": t.ListTasksRequest,
    "ListTasksResult": t.ListTasksResult,
    "RelatedTaskMetadata": t.RelatedTaskMetadata,
    "Task": t.Task,
    "TaskAugmentedRequestParams": t.TaskAugmentedRequestParams,
    "TaskMetadata": t.TaskMetadata,
    "TaskStatusNotification": t.TaskStatusNotification,
    "TaskStatusNotificationParams": t.TaskStatusNotificationParams,
    # Sampling
    "CreateMessageRequest": c.CreateMessageRequest,
    "CreateMessageRequestParams": c.CreateMessageRequestParams,
    "CreateMessageResult": c.CreateMessageResult,
    "ModelHint": c.ModelHint,
    "ModelPreferences": c.ModelPreferences,
    "SamplingMessage": c.SamplingMessage,
    "ToolChoice": c.ToolChoice,
    # Elicitation
    "BooleanSchema": c.BooleanSchema,
    "ElicitRequest": c.ElicitRequest,
    "ElicitRequestFormParams": c.ElicitRequestFormParams,
    "ElicitRequestParams": c.ElicitRequestParams,
    "ElicitRequestURLParams": c.ElicitRequestURLParams,
    "ElicitResult": c.ElicitResult,
    "ElicitationCompleteNotification": c.ElicitationCompleteNotification,
    "EnumSchema": c.PrimitiveSchemaDefinition,
    "LegacyTitledEnumSchema": c.LegacyTitledEnumSchema,
    "MultiSelectEnumSchema": c.PrimitiveSchemaDefinition,
    "NumberSchema": c.NumberSchema,
    "PrimitiveSchemaDefinition": c.PrimitiveSchemaDefinition,
    "SingleSelectEnumSchema": c.PrimitiveSchemaDefinition,
    "StringSchema": c.StringSchema,
    "TitledMultiSelectEnumSchema": c.TitledMultiSelectEnumSchema,
    "TitledSingleSelectEnumSchema": c.TitledSingleSelectEnumSchema,
    "UntitledMultiSelectEnumSchema": c.UntitledMultiSelectEnumSchema,
    "UntitledSingleSelectEnumSchema": c.UntitledSingleSelectEnumSchema,
    # Roots
    "ListRootsRequest": c.ListRootsRequest,
    "ListRootsResult": c.ListRootsResult,
    "Root": c.Root,
    "RootsListChangedNotification": c.RootsListChangedNotification,
    # Multi round-trip requests
    "InputRequest": c.InputRequest,
    "InputRequests": c.InputRequests,
    "InputRequiredResult": c.InputRequiredResult,
    "InputResponse": b.InputResponse,
    "InputResponseRequestParams": c.InputResponseRequestParams,
    "InputResponses": b.InputResponses,
    # Results of requests in either direction: untagged, typed by the method (see _methods).
    "ClientResult": _JSON_OBJECT,
    "ServerResult": _JSON_OBJECT,
}

# --- Definition names per revision, as changes from the previous revision -------------------------

_NAMES_2024_11_05 = _names(
    """
    Annotated BlobResourceContents CallToolRequest CallToolResult CancelledNotification
    ClientCapabilities ClientNotification ClientRequest ClientResult CompleteRequest
    CompleteResult CreateMessageRequest CreateMessageResult Cursor EmbeddedResource EmptyResult
    GetPromptRequest GetPromptResult ImageContent Implementation InitializeRequest
    InitializeResult InitializedNotification JSONRPCError JSONRPCMessage JSONRPCNotification
    JSONRPCRequest JSONRPCResponse ListPromptsRequest ListPromptsResult
    ListResourceTemplatesRequest ListResourceTemplatesResult ListResourcesRequest
    ListResourcesResult ListRootsRequest ListRootsResult ListToolsRequest ListToolsResult
    LoggingLevel LoggingMessageNotification ModelHint ModelPreferences Notification
    PaginatedRequest PaginatedResult PingRequest ProgressNotification ProgressToken Prompt
    PromptArgument PromptListChangedNotification PromptMessage PromptReference
    ReadResourceRequest ReadResourceResult Request RequestId Resource ResourceContents
    ResourceListChangedNotification ResourceReference ResourceTemplate
    ResourceUpdatedNotification Result Role Root RootsListChangedNotification SamplingMessage
    ServerCapabilities ServerNotification ServerRequest ServerResult SetLevelRequest
    SubscribeRequest TextContent TextResourceContents Tool ToolListChangedNotification
    UnsubscribeRequest
    """
)
_NAMES_2025_03_26 = (_NAMES_2024_11_05 - {"Annotated"}) | {
    "Annotations",
    "AudioContent",
    "JSONRPCBatchRequest",
    "JSONRPCBatchResponse",
    "ToolAnnotations",
}
_NAMES_2025_06_18 = (
    _NAMES_2025_03_26 - {"JSONRPCBatchRequest", "JSONRPCBatchResponse", "ResourceReference"}
) | _names(
    """
    BaseMetadata BooleanSchema ContentBlock ElicitRequest ElicitResult EnumSchema NumberSchema
    PrimitiveSchemaDefinition ResourceLink ResourceTemplateReference StringSchema
    """
)
_NAMES_2025_11_25 = (_NAMES_2025_06_18 - {"JSONRPCError"}) | _names(
    """
    CallToolRequestParams CancelTaskRequest CancelTaskResult CancelledNotificationParams
    CompleteRequestParams CreateMessageRequestParams CreateTaskResult ElicitRequestFormParams
    ElicitRequestParams ElicitRequestURLParams ElicitationCompleteNotification Error
    GetPromptRequestParams GetTaskPayloadRequest GetTaskPayloadResult GetTaskRequest
    GetTaskResult Icon Icons InitializeRequestParams JSONRPCErrorResponse JSONRPCResultResponse
    LegacyTitledEnumSchema ListTasksRequest ListTasksResult LoggingMessageNotificationParams
    MultiSelectEnumSchema NotificationParams PaginatedRequestParams ProgressNotificationParams
    ReadResourceRequestParams RelatedTaskMetadata RequestParams ResourceRequestParams
    ResourceUpdatedNotificationParams SamplingMessageContentBlock SetLevelRequestParams
    SingleSelectEnumSchema SubscribeRequestParams Task TaskAugmentedRequestParams TaskMetadata
    TaskStatus TaskStatusNotification TaskStatusNotificationParams TitledMultiSelectEnumSchema
    TitledSingleSelectEnumSchema ToolChoice ToolExecution ToolResultContent ToolUseContent
    URLElicitationRequiredError UnsubscribeRequestParams UntitledMultiSelectEnumSchema
    UntitledSingleSelectEnumSchema
    """
)
# 2026-07-28: no handshake, ping, logging/setLevel, resource subscribe, tasks or server
# requests; adds discovery, subscriptions/listen, multi round-trip requests, caching hints.
_NAMES_2026_07_28 = (
    _NAMES_2025_11_25
    - _names(
        """
        CancelTaskRequest CancelTaskResult CreateTaskResult ElicitationCompleteNotification
        GetTaskPayloadRequest GetTaskPayloadResult GetTaskRequest GetTaskResult
        InitializeRequest InitializeRequestParams InitializeResult InitializedNotification
        ListTasksRequest ListTasksResult PingRequest RelatedTaskMetadata
        RootsListChangedNotification ServerRequest SetLevelRequest SetLevelRequestParams
        SubscribeRequest SubscribeRequestParams Task TaskAugmentedRequestParams TaskMetadata
        TaskStatus TaskStatusNotification TaskStatusNotificationParams ToolExecution
        URLElicitationRequiredError UnsubscribeRequest UnsubscribeRequestParams
        """
    )
) | _names(
    """
    CacheableResult CallToolResultResponse CompleteResultResponse DiscoverRequest DiscoverResult
    DiscoverResultResponse GetPromptResultResponse HeaderMismatchError InputRequest
    InputRequests InputRequiredResult InputResponse InputResponseRequestParams InputResponses
    InternalError InvalidParamsError InvalidRequestError JSONArray JSONObject JSONValue
    ListPromptsResultResponse ListResourceTemplatesResultResponse ListResourcesResultResponse
    ListToolsResultResponse MetaObject MethodNotFoundError MissingRequiredClientCapabilityError
    NotificationMetaObject ParseError ReadResourceResultResponse RequestMetaObject
    ResultMetaObject ResultType SubscriptionFilter SubscriptionsAcknowledgedNotification
    SubscriptionsAcknowledgedNotificationParams SubscriptionsListenRequest
    SubscriptionsListenRequestParams SubscriptionsListenResult
    SubscriptionsListenResultMetaObject SubscriptionsListenResultResponse
    UnsupportedProtocolVersionError
    """
)

# --- Definitions whose type differs between revisions ---------------------------------------------

_CLIENT_REQUESTS_2024 = (
    b.InitializeRequest,
    b.PingRequest,
    s.ListResourcesRequest,
    s.ListResourceTemplatesRequest,
    s.ReadResourceRequest,
    s.SubscribeRequest,
    s.UnsubscribeRequest,
    s.ListPromptsRequest,
    s.GetPromptRequest,
    s.ListToolsRequest,
    s.CallToolRequest,
    s.SetLevelRequest,
    s.CompleteRequest,
)
_TASK_REQUESTS = (
    t.GetTaskRequest,
    t.GetTaskPayloadRequest,
    t.CancelTaskRequest,
    t.ListTasksRequest,
)
_SERVER_NOTIFICATIONS_2024 = (
    b.CancelledNotification,
    b.ProgressNotification,
    s.ResourceListChangedNotification,
    s.ResourceUpdatedNotification,
    s.PromptListChangedNotification,
    s.ToolListChangedNotification,
    s.LoggingMessageNotification,
)
_CLIENT_NOTIFICATIONS_2024 = (
    b.CancelledNotification,
    b.InitializedNotification,
    b.ProgressNotification,
    c.RootsListChangedNotification,
)
_SERVER_REQUESTS_2024 = (b.PingRequest, c.CreateMessageRequest, c.ListRootsRequest)

_LEGACY_2024: dict[str, object] = {
    "ClientRequest": _union(*_CLIENT_REQUESTS_2024),
    "ServerRequest": _union(*_SERVER_REQUESTS_2024),
    "ClientNotification": _union(*_CLIENT_NOTIFICATIONS_2024),
    "ServerNotification": _union(*_SERVER_NOTIFICATIONS_2024),
    # Before 2025-11-25, JSONRPCResponse was the success response alone.
    "JSONRPCResponse": b.JSONRPCResultResponse,
}

_OVERRIDES: dict[str, dict[str, object]] = {
    "2024-11-05": _LEGACY_2024,
    "2025-03-26": {
        **_LEGACY_2024,
        # The one revision with JSON-RPC batches: a message may be an array.
        "JSONRPCMessage": _JSON_OBJECT | list[_JSON_OBJECT],
    },
    "2025-06-18": {
        **_LEGACY_2024,
        "ServerRequest": _union(*_SERVER_REQUESTS_2024, c.ElicitRequest),
        # 2025-06-18 EnumSchema is the object later renamed LegacyTitledEnumSchema.
        "EnumSchema": c.LegacyTitledEnumSchema,
    },
    "2025-11-25": {
        "ClientRequest": _union(
            *_CLIENT_REQUESTS_2024[:-2], *_TASK_REQUESTS, s.SetLevelRequest, s.CompleteRequest
        ),
        "ServerRequest": _union(
            b.PingRequest,
            *_TASK_REQUESTS,
            c.CreateMessageRequest,
            c.ListRootsRequest,
            c.ElicitRequest,
        ),
        "ClientNotification": _union(
            b.CancelledNotification,
            b.InitializedNotification,
            b.ProgressNotification,
            t.TaskStatusNotification,
            c.RootsListChangedNotification,
        ),
        "ServerNotification": _union(
            *_SERVER_NOTIFICATIONS_2024[:-1],
            t.TaskStatusNotification,
            s.LoggingMessageNotification,
            c.ElicitationCompleteNotification,
        ),
    },
    "2026-07-28": {
        "ClientRequest": _union(
            b.DiscoverRequest,
            s.ListResourcesRequest,
            s.ListResourceTemplatesRequest,
            s.ReadResourceRequest,
            s.SubscriptionsListenRequest,
            s.ListPromptsRequest,
            s.GetPromptRequest,
            s.ListToolsRequest,
            s.CallToolRequest,
            s.CompleteRequest,
        ),
        # Only cancellation flows from client to server outside a request (2026-07-28).
        "ClientNotification": b.CancelledNotification,
        "ServerNotification": _union(
            b.CancelledNotification,
            b.ProgressNotification,
            s.ResourceListChangedNotification,
            s.SubscriptionsAcknowledgedNotification,
            s.ResourceUpdatedNotification,
            s.PromptListChangedNotification,
            s.ToolListChangedNotification,
            s.LoggingMessageNotification,
        ),
        # Clients answer no requests any more: ClientResult is the bare Result.
        "ClientResult": b.Result,
    },
}

_NAMES: dict[str, frozenset[str]] = {
    "2024-11-05": _NAMES_2024_11_05,
    "2025-03-26": _NAMES_2025_03_26,
    "2025-06-18": _NAMES_2025_06_18,
    "2025-11-25": _NAMES_2025_11_25,
    "2026-07-28": _NAMES_2026_07_28,
}

#: revision -> schema definition name -> Python type that decodes it.
SCHEMA_TYPES: dict[str, dict[str, object]] = {
    revision: {name: {**_TYPES, **_OVERRIDES[revision]}[name] for name in sorted(names)}
    for revision, names in _NAMES.items()
}
