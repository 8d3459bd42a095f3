# The server side of a connection, for both protocol eras.
#
# Theory of operation. One ServerSession serves one connection (a stdio process, an
# HTTP session, or the requests of sessionless HTTP). Each incoming request is
# served in one of two eras, decided per request (2026-07-28 basic/versioning.mdx,
# "A dual-era server selects its behavior from how the client opens"):
#
#   legacy  - the connection opened with ``initialize``. The lifecycle table
#             (session/lifecycle.py) governs what may arrive in which state; the revision
#             and the client's capabilities are the ones the handshake negotiated.
#   modern  - no handshake. The request's params._meta carries the protocol
#             version, the client's capabilities and identity; every request is
#             checked on its own and nothing is inferred from earlier ones. The
#             session stays NEW, whose "serve_stateless" row is this check.
#
# The core answers on its own what needs no application: initialize, ping,
# server/discover, logging/setLevel, and the acknowledgement that opens a
# subscriptions/listen stream. Everything else becomes a RequestReceived event.
# Capabilities are enforced both ways: a request for a feature we did not declare
# gets -32601; a request or notification we would send for a feature the client
# did not declare raises LocalProtocolError.

from __future__ import annotations

from collections.abc import Set as AbstractSet
from typing import Any, Final

import msgspec
from msgspec import UNSET, Raw

from ..types.base import (
    InitializeRequestParams,
    InitializeResult,
    Result,
    ServerCapabilities,
)
from ..types.methods import (
    LATEST_REVISION,
    LEGACY_REVISIONS,
    message_decoder,
    method_spec,
    params_decoder,
)
from ..types.server import LoggingMessageNotificationParams, SubscriptionFilter
from ..wire.errors import (
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    LocalProtocolError,
    RemoteProtocolError,
)
from ..wire.jsonrpc import (
    DEFAULT_LIMITS,
    Limits,
    Notification,
    Request,
    RequestId,
    Response,
    decode_params,
)
from .base import (
    _READY,
    PROTOCOL_VERSION_KEY,
    SERVER_INFO_KEY,
    SUBSCRIPTION_ID_KEY,
    BaseSession,
    SessionState,
)
from .config import (
    FILTER_FIELD,
    IMPLEMENTATION_SINCE,
    LOG_LEVELS,
    NEEDS_SERVER_CAPABILITY,
    NOTIFICATION_NEEDS,
    ClientInfo,
    ServerConfig,
    as_of,
    declares_extension,
    handshake_capabilities,
    has_capability,
    missing_client_capability,
    uri_of,
)
from .events import Event, HandshakeCompleted, NotificationReceived, RequestReceived
from .lifecycle import (
    INITIALIZE_REQUEST,
    INITIALIZED_NOTIFICATION,
    OTHER_NOTIFICATION,
    OTHER_REQUEST,
    PING_REQUEST,
    SEND_NOTIFICATION,
    SEND_PING,
    SEND_REQUEST,
)
from .per_request import (
    cached_client_of,
    capability_refusal,
    discover_result,
    finish_result,
    grant_filter,
    missing_version_refusal,
    request_meta,
    tasks_refusal,
    unknown_method_refusal,
    unsupported_version_refusal,
)
from .requests import _cancelled_decoder, _Incoming, progress_token_of, with_meta

__all__ = ["ServerConfig", "ClientInfo", "ServerSession", "LOG_LEVELS"]

_NEW: Final = SessionState.NEW

# Legacy requests that the core answers or that change the session on the way in.
_LEGACY_SPECIAL: Final = frozenset(
    {"ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"}
)


_NO_URIS: Final[frozenset[str]] = frozenset()

#: The tasks extension's status notification (experimental-ext-tasks tasks.mdx
#: "Task Status Notifications"), filtered by the subscription's taskIds.
TASK_NOTIFICATION: Final = "notifications/tasks"

_Gated = dict[tuple[str, str], msgspec.json.Decoder[Any]]
_GatedLatest = dict[str, msgspec.json.Decoder[Any]]
_Derived = tuple[tuple[str, ...], tuple[str, ...], dict[str, Any], _Gated, _GatedLatest]
_last_derived: list[tuple[ServerConfig, _Derived]] = []


