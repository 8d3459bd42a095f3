# The client side of a connection, for both protocol eras.
#
# Theory of operation. A client talks to servers of either era. start() picks the
# opening move from what the client supports:
#
#   modern and legacy revisions: probe with server/discover carrying our newest
#       revision in _meta (2026-07-28 basic/transports/stdio.mdx "Backward
#       Compatibility"). A DiscoverResult, or an UnsupportedProtocolVersionError
#       naming a modern revision we share, means a modern server; any other error,
#       or no answer before the probe's timeout, means a legacy server, and we fall
#       back to initialize.
#   legacy only: initialize at once.
#   modern only: server/discover, with no fallback.
#
# The era, once known, is kept for the life of the session (versioning.mdx: it is a
# property of the server). In the legacy era the handshake follows 2025-11-25
# basic/lifecycle.mdx: we refuse a protocol version we do not speak (sticky ERROR).
# In the modern era every request carries the version, our capabilities and our
# identity in _meta, and results carry resultType: absent means complete (older
# servers), "input_required" is a multi round-trip step (InputRequired event), any
# other value is invalid (basic/index.mdx "ResultType").
#
# Capabilities are enforced both ways: we raise LocalProtocolError rather than send
# a request for a feature the server did not declare, and answer -32601 to a server
# request for a feature we did not declare.

from __future__ import annotations

from typing import Any, Final

import msgspec
from msgspec import UNSET

from ._errors import (
    INVALID_PARAMS,
    METHOD_NOT_FOUND,
    UNSUPPORTED_PROTOCOL_VERSION,
    LocalProtocolError,
    RemoteProtocolError,
)
from ._events import (
    ErrorReceived,
    Event,
    HandshakeCompleted,
    InputRequired,
    NotificationReceived,
    ProtocolViolation,
    RequestReceived,
    ResponseReceived,
)
from ._jsonrpc import (
    DEFAULT_LIMITS,
    ErrorObject,
    ErrorResponse,
    Limits,
    Notification,
    Request,
    RequestId,
    Response,
    decode_result,
)
from ._methods import LEGACY_REVISIONS, REVISIONS, method_spec, result_decoder
from ._server_session import _NEEDS_SERVER_CAPABILITY, _has_capability
from ._session import (
    _READY,
    CLIENT_CAPABILITIES_KEY,
    CLIENT_INFO_KEY,
    LOG_LEVEL_KEY,
    PROTOCOL_VERSION_KEY,
    BaseSession,
    SessionState,
    progress_token_of,
    with_meta,
)
from ._types_base import (
    ClientCapabilities,
    DiscoverResult,
    Implementation,
    InitializeRequestParams,
    InitializeResult,
    RequestParams,
    Result,
    ServerCapabilities,
)
from ._types_client import InputRequiredResult

__all__ = ["ClientConfig", "ClientSession"]


class ClientConfig(msgspec.Struct, frozen=True, kw_only=True):
    """What a client says about itself.

    Attributes:
        client_info: name and version, sent in the handshake or every request.
        capabilities: what the client offers (roots, sampling, elicitation).
        revisions: protocol revisions we speak, oldest first; the newest is
            preferred. The default is all of them: the client talks to both eras.
    """

    client_info: Implementation
    capabilities: ClientCapabilities = ClientCapabilities()
    revisions: tuple[str, ...] = REVISIONS


# Which client capability a server request needs (2025-11-25 client/*.mdx).
_NEEDS_CLIENT_CAPABILITY: Final[dict[str, str]] = {
    "sampling/createMessage": "sampling",
    "elicitation/create": "elicitation",
    "roots/list": "roots",
}

_input_required_decoder: Final = msgspec.json.Decoder(InputRequiredResult)
_initialize_decoder: Final = msgspec.json.Decoder(InitializeResult)
_discover_decoder: Final = msgspec.json.Decoder(DiscoverResult)


