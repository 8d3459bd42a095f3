# The server side of a connection, for both protocol eras.
#
# Theory of operation. One ServerSession serves one connection (a stdio process, an
# HTTP session, or the requests of sessionless HTTP). Each incoming request is
# served in one of two eras, decided per request (2026-07-28 basic/versioning.mdx,
# "A dual-era server selects its behavior from how the client opens"):
#
#   legacy  - the connection opened with ``initialize``. The lifecycle table below
#             governs what may arrive in which state; the revision and the client's
#             capabilities are the ones the handshake negotiated.
#   modern  - no handshake. The request's params._meta carries the protocol
#             version, the client's capabilities and identity; every request is
#             checked on its own and nothing is inferred from earlier ones.
#
# The core answers on its own what needs no application: initialize, ping,
# server/discover, logging/setLevel, and the acknowledgement that opens a
# subscriptions/listen stream. Everything else becomes a RequestReceived event.
# Capabilities are enforced both ways: a request for a feature we did not declare
# gets -32601; a request or notification we would send for a feature the client
# did not declare raises LocalProtocolError.

from __future__ import annotations

from typing import Any, Final

import msgspec
from msgspec import UNSET

from ._errors import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    UNSUPPORTED_PROTOCOL_VERSION,
    LocalProtocolError,
    RemoteProtocolError,
)
from ._events import Event, HandshakeCompleted, NotificationReceived, RequestReceived
from ._jsonrpc import (
    DEFAULT_LIMITS,
    Limits,
    Notification,
    Request,
    RequestId,
    Response,
    decode_params,
)
from ._methods import LATEST_REVISION, LEGACY_REVISIONS, REVISIONS, method_spec, params_decoder
from ._session import (
    CLIENT_CAPABILITIES_KEY,
    CLIENT_INFO_KEY,
    LOG_LEVEL_KEY,
    PROTOCOL_VERSION_KEY,
    SERVER_INFO_KEY,
    SUBSCRIPTION_ID_KEY,
    BaseSession,
    SessionState,
    _cancelled_decoder,
    progress_token_of,
    with_meta,
)
from ._types_base import (
    ClientCapabilities,
    DiscoverResult,
    Implementation,
    InitializeRequestParams,
    InitializeResult,
    LoggingLevel,
    Result,
    ServerCapabilities,
)
from ._types_server import CacheableResult, SubscriptionFilter, SubscriptionsListenRequestParams

__all__ = ["ServerConfig", "ClientInfo", "ServerSession", "LOG_LEVELS"]

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


_CACHEABLE: Final = frozenset(
    {"tools/list", "prompts/list", "resources/list", "resources/templates/list", "resources/read"}
)
"""Methods whose 2026-07-28 result is a CacheableResult (schema.json)."""


