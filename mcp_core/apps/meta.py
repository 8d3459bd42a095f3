"""What MCP Apps puts in ``_meta.ui``: on a view (a ``ui://`` resource and its
contents) and on a tool linked to a view.

The rules are the extension's stable text (tests/spec/extensions/apps-2026-01-26.md,
from ext-apps ``specification/2026-01-26/apps.mdx``): "UI Resource Format" for the
view's metadata, "Resource Discovery" for the tool's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final, Literal

import msgspec
from msgspec import UNSET, UnsetType

from mcp_core.types.base import MCPModel

__all__ = [
    "DEFAULT_VISIBILITY",
    "EXTENSION_ID",
    "LEGACY_RESOURCE_URI_KEY",
    "MIME_TYPE",
    "SCHEME",
    "Csp",
    "Permissions",
    "ToolUi",
    "ViewUi",
    "Visibility",
    "check_view_uri",
]

EXTENSION_ID: Final = "io.modelcontextprotocol/ui"
"""The extension's identifier ("Extension Identifier")."""

MIME_TYPE: Final = "text/html;profile=mcp-app"
"""A view's MIME type ("Content Requirements": ``mimeType`` MUST be this)."""

SCHEME: Final = "ui://"
"""A view's URI scheme ("Content Requirements": the URI MUST start with it)."""

LEGACY_RESOURCE_URI_KEY: Final = "ui/resourceUri"
"""The flat, deprecated ``_meta`` key of a tool's view ("Resource Discovery"),
read by hosts for older servers, never written."""

Visibility = Literal["model", "app"]
"""Who may see and call a tool ("Visibility")."""

DEFAULT_VISIBILITY: Final[tuple[Visibility, ...]] = ("model", "app")
"""A tool's visibility when it names none ("Visibility": the default)."""


class Csp(MCPModel, frozen=True, kw_only=True):
    """The origins a view needs (``McpUiResourceCsp``); each list left out means
    none (the host's restrictive default).

    Attributes:
        connect_domains: for fetch, XHR and WebSocket (``connect-src``).
        resource_domains: for scripts, images, styles, fonts and media.
        frame_domains: for nested iframes (``frame-src``).
        base_uri_domains: for the document's base URI (``base-uri``).
        wasm_unsafe_eval: the view compiles WebAssembly.
    """

    connect_domains: list[str] | UnsetType = UNSET
    resource_domains: list[str] | UnsetType = UNSET
    frame_domains: list[str] | UnsetType = UNSET
    base_uri_domains: list[str] | UnsetType = UNSET
    wasm_unsafe_eval: bool | UnsetType = UNSET


class Permissions(MCPModel, frozen=True, kw_only=True):
    """Browser features a view asks for (``permissions``); the host MAY grant them.
    Each present as ``{}`` when asked for (set it to ``{}``)."""

    camera: dict[str, Any] | UnsetType = UNSET
    microphone: dict[str, Any] | UnsetType = UNSET
    geolocation: dict[str, Any] | UnsetType = UNSET
    clipboard_write: dict[str, Any] | UnsetType = UNSET


class ViewUi(MCPModel, frozen=True, kw_only=True):
    """A view's ``_meta.ui`` (``UIResourceMeta``), on its resource and its contents.

    Attributes:
        csp: the origins it needs.
        permissions: the browser features it asks for.
        domain: a dedicated sandbox origin (its format is the host's).
        prefers_border: a visible border and background (True), none (False),
            or the host's choice (unset).
    """

    csp: Csp | UnsetType = UNSET
    permissions: Permissions | UnsetType = UNSET
    domain: str | UnsetType = UNSET
    prefers_border: bool | UnsetType = UNSET


class ToolUi(MCPModel, frozen=True, kw_only=True):
    """A tool's ``_meta.ui`` (``McpUiToolMeta``).

    Attributes:
        resource_uri: the ``ui://`` view that renders the tool's results.
        visibility: who sees and calls the tool; unset means both (the default).
    """

    resource_uri: str | UnsetType = UNSET
    visibility: list[Visibility] | UnsetType = UNSET

    @property
    def who(self) -> tuple[Visibility, ...]:
        """The visibility, the default filled in."""
        return DEFAULT_VISIBILITY if self.visibility is UNSET else tuple(self.visibility)


def check_view_uri(uri: str) -> None:
    """Refuse a view URI outside the ``ui://`` scheme ("Content Requirements").

    Raises:
        ValueError: it does not start with ``ui://``.
    """
    if not uri.startswith(SCHEME):
        raise ValueError(f"an MCP Apps view's URI starts with {SCHEME!r}, not {uri!r}")


def check_visibility(visibility: Sequence[str]) -> list[Visibility]:
    """``visibility`` as a list of the values "Visibility" defines.

    Raises:
        ValueError: a value is neither "model" nor "app", or there is none.
    """
    if not visibility:
        raise ValueError("a tool's visibility names 'model', 'app' or both")
    out: list[Visibility] = []
    for who in visibility:
        if who == "model":
            out.append("model")
        elif who == "app":
            out.append("app")
        else:
            raise ValueError(f"visibility is 'model' or 'app', not {who!r}")
    return out


def as_dict(value: msgspec.Struct) -> dict[str, Any]:
    """``value`` as the JSON object it is on the wire (for a ``_meta`` entry)."""
    out: dict[str, Any] = msgspec.to_builtins(value)
    return out
