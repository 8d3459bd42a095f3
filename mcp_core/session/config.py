# What a server says about itself, and the capability rules that follow from it.
#
# ServerConfig is the server's side of every session; ClientInfo the client's, from
# the handshake (legacy) or each request's _meta (2026-07-28). The tables below say
# which capability each method and notification needs (2025-11-25 server/*.mdx and
# client/*.mdx "Capabilities" sections): both sessions refuse to send what the peer
# did not declare, and refuse to take what they did not declare themselves.

from __future__ import annotations

from typing import Any, Final, TypeVar

import msgspec
from msgspec import UNSET

from ..types.base import ClientCapabilities, Implementation, ServerCapabilities
from ..types.methods import REVISIONS

__all__ = [
    "FILTER_FIELD",
    "IMPLEMENTATION_SINCE",
    "LOG_LEVELS",
    "NEEDS_CLIENT_CAPABILITY",
    "NEEDS_SERVER_CAPABILITY",
    "NEEDS_CLIENT_SUB_CAPABILITY",
    "NOTIFICATION_NEEDS",
    "ClientInfo",
    "ServerConfig",
    "as_of",
    "declares_extension",
    "extension_required",
    "handshake_capabilities",
    "grant",
    "has_capability",
    "missing_client_capability",
    "request_feature",
    "uri_of",
]

LOG_LEVELS: Final[tuple[str, ...]] = (
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
)
"""Syslog severities, least severe first (server/utilities/logging.mdx)."""


class ServerConfig(msgspec.Struct, frozen=True, kw_only=True):
    """What a server says about itself. One config may serve many sessions.

    Attributes:
        server_info: name and version, sent in the handshake and in results.
        capabilities: what the server offers; requests for anything else get -32601.
        instructions: optional guidance for the model using this server.
        revisions: protocol revisions served, oldest first. The default is all of
            them: both eras on one endpoint.
        discover_ttl_ms: how long a server/discover answer may be cached
            (2026-07-28 server/utilities/caching.mdx). One minute: capabilities
            change when the application registers features at run time.
        discover_cache_scope: "private" because a discover answer may depend on who
            asks (authorization), and "public" would let shared caches reuse it.
        result_ttl_ms: the ``ttlMs`` of a 2026-07-28 cacheable result (lists and
            ``resources/read``) whose handler set none; the schema requires the
            field and caching.mdx says servers MUST send it. 0, "immediately
            stale", is what a client assumes when it is absent.
        result_cache_scope: their ``cacheScope`` likewise; "private" for the same
            reason as discover's: the server cannot tell whether a handler's answer
            depends on who asks.
        server_info_in_results: add serverInfo to every modern result's _meta
            (2026-07-28 basic/index.mdx: SHOULD, unless configured not to).
        handshake_extensions: the identifiers of the declared extensions that the
            ``initialize`` answer declares too (SEP-2133 "Negotiation": in the
            handshake; tests/spec/extensions/sep-2133-extensions.md). The others
            (the tasks extension) exist from 2026-07-28 only.
    """

    server_info: Implementation
    capabilities: ServerCapabilities = ServerCapabilities()
    instructions: str | None = None
    revisions: tuple[str, ...] = REVISIONS
    discover_ttl_ms: int = 60_000
    discover_cache_scope: str = "private"
    result_ttl_ms: int = 0
    result_cache_scope: str = "private"
    server_info_in_results: bool = True
    handshake_extensions: frozenset[str] = frozenset()


class ClientInfo(msgspec.Struct, frozen=True, kw_only=True):
    """Who sent a request: from the handshake (legacy) or the request's _meta (modern).

    Attributes:
        capabilities: the client's declared capabilities.
        info: the client's name and version, if given.
        log_level: the least severe log level the client wants, if it said.
    """

    capabilities: ClientCapabilities
    info: Implementation | None = None
    log_level: str | None = None


# Fields of serverInfo (Implementation) that exist from a revision on (each
# revision's schema.json); an answer in an older revision leaves them out.
# capabilities.extensions: see handshake_capabilities.
IMPLEMENTATION_SINCE: Final[dict[str, str]] = {
    "title": "2025-06-18",
    "description": "2025-11-25",
    "icons": "2025-11-25",
    "website_url": "2025-11-25",
}