class _ResultTypeProbe(msgspec.Struct, rename="camel"):
    result_type: Any = UNSET


_probe_decoder: Final = msgspec.json.Decoder(_ResultTypeProbe)


class ClientSession(BaseSession):
    """The client half of an MCP connection, sans I/O.

    Call start() (or initialize()/discover()), write out messages_to_send(), feed
    the server's messages to receive_bytes()/receive_message(), and wait for
    HandshakeCompleted before sending requests.
    """

    our_role = "client"

    def __init__(self, config: ClientConfig, limits: Limits = DEFAULT_LIMITS) -> None:
        super().__init__(limits)
        self.config = config
        #: "legacy" or "modern" once known.
        self.era: str | None = None
        self.server_capabilities: ServerCapabilities | None = None
        self.server_info: Implementation | None = None
        self.instructions: str | None = None
        #: Least severe log level we want (modern: sent in every request's _meta).
        self.log_level: str | None = None
        self._modern = tuple(r for r in config.revisions if r not in LEGACY_REVISIONS)
        self._legacy = tuple(r for r in config.revisions if r in LEGACY_REVISIONS)
        self._probe_id: RequestId | None = None
        self._probe_timeout: float | None = None
        self._meta: dict[str, Any] = {}
        # method -> result decoder, for the requests that passed every check of
        # send_request under the revision and server capabilities below; see _route.
        self._routes: dict[str, msgspec.json.Decoder[Any]] = {}
        self._routed_revision: str | None = None
        self._routed_capabilities: ServerCapabilities | None = None

    # --- opening ----------------------------------------------------------------------

    def start(self, now: float = 0.0, timeout: float | None = None) -> RequestId:
        """Open the session the way our supported revisions call for.

        Args:
            now: the current time.
            timeout: how long to wait for each opening request. For a dual-era
                client it bounds the server/discover probe, after which we fall
                back to initialize (a silent legacy server never answers it).

        Returns:
            The id of the request sent.
        """
        if self._modern:
            request_id = self.discover(self._modern[-1], now=now, timeout=timeout)
            if self._legacy:
                self._probe_id = request_id
                self._probe_timeout = timeout
            return request_id
        return self.initialize(now=now, timeout=timeout)

    def initialize(self, now: float = 0.0, timeout: float | None = None) -> RequestId:
        """Send initialize with our newest legacy revision (legacy handshake).

        Raises:
            LocalProtocolError: the session was already opened, or we speak no
                legacy revision.
        """
        if self.state is not SessionState.NEW or not self._legacy:
            raise LocalProtocolError("initialize is only sent once, by a legacy-capable client")
        self.state = SessionState.INITIALIZING
        params = InitializeRequestParams(
            protocol_version=self._legacy[-1],
            capabilities=self.config.capabilities,
            client_info=self.config.client_info,
        )
        return self._queue_request(
            "initialize", params, _initialize_decoder, now, timeout, progress=False
        )

    def discover(
        self, version: str | None = None, *, now: float = 0.0, timeout: float | None = None
    ) -> RequestId:
        """Send server/discover under ``version`` (default: our newest).

        Raises:
            LocalProtocolError: we speak no modern revision, or not ``version``.
        """
        self._check_open()
        version = version or (self._modern[-1] if self._modern else None)
        if version is None or version not in self._modern:
            raise LocalProtocolError(f"we do not speak a modern revision {version!r}")
        meta = self._meta_for(version)
        return self._queue_request(
            "server/discover",
            RequestParams(meta=meta),
            _discover_decoder,
            now,
            timeout,
            progress=False,
        )

    def _meta_for(self, version: str) -> dict[str, Any]:
        meta: dict[str, Any] = {
            PROTOCOL_VERSION_KEY: version,
            CLIENT_CAPABILITIES_KEY: self.config.capabilities,
            CLIENT_INFO_KEY: self.config.client_info,
        }
        if self.log_level is not None:
            meta[LOG_LEVEL_KEY] = self.log_level
        return meta

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
        """Send a request to the server.

        Args:
            method: the MCP method.
            params: its params (an MCP Struct, a dict, or UNSET).
            now: the current time.
            timeout: seconds until the request expires (handle_timeouts).
            progress: ask for progress notifications (a progress token is added).

        Returns:
            The new request's id.

        Raises:
            LocalProtocolError: the session is not ready, the method does not
                exist in the revision in use, or the server did not declare the
                capability it needs. Nothing was sent.
        """
        if (
            self._routed_revision is not self.revision
            or self._routed_capabilities is not self.server_capabilities
        ):
            self._routes = {}
            self._routed_revision = self.revision
            self._routed_capabilities = self.server_capabilities
        # A method in _routes passed every check below while the session was ready
        # (and so open) under this very revision and these server capabilities.
        decoder = self._routes.get(method) if self.state is _READY else None
        if decoder is None:
            decoder = self._route(method)
        if self.era == "modern":
            params = with_meta(params, self._meta)
        return self._queue_request(method, params, decoder, now, timeout, progress)

    def _route(self, method: str) -> msgspec.json.Decoder[Any]:
        # Every check of send_request, in order; the result decoder if all pass.
        self._check_open()
        revision = self.revision
        if self.state is not SessionState.READY or revision is None:
            raise LocalProtocolError("the session is not ready: wait for HandshakeCompleted")
        spec = method_spec(method, revision)
        if spec is None or spec.sender == "server" or spec.kind != "request":
            raise LocalProtocolError(f"no client request {method!r} in revision {revision}")
        needs = _NEEDS_SERVER_CAPABILITY.get(method)
        if needs is not None and not _has_capability(self.server_capabilities, *needs):
            flag = f".{needs[1]}" if needs[1] else ""
            raise LocalProtocolError(f"the server did not declare {needs[0]}{flag}")
        decoder = result_decoder(spec) if spec.result_type is not None else _any
        # Remembered unless the capability needs a flag, which may sit in a plain
        # dict member that can change (ServerSession._gate_anew says more).
        if needs is None or (
            needs[1] is None and type(self.server_capabilities) is ServerCapabilities
        ):
            self._routes[method] = decoder
        return decoder

    def send_notification(self, method: str, params: Any = UNSET) -> None:
        """Send a notification (roots/list_changed needs our roots.listChanged).

        Raises:
            LocalProtocolError: the session is closed, or the capability is missing.
        """
        self._check_open()
        if method == "notifications/roots/list_changed" and not _has_capability(
            self.config.capabilities, "roots", "listChanged"
        ):
            raise LocalProtocolError("roots/list_changed needs the roots.listChanged capability")
        self._out.append(Notification(method=method, params=params))

    def set_log_level(self, level: str) -> RequestId | None:
        """Choose the least severe log level wanted from the server.

        Legacy: sends logging/setLevel (returns its id). Modern: the level rides in
        every later request's _meta (returns None).
        """
        self.log_level = level
        if self.era == "modern":
            assert self.revision is not None
            self._meta = self._meta_for(self.revision)
            return None
        return self.send_request("logging/setLevel", {"level": level})

    # --- receiving responses ----------------------------------------------------------

    def _on_response(self, message: Response, now: float) -> list[Event]:
        pending = self._pending.pop(message.id, None)
        if pending is None:
            return self._unexpected_answer(message.id)
        method = pending.method
        if method == "initialize":
            return self._on_initialize_result(message, now)
        if method == "server/discover" and self.era is None:
            return self._on_discover_result(message, now)
        try:
            result = decode_result(message, pending.decoder)
        except RemoteProtocolError as exc:
            if self.era == "modern" and _result_type(message) == "input_required":
                return self._input_required(message, method)
            return self._bad_result(message.id, method, exc.message)
        result_type = getattr(result, "result_type", UNSET)
        if result_type is UNSET or result_type == "complete":
            return [ResponseReceived(id=message.id, method=method, result=result)]
        if result_type == "input_required" and self.era == "modern":
            return self._input_required(message, method)
        return self._bad_result(message.id, method, f"unknown resultType {result_type!r}")

    def _input_required(self, message: Response, method: str) -> list[Event]:
        try:
            required = decode_result(message, _input_required_decoder)
        except RemoteProtocolError as exc:
            return self._bad_result(message.id, method, exc.message)
        return [InputRequired(id=message.id, method=method, result=required)]

    def _bad_result(self, request_id: RequestId, method: str, why: str) -> list[Event]:
        error = ErrorObject(code=INVALID_PARAMS, message=f"invalid result: {why}")
        return [
            ProtocolViolation(code=INVALID_PARAMS, message=error.message, id=request_id),
            ErrorReceived(id=request_id, method=method, error=error, local=True),
        ]

    def _on_initialize_result(self, message: Response, now: float) -> list[Event]:
        try:
            result = decode_result(message, _initialize_decoder)
        except RemoteProtocolError as exc:
            self.state = SessionState.ERROR
            return self._bad_result(message.id, "initialize", exc.message)
        if result.protocol_version not in self._legacy:
            # 2025-11-25 basic/lifecycle.mdx: a client that does not support the
            # server's version SHOULD disconnect.
            self.state = SessionState.ERROR
            return self._bad_result(
                message.id,
                "initialize",
                f"server chose protocol version {result.protocol_version!r}, "
                f"which we do not speak ({', '.join(self._legacy)})",
            )
        self.era = "legacy"
        self.revision = result.protocol_version
        self.server_capabilities = result.capabilities
        self.server_info = result.server_info
        self.instructions = None if result.instructions is UNSET else result.instructions
        self.state = SessionState.READY
        self._out.append(Notification(method="notifications/initialized"))
        return [
            HandshakeCompleted(
                revision=result.protocol_version,
                peer_capabilities=result.capabilities,
                peer_info=result.server_info,
                instructions=self.instructions,
            )
        ]

    def _on_discover_result(self, message: Response, now: float) -> list[Event]:
        self._probe_id = None
        try:
            result = decode_result(message, _discover_decoder)
        except RemoteProtocolError as exc:
            if self._legacy:
                return self._fall_back(now)
            return self._bad_result(message.id, "server/discover", exc.message)
        return self._choose_version(result.supported_versions, now, result)

    def _choose_version(
        self, supported: list[str], now: float, discovered: DiscoverResult | None
    ) -> list[Event]:
        common = [r for r in self._modern if r in supported]
        if not common:
            if self._legacy and any(r in supported for r in self._legacy):
                self.initialize(now=now, timeout=self._probe_timeout)
                return []
            self.state = SessionState.ERROR
            return [
                ProtocolViolation(
                    code=UNSUPPORTED_PROTOCOL_VERSION,
                    message=f"no protocol version in common: server speaks {supported}",
                )
            ]
        version = common[-1]
        if discovered is None:
            # The server refused our version but named one we share: ask again.
            self.discover(version, now=now, timeout=self._probe_timeout)
            return []
        self.era = "modern"
        self.revision = version
        self._meta = self._meta_for(version)
        self.server_capabilities = discovered.capabilities
        meta = discovered.meta if isinstance(discovered.meta, dict) else {}
        info = meta.get("io.modelcontextprotocol/serverInfo")
        try:
            self.server_info = None if info is None else msgspec.convert(info, Implementation)
        except msgspec.ValidationError:
            self.server_info = None
        self.instructions = None if discovered.instructions is UNSET else discovered.instructions
        self.state = SessionState.READY
        return [
            HandshakeCompleted(
                revision=version,
                peer_capabilities=discovered.capabilities,
                peer_info=self.server_info,
                instructions=self.instructions,
            )
        ]

    def _fall_back(self, now: float) -> list[Event]:
        if not self._legacy or self.state is not SessionState.NEW:
            return []
        self.initialize(now=now, timeout=self._probe_timeout)
        return []

    def _on_error(self, message: ErrorResponse, method: str | None, now: float) -> list[Event]:
        if method == "server/discover" and self.era is None:
            return self._on_discover_error(message, now)
        if method == "initialize":
            self.state = SessionState.ERROR
        return [ErrorReceived(id=message.id, method=method, error=message.error)]

    def _on_discover_error(self, message: ErrorResponse, now: float) -> list[Event]:
        error = message.error
        self._probe_id = None
        if error.code == UNSUPPORTED_PROTOCOL_VERSION and isinstance(error.data, dict):
            supported = error.data.get("supported")
            if isinstance(supported, list):
                return self._choose_version([str(v) for v in supported], now, None)
        if self._legacy:
            # Any other error: a legacy server (stdio.mdx "Backward Compatibility").
            self.initialize(now=now, timeout=self._probe_timeout)
            return []
        self.state = SessionState.ERROR
        return [ErrorReceived(id=message.id, method="server/discover", error=error)]

    def handle_timeouts(self, now: float) -> list[Event]:
        """Expire overdue requests; a dual-era probe that timed out falls back to
        initialize instead of being reported."""
        probe = self._probe_id
        events = super().handle_timeouts(now)
        if probe is not None and any(getattr(e, "id", None) == probe for e in events):
            self._probe_id = None
            events = [e for e in events if getattr(e, "id", None) != probe]
            self.initialize(now=now, timeout=self._probe_timeout)
        return events

    # --- receiving requests and notifications -----------------------------------------

    def _on_request(self, message: Request, now: float) -> list[Event]:
        method = message.method
        revision = self.revision
        if revision is None or self.era != "legacy":
            raise RemoteProtocolError(
                f"no server requests outside a legacy session ({method!r})",
                METHOD_NOT_FOUND,
                request_id=message.id,
            )
        spec = method_spec(method, revision)
        if spec is None or spec.sender == "client" or spec.kind != "request":
            raise RemoteProtocolError(
                f"method {method!r} does not exist in protocol revision {revision}",
                METHOD_NOT_FOUND,
                request_id=message.id,
            )
        needs = _NEEDS_CLIENT_CAPABILITY.get(method)
        if needs is not None and not _has_capability(self.config.capabilities, needs, None):
            raise RemoteProtocolError(
                f"this client did not declare the {needs!r} capability",
                METHOD_NOT_FOUND,
                request_id=message.id,
            )
        params = self._decode_typed(message, method, revision)
        token = progress_token_of(params)
        self._admit_request(message, token, modern=False)
        if method == "ping":
            self.send_response(message.id, Result())
            return []
        return [
            RequestReceived(
                id=message.id, method=method, params=params, revision=revision, progress_token=token
            )
        ]

    def _on_notification(self, message: Notification, now: float) -> list[Event]:
        method = message.method
        if method == "notifications/progress":
            return self._on_progress(message)
        if method == "notifications/cancelled":
            return self._on_cancelled(message)
        revision = self.revision
        if revision is None:
            return []
        spec = method_spec(method, revision)
        if spec is None or spec.sender == "client" or spec.kind != "notification":
            return []  # unknown notifications are ignored
        params = self._decode_typed(message, method, revision)
        return [NotificationReceived(method=method, params=params)]


_any: Final = msgspec.json.Decoder()


def _result_type(message: Response) -> Any:
    result = message.result
    if isinstance(result, dict):
        return result.get("resultType", UNSET)
    if not isinstance(result, msgspec.Raw):
        return getattr(result, "result_type", UNSET)
    try:
        return _probe_decoder.decode(result).result_type
    except (msgspec.DecodeError, UnicodeDecodeError):
        return UNSET
