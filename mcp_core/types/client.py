"""Client features: sampling, elicitation, roots, and 2026-07-28 multi round-trip requests.

Up to 2025-11-25 the server sends ``sampling/createMessage``, ``elicitation/create`` and
``roots/list`` as JSON-RPC requests. In 2026-07-28 they are *input requests*: the server puts
them, without ``jsonrpc``/``id``, in an ``InputRequiredResult`` and the client answers in the
retried request's ``inputResponses`` (2026-07-28 basic/patterns/mrtr). Their Structs therefore
leave ``jsonrpc`` and ``id`` optional.

Two schema unions are untagged and become a superset Struct with narrowing subclasses:

* ``ElicitRequestParams`` = form | URL params (``mode`` is optional on the form variant, so it
  cannot be a msgspec tag);
* ``PrimitiveSchemaDefinition`` (and ``EnumSchema`` & co.) = eight JSON Schema fragments of which
  four share ``"type": "string"``.

Fields typed with the superset accept every variant; decoding yields the superset class.
"""

from __future__ import annotations

from typing import Any, Literal, TypeAlias

from msgspec import UNSET, UnsetType, field

from .base import (
    Error,
    InputResponses,
    MCPModel,
    NotificationParams,
    RequestId,
    RequestParams,
    Result,
    Role,
)
from .content import SamplingMessageContentBlock
from .server import Tool
from .tasks import TaskMetadata

# --- Sampling ------------------------------------------------------------------------------------


class ModelHint(MCPModel, frozen=True, kw_only=True):
    """A hint for model selection."""

    name: str | UnsetType = UNSET


class ModelPreferences(MCPModel, frozen=True, kw_only=True):
    """The server's model-selection preferences."""

    hints: list[ModelHint] | UnsetType = UNSET
    cost_priority: float | UnsetType = UNSET
    speed_priority: float | UnsetType = UNSET
    intelligence_priority: float | UnsetType = UNSET


class SamplingMessage(MCPModel, frozen=True, kw_only=True):
    """A message in a sampling conversation."""

    role: Role
    content: SamplingMessageContentBlock | list[SamplingMessageContentBlock]
    meta: dict[str, Any] | UnsetType = field(default=UNSET, name="_meta")


class ToolChoice(MCPModel, frozen=True, kw_only=True):
    """How the model may use tools in sampling (2025-11-25+)."""

    mode: Literal["auto", "required", "none"] | UnsetType = UNSET


class CreateMessageRequestParams(RequestParams, frozen=True, kw_only=True):
    """Params of ``sampling/createMessage``."""

    messages: list[SamplingMessage]
    max_tokens: int
    model_preferences: ModelPreferences | UnsetType = UNSET
    system_prompt: str | UnsetType = UNSET
    include_context: Literal["none", "thisServer", "allServers"] | UnsetType = UNSET
    temperature: float | UnsetType = UNSET
    stop_sequences: list[str] | UnsetType = UNSET
    metadata: dict[str, Any] | UnsetType = UNSET
    tools: list[Tool] | UnsetType = UNSET
    tool_choice: ToolChoice | UnsetType = UNSET
    task: TaskMetadata | UnsetType = UNSET


class CreateMessageRequest(
    MCPModel, frozen=True, kw_only=True, tag_field="method", tag="sampling/createMessage"
):
    """Asks the client to sample an LLM (an input request in 2026-07-28)."""

    params: CreateMessageRequestParams
    jsonrpc: Literal["2.0"] | UnsetType = UNSET
    id: RequestId | UnsetType = UNSET


class CreateMessageResult(Result, frozen=True, kw_only=True):
    """The client's sampling result."""

    role: Role
    content: SamplingMessageContentBlock | list[SamplingMessageContentBlock]
    model: str
    stop_reason: str | UnsetType = UNSET


# --- Elicitation: primitive schemas --------------------------------------------------------------


class EnumOption(MCPModel, frozen=True, kw_only=True):
    """One titled enum option: ``{"const": ..., "title": ...}``."""

    const: str
    title: str


class EnumItems(MCPModel, frozen=True, kw_only=True):
    """``items`` of a multi-select enum: untitled (``type`` + ``enum``) or titled (``anyOf``)."""

    type: Literal["string"] | UnsetType = UNSET
    enum: list[str] | UnsetType = UNSET
    any_of: list[EnumOption] | UnsetType = UNSET


