"""MCP Apps for a host (the client side): declaring the extension, finding a
tool's view, reading it, and the sandbox policy it asks for.

tests/spec/extensions/apps-2026-01-26.md: "Client (Host) Capabilities" (the
extension's settings: ``mimeTypes``), "Resource Discovery" (``_meta.ui.resourceUri``,
the deprecated flat ``ui/resourceUri``; the host fetches the view with
``resources/read``), "Visibility" (tools without "model" stay off the agent's
list; tools without "app" are refused to views), "Content Requirements" and
"Host Behavior" (the read contents, the restrictive default CSP), "Content
Security Policy Enforcement" (the CSP and the iframe ``allow`` built from
``_meta.ui``).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterable
from typing import Any, Final

import msgspec
from msgspec import UNSET

from mcp_core.extensions import server_settings, with_extension
from mcp_core.types.base import ClientCapabilities, ServerCapabilities
from mcp_core.types.server import ReadResourceResult, Tool

from .meta import (
    EXTENSION_ID,
    LEGACY_RESOURCE_URI_KEY,
    MIME_TYPE,
    ToolUi,
    ViewUi,
    check_view_uri,
)

__all__ = [
    "DEFAULT_CSP",
    "SETTINGS",
    "View",
    "ViewError",
    "declare_apps",
    "for_app",
    "for_model",
    "offers_apps",
    "read_view",
    "supports_apps",
    "tool_ui",
    "view_uri",
]

SETTINGS: Final[dict[str, Any]] = {"mimeTypes": [MIME_TYPE]}
"""What a host declares under ``capabilities.extensions[io.modelcontextprotocol/ui]``."""

DEFAULT_CSP: Final = (
    "default-src 'none'; script-src 'self' 'unsafe-inline'; "
    "style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "media-src 'self' data:; connect-src 'none'"
)
"""The CSP of a view that declares none ("Host Behavior": Restrictive Default)."""


class ViewError(ValueError):
    """A view's resource breaks "Content Requirements" (its URI, MIME type or
    content), or a tool names no view."""


def declare_apps(capabilities: ClientCapabilities) -> ClientCapabilities:
    """``capabilities`` declaring MCP Apps (the extension and its MIME type)."""
    return with_extension(capabilities, EXTENSION_ID, SETTINGS)


def offers_apps(capabilities: ServerCapabilities) -> bool:
    """Whether a server declared MCP Apps (its tools may name views)."""
    return server_settings(capabilities, EXTENSION_ID) is not None


def supports_apps(capabilities: ClientCapabilities) -> bool:
    """Whether ``capabilities`` declare MCP Apps with the HTML profile."""
    extensions = capabilities.extensions
    if extensions is UNSET:
        return False
    settings = extensions.get(EXTENSION_ID)
    mime_types = settings.get("mimeTypes") if isinstance(settings, dict) else None
    return isinstance(mime_types, list) and MIME_TYPE in mime_types


def tool_ui(tool: Tool) -> ToolUi | None:
    """The tool's ``_meta.ui``, or None when it has none. The deprecated flat
    ``_meta["ui/resourceUri"]`` counts when ``ui.resourceUri`` is absent; a
    ``ui`` entry that is not the extension's shape counts as none."""
    meta = tool.meta
    if meta is UNSET:
        return None
    found: ToolUi | None = None
    raw = meta.get("ui")
    if isinstance(raw, dict):
        try:
            found = msgspec.convert(raw, ToolUi)
        except msgspec.ValidationError:
            found = None
    legacy = meta.get(LEGACY_RESOURCE_URI_KEY)
    if isinstance(legacy, str) and (found is None or found.resource_uri is UNSET):
        found = msgspec.structs.replace(found or ToolUi(), resource_uri=legacy)
    return found


def view_uri(tool: Tool) -> str | None:
    """The URI of the view that renders the tool's results, or None."""
    ui = tool_ui(tool)
    if ui is None or ui.resource_uri is UNSET:
        return None
    return ui.resource_uri


def _visible(tool: Tool, who: str) -> bool:
    ui = tool_ui(tool)
    return ui is None or who in ui.who


