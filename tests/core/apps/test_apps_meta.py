"""MCP Apps without I/O (tests/spec/extensions/apps-2026-01-26.md): the rules of
views and tools a server registers, and what a host reads from them."""

from __future__ import annotations

import base64

import msgspec
import pytest

from mcp_core import Server
from mcp_core.apps import (
    DEFAULT_CSP,
    EXTENSION_ID,
    MIME_TYPE,
    Apps,
    Csp,
    Permissions,
    ToolUi,
    View,
    ViewError,
    ViewUi,
    client_supports_apps,
    declare_apps,
    for_model,
    offers_apps,
    read_view,
    supports_apps,
    tool_ui,
    view_uri,
)
from mcp_core.types import ClientCapabilities, ReadResourceResult, Tool
from mcp_core.types.content import BlobResourceContents, TextResourceContents

SCHEMA = {"type": "object"}


def tool(meta: dict[str, object] | None) -> Tool:
    return Tool(name="t", input_schema=SCHEMA, meta=msgspec.UNSET if meta is None else meta)


def test_registration_rules() -> None:
    server = Server("s", "1")
    apps = Apps(server)
    # "Content Requirements": the URI MUST start with ui://.
    with pytest.raises(ValueError, match="ui://"):
        apps.view("https://example.com/v.html", "<p>")
    apps.view("ui://s/v.html", "<p>")
    with pytest.raises(ValueError, match="already registered"):
        apps.view("ui://s/v.html", "<p>")
    # "Resource Discovery": the view MUST exist on the server.
    with pytest.raises(ValueError, match=r"no view 'ui://s/other\.html'"):
        apps.add_tool(lambda: "x", view="ui://s/other.html", name="x")
    with pytest.raises(ValueError, match="'model' or 'app'"):
        apps.add_tool(lambda: "x", view="ui://s/v.html", visibility=["user"], name="x")
    with pytest.raises(ValueError, match="names 'model', 'app' or both"):
        apps.add_tool(lambda: "x", view="ui://s/v.html", visibility=[], name="x")
    with pytest.raises(ValueError, match=r"_meta\.ui"):
        apps.add_tool(lambda: "x", view="ui://s/v.html", meta={"ui": {}}, name="x")
    made = apps.add_tool(lambda: "x", view="ui://s/v.html", meta={"k": 1}, name="x")
    assert made.meta == {"k": 1, "ui": {"resourceUri": "ui://s/v.html"}}
    assert apps.views == ["ui://s/v.html"]
    assert server.extensions[EXTENSION_ID] is apps
    # Declared in both eras (SEP-2133: in the handshake too).
    assert offers_apps(server.config().capabilities)
    with pytest.raises(ValueError, match="offered already"):
        Apps(server)


def test_host_reads_tool_metadata() -> None:
    assert tool_ui(tool(None)) is None and view_uri(tool({"other": 1})) is None
    assert view_uri(tool({"ui": {"resourceUri": "ui://a"}})) == "ui://a"
    # The deprecated flat key still counts, below ui.resourceUri.
    assert view_uri(tool({"ui/resourceUri": "ui://old"})) == "ui://old"
    both = {"ui": {"resourceUri": "ui://new"}, "ui/resourceUri": "ui://old"}
    assert view_uri(tool(both)) == "ui://new"
    flat = tool({"ui": {"visibility": ["app"]}, "ui/resourceUri": "ui://old"})
    assert tool_ui(flat) == ToolUi(resource_uri="ui://old", visibility=["app"])
    # A ui entry of another shape is no view.
    assert tool_ui(tool({"ui": {"visibility": "app"}})) is None
    # "Visibility": default both; without "model" off the agent's list.
    tools = [tool(None), tool({"ui": {"visibility": ["app"]}}), tool({"ui": {}})]
    assert for_model(tools) == [tools[0], tools[2]]
    assert ToolUi().who == ("model", "app")


def test_capabilities() -> None:
    declared = declare_apps(ClientCapabilities(extensions={"x/y": {}}))
    assert declared.extensions == {"x/y": {}, EXTENSION_ID: {"mimeTypes": [MIME_TYPE]}}
    assert supports_apps(declared) and client_supports_apps(declared)
    assert not supports_apps(ClientCapabilities())
    # "Extension Settings": mimeTypes is REQUIRED, and must name the profile.
    assert not supports_apps(ClientCapabilities(extensions={EXTENSION_ID: {}}))
    other = {EXTENSION_ID: {"mimeTypes": ["text/html"]}}
    assert not supports_apps(ClientCapabilities(extensions=other))


def read(*contents: TextResourceContents | BlobResourceContents) -> ReadResourceResult:
    return ReadResourceResult(contents=list(contents))


def test_read_view() -> None:
    uri = "ui://v"
    html = "<!doctype html><p>é</p>"
    plain = read(TextResourceContents(uri=uri, text=html, mime_type=MIME_TYPE))
    assert read_view(plain, uri) == View(uri=uri, html=html)
    blob = base64.b64encode(html.encode()).decode()
    as_blob = read(BlobResourceContents(uri=uri, blob=blob, mime_type=MIME_TYPE))
    assert read_view(as_blob, uri).html == html
    with pytest.raises(ViewError, match="starts with 'ui://'"):
        read_view(plain, "https://v")
    with pytest.raises(ViewError, match="no contents for it"):
        read_view(plain, "ui://w")
    with pytest.raises(ViewError, match="served as 'text/html'"):
        read_view(read(TextResourceContents(uri=uri, text=html, mime_type="text/html")), uri)
    with pytest.raises(ViewError, match="served as none"):
        read_view(read(TextResourceContents(uri=uri, text=html)), uri)
    bad = read(BlobResourceContents(uri=uri, blob="!!", mime_type=MIME_TYPE))
    with pytest.raises(ViewError, match="not base64"):
        read_view(bad, uri)
    odd = TextResourceContents(uri=uri, text=html, mime_type=MIME_TYPE, meta={"ui": {"csp": 1}})
    with pytest.raises(ViewError, match="does not define"):
        read_view(read(odd), uri)


def test_sandbox_policy() -> None:
    # "Host Behavior": no csp declared, the restrictive default.
    bare = View(uri="ui://v", html="")
    assert bare.content_security_policy() == DEFAULT_CSP and bare.allow() == ""
    assert "connect-src 'none'" in DEFAULT_CSP
    # "Content Security Policy Enforcement": declared origins only.
    ui = ViewUi(
        csp=Csp(
            frame_domains=["https://www.youtube.com"],
            base_uri_domains=["https://cdn.x"],
            wasm_unsafe_eval=True,
        ),
        permissions=Permissions(camera={}, geolocation={}),
    )
    policy = View(uri="ui://v", html="", ui=ui).content_security_policy()
    assert "script-src 'self' 'unsafe-inline' 'wasm-unsafe-eval';" in policy
    assert "connect-src 'self';" in policy
    assert "frame-src https://www.youtube.com;" in policy
    assert policy.endswith("base-uri https://cdn.x")
    assert View(uri="ui://v", html="", ui=ui).allow() == "camera geolocation"
