"""Shared MCP types: the Struct base, metadata, capabilities, lifecycle, discovery, errors.

Theory of operation
-------------------
One set of msgspec Structs covers every supported revision (2024-11-05 to 2026-07-28). Each class
is the *superset* of its definition across revisions:

* A field that only some revisions have, or that one revision requires and another leaves out, is
  optional and defaults to ``UNSET``, so "absent" stays distinct from ``null``.
* Unknown fields are ignored on decode (msgspec's default), so a newer peer never breaks an older
  decoder.
* Constant discriminators become msgspec tags: ``method`` on requests and notifications, ``type``
  on content blocks and references. msgspec then writes them on encode and checks them on decode.
* ``_meta`` stays a plain ``dict`` because its keys are an open set; the 2026-07-28 meta objects
  (``RequestMetaObject`` ...) are Structs to ``msgspec.convert`` that dict into when needed.

``jsonrpc`` and ``id`` are required on request and notification Structs. Revisions up to 2025-06-18
declared those fields on the JSON-RPC envelope rather than on each request definition, but on the
wire every request carries them. The only exceptions are the 2026-07-28 *input requests*
(see ``_types_client``), which travel inside a result without an envelope.
"""

from __future__ import annotations

from typing import Any, Literal, TypeAlias

import msgspec
from msgspec import UNSET, UnsetType, field


class MCPModel(msgspec.Struct, frozen=True, kw_only=True, rename="camel", omit_defaults=True):
    """Base of every MCP Struct: immutable, keyword-only, camelCase on the wire.

    Subclasses repeat ``frozen=True, kw_only=True``: msgspec applies ``kw_only`` only to the
    fields of the class that sets it, and mypy's dataclass view needs ``frozen`` restated
    whenever class options are given. ``rename`` and ``omit_defaults`` are inherited.
    """


# --- Scalars and aliases ----------------------------------------------------------------------

RequestId: TypeAlias = str | int
ProgressToken: TypeAlias = str | int
Cursor: TypeAlias = str
Role: TypeAlias = Literal["user", "assistant"]
LoggingLevel: TypeAlias = Literal[
    "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"
]
#: 2026-07-28 ``ResultType`` is an open string; "complete" and "input_required" are defined.
ResultType: TypeAlias = str
#: JSON values stay plain Python data: msgspec cannot express the recursive untagged union.
JSONValue: TypeAlias = Any
JSONObject: TypeAlias = dict[str, Any]
JSONArray: TypeAlias = list[Any]
MetaObject: TypeAlias = dict[str, Any]
#: One input response (2026-07-28): an untagged union of CreateMessageResult, ListRootsResult
#: and ElicitResult, told apart only by the key of the input request it answers. Kept as a dict;
#: ``msgspec.convert`` it to the result type of that input request's method.
InputResponse: TypeAlias = dict[str, Any]
InputResponses: TypeAlias = dict[str, InputResponse]


# --- Metadata objects (2026-07-28 typed views of ``_meta``) ----------------------------------


class RequestMetaObject(MCPModel, frozen=True, kw_only=True):
    """Reserved request ``_meta`` keys (2026-07-28)."""

    client_capabilities: ClientCapabilities = field(
        name="io.modelcontextprotocol/clientCapabilities"
    )
    protocol_version: str = field(name="io.modelcontextprotocol/protocolVersion")
    client_info: Implementation | UnsetType = field(
        default=UNSET, name="io.modelcontextprotocol/clientInfo"
    )
    log_level: LoggingLevel | UnsetType = field(
        default=UNSET, name="io.modelcontextprotocol/logLevel"
    )
    progress_token: ProgressToken | UnsetType = UNSET


class NotificationMetaObject(MCPModel, frozen=True, kw_only=True):
    """Reserved notification ``_meta`` keys (2026-07-28)."""

    subscription_id: RequestId | UnsetType = field(
        default=UNSET, name="io.modelcontextprotocol/subscriptionId"
    )


class ResultMetaObject(MCPModel, frozen=True, kw_only=True):
    """Reserved result ``_meta`` keys (2026-07-28)."""

    server_info: Implementation | UnsetType = field(
        default=UNSET, name="io.modelcontextprotocol/serverInfo"
    )


# --- Identity -------------------------------------------------------------------------------


