"""Extensions (SEP-2133): declared, negotiated and routed from one place.

The extensions framework (tests/spec/extensions/sep-2133-extensions.md, "Negotiation")
adds ``capabilities.extensions`` on both sides: a map of extension identifiers to
settings objects, the settings sitting directly under the identifier, an empty object
meaning "supported, no settings". An extension may define methods and notifications of
its own; "Graceful Degradation" says a party that supports an extension the other does
not either falls back to the core protocol or refuses with an error.

Here an extension is an `Extension` object:

* **declared**: ``settings()`` is the server's settings object for it (None: not
  declared at the moment, e.g. tasks while no tool may run as one); ``handshake``
  says whether the ``initialize`` answer declares it as well (SEP-2133 declares
  extensions in the handshake; the tasks extension exists from 2026-07-28 only);
* **its methods**: ``methods`` lists them (`ExtensionMethod`); `register` puts them
  in the method table (`mcp_core.types.methods.register_method`) tagged with the
  identifier, so a session takes them only while the server declares the extension,
  and answers -32601 otherwise, in both eras;
* **routed**: ``routes()`` maps each method to its handler, ``await
  handler(event, ctx)`` returning the result (as the Server's own routes do);
  ``notification_routes()`` maps client notifications to plain functions
  ``handler(method, params)``; an extension that serves resources of its own
  schemes (``resource_schemes``: Skills' ``skill://``) adds them to
  ``resources/list`` (``list_resources``) and answers ``resources/read`` of them
  (``read_resource``); ``attach(server)`` is called once by `Server.extend`.
* **negotiated** per request: ``ctx.client.capabilities`` are the handshake's before
  2026-07-28 and the request's ``_meta`` from then on, so `client_settings` and
  `require_client` read both eras alike; a client declares one with
  `with_extension`, and reads the server's with `server_settings`.

Tasks (mcp_core/tasks), Skills (mcp_core/skills) and any extension written outside
this package (examples/extension_server.py) are served through it alike.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import msgspec
from msgspec import UNSET

from .session.config import declares_extension, extension_required
from .session.events import RequestReceived
from .types.base import ClientCapabilities, ServerCapabilities
from .types.content import Resource
from .types.methods import EXTENSION_METHODS, REVISIONS, Kind, MethodSpec, Sender, register_method
from .wire.errors import MISSING_REQUIRED_CLIENT_CAPABILITY

if TYPE_CHECKING:
    from .server.app import Server
    from .server.context import Context

__all__ = [
    "Declared",
    "Extension",
    "ExtensionMethod",
    "NotificationRoute",
    "Route",
    "client_settings",
    "defines_methods",
    "register",
    "require_client",
    "server_settings",
    "with_extension",
]

Route = Callable[[RequestReceived, "Context"], Awaitable[Any]]
"""A method's handler: ``await route(event, ctx)`` is the result, or raises `McpError`."""

NotificationRoute = Callable[[str, Any], None]
"""A client notification's handler: ``route(method, params)``."""

_C = TypeVar("_C", ClientCapabilities, ServerCapabilities)


class ExtensionMethod(msgspec.Struct, frozen=True, kw_only=True):
    """A method an extension defines.

    Attributes:
        method: its name (``skills/list``).
        params_type: the params Struct (a `mcp_core.types.base.RequestParams`
            subclass for requests: ``_meta`` is read from it).
        result_type: the result type of a request; None for a notification.
        sender: who sends it (``"client"``: the server serves it).
        params_required: whether ``params`` may be left out.
        revisions: where it exists (default: every revision).
    """

    method: str
    params_type: type[msgspec.Struct]
    result_type: Any = None
    sender: Sender = "client"
    params_required: bool = True
    revisions: tuple[str, ...] = REVISIONS

    def specs(self, extension: str) -> list[MethodSpec]:
        """Its rows of the method table, one per revision."""
        kind: Kind = "notification" if self.result_type is None else "request"
        return [
            MethodSpec(
                method=self.method,
                revision=revision,
                sender=self.sender,
                kind=kind,
                params_type=self.params_type,
                params_required=self.params_required,
                result_type=self.result_type,
                extension=extension,
            )
            for revision in self.revisions
        ]


