# The 2026-07-28 per-request envelope, server side.
#
# A 2026-07-28 request carries what a handshake used to settle in its
# params._meta: the protocol version, the client's capabilities and identity, and
# the log level it wants (basic/index.mdx "_meta"); a result carries resultType and
# the server's identity, and cacheable results their ttlMs and cacheScope. Here is
# how those are read and written; ServerSession decides when.

from __future__ import annotations

from typing import Any, Final

import msgspec
from msgspec import UNSET

from ..types.base import (
    ClientCapabilities,
    DiscoverResult,
    Implementation,
    LoggingLevel,
    ServerCapabilities,
)
from ..types.server import CacheableResult, SubscriptionFilter
from ..types.tasks import TASKS_EXTENSION
from ..wire.errors import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    UNSUPPORTED_PROTOCOL_VERSION,
    RemoteProtocolError,
)
from ..wire.jsonrpc import Request, RequestId
from .base import CLIENT_CAPABILITIES_KEY, CLIENT_INFO_KEY, LOG_LEVEL_KEY, PROTOCOL_VERSION_KEY
from .config import (
    ClientInfo,
    ServerConfig,
    declares_extension,
    extension_required,
    grant,
    has_capability,
)

__all__ = [
    "capability_refusal",
    "missing_capabilities_refusal",
    "missing_version_refusal",
    "unknown_method_refusal",
    "unsupported_version_refusal",
    "cached_client_of",
    "client_from_meta",
    "discover_result",
    "finish_result",
    "grant_filter",
    "request_meta",
]

_msgpack: Final = msgspec.msgpack.Encoder()

_CACHEABLE: Final = frozenset(
    {"tools/list", "prompts/list", "resources/list", "resources/templates/list", "resources/read"}
)
"""Methods whose 2026-07-28 result is a CacheableResult (schema.json)."""


def request_meta(message: Request) -> dict[str, Any] | None:
    """The _meta object of a request's params, read alone (None if absent or not an
    object)."""
    params = message.params
    if params is UNSET:
        return None
    if isinstance(params, msgspec.Raw):
        try:
            body = msgspec.json.decode(params, type=_MetaCarrier)
        except (msgspec.DecodeError, UnicodeDecodeError):
            return None  # the typed decode reports the real problem
        return body.meta if isinstance(body.meta, dict) else None
    meta = params.get("_meta") if isinstance(params, dict) else getattr(params, "meta", None)
    return meta if isinstance(meta, dict) else None


class _MetaCarrier(msgspec.Struct):
    meta: Any = msgspec.field(default=None, name="_meta")


# The refusals of the per-request checks (session/request_checks.py, CHECKS, names
# the rule each one enforces). The table's reference and ServerSession's fast path
# both build their errors here, so the two cannot word them differently.


def missing_version_refusal(
    modern: bool, legacy: bool, request_id: RequestId
) -> RemoteProtocolError:
    """No protocolVersion in _meta: -32602 from a server that serves 2026-07-28
    (basic/index.mdx "_meta": a required field is missing), -32600 from one that
    serves only legacy revisions (2025-11-25 basic/lifecycle.mdx: initialize
    first). ``modern``/``legacy``: whether the server serves revisions of each era."""
    return RemoteProtocolError(
        f"missing _meta {PROTOCOL_VERSION_KEY!r}"
        + (" (or send initialize first)" if legacy else ""),
        INVALID_PARAMS if modern else INVALID_REQUEST,
        request_id=request_id,
    )


def unsupported_version_refusal(
    revisions: tuple[str, ...], requested: Any, request_id: RequestId
) -> RemoteProtocolError:
    """A protocolVersion we do not serve in the 2026-07-28 way: -32022 with the
    versions we support, newest first (2026-07-28 basic/versioning.mdx)."""
    return RemoteProtocolError(
        "Unsupported protocol version",
        UNSUPPORTED_PROTOCOL_VERSION,
        request_id=request_id,
        data={"supported": list(reversed(revisions)), "requested": requested},
    )


def missing_capabilities_refusal(request_id: RequestId) -> RemoteProtocolError:
    """No clientCapabilities in _meta: -32602 (2026-07-28 basic/index.mdx "_meta")."""
    return RemoteProtocolError(
        f"missing _meta {CLIENT_CAPABILITIES_KEY!r}", INVALID_PARAMS, request_id=request_id
    )


def unknown_method_refusal(
    method: str, revision: str, request_id: RequestId
) -> RemoteProtocolError:
    """A method that is no client request of ``revision``: -32601 (2026-07-28
    schema.mdx MethodNotFoundError; JSON-RPC 2.0 section 5.1)."""
    return RemoteProtocolError(
        f"method {method!r} does not exist in protocol revision {revision}",
        METHOD_NOT_FOUND,
        request_id=request_id,
    )