class Icon(MCPModel, frozen=True, kw_only=True):
    """An icon for display in a user interface (2025-11-25+)."""

    src: str
    mime_type: str | UnsetType = UNSET
    sizes: list[str] | UnsetType = UNSET
    theme: Literal["light", "dark"] | UnsetType = UNSET


class Icons(MCPModel, frozen=True, kw_only=True):
    """Base interface adding icons."""

    icons: list[Icon] | UnsetType = UNSET


class BaseMetadata(MCPModel, frozen=True, kw_only=True):
    """Base interface for named things."""

    name: str
    title: str | UnsetType = UNSET


class Implementation(MCPModel, frozen=True, kw_only=True):
    """Name and version of an MCP implementation."""

    name: str
    version: str
    title: str | UnsetType = UNSET
    description: str | UnsetType = UNSET
    icons: list[Icon] | UnsetType = UNSET
    website_url: str | UnsetType = UNSET


# --- Capabilities ---------------------------------------------------------------------------


class ListChangedCapability(MCPModel, frozen=True, kw_only=True):
    """A capability with a ``listChanged`` flag (prompts, tools, roots)."""

    list_changed: bool | UnsetType = UNSET


RootsCapability: TypeAlias = ListChangedCapability
CompletionsCapability: TypeAlias = dict[str, Any]


class ResourcesCapability(MCPModel, frozen=True, kw_only=True):
    """ServerCapabilities.resources."""

    subscribe: bool | UnsetType = UNSET
    list_changed: bool | UnsetType = UNSET


class SamplingCapability(MCPModel, frozen=True, kw_only=True):
    """ClientCapabilities.sampling."""

    context: dict[str, Any] | UnsetType = UNSET
    tools: dict[str, Any] | UnsetType = UNSET


class ElicitationCapability(MCPModel, frozen=True, kw_only=True):
    """ClientCapabilities.elicitation."""

    form: dict[str, Any] | UnsetType = UNSET
    url: dict[str, Any] | UnsetType = UNSET


class TasksCapability(MCPModel, frozen=True, kw_only=True):
    """ClientCapabilities.tasks / ServerCapabilities.tasks (2025-11-25 only)."""

    list_: dict[str, Any] | UnsetType = field(default=UNSET, name="list")
    cancel: dict[str, Any] | UnsetType = UNSET
    # Nested per-method flags, e.g. {"tools": {"call": {}}}; shape differs for client and server.
    requests: dict[str, Any] | UnsetType = UNSET


class ClientCapabilities(MCPModel, frozen=True, kw_only=True):
    """Capabilities a client may support."""

    experimental: dict[str, dict[str, Any]] | UnsetType = UNSET
    extensions: dict[str, dict[str, Any]] | UnsetType = UNSET
    roots: RootsCapability | UnsetType = UNSET
    sampling: SamplingCapability | UnsetType = UNSET
    elicitation: ElicitationCapability | UnsetType = UNSET
    tasks: TasksCapability | UnsetType = UNSET


class ServerCapabilities(MCPModel, frozen=True, kw_only=True):
    """Capabilities a server may support."""

    experimental: dict[str, dict[str, Any]] | UnsetType = UNSET
    extensions: dict[str, dict[str, Any]] | UnsetType = UNSET
    logging: dict[str, Any] | UnsetType = UNSET
    completions: dict[str, Any] | UnsetType = UNSET
    prompts: ListChangedCapability | UnsetType = UNSET
    resources: ResourcesCapability | UnsetType = UNSET
    tools: ListChangedCapability | UnsetType = UNSET
    tasks: TasksCapability | UnsetType = UNSET


# --- Generic request / notification / result shapes ------------------------------------------


class RequestParams(MCPModel, frozen=True, kw_only=True):
    """Base request params: ``_meta`` (required from 2026-07-28, optional before)."""

    meta: dict[str, Any] | UnsetType = field(default=UNSET, name="_meta")


class NotificationParams(MCPModel, frozen=True, kw_only=True):
    """Base notification params."""

    meta: dict[str, Any] | UnsetType = field(default=UNSET, name="_meta")


class Request(MCPModel, frozen=True, kw_only=True):
    """A request with any method, without the JSON-RPC envelope."""

    method: str
    params: dict[str, Any] | UnsetType = UNSET


class Notification(MCPModel, frozen=True, kw_only=True):
    """A notification with any method, without the JSON-RPC envelope."""

    method: str
    params: dict[str, Any] | UnsetType = UNSET