def _derived(config: ServerConfig) -> _Derived:
    # The modern and legacy revisions served, the serverInfo _meta of results and
    # the tables of _gate's decisions (which depend on the config alone),
    # remembered for the last config seen: a server's sessions share one, and a
    # 2026-07-28 HTTP request, served by a session of its own, finds its method
    # decided already.
    if _last_derived and _last_derived[0][0] is config:
        return _last_derived[0][1]
    revisions = config.revisions
    derived: _Derived = (
        tuple(r for r in revisions if r not in LEGACY_REVISIONS),
        tuple(r for r in revisions if r in LEGACY_REVISIONS),
        {SERVER_INFO_KEY: config.server_info},
        {},
        {},
    )
    _last_derived[:] = [(config, derived)]
    return derived


class ServerSession(BaseSession):
    """The server half of an MCP connection, sans I/O.

    Feed it what the client sent with receive_bytes() or receive_message(), act on
    the events, answer requests with send_response()/send_error(), and write out
    messages_to_send().
    """

    our_role = "server"
    # Requests in one pass (wire/jsonrpc.py OnePassDecoder): their params typed.
    _decode = staticmethod(message_decoder.decode)
    _answered_at_once = frozenset({"ping", "initialize", "logging/setLevel", "server/discover"})

    def __init__(self, config: ServerConfig, limits: Limits = DEFAULT_LIMITS) -> None:
        super().__init__(limits)
        self.config = config
        #: The client, once a legacy handshake told us who it is.
        self.client: ClientInfo | None = None
        #: Open 2026-07-28 subscriptions: listen request id -> acknowledged filter.
        self.subscriptions: dict[RequestId, SubscriptionFilter] = {}
        # Legacy resources/subscribe URIs: made by the first subscription.
        self._uris: set[str] | None = None
        # What follows from the config alone is shared by the sessions of one config
        # (an idle HTTP session should cost little).
        # _gated: (method, revision) -> params decoder, for the requests that passed
        # _gate under self._gated_config; _gated_latest: the same for the newest
        # revision alone, keyed by method (_serve_stateless).
        (
            self._modern_revisions,
            self._legacy_revisions,
            self._server_meta,
            self._gated,
            self._gated_latest,
        ) = _derived(config)
        self._gated_config = config
        # The last client read from a modern request's _meta (see ClientCache).
        # The client of the last 2026-07-28 request (see cached_client_of).
        self._client_key: bytes | None = None
        self._client_last: ClientInfo | None = None

    def resume(self, revision: str, client: ClientInfo, *, first_request_id: int = 0) -> None:
        """Take up a handshake-era session another process negotiated: ready, in
        ``revision``, with ``client`` (from a shared session registry; 2025-11-25
        basic/transports.mdx "Session Management": the session id, not the
        connection or the process, names the session). Its own requests are
        numbered after ``first_request_id``: give each process a different
        range, as request ids must be unique within the session (2025-11-25
        basic/index.mdx "Requests").

        Raises:
            LocalProtocolError: the session is not new, or ``revision`` is not a
                handshake-era revision it serves.
        """
        if self.state is not SessionState.NEW or revision not in self._legacy_revisions:
            raise LocalProtocolError(f"cannot resume a {revision} session here")
        self.revision = revision
        self.client = client
        self.state = SessionState.READY
        self._requests.next_id = first_request_id

    @property
    def subscribed_uris(self) -> AbstractSet[str]:
        """The URIs a legacy client subscribed to with resources/subscribe."""
        return self._uris if self._uris is not None else _NO_URIS

    # --- receiving requests -----------------------------------------------------------

    def _on_request(self, message: Request, now: float) -> list[Event]:
        # The rows of READY (ping and other requests: serve_legacy) and of NEW
        # (other requests: serve_stateless) are the hot paths of the two eras and
        # change no state, so they are called directly; the rest asks the table.
        state = self.state
        method = message.method
        if state is _READY:
            if method != "initialize":
                return self._serve_legacy(message, now)
        elif state is _NEW and method != "initialize" and method != "ping":
            return self._serve_stateless(message, now)
        if method == "initialize":
            return self._step(INITIALIZE_REQUEST, message, now)
        return self._step(PING_REQUEST if method == "ping" else OTHER_REQUEST, message, now)

    # Lifecycle actions (rows of _lifecycle.TABLE name them without the underscore).

    def _refuse_second_initialize(self, message: Request, now: float) -> list[Event]:
        # 2025-11-25 basic/lifecycle.mdx: initialize opens the session, once.
        raise RemoteProtocolError(
            "the session is already initialized", INVALID_REQUEST, request_id=message.id
        )

    def _answer_early_ping(self, message: Request, now: float) -> list[Event]:
        # 2025-11-25 basic/lifecycle.mdx: pings may come before initialize, and
        # ping.mdx: they MUST be answered promptly. A ping carrying a 2026-07-28
        # envelope is a modern request like any other (where ping does not exist).
        meta = request_meta(message)
        if self._legacy_revisions and (not meta or meta.get(PROTOCOL_VERSION_KEY) is None):
            self._out.append(Response(id=message.id, result=Result()))
            return []
        return self._serve_stateless(message, now)

    def _refuse_send_stateless(self, method: str) -> None:
        # 2026-07-28 has no server-to-client requests (basic/patterns/mrtr.mdx), and
        # a legacy session has not begun: there is no one to ask.
        raise LocalProtocolError(
            "servers send requests only in a legacy session; in 2026-07-28 "
            "return an InputRequiredResult instead"
        )

    def _refuse_send_before_initialized(self, method: str) -> None:
        # 2025-11-25 basic/lifecycle.mdx: the server SHOULD NOT send requests other
        # than pings and logging before receiving the initialized notification.
        raise LocalProtocolError(
            f"wait for notifications/initialized before sending {method!r} "
            "(only ping may go before it)"
        )

    def _complete_handshake(self, message: Notification, now: float) -> list[Event]:
        # 2025-11-25 basic/lifecycle.mdx: initialized ends the initialization phase.
        assert self.client is not None and self.revision is not None
        return [
            HandshakeCompleted(
                revision=self.revision,
                peer_capabilities=self.client.capabilities,
                peer_info=self.client.info,
            )
        ]

    def _gate(self, message: Request, revision: str) -> msgspec.json.Decoder[Any]:
        """Refuse (-32601) a request we do not take in ``revision``; else its params decoder."""
        if self._gated_config is not self.config:
            # Another config may declare other capabilities: decide everything anew.
            self._gated, self._gated_latest = _derived(self.config)[3:]
            self._gated_config = self.config
        decoder = self._gated.get((message.method, revision))
        if decoder is None:
            decoder = self._gate_anew(message, revision)
        return decoder

    def _gate_anew(self, message: Request, revision: str) -> msgspec.json.Decoder[Any]:
        method = message.method
        spec = method_spec(method, revision)
        if spec is None or spec.sender == "server" or spec.kind != "request":
            raise unknown_method_refusal(method, revision, message.id)
        if spec.extension is not None and not declares_extension(
            self.config.capabilities, spec.extension
        ):
            # An extension's method exists only where we declared the extension
            # (SEP-2133 "Graceful Degradation": the core protocol otherwise).
            raise unknown_method_refusal(method, revision, message.id)
        needs = NEEDS_SERVER_CAPABILITY.get(method)
        if needs is not None and not has_capability(self.config.capabilities, *needs):
            raise capability_refusal(method, needs, message.id)
        decoder = params_decoder(spec)
        # The decision is remembered while the config stays the same object. The
        # table is fixed and a frozen ServerCapabilities cannot gain or lose a
        # member; a flag, though, may sit in a plain dict member, which can change,
        # so requests that need one (resources/subscribe) are checked every time.
        if needs is None or (
            needs[1] is None and type(self.config.capabilities) is ServerCapabilities
        ):
            self._gated[method, revision] = decoder
            if revision == LATEST_REVISION:
                self._gated_latest[method] = decoder
        return decoder

    def _serve_legacy(self, message: Request, now: float) -> list[Event]:
        # Ping and other requests of an initialized legacy session.
        method = message.method
        revision = self.revision
        assert revision is not None
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
                if self._uris is None:
                    self._uris = set()
                self._uris.add(params.uri)
            elif self._uris is not None:
                self._uris.discard(params.uri)
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

    def _answer_initialize(self, message: Request, now: float) -> list[Event]:
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
        self.client = ClientInfo(capabilities=params.capabilities, info=params.client_info)
        self._admit_request(message, None, modern=False)
        instructions = self.config.instructions
        self.send_response(
            message.id,
            InitializeResult(
                protocol_version=revision,
                capabilities=handshake_capabilities(self.config, revision),
                server_info=as_of(self.config.server_info, IMPLEMENTATION_SINCE, revision),
                instructions=UNSET if instructions is None else instructions,
            ),
        )
        return []

    def _serve_stateless(self, message: Request, now: float) -> list[Event]:
        method = message.method
        # The types are one superset for all revisions, so the newest revision's
        # params type reads the request before we know which revision it claims.
        # A request that passed the gate in the newest revision has that decoder
        # at hand, and when it claims the newest revision (as nearly every one
        # does) the gate has nothing more to say; else it is asked below, after
        # the _meta checks.
        if self._gated_config is not self.config:
            self._gated, self._gated_latest = _derived(self.config)[3:]
            self._gated_config = self.config
        decoder = self._gated_latest.get(method)
        gated = decoder is not None
        if decoder is None:
            spec = method_spec(method, LATEST_REVISION)
            decoder = None if spec is None else params_decoder(spec)
        params: Any = None
        if decoder is not None:
            # decode_params, its fast path inlined; it says what is wrong, if anything.
            raw = message.params
            try:
                params = decoder.decode(raw) if type(raw) is Raw else None
            except (msgspec.DecodeError, UnicodeDecodeError):
                params = None
            if params is None:
                params = decode_params(message, decoder)
            meta = params.meta
            if not isinstance(meta, dict):
                meta = None
        else:
            meta = request_meta(message)
        version = meta.get(PROTOCOL_VERSION_KEY) if meta else None
        if version is None:
            # No envelope: a legacy client that skipped initialize (2025-11-25
            # basic/lifecycle.mdx: initialization MUST be the first interaction).
            raise missing_version_refusal(
                bool(self._modern_revisions), bool(self._legacy_revisions), message.id
            )
        if version not in self._modern_revisions:
            raise unsupported_version_refusal(self.config.revisions, version, message.id)
        assert meta is not None
        client = self._client_of(meta, message)
        if gated and version == LATEST_REVISION:
            # progress_token_of, inlined: the _meta at hand is the params' own.
            token = meta.get("progressToken")
            if type(token) is not int and type(token) is not str:
                token = None
        else:
            decoder = self._gate(message, version)
            if params is None:
                params = decode_params(message, decoder)
            token = progress_token_of(params)
        # _admit_request, its fast path inlined; it refuses what must be refused.
        tables = self._requests
        incoming = tables.incoming
        if message.id in incoming or len(incoming) >= tables.max_in_flight:
            self._admit_request(message, token, modern=True)
        else:
            incoming[message.id] = _Incoming(method, token, True)
        if method == "server/discover":
            self.send_response(message.id, discover_result(self.config))
            return []
        if method == "subscriptions/listen":
            # The server acknowledges the subset it honours, first, tagged with the
            # subscription id (2026-07-28 basic/patterns/subscriptions.mdx).
            tasks_refusal(client, params.notifications, message.id)
            granted = grant_filter(params.notifications, self.config.capabilities)
            self.subscriptions[message.id] = granted
            self._out.append(
                Notification(
                    method="notifications/subscriptions/acknowledged",
                    params={"_meta": {SUBSCRIPTION_ID_KEY: message.id}, "notifications": granted},
                )
            )
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

    _finish_result = finish_result  # 2026-07-28 results on their way out (session/per_request.py)
    _client_of = cached_client_of  # the client of a 2026-07-28 request (session/per_request.py)

    # --- receiving notifications ------------------------------------------------------

    def _on_notification(self, message: Notification, now: float) -> list[Event]:
        if message.method == "notifications/initialized":
            return self._step(INITIALIZED_NOTIFICATION, message, now)
        if self.state is _READY:  # the table's READY row, called directly
            return self._take_notification(message, now)
        return self._step(OTHER_NOTIFICATION, message, now)

    def _take_notification(self, message: Notification, now: float) -> list[Event]:
        method = message.method
        if method == "notifications/cancelled":
            params_id = self._subscription_cancelled(message)
            if params_id is not None:
                return []
            return self._requests.cancelled(message)
        if method == "notifications/progress":
            return self._requests.progress_received(message)
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
        self._requests.incoming.pop(request_id, None)
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
        if self.state is not _READY:
            self._local(SEND_PING if method == "ping" else SEND_REQUEST, method)
        revision = self.revision
        assert revision is not None  # INITIALIZING and READY are legacy states
        spec = method_spec(method, revision)
        if spec is None or spec.sender == "client" or spec.kind != "request":
            raise LocalProtocolError(f"no server request {method!r} in revision {revision}")
        assert self.client is not None
        missing = missing_client_capability(self.client.capabilities, method, params)
        if missing is not None:
            name = missing[0] if missing[1] is None else f"{missing[0]}.{missing[1]}"
            raise LocalProtocolError(f"the client did not declare the {name!r} capability")
        return self._queue_request(
            method, params, self._decoder_for(method, revision), now, timeout, progress
        )

    def send_notification(self, method: str, params: Any = UNSET) -> None:
        """Send a notification, checked against the capabilities we declared.

        Raises:
            LocalProtocolError: we did not declare the capability it belongs to,
                or the session is closed or broken.
        """
        if self.state is not _READY:
            self._local(SEND_NOTIFICATION, method)
        needs = NOTIFICATION_NEEDS.get(method)
        if needs is not None and not has_capability(self.config.capabilities, *needs):
            flag = f".{needs[1]}" if needs[1] else ""
            raise LocalProtocolError(f"{method} needs the server capability {needs[0]}{flag}")
        self._out.append(Notification(method=method, params=params))

    def send_log(self, level: str, data: Any, logger: str | None = None) -> None:
        """Send a log message (``notifications/message``).

        Whether the client wants ``level`` is the caller's question (`log_wanted`).

        Raises:
            LocalProtocolError: we did not declare ``logging``, or the session is
                closed or broken.
        """
        params = LoggingMessageNotificationParams(
            level=level,  # type: ignore[arg-type]
            data=data,
            logger=UNSET if logger is None else logger,
        )
        self.send_notification("notifications/message", params)

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

        Raises:
            LocalProtocolError: the session is closed or broken.
        """
        if self.state is not _READY:
            self._local(SEND_NOTIFICATION, method)
        uri = uri_of(params) if method == "notifications/resources/updated" else None
        sent = 0
        if self.revision is not None and self.revision in LEGACY_REVISIONS:
            if method == TASK_NOTIFICATION:
                return 0  # a 2026-07-28 extension's: no legacy session takes it
            if uri is not None and (self._uris is None or uri not in self._uris):
                return 0
            needs = NOTIFICATION_NEEDS.get(method)
            if needs is not None and not has_capability(self.config.capabilities, *needs):
                return 0
            self._out.append(Notification(method=method, params=params))
            return 1
        for subscription_id, granted in self.subscriptions.items():
            if uri is not None:
                uris = granted.resource_subscriptions
                if uris is UNSET or uri not in uris:
                    continue
            elif method == TASK_NOTIFICATION:
                # The tasks extension: only for the tasks the stream asked for.
                task_ids = granted.task_ids
                if task_ids is UNSET or params.get("taskId") not in task_ids:
                    continue
            else:
                field = FILTER_FIELD.get(method)
                if field is None or getattr(granted, field) is not True:
                    continue
            tagged = with_meta(params, {SUBSCRIPTION_ID_KEY: subscription_id})
            self._out.append(Notification(method=method, params=tagged))
            sent += 1
        return sent

    def end_subscriptions(self) -> None:
        """End every open subscription gracefully with its completion result.

        Raises:
            LocalProtocolError: the session is closed or broken.
        """
        if self.state is not _READY:
            self._local(SEND_NOTIFICATION)
        for subscription_id in list(self.subscriptions):
            del self.subscriptions[subscription_id]
            self._requests.incoming.pop(subscription_id, None)
            self._out.append(
                Response(
                    id=subscription_id,
                    result={
                        "resultType": "complete",
                        "_meta": {SUBSCRIPTION_ID_KEY: subscription_id},
                    },
                )
            )
