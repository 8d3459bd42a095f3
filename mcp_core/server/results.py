# From what a handler returns to the MCP result it means, and list pagination.
#
# Handlers return plain Python values; these functions turn them into result
# Structs. The rules are listed in each function's docstring (and in Server's),
# so that an application author can predict the wire form of every value.

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterable, Sequence
from typing import Any, Final, TypeVar

import msgspec
from msgspec import UNSET, UnsetType

from ..types.content import (
    AudioContent,
    BlobResourceContents,
    ContentBlock,
    EmbeddedResource,
    ImageContent,
    ResourceContents,
    ResourceLink,
    TextContent,
    TextResourceContents,
)
from ..types.server import (
    CallToolResult,
    CompleteResult,
    Completion,
    GetPromptResult,
    PromptMessage,
    ReadResourceResult,
)
from ..wire.errors import INVALID_PARAMS
from .context import McpError
from .models import dump, is_model_instance, model_value

__all__ = [
    "tool_result",
    "error_result",
    "to_content",
    "read_result",
    "prompt_result",
    "complete_result",
    "page",
]

_T = TypeVar("_T")

_CONTENT_BLOCKS: Final = (TextContent, ImageContent, AudioContent, ResourceLink, EmbeddedResource)

#: At most this many completion values per response (server/utilities/completion.mdx).
MAX_COMPLETIONS: Final = 100

# Magic numbers of the media MCP content blocks carry (image and audio content).
_SIGNATURES: Final[tuple[tuple[bytes, int, str], ...]] = (
    (b"\x89PNG\r\n\x1a\n", 0, "image/png"),
    (b"\xff\xd8\xff", 0, "image/jpeg"),
    (b"GIF87a", 0, "image/gif"),
    (b"GIF89a", 0, "image/gif"),
    (b"WEBP", 8, "image/webp"),
    (b"WAVE", 8, "audio/wav"),
    (b"ID3", 0, "audio/mpeg"),
    (b"OggS", 0, "audio/ogg"),
    (b"fLaC", 0, "audio/flac"),
)


def _sniff(data: bytes) -> str | None:
    for signature, offset, mime_type in _SIGNATURES:
        if data[offset : offset + len(signature)] == signature:
            return mime_type
    return None


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _json_text(value: Any) -> str:
    return msgspec.json.encode(value, enc_hook=dump).decode("utf-8")


def to_content(value: Any) -> list[ContentBlock]:
    """Content blocks for an unstructured tool's return value.

    * None: no content.
    * str: one TextContent.
    * bytes: ImageContent or AudioContent when the data starts with a PNG, JPEG,
      GIF, WebP, WAV, MP3, Ogg or FLAC signature. Other bytes raise TypeError: the
      media type would be a guess, so return a content block instead.
    * a content block: itself.
    * a list or tuple of str, bytes and content blocks: each converted, in order.
    * anything else (dicts, Structs, numbers, other lists): one TextContent with
      the value as JSON.

    Raises:
        TypeError: unknown bytes, or a value msgspec cannot encode as JSON.
    """
    if value is None:
        return []
    if isinstance(value, str):
        return [TextContent(text=value)]
    if isinstance(value, bytes | bytearray):
        data = bytes(value)
        mime_type = _sniff(data)
        if mime_type is None:
            raise TypeError(
                "the tool returned bytes of unknown media type; return ImageContent, "
                "AudioContent or EmbeddedResource instead"
            )
        kind = ImageContent if mime_type.startswith("image/") else AudioContent
        return [kind(data=_b64(data), mime_type=mime_type)]
    if isinstance(value, _CONTENT_BLOCKS):
        return [value]
    if isinstance(value, list | tuple) and all(
        isinstance(item, (str, bytes, bytearray, *_CONTENT_BLOCKS)) for item in value
    ):
        return [block for item in value for block in to_content(item)]
    return [TextContent(text=_json_text(value))]


def tool_result(value: Any, *, structured: bool, wrap: bool) -> CallToolResult:
    """The CallToolResult for a tool's return value.

    A CallToolResult passes through untouched. For a structured tool, the value is
    data: ``structuredContent`` is its JSON form (``{"result": value}`` when
    ``wrap``), and one TextContent carries the same JSON for clients that only read
    content (2025-06-18 server/tools.mdx: SHOULD also return the serialized JSON).
    Otherwise see `to_content`.

    Raises:
        TypeError: the value cannot be converted.
    """
    if isinstance(value, CallToolResult):
        return value
    if not structured:
        if type(value) is str:  # the common case first
            return CallToolResult(content=[TextContent(text=value)])
        if isinstance(value, dict) or is_model_instance(value):
            # An object returned by a tool that declared no output type is still
            # data: structuredContent, and its JSON as text (as the official SDK
            # does with a dict).
            data = model_value(value)
            return CallToolResult(
                content=[TextContent(text=_json_text(data))], structured_content=data
            )
        return CallToolResult(content=to_content(value))
    data = model_value(value)
    return CallToolResult(
        content=[TextContent(text=_json_text(data))],
        structured_content={"result": data} if wrap else data,
    )