class PrimitiveSchemaDefinition(MCPModel, frozen=True, kw_only=True):
    """A flat JSON Schema for one elicitation field: the superset of all eight variants."""

    type: Literal["string", "number", "integer", "boolean", "array"]
    title: str | UnsetType = UNSET
    description: str | UnsetType = UNSET
    default: str | int | float | bool | list[str] | UnsetType = UNSET
    # StringSchema
    format: Literal["email", "uri", "date", "date-time"] | UnsetType = UNSET
    min_length: int | UnsetType = UNSET
    max_length: int | UnsetType = UNSET
    # NumberSchema
    minimum: float | UnsetType = UNSET
    maximum: float | UnsetType = UNSET
    # Single-select enums
    enum: list[str] | UnsetType = UNSET
    enum_names: list[str] | UnsetType = UNSET
    one_of: list[EnumOption] | UnsetType = UNSET
    # Multi-select enums
    items: EnumItems | UnsetType = UNSET
    min_items: int | UnsetType = UNSET
    max_items: int | UnsetType = UNSET


class StringSchema(PrimitiveSchemaDefinition, frozen=True, kw_only=True):
    """A free-text field."""

    type: Literal["string"]
    default: str | UnsetType = UNSET


class NumberSchema(PrimitiveSchemaDefinition, frozen=True, kw_only=True):
    """A number or integer field."""

    type: Literal["number", "integer"]
    default: float | UnsetType = UNSET


class BooleanSchema(PrimitiveSchemaDefinition, frozen=True, kw_only=True):
    """A boolean field."""

    type: Literal["boolean"]
    default: bool | UnsetType = UNSET


class UntitledSingleSelectEnumSchema(PrimitiveSchemaDefinition, frozen=True, kw_only=True):
    """A single choice among plain strings."""

    type: Literal["string"]
    enum: list[str]
    default: str | UnsetType = UNSET


class TitledSingleSelectEnumSchema(PrimitiveSchemaDefinition, frozen=True, kw_only=True):
    """A single choice among titled options."""

    type: Literal["string"]
    one_of: list[EnumOption]
    default: str | UnsetType = UNSET


class LegacyTitledEnumSchema(PrimitiveSchemaDefinition, frozen=True, kw_only=True):
    """A single choice titled by the non-standard ``enumNames`` (``EnumSchema`` in 2025-06-18)."""

    type: Literal["string"]
    enum: list[str]
    default: str | UnsetType = UNSET


class UntitledMultiSelectEnumSchema(PrimitiveSchemaDefinition, frozen=True, kw_only=True):
    """Several choices among plain strings."""

    type: Literal["array"]
    items: EnumItems
    default: list[str] | UnsetType = UNSET


class TitledMultiSelectEnumSchema(PrimitiveSchemaDefinition, frozen=True, kw_only=True):
    """Several choices among titled options."""

    type: Literal["array"]
    items: EnumItems
    default: list[str] | UnsetType = UNSET


class RequestedSchema(MCPModel, frozen=True, kw_only=True):
    """ElicitRequestFormParams.requestedSchema: a flat object schema."""

    type: Literal["object"]
    properties: dict[str, PrimitiveSchemaDefinition]
    required: list[str] | UnsetType = UNSET
    schema: str | UnsetType = field(default=UNSET, name="$schema")


# --- Elicitation: requests and results -----------------------------------------------------------


class ElicitRequestParams(RequestParams, frozen=True, kw_only=True):
    """Params of ``elicitation/create``: the superset of form and URL params.

    Decoding checks the fields the mode needs: ``url`` for URL mode, ``requestedSchema``
    otherwise (an absent ``mode`` means form).
    """

    message: str
    mode: Literal["form", "url"] | UnsetType = UNSET
    requested_schema: RequestedSchema | UnsetType = UNSET
    url: str | UnsetType = UNSET
    # 2025-11-25 only: removed with notifications/elicitation/complete in 2026-07-28.
    elicitation_id: str | UnsetType = UNSET
    task: TaskMetadata | UnsetType = UNSET

    def __post_init__(self) -> None:
        if self.mode == "url":
            if isinstance(self.url, UnsetType):
                raise ValueError("URL-mode elicitation needs `url`")
        elif isinstance(self.requested_schema, UnsetType):
            raise ValueError("form-mode elicitation needs `requestedSchema`")