# Which server capability an incoming request needs: (capability, sub-flag or None).
# 2025-11-25 server/*.mdx "Capabilities" sections; a missing key needs none.
_NEEDS_SERVER_CAPABILITY: Final[dict[str, tuple[str, str | None]]] = {
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
_NEEDS_CLIENT_CAPABILITY: Final[dict[str, str]] = {
    "sampling/createMessage": "sampling",
    "elicitation/create": "elicitation",
    "roots/list": "roots",
}

# Which of our capabilities a notification we send needs.
_NOTIFICATION_NEEDS: Final[dict[str, tuple[str, str | None]]] = {
    "notifications/message": ("logging", None),
    "notifications/tools/list_changed": ("tools", "listChanged"),
    "notifications/prompts/list_changed": ("prompts", "listChanged"),
    "notifications/resources/list_changed": ("resources", "listChanged"),
    "notifications/resources/updated": ("resources", "subscribe"),
}

# The subscriptions/listen filter field that admits each notification (2026-07-28
# basic/patterns/subscriptions.mdx "Notification Filter").
_FILTER_FIELD: Final[dict[str, str]] = {
    "notifications/tools/list_changed": "tools_list_changed",
    "notifications/prompts/list_changed": "prompts_list_changed",
    "notifications/resources/list_changed": "resources_list_changed",
}

_AUTO_ANSWERED: Final = frozenset({"ping", "logging/setLevel", "server/discover"})

_LEGACY: Final = frozenset(LEGACY_REVISIONS)

# Legacy requests that the core answers or that change the session on the way in.
_LEGACY_SPECIAL: Final = frozenset(
    {"ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"}
)

_msgpack: Final = msgspec.msgpack.Encoder()


def _has_capability(capabilities: Any, name: str, flag: str | None) -> bool:
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


_SNAKE: Final = {"listChanged": "list_changed"}


class ServerSession(BaseSession):
    """The server half of an MCP connection, sans I/O.

    Feed it what the client sent with receive_bytes() or receive_message(), act on
    the events, answer requests with send_response()/send_error(), and write out
    messages_to_send().
    """

    our_role = "server"

    def __init__(self, config: ServerConfig, limits: Limits = DEFAULT_LIMITS) -> None:
        super().__init__(limits)
        self.config = config
        #: The client, once a legacy handshake told us who it is.
        self.client: ClientInfo | None = None
        #: Open 2026-07-28 subscriptions: listen request id -> acknowledged filter.
        self.subscriptions: dict[RequestId, SubscriptionFilter] = {}
        #: Legacy resources/subscribe URIs.
        self.subscribed_uris: set[str] = set()
        self._modern_revisions = tuple(r for r in config.revisions if r not in LEGACY_REVISIONS)
        self._legacy_revisions = tuple(r for r in config.revisions if r in LEGACY_REVISIONS)
        self._server_meta = {SERVER_INFO_KEY: config.server_info}
        # (method, revision) -> params decoder, for the requests that passed _gate
        # under self._gated_config; see _gate.
        self._gated: dict[tuple[str, str], msgspec.json.Decoder[Any]] = {}
        self._gated_config = config
        # The last ClientInfo read from a modern request's _meta, and the key of the
        # input it came from; see _client_of.
        self._client_key: bytes | None = None
        self._client_last: ClientInfo | None = None

    # --- receiving requests -----------------------------------------------------------

    def _on_request(self, message: Request, now: float) -> list[Event]:
        revision = self.revision
        if revision is not None and revision in _LEGACY:
            return self._legacy_request(message, revision)
        if message.method == "initialize":
            return self._initialize(message)
        return self._modern_request(message)

    def _gate(self, message: Request, revision: str) -> msgspec.json.Decoder[Any]:
        """Refuse (-32601) a request we do not take in ``revision``; else its params decoder."""
        if self._gated_config is not self.config:
            # Another config may declare other capabilities: decide everything anew.
            self._gated = {}
            self._gated_config = self.config
        decoder = self._gated.get((message.method, revision))
        if decoder is None:
            decoder = self._gate_anew(message, revision)
        return decoder

    def _gate_anew(self, message: Request, revision: str) -> msgspec.json.Decoder[Any]:
        method = message.method
        spec = method_spec(method, revision)
        if spec is None or spec.sender == "server" or spec.kind != "request":
            raise RemoteProtocolError(
                f"method {method!r} does not exist in protocol revision {revision}",
                METHOD_NOT_FOUND,
                request_id=message.id,
            )
        needs = _NEEDS_SERVER_CAPABILITY.get(method)
        if needs is not None and not _has_capability(self.config.capabilities, *needs):
            raise RemoteProtocolError(
                f"this server does not offer {needs[0]}"
                + (f".{needs[1]}" if needs[1] else "")
                + f", so {method!r} is not available",
                METHOD_NOT_FOUND,
                request_id=message.id,
            )
        decoder = params_decoder(spec)
        # The decision is remembered while the config stays the same object. The
        # table is fixed and a frozen ServerCapabilities cannot gain or lose a
        # member; a flag, though, may sit in a plain dict member, which can change,
        # so requests that need one (resources/subscribe) are checked every time.
        if needs is None or (
            needs[1] is None and type(self.config.capabilities) is ServerCapabilities
        ):
            self._gated[method, revision] = decoder
        return decoder

    def _legacy_request(self, message: Request, revision: str) -> list[Event]:
        method = message.method
        if method == "initialize":
            raise RemoteProtocolError(
                "the session is already initialized", INVALID_REQUEST, request_id=message.id
            )
        params = decode_params(message, self._gate(message, revision))
        token = progress_token_of(params) if params.meta else None
        self._admit_request(message, token, modern=False)
        client = self.client
        assert client is not None
        if method in _LEGACY_SPECIAL:
            if method == "ping":
                self.send_response(message.id, Result())
                return []
            if method == "logging/setLevel":
                self.client = msgspec.structs.replace(client, log_level=params.level)
                self.send_response(message.id, Result())
                return []
            if method == "resources/subscribe":
                self.subscribed_uris.add(params.uri)
            else:
                self.subscribed_uris.discard(params.uri)
        return [
            RequestReceived(
                id=message.id,
                method=method,
                params=params,
                revision=revision,
                client=client,
                progress_token=token,
            )
        ]

    def _initialize(self, message: Request) -> list[Event]:
        # 2025-11-25 basic/lifecycle.mdx "Version Negotiation": answer the client's
        # version if we support it, else the latest we support.
        if not self._legacy_revisions:
            supported = ", ".join(self.config.revisions)
            raise RemoteProtocolError(
                f"this server does not support initialize; it serves {supported}",
                METHOD_NOT_FOUND,
                request_id=message.id,
                data={"supported": list(self.config.revisions)},
            )
        params = self._decode_typed(message, "initialize", self._legacy_revisions[-1])
        assert isinstance(params, InitializeRequestParams)
        requested = params.protocol_version
        revision = requested if requested in self._legacy_revisions else self._legacy_revisions[-1]
        self.revision = revision
        self.state = SessionState.INITIALIZING
        self.client = ClientInfo(capabilities=params.capabilities, info=params.client_info)
        self._admit_request(message, None, modern=False)
        instructions = self.config.instructions
        self.send_response(
            message.id,
            InitializeResult(
                protocol_version=revision,
                capabilities=self.config.capabilities,
                server_info=self.config.server_info,
                instructions=UNSET if instructions is None else instructions,
            ),
        )
        return []

    def _modern_request(self, message: Request) -> list[Event]:
        method = message.method
        # The types are one superset for all revisions, so the newest revision's
        # params type reads the request before we know which revision it claims.
        # (A request that passed the gate in the newest revision has that decoder
        # at hand; the gate itself is still asked below, after the _meta checks.)
        params: Any = None
        decoder = self._gated.get((method, LATEST_REVISION))
        if decoder is None:
            spec = method_spec(method, LATEST_REVISION)
            decoder = None if spec is None else params_decoder(spec)
        if decoder is not None:
            params = decode_params(message, decoder)
            meta = params.meta if isinstance(params.meta, dict) else None
        else:
            meta = _request_meta(message)
        version = meta.get(PROTOCOL_VERSION_KEY) if meta else None
        if version is None:
            if message.method == "ping" and self._legacy_revisions:
                # Pings may come before initialize (2025-11-25 basic/lifecycle.mdx).
                self._out.append(Response(id=message.id, result=Result()))
                return []
            raise RemoteProtocolError(
                f"missing _meta {PROTOCOL_VERSION_KEY!r}"
                + (" (or send initialize first)" if self._legacy_revisions else ""),
                INVALID_PARAMS if self._modern_revisions else INVALID_REQUEST,
                request_id=message.id,
            )
        if version not in self._modern_revisions:
            raise RemoteProtocolError(
                "Unsupported protocol version",
                UNSUPPORTED_PROTOCOL_VERSION,
                request_id=message.id,
                data={"supported": list(reversed(self.config.revisions)), "requested": version},
            )
        assert meta is not None
        client = self._client_of(meta, message)
        decoder = self._gate(message, version)
        if params is None:
            params = decode_params(message, decoder)
        token = progress_token_of(params)
        self._admit_request(message, token, modern=True)
        if method == "server/discover":
            instructions = self.config.instructions
            self.send_response(
                message.id,
                DiscoverResult(
                    supported_versions=list(reversed(self.config.revisions)),
                    capabilities=self.config.capabilities,
                    ttl_ms=self.config.discover_ttl_ms,
                    cache_scope=self.config.discover_cache_scope,  # type: ignore[arg-type]
                    instructions=UNSET if instructions is None else instructions,
                ),
            )
            return []
        if method == "subscriptions/listen":
            self._listen(message.id, params)
            return []
        return [
            RequestReceived(
                id=message.id,
                method=method,
                params=params,
                revision=version,
                client=client,
                progress_token=token,
            )
        ]

    def _listen(self, request_id: RequestId, params: SubscriptionsListenRequestParams) -> None:
        # The server acknowledges the subset it honours, first, tagged with the
        # subscription id (2026-07-28 basic/patterns/subscriptions.mdx).
        wanted = params.notifications
        caps = self.config.capabilities
        granted = SubscriptionFilter(
            tools_list_changed=_grant(wanted.tools_list_changed, caps, "tools"),
            prompts_list_changed=_grant(wanted.prompts_list_changed, caps, "prompts"),
            resources_list_changed=_grant(wanted.resources_list_changed, caps, "resources"),
            resource_subscriptions=(
                wanted.resource_subscriptions
                if wanted.resource_subscriptions is not UNSET
                and _has_capability(caps, "resources", "subscribe")
                else UNSET
            ),
        )
        self.subscriptions[request_id] = granted
        self._out.append(
            Notification(
                method="notifications/subscriptions/acknowledged",
                params={"_meta": {SUBSCRIPTION_ID_KEY: request_id}, "notifications": granted},
            )
        )

    def _client_of(self, meta: dict[str, Any], message: Request) -> ClientInfo:
        # A client sends the same capabilities and identity with every request, and
        # converting them costs more than the rest of the request, so the last
        # ClientInfo is kept, with a key that only the very same input matches: a
        # hit returns what _client_from_meta would build. (Input it refuses is
        # never kept, so neither is an absent or null clientCapabilities.)
        caps = meta.get(CLIENT_CAPABILITIES_KEY)
        info = meta.get(CLIENT_INFO_KEY)
        level = meta.get(LOG_LEVEL_KEY)
        last = self._client_last
        key: bytes | None = None
        if type(message.params) is msgspec.Raw:
            # Read off the wire, so plain JSON values, which their msgpack encoding
            # tells apart exactly (unlike ==, for which 1 == 1.0 == True, or JSON,
            # which writes an infinite float as null). Absent and null read alike.
            # A value msgpack cannot write (an integer past 64 bits) is not kept.
            try:
                key = _msgpack.encode((caps, info, level))
            except Exception:
                key = None
            if key is not None and key == self._client_key:
                assert last is not None
                return last
        elif (
            # In memory: the very objects of the last ClientInfo, frozen Structs of
            # the target types, which msgspec.convert hands back as they are.
            last is not None
            and caps is last.capabilities
            and info is last.info
            and level is last.log_level
            and type(caps) is ClientCapabilities
            and (info is None or type(info) is Implementation)
        ):
            return last
        client = _client_from_meta(meta, message.id)
        self._client_key, self._client_last = key, client
        return client

    def _finish_result(self, result: Any, method: str) -> Any:
        # 2026-07-28 results carry resultType, and serverInfo in _meta; cacheable
        # results carry ttlMs and cacheScope (2026-07-28 schema.json
        # CacheableResult: both required; server/utilities/caching.mdx).
        extra = self._server_meta if self.config.server_info_in_results else None
        if isinstance(result, CacheableResult):
            if result.ttl_ms is UNSET:
                result = msgspec.structs.replace(result, ttl_ms=self.config.result_ttl_ms)
            if result.cache_scope is UNSET:
                scope = self.config.result_cache_scope
                result = msgspec.structs.replace(result, cache_scope=scope)
        if isinstance(result, dict):
            result = dict(result)
            if method in _CACHEABLE and result.get("resultType", "complete") == "complete":
                result.setdefault("ttlMs", self.config.result_ttl_ms)
                result.setdefault("cacheScope", self.config.result_cache_scope)
            result.setdefault("resultType", "complete")
            if extra:
                result["_meta"] = {**extra, **(result.get("_meta") or {})}
            return result
        complete = getattr(result, "result_type", None) is UNSET
        if extra:
            meta = getattr(result, "meta", None)
            meta = {**extra, **meta} if meta else dict(extra)
            if complete:
                return msgspec.structs.replace(result, result_type="complete", meta=meta)
            return msgspec.structs.replace(result, meta=meta)
        if complete:
            return msgspec.structs.replace(result, result_type="complete")
        return result

    # --- receiving notifications ------------------------------------------------------

    def _on_notification(self, message: Notification, now: float) -> list[Event]:
        method = message.method
        if method == "notifications/cancelled":
            params_id = self._subscription_cancelled(message)
            if params_id is not None:
                return []
            return self._on_cancelled(message)
        if method == "notifications/progress":
            return self._on_progress(message)
        if method == "notifications/initialized":
            if self.state is not SessionState.INITIALIZING:
                return []  # duplicate or stray: nothing to do, nothing to answer
            self.state = SessionState.READY
            assert self.client is not None and self.revision is not None
            return [
                HandshakeCompleted(
                    revision=self.revision,
                    peer_capabilities=self.client.capabilities,
                    peer_info=self.client.info,
                )
            ]
        revision = self.revision or LATEST_REVISION
        spec = method_spec(method, revision)
        if spec is None or spec.sender == "server" or spec.kind != "notification":
            return []  # unknown notifications are ignored (JSON-RPC: never answered)
        return [
            NotificationReceived(
                method=method, params=self._decode_typed(message, method, revision)
            )
        ]

    def _subscription_cancelled(self, message: Notification) -> RequestId | None:
        if not self.subscriptions:
            return None
        request_id = decode_params(message, _cancelled_decoder).request_id
        if request_id is UNSET or request_id not in self.subscriptions:
            return None
        del self.subscriptions[request_id]
        self._incoming.pop(request_id, None)
        return request_id

    # --- sending ----------------------------------------------------------------------

    def send_request(
        self,
        method: str,
        params: Any = UNSET,
        *,
        now: float = 0.0,
        timeout: float | None = None,
        progress: bool = False,
    ) -> RequestId:
        """Send a request to the client (legacy era only: sampling, elicitation,
        roots, ping).

        Returns:
            The new request's id; its answer arrives as ResponseReceived or
            ErrorReceived with that id.

        Raises:
            LocalProtocolError: the handshake is not done, the revision has no such
                server request, the client did not declare the capability it needs,
                or the session is modern (use multi round-trip requests instead).
        """
        self._check_open()
        revision = self.revision
        if revision is None or revision not in LEGACY_REVISIONS:
            raise LocalProtocolError(
                "servers send requests only in a legacy session; in 2026-07-28 "
                "return an InputRequiredResult instead"
            )
        spec = method_spec(method, revision)
        if spec is None or spec.sender == "client" or spec.kind != "request":
            raise LocalProtocolError(f"no server request {method!r} in revision {revision}")
        needs = _NEEDS_CLIENT_CAPABILITY.get(method)
        assert self.client is not None
        if needs is not None and not _has_capability(self.client.capabilities, needs, None):
            raise LocalProtocolError(f"the client did not declare the {needs!r} capability")
        if self.state is not SessionState.READY and method != "ping":
            raise LocalProtocolError("wait for notifications/initialized before sending requests")
        return self._queue_request(
            method, params, self._decoder_for(method, revision), now, timeout, progress
        )

    def send_notification(self, method: str, params: Any = UNSET) -> None:
        """Send a notification, checked against the capabilities we declared.

        Raises:
            LocalProtocolError: we did not declare the capability it belongs to.
        """
        self._check_open()
        needs = _NOTIFICATION_NEEDS.get(method)
        if needs is not None and not _has_capability(self.config.capabilities, *needs):
            flag = f".{needs[1]}" if needs[1] else ""
            raise LocalProtocolError(f"{method} needs the server capability {needs[0]}{flag}")
        self._out.append(Notification(method=method, params=params))

    def log_wanted(self, level: str, client: ClientInfo | None = None) -> bool:
        """Whether a log message at ``level`` should go to the client.

        The threshold is the request's own logLevel (2026-07-28) or the session's
        logging/setLevel (legacy); with neither, everything goes.
        """
        client = client or self.client
        threshold = client.log_level if client is not None else None
        if threshold is None:
            return True
        return LOG_LEVELS.index(level) >= LOG_LEVELS.index(threshold)

    def publish(self, method: str, params: Any = UNSET) -> int:
        """Send a list-changed or resource-updated notification to whoever wants it.

        Legacy: one notification, if the capability was declared (and for
        resources/updated, if the client subscribed to that URI). Modern: one
        notification per open subscription whose filter admits it, tagged with the
        subscription id.

        Returns:
            How many notifications were queued.
        """
        uri = _uri_of(params) if method == "notifications/resources/updated" else None
        sent = 0
        if self.revision is not None and self.revision in LEGACY_REVISIONS:
            if uri is not None and uri not in self.subscribed_uris:
                return 0
            needs = _NOTIFICATION_NEEDS.get(method)
            if needs is not None and not _has_capability(self.config.capabilities, *needs):
                return 0
            self._out.append(Notification(method=method, params=params))
            return 1
        for subscription_id, granted in self.subscriptions.items():
            if uri is not None:
                uris = granted.resource_subscriptions
                if uris is UNSET or uri not in uris:
                    continue
            else:
                field = _FILTER_FIELD.get(method)
                if field is None or getattr(granted, field) is not True:
                    continue
            tagged = with_meta(params, {SUBSCRIPTION_ID_KEY: subscription_id})
            self._out.append(Notification(method=method, params=tagged))
            sent += 1
        return sent

    def end_subscriptions(self) -> None:
        """End every open subscription gracefully with its completion result."""
        for subscription_id in list(self.subscriptions):
            del self.subscriptions[subscription_id]
            self._incoming.pop(subscription_id, None)
            self._out.append(
                Response(
                    id=subscription_id,
                    result={
                        "resultType": "complete",
                        "_meta": {SUBSCRIPTION_ID_KEY: subscription_id},
                    },
                )
            )


def _grant(wanted: Any, capabilities: ServerCapabilities, name: str) -> Any:
    if wanted is True and _has_capability(capabilities, name, "listChanged"):
        return True
    return UNSET


def _uri_of(params: Any) -> str | None:
    uri = params.get("uri") if isinstance(params, dict) else getattr(params, "uri", None)
    return uri if isinstance(uri, str) else None


def _request_meta(message: Request) -> dict[str, Any] | None:
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


def _client_from_meta(meta: dict[str, Any], request_id: RequestId) -> ClientInfo:
    # 2026-07-28 basic/index.mdx: a request missing a required field is malformed,
    # -32602; clientCapabilities is required, clientInfo and logLevel optional.
    if CLIENT_CAPABILITIES_KEY not in meta:
        raise RemoteProtocolError(
            f"missing _meta {CLIENT_CAPABILITIES_KEY!r}", INVALID_PARAMS, request_id=request_id
        )
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