def capability_refusal(
    method: str, needs: tuple[str, str | None], request_id: RequestId
) -> RemoteProtocolError:
    """A method behind a server capability we did not declare: -32601 (2026-07-28
    schema.mdx MethodNotFoundError: "gated behind a server capability the server
    did not advertise")."""
    return RemoteProtocolError(
        f"this server does not offer {needs[0]}"
        + (f".{needs[1]}" if needs[1] else "")
        + f", so {method!r} is not available",
        METHOD_NOT_FOUND,
        request_id=request_id,
    )


def client_from_meta(meta: dict[str, Any], request_id: RequestId) -> ClientInfo:
    """The requesting client, from a 2026-07-28 request's _meta.

    Raises:
        RemoteProtocolError: -32602, the envelope is missing or malformed.
    """
    # 2026-07-28 basic/index.mdx: a request missing a required field is malformed,
    # -32602; clientCapabilities is required, clientInfo and logLevel optional.
    if CLIENT_CAPABILITIES_KEY not in meta:
        raise missing_capabilities_refusal(request_id)
    try:
        capabilities = msgspec.convert(meta[CLIENT_CAPABILITIES_KEY], ClientCapabilities)
        info_raw = meta.get(CLIENT_INFO_KEY)
        info = None if info_raw is None else msgspec.convert(info_raw, Implementation)
        level = meta.get(LOG_LEVEL_KEY)
        if level is not None:
            msgspec.convert(level, LoggingLevel)
    except msgspec.ValidationError as exc:
        raise RemoteProtocolError(
            f"invalid _meta: {exc}", INVALID_PARAMS, request_id=request_id
        ) from None
    return ClientInfo(capabilities=capabilities, info=info, log_level=level)


def finish_result(session: Any, result: Any, method: str) -> Any:
    """A 2026-07-28 result as it goes out: resultType always, serverInfo merged into
    _meta (unless configured off), and for cacheable results ttlMs and cacheScope
    from the config where the handler set none (2026-07-28 schema.json
    CacheableResult: both required; server/utilities/caching.mdx).

    ServerSession takes this function as its ``_finish_result`` method (``session``
    is the ServerSession), which spares every modern answer a call.
    """
    config: ServerConfig = session.config
    extra = session._server_meta if config.server_info_in_results else None
    kind = _result_kinds.get(type(result))
    if kind is None:
        kind = _result_kind(type(result))
    if kind == _DICT:
        result = dict(result)
        if method in _CACHEABLE and result.get("resultType", "complete") == "complete":
            result.setdefault("ttlMs", config.result_ttl_ms)
            result.setdefault("cacheScope", config.result_cache_scope)
        result.setdefault("resultType", "complete")
        if extra:
            result["_meta"] = {**extra, **(result.get("_meta") or {})}
        return result
    if kind == _CACHEABLE_RESULT:
        if result.ttl_ms is UNSET:
            result = msgspec.structs.replace(result, ttl_ms=config.result_ttl_ms)
        if result.cache_scope is UNSET:
            scope = config.result_cache_scope
            result = msgspec.structs.replace(result, cache_scope=scope)
    complete = getattr(result, "result_type", None) is UNSET
    if extra:
        meta = getattr(result, "meta", None)
        meta = {**extra, **meta} if meta else extra.copy()
        if complete:
            return msgspec.structs.replace(result, result_type="complete", meta=meta)
        return msgspec.structs.replace(result, meta=meta)
    if complete:
        return msgspec.structs.replace(result, result_type="complete")
    return result


# What finish_result does with a result of each type: isinstance on a Struct type
# costs ~60 ns, a dict lookup ~10. Types are few; a program that makes them by the
# thousand only ever empties this.
_OTHER: Final = 0
_CACHEABLE_RESULT: Final = 1
_DICT: Final = 2
_result_kinds: Final[dict[type, int]] = {}


def _result_kind(kind: type) -> int:
    if len(_result_kinds) >= 256:
        _result_kinds.clear()
    if issubclass(kind, dict):
        found = _DICT
    elif issubclass(kind, CacheableResult):
        found = _CACHEABLE_RESULT
    else:
        found = _OTHER
    _result_kinds[kind] = found
    return found