class ElicitRequestFormParams(ElicitRequestParams, frozen=True, kw_only=True):
    """Form-mode elicitation params (2025-11-25+)."""

    mode: Literal["form"] | UnsetType = UNSET
    requested_schema: RequestedSchema


class ElicitRequestURLParams(ElicitRequestParams, frozen=True, kw_only=True):
    """URL-mode elicitation params (2025-11-25+)."""

    mode: Literal["url"]
    url: str


class ElicitRequest(
    MCPModel, frozen=True, kw_only=True, tag_field="method", tag="elicitation/create"
):
    """Asks the client to collect input from the user (2025-06-18+; input request in 2026)."""

    params: ElicitRequestParams
    jsonrpc: Literal["2.0"] | UnsetType = UNSET
    id: RequestId | UnsetType = UNSET


class ElicitResult(Result, frozen=True, kw_only=True):
    """The user's answer to an elicitation."""

    action: Literal["accept", "decline", "cancel"]
    # list[str] values (multi-select) are new in 2025-11-25.
    content: dict[str, str | int | float | bool | list[str]] | UnsetType = UNSET


class ElicitationCompleteNotificationParams(NotificationParams, frozen=True, kw_only=True):
    """Params of ``notifications/elicitation/complete``."""

    elicitation_id: str


class ElicitationCompleteNotification(
    MCPModel,
    frozen=True,
    kw_only=True,
    tag_field="method",
    tag="notifications/elicitation/complete",
):
    """A URL-mode elicitation finished (2025-11-25 only)."""

    jsonrpc: Literal["2.0"]
    params: ElicitationCompleteNotificationParams


class URLElicitationRequiredErrorData(MCPModel, frozen=True, kw_only=True):
    """URLElicitationRequiredError.error.data."""

    elicitations: list[ElicitRequestURLParams]


class URLElicitationRequiredErrorBody(Error, frozen=True, kw_only=True):
    """URLElicitationRequiredError.error (-32042)."""

    code: Literal[-32042]
    data: URLElicitationRequiredErrorData


class URLElicitationRequiredError(MCPModel, frozen=True, kw_only=True):
    """Error response: the request needs URL-mode elicitations first (2025-11-25)."""

    jsonrpc: Literal["2.0"]
    error: URLElicitationRequiredErrorBody
    id: RequestId | UnsetType = UNSET


# --- Roots ---------------------------------------------------------------------------------------


class Root(MCPModel, frozen=True, kw_only=True):
    """A directory or file the server may operate on."""

    uri: str
    name: str | UnsetType = UNSET
    meta: dict[str, Any] | UnsetType = field(default=UNSET, name="_meta")


class ListRootsRequest(MCPModel, frozen=True, kw_only=True, tag_field="method", tag="roots/list"):
    """Asks the client for its roots (an input request in 2026-07-28)."""

    params: RequestParams | UnsetType = UNSET
    jsonrpc: Literal["2.0"] | UnsetType = UNSET
    id: RequestId | UnsetType = UNSET


class ListRootsResult(Result, frozen=True, kw_only=True):
    """The client's roots."""

    roots: list[Root]


class RootsListChangedNotification(
    MCPModel, frozen=True, kw_only=True, tag_field="method", tag="notifications/roots/list_changed"
):
    """The client's roots changed (removed in 2026-07-28)."""

    jsonrpc: Literal["2.0"]
    params: NotificationParams | UnsetType = UNSET


# --- Multi round-trip requests (2026-07-28) ------------------------------------------------------

InputRequest: TypeAlias = CreateMessageRequest | ListRootsRequest | ElicitRequest
InputRequests: TypeAlias = dict[str, InputRequest]


class InputRequiredResult(Result, frozen=True, kw_only=True):
    """An interim result asking the client for input before a retry (2026-07-28)."""

    input_requests: InputRequests | UnsetType = UNSET
    request_state: str | UnsetType = UNSET

    def __post_init__(self) -> None:
        # 2026-07-28 schema, InputRequiredResult: at least one of the two MUST be present.
        if isinstance(self.input_requests, UnsetType) and isinstance(self.request_state, UnsetType):
            raise ValueError("InputRequiredResult needs `inputRequests` or `requestState`")


class InputResponseRequestParams(RequestParams, frozen=True, kw_only=True):
    """Base params of a request retried with input responses (2026-07-28)."""

    input_responses: InputResponses | UnsetType = UNSET
    request_state: str | UnsetType = UNSET