class Result(MCPModel, frozen=True, kw_only=True):
    """Base result; also ``EmptyResult``. ``resultType`` is new in 2026-07-28."""

    meta: dict[str, Any] | UnsetType = field(default=UNSET, name="_meta")
    result_type: ResultType | UnsetType = UNSET

    @property
    def is_input_required(self) -> bool:
        """True for a 2026-07-28 multi round-trip interim result.

        An absent ``resultType`` (servers before 2026-07-28) means "complete"
        (2026-07-28 schema, ``Result.resultType``).
        """
        return self.result_type == "input_required"


EmptyResult: TypeAlias = Result


class PaginatedRequestParams(RequestParams, frozen=True, kw_only=True):
    """Params of a paginated list request."""

    cursor: Cursor | UnsetType = UNSET


class PaginatedRequest(MCPModel, frozen=True, kw_only=True):
    """A paginated request with any method."""

    jsonrpc: Literal["2.0"]
    id: RequestId
    method: str
    params: PaginatedRequestParams | UnsetType = UNSET


class PaginatedResult(Result, frozen=True, kw_only=True):
    """Base of paginated list results."""

    next_cursor: Cursor | UnsetType = UNSET


# --- JSON-RPC envelopes ----------------------------------------------------------------------


class JSONRPCRequest(MCPModel, frozen=True, kw_only=True):
    """A JSON-RPC request with untyped params."""

    jsonrpc: Literal["2.0"]
    id: RequestId
    method: str
    params: dict[str, Any] | UnsetType = UNSET


class JSONRPCNotification(MCPModel, frozen=True, kw_only=True):
    """A JSON-RPC notification with untyped params."""

    jsonrpc: Literal["2.0"]
    method: str
    params: dict[str, Any] | UnsetType = UNSET


class JSONRPCResultResponse(MCPModel, frozen=True, kw_only=True):
    """A JSON-RPC success response; ``JSONRPCResponse`` before 2025-11-25."""

    jsonrpc: Literal["2.0"]
    id: RequestId
    # Kept untyped: the result type depends on the request's method (see _methods).
    result: dict[str, Any]


class Error(MCPModel, frozen=True, kw_only=True):
    """A JSON-RPC error object."""

    code: int
    message: str
    data: Any | UnsetType = UNSET


class JSONRPCErrorResponse(MCPModel, frozen=True, kw_only=True):
    """A JSON-RPC error response; ``JSONRPCError`` before 2025-11-25.

    ``id`` was required up to 2025-06-18 and is optional from 2025-11-25 (errors that cannot be
    tied to a request).
    """

    jsonrpc: Literal["2.0"]
    error: Error
    id: RequestId | UnsetType = UNSET


# Standard JSON-RPC error objects, named in the 2026-07-28 schema.


class ParseError(Error, frozen=True, kw_only=True):
    """Error object for invalid JSON (-32700)."""

    code: Literal[-32700]


class InvalidRequestError(Error, frozen=True, kw_only=True):
    """Error object for an invalid request (-32600)."""

    code: Literal[-32600]


class MethodNotFoundError(Error, frozen=True, kw_only=True):
    """Error object for an unknown method (-32601)."""

    code: Literal[-32601]


class InvalidParamsError(Error, frozen=True, kw_only=True):
    """Error object for invalid params (-32602)."""

    code: Literal[-32602]


class InternalError(Error, frozen=True, kw_only=True):
    """Error object for an internal error (-32603)."""

    code: Literal[-32603]


# MCP error responses (2026-07-28): full envelopes whose error object has a fixed code.


class HeaderMismatchErrorBody(Error, frozen=True, kw_only=True):
    """HeaderMismatchError.error (-32020)."""

    code: Literal[-32020]


class HeaderMismatchError(MCPModel, frozen=True, kw_only=True):
    """Error response: HTTP headers disagree with the body (2026-07-28)."""

    jsonrpc: Literal["2.0"]
    error: HeaderMismatchErrorBody
    id: RequestId | UnsetType = UNSET


class MissingRequiredClientCapabilityErrorData(MCPModel, frozen=True, kw_only=True):
    """MissingRequiredClientCapabilityError.error.data."""

    required_capabilities: ClientCapabilities


class MissingRequiredClientCapabilityErrorBody(Error, frozen=True, kw_only=True):
    """MissingRequiredClientCapabilityError.error (-32021)."""

    code: Literal[-32021]
    data: MissingRequiredClientCapabilityErrorData


