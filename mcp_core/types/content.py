"""Content blocks, resource contents, annotations.

Content blocks are a msgspec tagged union on ``"type"``. Resource contents are an *untagged*
union in the schema (``TextResourceContents | BlobResourceContents``, told apart by which of
``text``/``blob`` is present), which msgspec cannot decode; fields holding that union are typed
with the superset ``ResourceContents``, and the two variants are subclasses that narrow it.
"""

from __future__ import annotations

from typing import Any, TypeAlias

from msgspec import UNSET, UnsetType, field

from .base import Icon, MCPModel, Role


class Annotations(MCPModel, frozen=True, kw_only=True):
    """Hints for clients about how to use or display an object."""

    audience: list[Role] | UnsetType = UNSET
    priority: float | UnsetType = UNSET
    last_modified: str | UnsetType = UNSET


class Annotated(MCPModel, frozen=True, kw_only=True):
    """Base for objects with annotations (2024-11-05 only as a definition)."""

    annotations: Annotations | UnsetType = UNSET


class ResourceContents(MCPModel, frozen=True, kw_only=True):
    """Contents of a resource: the superset of TextResourceContents and BlobResourceContents.

    Decoding checks that ``text`` or ``blob`` is present, as one of the two variants requires.
    """

    uri: str
    mime_type: str | UnsetType = UNSET
    meta: dict[str, Any] | UnsetType = field(default=UNSET, name="_meta")
    text: str | UnsetType = UNSET
    blob: str | UnsetType = UNSET

    def __post_init__(self) -> None:
        if isinstance(self.text, UnsetType) and isinstance(self.blob, UnsetType):
            raise ValueError("resource contents need `text` or `blob`")


class TextResourceContents(ResourceContents, frozen=True, kw_only=True):
    """Text contents of a resource."""

    text: str


class BlobResourceContents(ResourceContents, frozen=True, kw_only=True):
    """Binary contents of a resource, base64-encoded."""

    blob: str


class Resource(MCPModel, frozen=True, kw_only=True):
    """A resource the server can read."""

    uri: str
    name: str
    title: str | UnsetType = UNSET
    description: str | UnsetType = UNSET
    mime_type: str | UnsetType = UNSET
    size: int | UnsetType = UNSET
    annotations: Annotations | UnsetType = UNSET
    icons: list[Icon] | UnsetType = UNSET
    meta: dict[str, Any] | UnsetType = field(default=UNSET, name="_meta")


class TextContent(MCPModel, frozen=True, kw_only=True, tag_field="type", tag="text"):
    """Text content."""

    text: str
    annotations: Annotations | UnsetType = UNSET
    meta: dict[str, Any] | UnsetType = field(default=UNSET, name="_meta")


class ImageContent(MCPModel, frozen=True, kw_only=True, tag_field="type", tag="image"):
    """Image content, base64-encoded."""

    data: str
    mime_type: str
    annotations: Annotations | UnsetType = UNSET
    meta: dict[str, Any] | UnsetType = field(default=UNSET, name="_meta")


class AudioContent(MCPModel, frozen=True, kw_only=True, tag_field="type", tag="audio"):
    """Audio content, base64-encoded (2025-03-26+)."""

    data: str
    mime_type: str
    annotations: Annotations | UnsetType = UNSET
    meta: dict[str, Any] | UnsetType = field(default=UNSET, name="_meta")


class ResourceLink(Resource, frozen=True, kw_only=True, tag_field="type", tag="resource_link"):
    """A link to a resource, returned in content (2025-06-18+)."""


class EmbeddedResource(MCPModel, frozen=True, kw_only=True, tag_field="type", tag="resource"):
    """A resource's contents embedded in a prompt or tool result."""

    resource: ResourceContents
    annotations: Annotations | UnsetType = UNSET
    meta: dict[str, Any] | UnsetType = field(default=UNSET, name="_meta")


class ToolUseContent(MCPModel, frozen=True, kw_only=True, tag_field="type", tag="tool_use"):
    """A model's request to use a tool, in sampling (2025-11-25+)."""

    id: str
    name: str
    input: dict[str, Any]
    meta: dict[str, Any] | UnsetType = field(default=UNSET, name="_meta")


class ToolResultContent(MCPModel, frozen=True, kw_only=True, tag_field="type", tag="tool_result"):
    """The result of a tool use, in sampling (2025-11-25+)."""

    tool_use_id: str
    content: list[ContentBlock]
    # An object in 2025-11-25, any JSON value from 2026-07-28.
    structured_content: Any | UnsetType = UNSET
    is_error: bool | UnsetType = UNSET
    meta: dict[str, Any] | UnsetType = field(default=UNSET, name="_meta")


ContentBlock: TypeAlias = (
    TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource
)
SamplingMessageContentBlock: TypeAlias = (
    TextContent | ImageContent | AudioContent | ToolUseContent | ToolResultContent
)