def error_result(message: str) -> CallToolResult:
    """A tool execution error (2025-11-25 server/tools.mdx "Error Handling")."""
    return CallToolResult(content=[TextContent(text=message)], is_error=True)


def read_result(value: Any, uri: str, mime_type: str | None) -> ReadResourceResult:
    """The ReadResourceResult for a resource handler's return value.

    * a ReadResourceResult: itself.
    * ResourceContents, or a list of them: as given.
    * str: text contents (``mime_type``, else text/plain).
    * bytes: base64 blob contents (``mime_type``, else application/octet-stream).
    * anything else: its JSON as text (``mime_type``, else application/json).

    Raises:
        TypeError: msgspec cannot encode the value as JSON.
    """
    if isinstance(value, ReadResourceResult):
        return value
    if isinstance(value, ResourceContents):
        return ReadResourceResult(contents=[value])
    if isinstance(value, list) and value and all(isinstance(v, ResourceContents) for v in value):
        return ReadResourceResult(contents=list(value))
    contents: ResourceContents
    if isinstance(value, str):
        contents = TextResourceContents(uri=uri, text=value, mime_type=mime_type or "text/plain")
    elif isinstance(value, bytes | bytearray):
        contents = BlobResourceContents(
            uri=uri, blob=_b64(bytes(value)), mime_type=mime_type or "application/octet-stream"
        )
    else:
        contents = TextResourceContents(
            uri=uri, text=_json_text(value), mime_type=mime_type or "application/json"
        )
    return ReadResourceResult(contents=[contents])


def _prompt_message(item: Any) -> PromptMessage:
    if isinstance(item, PromptMessage):
        return item
    if isinstance(item, str):
        return PromptMessage(role="user", content=TextContent(text=item))
    if isinstance(item, _CONTENT_BLOCKS):
        return PromptMessage(role="user", content=item)
    if isinstance(item, dict):
        return msgspec.convert(item, PromptMessage)
    raise TypeError(f"a prompt cannot return {type(item).__name__}")


def prompt_result(value: Any, description: str | None) -> GetPromptResult:
    """The GetPromptResult for a prompt handler's return value.

    A GetPromptResult passes through. Otherwise the value is one message or a list
    of them, each a PromptMessage, a ``{"role", "content"}`` dict, or a str or
    content block (a user message).

    Raises:
        TypeError: a value is none of these.
        msgspec.ValidationError: a dict is not a valid PromptMessage.
    """
    if isinstance(value, GetPromptResult):
        return value
    items = value if isinstance(value, list | tuple) else [value]
    return GetPromptResult(
        messages=[_prompt_message(item) for item in items],
        description=UNSET if description is None else description,
    )


def complete_result(value: Any) -> CompleteResult:
    """The CompleteResult for a completion handler's return value.

    A CompleteResult or Completion is used as is; None means no suggestions; an
    iterable of str is cut to the first 100 with ``total`` and ``hasMore`` set.

    Raises:
        TypeError: the value is none of these.
    """
    if isinstance(value, CompleteResult):
        return value
    if isinstance(value, Completion):
        return CompleteResult(completion=value)
    if value is None:
        return CompleteResult(completion=Completion(values=[]))
    if isinstance(value, str) or not isinstance(value, Iterable):
        raise TypeError("a completion handler returns a list of str, Completion or None")
    values = list(value)
    if not all(isinstance(v, str) for v in values):
        raise TypeError("completion values must be str")
    return CompleteResult(
        completion=Completion(
            values=values[:MAX_COMPLETIONS],
            total=len(values),
            has_more=len(values) > MAX_COMPLETIONS,
        )
    )


# --- pagination ---------------------------------------------------------------------------
#
# 2025-11-25 server/utilities/pagination.mdx: cursors are opaque to clients; an
# invalid cursor SHOULD get -32602. Ours is the base64url of the decimal offset,
# which is stable while the list does not change and degrades to a shorter page
# (never an error) when items are removed between pages.


def _encode_cursor(offset: int) -> str:
    return base64.urlsafe_b64encode(str(offset).encode("ascii")).decode("ascii")


def _decode_cursor(cursor: str) -> int:
    try:
        text = base64.urlsafe_b64decode(cursor.encode("ascii")).decode("ascii")
    except (binascii.Error, UnicodeError, ValueError):
        text = ""
    if not text.isdigit() or _encode_cursor(int(text)) != cursor:
        raise McpError(INVALID_PARAMS, "Invalid cursor", data={"cursor": cursor})
    return int(text)


def page(
    items: Sequence[_T], cursor: str | UnsetType, page_size: int | None
) -> tuple[list[_T], str | UnsetType]:
    """One page of ``items`` and the cursor of the next, if any.

    Raises:
        McpError: -32602 for a cursor we did not make.
    """
    start = 0 if isinstance(cursor, UnsetType) else _decode_cursor(cursor)
    if page_size is None:
        return list(items[start:]), UNSET
    end = start + page_size
    next_cursor: str | UnsetType = _encode_cursor(end) if end < len(items) else UNSET
    return list(items[start:end]), next_cursor
