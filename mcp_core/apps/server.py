"""MCP Apps on a `Server`: views (``ui://`` resources holding an HTML document)
and the tools linked to them.

tests/spec/extensions/apps-2026-01-26.md: "UI Resource Format" (a view is a
resource whose URI starts with ``ui://``, served as ``text/html;profile=mcp-app``
with its ``_meta.ui`` on the read contents), "Resource Discovery" (a tool names its
view in ``_meta.ui.resourceUri``, which MUST exist on the server, and who may call
it in ``_meta.ui.visibility``), "Server Behavior" (a tool still answers with
meaningful content for a host without Apps: see `client_supports_apps`).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from msgspec import UNSET

from mcp_core.extensions import Extension
from mcp_core.types.base import ClientCapabilities
from mcp_core.types.content import Resource, TextResourceContents

from .host import supports_apps
from .meta import (
    EXTENSION_ID,
    MIME_TYPE,
    Csp,
    Permissions,
    ToolUi,
    ViewUi,
    as_dict,
    check_view_uri,
    check_visibility,
)

if TYPE_CHECKING:
    from mcp_core.server.app import Server
    from mcp_core.server.context import Context
    from mcp_core.types.server import Tool

__all__ = ["Apps", "client_supports_apps"]

F = TypeVar("F", bound=Callable[..., Any])


class Apps(Extension):
    """MCP Apps on ``server``: the extension (mcp_core.extensions), and the views
    and the tools that render in them.

    Args:
        server: the application; it offers ``io.modelcontextprotocol/ui`` from
            now on (`Server.extend`), declared with no settings in the
            ``initialize`` answer and in ``server/discover`` alike (the
            extension defines none for servers; SEP-2133 declares extensions in
            the handshake). It defines no methods: views are resources and
            linked tools are tools, served by the core methods.

    Example::

        apps = Apps(server)
        apps.view("ui://clock/view.html", "<!doctype html><p id=t></p>")

        @apps.tool(view="ui://clock/view.html")
        def now() -> str:
            return "12:00"
    """

    id = EXTENSION_ID

    def __init__(self, server: Server) -> None:
        self.server = server
        self._views: dict[str, ViewUi] = {}
        server.extend(self)

    def attach(self, server: Server) -> None:
        self.server = server

    # --- views -------------------------------------------------------------------------

    def view(
        self,
        uri: str,
        html: str | None = None,
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        csp: Csp | None = None,
        permissions: Permissions | None = None,
        domain: str | None = None,
        prefers_border: bool | None = None,
    ) -> Any:
        """Register a view: ``apps.view(uri, html)`` for a fixed document, or
        ``@apps.view(uri)`` on a function (plain or ``async def``, optionally
        taking a Context) that returns the HTML as it is read.

        Args:
            uri: its ``ui://`` URI.
            html: the HTML document; None for the decorator form.
            name: its name in ``resources/list`` (default: the URI).
            title, description: for people.
            csp, permissions, domain, prefers_border: its ``_meta.ui``.

        Returns:
            The Resource as listed, or (decorator form) the decorator.

        Raises:
            ValueError: the URI is not ``ui://``, or is taken.
        """
        check_view_uri(uri)
        ui = ViewUi(
            csp=UNSET if csp is None else csp,
            permissions=UNSET if permissions is None else permissions,
            domain=UNSET if domain is None else domain,
            prefers_border=UNSET if prefers_border is None else prefers_border,
        )
        meta = {"ui": as_dict(ui)} if ui != ViewUi() else None
        options: dict[str, Any] = {
            "name": name or uri,
            "title": title,
            "description": description,
            "mime_type": MIME_TYPE,
            "meta": meta,
        }

        def contents(text: str) -> TextResourceContents:
            if not isinstance(text, str):
                raise TypeError(f"the view {uri!r} returns its HTML as str")
            return TextResourceContents(
                uri=uri, text=text, mime_type=MIME_TYPE, meta=UNSET if meta is None else meta
            )

        if html is not None:
            fixed = contents(html)
            self._views[uri] = ui
            read: Callable[[], TextResourceContents] = lambda: fixed  # noqa: E731
            read.__name__ = read.__qualname__ = "view"
            return self._add(read, uri, options, threaded=False)

        def register(fn: F) -> F:
            wrapper: Callable[..., Any]
            if inspect.iscoroutinefunction(fn):

                async def wrapper(*args: Any, **kwargs: Any) -> TextResourceContents:
                    return contents(await fn(*args, **kwargs))
            else:

                def wrapper(*args: Any, **kwargs: Any) -> TextResourceContents:
                    return contents(fn(*args, **kwargs))

            functools.update_wrapper(wrapper, fn)
            wrapper.__annotations__ = {**fn.__annotations__, "return": TextResourceContents}
            self._views[uri] = ui
            self._add(wrapper, uri, options, threaded=None)
            return fn

        return register

    def _add(
        self, fn: Callable[..., Any], uri: str, options: dict[str, Any], threaded: bool | None
    ) -> Resource:
        made = self.server.add_resource(fn, uri, threaded=threaded, **options)
        assert isinstance(made, Resource)  # a ui:// URI of a view has no template variables
        return made

    @property
    def views(self) -> list[str]:
        """The URIs of the views registered here, in order."""
        return list(self._views)

    # --- tools -------------------------------------------------------------------------

    def tool(
        self,
        *,
        view: str,
        visibility: Sequence[str] | None = None,
        meta: dict[str, Any] | None = None,
        **options: Any,
    ) -> Callable[[F], F]:
        """Register a function as a tool rendered in ``view``: ``@apps.tool(view=...)``.
        See `add_tool`."""

        def register(fn: F) -> F:
            self.add_tool(fn, view=view, visibility=visibility, meta=meta, **options)
            return fn

        return register

    def add_tool(
        self,
        fn: Callable[..., Any],
        *,
        view: str,
        visibility: Sequence[str] | None = None,
        meta: dict[str, Any] | None = None,
        **options: Any,
    ) -> Tool:
        """Register a tool whose results ``view`` renders.

        Args:
            fn: the function, as for `Server.add_tool`; it still returns
                meaningful content, for hosts without Apps ("Server Behavior").
            view: the ``ui://`` URI of a view registered here (the view MUST
                exist on the server: register it first).
            visibility: "model", "app" or both (the default): ``["app"]`` keeps
                the tool off the model's list, callable by the view only.
            meta: other ``_meta`` entries; ``ui`` is this method's.
            options: the other options of `Server.add_tool` (name, title...).

        Raises:
            ValueError: ``view`` is not a view registered here, the visibility
                is not one the extension defines, or ``meta`` has ``ui``.
        """
        check_view_uri(view)
        if view not in self._views:
            raise ValueError(f"no view {view!r} is registered (register the view first)")
        if meta is not None and "ui" in meta:
            raise ValueError("_meta.ui of an Apps tool comes from view= and visibility=")
        ui = ToolUi(
            resource_uri=view,
            visibility=UNSET if visibility is None else check_visibility(visibility),
        )
        return self.server.add_tool(fn, meta={**(meta or {}), "ui": as_dict(ui)}, **options)


def client_supports_apps(ctx: Context | ClientCapabilities) -> bool:
    """Whether the client (of this request, or with these capabilities) renders
    views: it declared the extension with ``text/html;profile=mcp-app`` among its
    ``mimeTypes`` ("Client (Host) Capabilities"). A tool may then answer more
    briefly; without, its content is all the user sees."""
    capabilities = ctx if isinstance(ctx, ClientCapabilities) else ctx.client.capabilities
    return supports_apps(capabilities)  # the handshake's, or the request's own _meta