def for_model(tools: Iterable[Tool]) -> list[Tool]:
    """The tools the agent may see: not those whose visibility lacks "model"
    ("Visibility": the host MUST NOT list them to the agent)."""
    return [tool for tool in tools if _visible(tool, "model")]


def for_app(tool: Tool) -> bool:
    """Whether a view may call ``tool`` ("Visibility": the host MUST refuse
    a view's call to a tool whose visibility lacks "app")."""
    return _visible(tool, "app")


class View(msgspec.Struct, frozen=True, kw_only=True):
    """A view as read: its URI, its HTML, its ``_meta.ui``.

    Attributes:
        uri: the ``ui://`` URI.
        html: the document.
        ui: what it asks of the sandbox (CSP domains, permissions, domain,
            border).
    """

    uri: str
    html: str
    ui: ViewUi = ViewUi()

    def content_security_policy(self) -> str:
        """The CSP to load the view under: the restrictive default when it
        declares no ``csp``, else the construction of "Content Security Policy
        Enforcement" (only the declared origins are added)."""
        csp = self.ui.csp
        if csp is UNSET:
            return DEFAULT_CSP

        def join(domains: list[str] | Any) -> str:
            return "" if domains is UNSET or not domains else " " + " ".join(domains)

        resources = join(csp.resource_domains)
        wasm = " 'wasm-unsafe-eval'" if csp.wasm_unsafe_eval is True else ""
        frames = join(csp.frame_domains).strip() or "'none'"
        base = join(csp.base_uri_domains).strip() or "'self'"
        return "; ".join(
            (
                "default-src 'none'",
                f"script-src 'self' 'unsafe-inline'{wasm}{resources}",
                f"style-src 'self' 'unsafe-inline'{resources}",
                f"connect-src 'self'{join(csp.connect_domains)}",
                f"img-src 'self' data:{resources}",
                f"font-src 'self'{resources}",
                f"media-src 'self' data:{resources}",
                f"frame-src {frames}",
                "object-src 'none'",
                f"base-uri {base}",
            )
        )

    def allow(self) -> str:
        """The iframe ``allow`` attribute for the permissions it asks for
        (each maps to the Permission Policy feature of the same name)."""
        asked = self.ui.permissions
        if asked is UNSET:
            return ""
        features = (
            ("camera", asked.camera),
            ("microphone", asked.microphone),
            ("geolocation", asked.geolocation),
            ("clipboard-write", asked.clipboard_write),
        )
        return " ".join(name for name, value in features if value is not UNSET)


def read_view(result: ReadResourceResult, uri: str) -> View:
    """The view in a ``resources/read`` result for ``uri``.

    Raises:
        ViewError: the URI is not ``ui://``, no contents carry it, its MIME type
            is not ``text/html;profile=mcp-app``, it has neither text nor a
            base64 UTF-8 blob, or its ``_meta.ui`` is not the extension's shape.
    """
    try:
        check_view_uri(uri)
    except ValueError as exc:
        raise ViewError(str(exc)) from None
    for contents in result.contents:
        if contents.uri != uri:
            continue
        if contents.mime_type != MIME_TYPE:
            found = "none" if contents.mime_type is UNSET else repr(contents.mime_type)
            raise ViewError(f"the view {uri!r} is served as {found}, not {MIME_TYPE!r}")
        if contents.text is not UNSET:
            html = contents.text
        else:
            try:
                html = base64.b64decode(str(contents.blob), validate=True).decode()
            except (binascii.Error, UnicodeDecodeError):
                raise ViewError(f"the view {uri!r} has a blob that is not base64 UTF-8") from None
        meta = {} if contents.meta is UNSET else contents.meta
        try:
            ui = msgspec.convert(meta.get("ui") or {}, ViewUi)
        except msgspec.ValidationError as exc:
            why = f"the view {uri!r} has a _meta.ui the extension does not define: {exc}"
            raise ViewError(why) from None
        return View(uri=uri, html=html, ui=ui)
    raise ViewError(f"the answer to reading {uri!r} has no contents for it")