_S = TypeVar("_S", bound=msgspec.Struct)


def as_of(value: _S, since: dict[str, str], revision: str) -> _S:
    """``value`` without the fields its revision does not have yet.

    Args:
        value: an Implementation or ServerCapabilities.
        since: field -> first revision with it (`IMPLEMENTATION_SINCE`...).
        revision: the revision of the answer.
    """
    order = REVISIONS.index
    dropped = {
        name: UNSET
        for name, first in since.items()
        if getattr(value, name) is not UNSET and order(revision) < order(first)
    }
    return msgspec.structs.replace(value, **dropped) if dropped else value


def handshake_capabilities(config: ServerConfig, revision: str) -> ServerCapabilities:
    """The capabilities an ``initialize`` answer in ``revision`` declares: those of
    the revision's schema, and ``extensions`` with the ones declared in the
    handshake (`ServerConfig.handshake_extensions`)."""
    capabilities = config.capabilities
    extensions = capabilities.extensions
    if extensions is UNSET or REVISIONS.index(revision) >= REVISIONS.index("2026-07-28"):
        return capabilities
    kept = {k: v for k, v in extensions.items() if k in config.handshake_extensions}
    return msgspec.structs.replace(capabilities, extensions=kept or UNSET)


def declares_extension(capabilities: Any, extension: str) -> bool:
    """Whether client or server ``capabilities`` declare ``extension`` (SEP-2133
    "Negotiation": ``capabilities.extensions``, by identifier)."""
    extensions = capabilities.extensions
    return extensions is not UNSET and extension in extensions


def extension_required(extension: str, settings: dict[str, Any] | None = None) -> dict[str, Any]:
    """The ``data`` of a -32021 refusal for a client that did not declare
    ``extension`` (2026-07-28 basic/index.mdx "Missing Required Client
    Capability": ``requiredCapabilities``)."""
    return {"requiredCapabilities": {"extensions": {extension: settings or {}}}}


# Which server capability an incoming request needs: (capability, sub-flag or None).
# 2025-11-25 server/*.mdx "Capabilities" sections; a missing key needs none.
NEEDS_SERVER_CAPABILITY: Final[dict[str, tuple[str, str | None]]] = {
    "tools/list": ("tools", None),
    "tools/call": ("tools", None),
    "resources/list": ("resources", None),
    "resources/templates/list": ("resources", None),
    "resources/read": ("resources", None),
    "resources/subscribe": ("resources", "subscribe"),
    "resources/unsubscribe": ("resources", "subscribe"),
    "prompts/list": ("prompts", None),
    "prompts/get": ("prompts", None),
    "logging/setLevel": ("logging", None),
    "completion/complete": ("completions", None),
}

# Which client capability a request we send needs (2025-11-25 client/*.mdx).
NEEDS_CLIENT_CAPABILITY: Final[dict[str, str]] = {
    "sampling/createMessage": "sampling",
    "elicitation/create": "elicitation",
    "roots/list": "roots",
}

# Which client sub-capability a server request needs when its params use a feature:
# (method, feature) -> (capability, flag). 2025-11-25 client/sampling.mdx "Tools in
# Sampling" (servers MUST NOT send tools to a client without sampling.tools);
# client/elicitation.mdx "Capabilities" (servers MUST NOT send a mode the client did
# not declare). 2026-07-28 keeps both rules for its input requests.
NEEDS_CLIENT_SUB_CAPABILITY: Final[dict[tuple[str, str], tuple[str, str]]] = {
    ("sampling/createMessage", "tools"): ("sampling", "tools"),
    ("elicitation/create", "form"): ("elicitation", "form"),
    ("elicitation/create", "url"): ("elicitation", "url"),
}

# Sub-capabilities an empty capability object stands for: 2025-11-25
# client/elicitation.mdx, "an empty capabilities object is equivalent to declaring
# support for form mode only".
IMPLIED_BY_EMPTY: Final[dict[str, tuple[str, ...]]] = {"elicitation": ("form",)}

# Which of our capabilities a notification we send needs.
NOTIFICATION_NEEDS: Final[dict[str, tuple[str, str | None]]] = {
    "notifications/message": ("logging", None),
    "notifications/tools/list_changed": ("tools", "listChanged"),
    "notifications/prompts/list_changed": ("prompts", "listChanged"),
    "notifications/resources/list_changed": ("resources", "listChanged"),
    "notifications/resources/updated": ("resources", "subscribe"),
}

