"""Full response envelopes named in the 2026-07-28 schema (``<Result>Response``).

``tools/call``, ``prompts/get`` and ``resources/read`` may answer with an ``InputRequiredResult``
(multi round-trip requests). The schema types those three ``result`` fields as an untagged union
``InputRequiredResult | <Result>``, which msgspec cannot decode, so they stay a dict here; the
``resultType`` member tells them apart, and ``mcp_core.types.methods.decode_method_result`` picks
the right Struct.
"""

from __future__ import annotations

from typing import Any, Literal

from .base import DiscoverResult, MCPModel, RequestId
from .server import (
    CompleteResult,
    ListPromptsResult,
    ListResourcesResult,
    ListResourceTemplatesResult,
    ListToolsResult,
    SubscriptionsListenResult,
)


class DiscoverResultResponse(MCPModel, frozen=True, kw_only=True):
    """Response to ``server/discover``."""

    jsonrpc: Literal["2.0"]
    id: RequestId
    result: DiscoverResult


class CallToolResultResponse(MCPModel, frozen=True, kw_only=True):
    """Response to ``tools/call``; ``result`` is CallToolResult or InputRequiredResult."""

    jsonrpc: Literal["2.0"]
    id: RequestId
    result: dict[str, Any]


class GetPromptResultResponse(MCPModel, frozen=True, kw_only=True):
    """Response to ``prompts/get``; ``result`` is GetPromptResult or InputRequiredResult."""

    jsonrpc: Literal["2.0"]
    id: RequestId
    result: dict[str, Any]


class ReadResourceResultResponse(MCPModel, frozen=True, kw_only=True):
    """Response to ``resources/read``; ``result`` is ReadResourceResult or InputRequiredResult."""

    jsonrpc: Literal["2.0"]
    id: RequestId
    result: dict[str, Any]


class CompleteResultResponse(MCPModel, frozen=True, kw_only=True):
    """Response to ``completion/complete``."""

    jsonrpc: Literal["2.0"]
    id: RequestId
    result: CompleteResult


class ListPromptsResultResponse(MCPModel, frozen=True, kw_only=True):
    """Response to ``prompts/list``."""

    jsonrpc: Literal["2.0"]
    id: RequestId
    result: ListPromptsResult


class ListResourcesResultResponse(MCPModel, frozen=True, kw_only=True):
    """Response to ``resources/list``."""

    jsonrpc: Literal["2.0"]
    id: RequestId
    result: ListResourcesResult


class ListResourceTemplatesResultResponse(MCPModel, frozen=True, kw_only=True):
    """Response to ``resources/templates/list``."""

    jsonrpc: Literal["2.0"]
    id: RequestId
    result: ListResourceTemplatesResult


class ListToolsResultResponse(MCPModel, frozen=True, kw_only=True):
    """Response to ``tools/list``."""

    jsonrpc: Literal["2.0"]
    id: RequestId
    result: ListToolsResult


class SubscriptionsListenResultResponse(MCPModel, frozen=True, kw_only=True):
    """Response to ``subscriptions/listen``."""

    jsonrpc: Literal["2.0"]
    id: RequestId
    result: SubscriptionsListenResult