class Extension:
    """An extension a server offers. Subclass it (or use `Declared`).

    Attributes:
        id: the extension identifier (``{vendor-prefix}/{extension-name}``,
            SEP-2133 "Definition").
        handshake: declared in the ``initialize`` answer too (default); False
            for one that exists from 2026-07-28 only.
        methods: the methods it defines (registered by `register`).
    """

    id: str = ""
    handshake: bool = True
    methods: Sequence[ExtensionMethod] = ()
    #: URI prefixes of the resources it serves itself (``"skill://"``).
    resource_schemes: tuple[str, ...] = ()

    def settings(self) -> dict[str, Any] | None:
        """The settings object declared under ``id`` (default ``{}``); None:
        not declared now. Read again whenever the server's registry changes."""
        return {}

    def routes(self) -> Mapping[str, Route]:
        """Method -> handler, for the methods this extension serves."""
        return {}

    def notification_routes(self) -> Mapping[str, NotificationRoute]:
        """Client notification -> handler."""
        return {}

    def attach(self, server: Server) -> None:
        """Called once by `Server.extend`: register resources, keep the server."""

    async def list_resources(self, ctx: Context) -> list[Resource]:
        """Its resources, listed by ``resources/list`` after the server's own."""
        return []

    async def read_resource(self, uri: str, ctx: Context) -> Any:
        """``resources/read`` of a URI under one of ``resource_schemes``: what a
        resource function may return (`mcp_core.server.results.read_result`), or
        None for "not one of mine" (then the server's own resources are looked at).
        """
        return None


class Declared(Extension):
    """An extension declared with fixed settings and nothing to route (what
    ``Server(extensions={id: settings})`` declares, in 2026-07-28 only, as
    before the extension API)."""

    def __init__(
        self, id: str, settings: Mapping[str, Any] | None = None, *, handshake: bool = False
    ) -> None:
        self.id = id
        self.handshake = handshake
        self._settings = dict(settings or {})

    def settings(self) -> dict[str, Any] | None:
        return self._settings


def register(extension: Extension | str, methods: Sequence[ExtensionMethod] = ()) -> None:
    """Put an extension's methods in the method table, so that sessions of both
    roles know them (a client reads their results typed). `Server.extend` calls
    it; a client of a third-party extension calls it once before sending them.

    Raises:
        ValueError: a method is a core one, or another extension's.
    """
    if isinstance(extension, Extension):
        name, methods = extension.id, (*extension.methods, *methods)
    else:
        name = extension
    if not name:
        raise ValueError("an extension needs an identifier")
    for method in methods:
        for spec in method.specs(name):
            register_method(spec)


def defines_methods(extension: str) -> bool:
    """Whether ``extension`` has methods of its own in the method table (tasks,
    Skills; not MCP Apps, whose views are resources and linked tools tools).
    Only extensions registered in this process are known (`register`)."""
    return any(spec.extension == extension for spec in EXTENSION_METHODS.values())


def client_settings(ctx: Context, extension: str) -> dict[str, Any] | None:
    """The settings the client of this request declared for ``extension``, or
    None: the handshake's capabilities before 2026-07-28, the request's own
    from then on (SEP-2133 "Server-Side Capability Checking")."""
    extensions = ctx.client.capabilities.extensions
    if extensions is UNSET:
        return None
    settings = extensions.get(extension)
    return None if settings is None else dict(settings)


def require_client(ctx: Context, extension: str) -> dict[str, Any]:
    """The client's settings for ``extension``, which it must have declared.

    Raises:
        McpError: -32021 naming it in ``data.requiredCapabilities`` (SEP-2133
            "Graceful Degradation": reject when the extension is mandatory;
            2026-07-28 basic/index.mdx "Missing Required Client Capability").
    """
    settings = client_settings(ctx, extension)
    if settings is None:
        from .server.context import McpError  # the client side needs no server

        raise McpError(
            MISSING_REQUIRED_CLIENT_CAPABILITY,
            "Missing required client capability",
            data=extension_required(extension),
        )
    return settings


def server_settings(capabilities: ServerCapabilities, extension: str) -> dict[str, Any] | None:
    """The settings a server declared for ``extension``, or None (a client asks
    before it sends an extension's method)."""
    if not declares_extension(capabilities, extension):
        return None
    assert capabilities.extensions is not UNSET
    return dict(capabilities.extensions[extension])


def with_extension(
    capabilities: _C, extension: str, settings: Mapping[str, Any] | None = None
) -> _C:
    """``capabilities`` (a client's or a server's) declaring ``extension`` too."""
    extensions = {} if capabilities.extensions is UNSET else dict(capabilities.extensions)
    extensions[extension] = dict(settings or {})
    return msgspec.structs.replace(capabilities, extensions=extensions)