def cached_client_of(session: Any, meta: dict[str, Any], message: Request) -> ClientInfo:
    """The client that sent ``message``, whose params' _meta is ``meta``.

    ServerSession takes this function as its ``_client_of`` method: the client of
    its last 2026-07-28 request is kept on the session (``_client_last``, with the
    key ``_client_key`` of the input it came from) for the next one. A client sends
    the same capabilities and identity with every request, and converting them costs
    more than the rest of the request; only the very same input matches the key, so
    a hit returns what client_from_meta would build. (Input it refuses is never
    kept, so neither is an absent or null clientCapabilities.) A session's first
    such request makes no key, as there is nothing to compare it with: a session
    that serves one request alone (an HTTP 2026-07-28 request's) would only throw
    it away; its client is kept keyless, and the next request's key, a miss, is
    kept with the next client.

    Raises:
        RemoteProtocolError: -32602, the envelope is missing or malformed.
    """
    last: ClientInfo | None = session._client_last
    if last is None:
        client = client_from_meta(meta, message.id)
        session._client_last = client
        return client
    caps = meta.get(CLIENT_CAPABILITIES_KEY)
    info = meta.get(CLIENT_INFO_KEY)
    level = meta.get(LOG_LEVEL_KEY)
    key: bytes | None = None
    if session._from_wire or type(message.params) is msgspec.Raw:
        # Read off the wire, so plain JSON values, which their msgpack encoding
        # tells apart exactly (unlike ==, for which 1 == 1.0 == True, or JSON,
        # which writes an infinite float as null). Absent and null read alike.
        # A value msgpack cannot write (an integer past 64 bits) is not kept.
        try:
            key = _msgpack.encode((caps, info, level))
        except Exception:
            key = None
        if key is not None and key == session._client_key:
            return last
    elif (
        # In memory: the very objects of the last ClientInfo, frozen Structs of
        # the target types, which msgspec.convert hands back as they are.
        caps is last.capabilities
        and info is last.info
        and level is last.log_level
        and type(caps) is ClientCapabilities
        and (info is None or type(info) is Implementation)
    ):
        return last
    client = client_from_meta(meta, message.id)
    session._client_key, session._client_last = key, client
    return client


def grant_filter(
    wanted: SubscriptionFilter, capabilities: ServerCapabilities
) -> SubscriptionFilter:
    """The part of a subscriptions/listen filter we honour: list changes of what we
    offer with listChanged, resource updates if we offer subscribe (2026-07-28
    basic/patterns/subscriptions.mdx "Notification Filter")."""
    return SubscriptionFilter(
        tools_list_changed=grant(wanted.tools_list_changed, capabilities, "tools"),
        prompts_list_changed=grant(wanted.prompts_list_changed, capabilities, "prompts"),
        resources_list_changed=grant(wanted.resources_list_changed, capabilities, "resources"),
        resource_subscriptions=(
            wanted.resource_subscriptions
            if wanted.resource_subscriptions is not UNSET
            and has_capability(capabilities, "resources", "subscribe")
            else UNSET
        ),
        task_ids=(
            wanted.task_ids
            if wanted.task_ids is not UNSET and declares_extension(capabilities, TASKS_EXTENSION)
            else UNSET
        ),
    )


def tasks_refusal(client: ClientInfo, wanted: SubscriptionFilter, request_id: RequestId) -> None:
    """Refuse task notifications to a client that did not declare the tasks
    extension: -32021 naming it (experimental-ext-tasks tasks.mdx "Task Status
    Notifications" writes -32003; the 2026-07-28 core and conformance
    0.2.0-alpha.12 use -32021 for a missing client capability).

    Raises:
        RemoteProtocolError: the refusal.
    """
    if wanted.task_ids is UNSET:
        return
    if declares_extension(client.capabilities, TASKS_EXTENSION):
        return
    raise RemoteProtocolError(
        "Missing required client capability",
        MISSING_REQUIRED_CLIENT_CAPABILITY,
        request_id=request_id,
        data=extension_required(TASKS_EXTENSION),
    )


def discover_result(config: ServerConfig) -> DiscoverResult:
    """Our answer to server/discover (2026-07-28 server/discover.mdx)."""
    instructions = config.instructions
    capabilities = config.capabilities
    if capabilities.tasks is not UNSET:
        # 2026-07-28 moved tasks to the io.modelcontextprotocol/tasks extension
        # (under capabilities.extensions); the 2025-11-25 slot MUST NOT be used
        # (conformance 0.2.0-alpha.12 tasks-capability-negotiation).
        capabilities = msgspec.structs.replace(capabilities, tasks=UNSET)
    return DiscoverResult(
        supported_versions=list(reversed(config.revisions)),
        capabilities=capabilities,
        ttl_ms=config.discover_ttl_ms,
        cache_scope=config.discover_cache_scope,  # type: ignore[arg-type]
        instructions=UNSET if instructions is None else instructions,
    )