class MissingRequiredClientCapabilityError(MCPModel, frozen=True, kw_only=True):
    """Error response: the request needs a client capability it did not declare (2026-07-28)."""

    jsonrpc: Literal["2.0"]
    error: MissingRequiredClientCapabilityErrorBody
    id: RequestId | UnsetType = UNSET


class UnsupportedProtocolVersionErrorData(MCPModel, frozen=True, kw_only=True):
    """UnsupportedProtocolVersionError.error.data."""

    requested: str
    supported: list[str]


class UnsupportedProtocolVersionErrorBody(Error, frozen=True, kw_only=True):
    """UnsupportedProtocolVersionError.error (-32022)."""

    code: Literal[-32022]
    data: UnsupportedProtocolVersionErrorData


class UnsupportedProtocolVersionError(MCPModel, frozen=True, kw_only=True):
    """Error response: the server does not speak the requested revision (2026-07-28)."""

    jsonrpc: Literal["2.0"]
    error: UnsupportedProtocolVersionErrorBody
    id: RequestId | UnsetType = UNSET


# --- Lifecycle (2024-11-05 .. 2025-11-25) -------------------------------------------------------


class InitializeRequestParams(RequestParams, frozen=True, kw_only=True):
    """Params of ``initialize``."""

    protocol_version: str
    capabilities: ClientCapabilities
    client_info: Implementation


class InitializeRequest(MCPModel, frozen=True, kw_only=True, tag_field="method", tag="initialize"):
    """The client's first request (removed in 2026-07-28)."""

    jsonrpc: Literal["2.0"]
    id: RequestId
    params: InitializeRequestParams


class InitializeResult(Result, frozen=True, kw_only=True):
    """Result of ``initialize`` (replaced by DiscoverResult in 2026-07-28)."""

    protocol_version: str
    capabilities: ServerCapabilities
    server_info: Implementation
    instructions: str | UnsetType = UNSET


class InitializedNotification(
    MCPModel, frozen=True, kw_only=True, tag_field="method", tag="notifications/initialized"
):
    """Sent by the client after initialization (removed in 2026-07-28)."""

    jsonrpc: Literal["2.0"]
    params: NotificationParams | UnsetType = UNSET


class PingRequest(MCPModel, frozen=True, kw_only=True, tag_field="method", tag="ping"):
    """Liveness check from either side (removed in 2026-07-28)."""

    jsonrpc: Literal["2.0"]
    id: RequestId
    params: RequestParams | UnsetType = UNSET


# --- Discovery (2026-07-28) --------------------------------------------------------------------


class DiscoverRequest(
    MCPModel, frozen=True, kw_only=True, tag_field="method", tag="server/discover"
):
    """Ask the server for its versions, capabilities and identity (2026-07-28)."""

    jsonrpc: Literal["2.0"]
    id: RequestId
    params: RequestParams


class DiscoverResult(Result, frozen=True, kw_only=True):
    """Result of ``server/discover`` (2026-07-28)."""

    supported_versions: list[str]
    capabilities: ServerCapabilities
    ttl_ms: int
    cache_scope: Literal["public", "private"]
    instructions: str | UnsetType = UNSET


# --- Cancellation and progress ------------------------------------------------------------------


class CancelledNotificationParams(NotificationParams, frozen=True, kw_only=True):
    """Params of ``notifications/cancelled``; ``requestId`` optional in 2025-11-25 only."""

    request_id: RequestId | UnsetType = UNSET
    reason: str | UnsetType = UNSET


class CancelledNotification(
    MCPModel, frozen=True, kw_only=True, tag_field="method", tag="notifications/cancelled"
):
    """Cancels an in-flight request."""

    jsonrpc: Literal["2.0"]
    params: CancelledNotificationParams


class ProgressNotificationParams(NotificationParams, frozen=True, kw_only=True):
    """Params of ``notifications/progress``."""

    progress_token: ProgressToken
    progress: float
    total: float | UnsetType = UNSET
    message: str | UnsetType = UNSET


class ProgressNotification(
    MCPModel, frozen=True, kw_only=True, tag_field="method", tag="notifications/progress"
):
    """Progress update for a long-running request."""

    jsonrpc: Literal["2.0"]
    params: ProgressNotificationParams