# The subscriptions/listen filter field that admits each notification (2026-07-28
# basic/patterns/subscriptions.mdx "Notification Filter").
FILTER_FIELD: Final[dict[str, str]] = {
    "notifications/tools/list_changed": "tools_list_changed",
    "notifications/prompts/list_changed": "prompts_list_changed",
    "notifications/resources/list_changed": "resources_list_changed",
}


def has_capability(capabilities: Any, name: str, flag: str | None) -> bool:
    """Whether ``capabilities`` declare ``name`` (and its ``flag``, if given)."""
    # Capabilities are Structs (snake_case attributes) whose members may be Structs
    # or plain objects; flags are given by their wire name ("listChanged").
    value = getattr(capabilities, name, UNSET)
    if value is UNSET or value is None:
        return False
    if flag is None:
        return True
    if isinstance(value, dict):
        return value.get(flag) is True
    return getattr(value, _SNAKE.get(flag, flag), UNSET) is True


_SNAKE: Final = {"listChanged": "list_changed", "toolChoice": "tool_choice"}


def _member(value: Any, name: str) -> Any:
    # A member of a Struct (snake_case attribute) or of a plain dict (wire name).
    if isinstance(value, dict):
        return value.get(name, UNSET)
    return getattr(value, _SNAKE.get(name, name), UNSET)


def request_feature(method: str, params: Any) -> str | None:
    """Which feature of ``method`` a server request's ``params`` use, if one needs a
    sub-capability (see `NEEDS_CLIENT_SUB_CAPABILITY`).

    ``sampling/createMessage`` with ``tools`` or ``toolChoice`` is "tools";
    ``elicitation/create`` is "url" for ``mode: "url"`` and "form" otherwise (an
    absent mode is form mode, 2025-11-25 client/elicitation.mdx).
    """
    if method == "sampling/createMessage":
        if _member(params, "tools") not in (UNSET, None):
            return "tools"
        if _member(params, "toolChoice") not in (UNSET, None):
            return "tools"
        return None
    if method == "elicitation/create":
        return "url" if _member(params, "mode") == "url" else "form"
    return None


def _declares(capabilities: Any, name: str, flag: str) -> bool:
    value = getattr(capabilities, name, UNSET)
    if value is UNSET or value is None:
        return False
    member = _member(value, flag)
    if member is not UNSET and member is not None and member is not False:
        return True
    implied = IMPLIED_BY_EMPTY.get(name, ())
    if flag not in implied:
        return False
    # Only an object that declares none of the capability's sub-capabilities.
    others = [f for c, f in NEEDS_CLIENT_SUB_CAPABILITY.values() if c == name]
    return all(_member(value, other) in (UNSET, None) for other in others)


def missing_client_capability(
    capabilities: Any, method: str, params: Any
) -> tuple[str, str | None] | None:
    """The client capability (and sub-capability flag) a server request lacks.

    Args:
        capabilities: the client's ClientCapabilities.
        method: the server request (or 2026-07-28 input request) method.
        params: its params, a Struct or a dict.

    Returns:
        None when the client declared all the request needs; else
        ``(capability, None)`` or ``(capability, flag)``.
    """
    needs = NEEDS_CLIENT_CAPABILITY.get(method)
    if needs is None:
        return None
    if not has_capability(capabilities, needs, None):
        return (needs, None)
    feature = request_feature(method, params)
    if feature is None:
        return None
    name, flag = NEEDS_CLIENT_SUB_CAPABILITY[(method, feature)]
    return None if _declares(capabilities, name, flag) else (name, flag)


def grant(wanted: Any, capabilities: ServerCapabilities, name: str) -> Any:
    """True if a subscription asked for ``name``'s list changes and we offer them."""
    if wanted is True and has_capability(capabilities, name, "listChanged"):
        return True
    return UNSET


def uri_of(params: Any) -> str | None:
    """The ``uri`` of notification params (a dict or a Struct), if it has one."""
    uri = params.get("uri") if isinstance(params, dict) else getattr(params, "uri", None)
    return uri if isinstance(uri, str) else None
