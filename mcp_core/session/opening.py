# How a client opens a session, in either era.
#
# start() picks the opening move from the revisions the client speaks:
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
# The answers are rows of the lifecycle table (session/lifecycle.py): "discover response"
# in NEW runs detect_era, "initialize response" in INITIALIZING runs
# finish_handshake. The era, once known, is kept for the life of the session
# (versioning.mdx: it is a property of the server). A server we cannot speak with
# (a legacy version we do not support, no modern version in common, a refused
# initialize) breaks the channel: sticky ERROR (2025-11-25 basic/lifecycle.mdx: the
# client SHOULD disconnect).
#
# ClientSession (session/client.py) adds everything after the opening.

from __future__ import annotations

from typing import Any, Final

import msgspec
from msgspec import UNSET

from ..types.base import (
    ClientCapabilities,
    DiscoverResult,
    Implementation,
    InitializeRequestParams,
    InitializeResult,
    RequestParams,
    ServerCapabilities,
)
from ..types.methods import LEGACY_REVISIONS, REVISIONS
from ..wire.errors import (
    INVALID_PARAMS,
    UNSUPPORTED_PROTOCOL_VERSION,
    LocalProtocolError,
    RemoteProtocolError,
)
from ..wire.jsonrpc import (
    DEFAULT_LIMITS,
    ErrorObject,
    ErrorResponse,
    Limits,
    Notification,
    RequestId,
    Response,
    decode_result,
)
from .base import (
    _READY,
    CLIENT_CAPABILITIES_KEY,
    CLIENT_INFO_KEY,
    LOG_LEVEL_KEY,
    PROTOCOL_VERSION_KEY,
    BaseSession,
    SessionState,
)
from .events import ErrorReceived, Event, HandshakeCompleted, ProtocolViolation
from .lifecycle import (
    DISCOVER_RESPONSE,
    INITIALIZE_RESPONSE,
    OTHER_RESPONSE,
    SEND_DISCOVER,
    SEND_INITIALIZE,
)

__all__ = ["ClientConfig", "ClientOpening"]

_initialize_decoder: Final = msgspec.json.Decoder(InitializeResult)
_discover_decoder: Final = msgspec.json.Decoder(DiscoverResult)


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


class ClientOpening(BaseSession):
    """The opening half of ClientSession: era detection and the legacy handshake."""

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
        self._started = False
        self._meta: dict[str, Any] = {}

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

        Raises:
            LocalProtocolError: the session was opened already (start() twice, or
                after initialize() or discover()).
        """
        if self.state is not SessionState.NEW or self._requests.pending or self._started:
            raise LocalProtocolError("start() opens a new session, once")
        self._started = True
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
        if not self._legacy:
            raise LocalProtocolError("initialize is only sent by a legacy-capable client")
        self._local(SEND_INITIALIZE, "initialize")
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
            LocalProtocolError: we speak no modern revision, or not ``version``,
                or the legacy handshake is under way, or the session is closed or
                broken.
        """
        if self.state is not _READY:
            self._local(SEND_DISCOVER, "server/discover")
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

    # --- the opening (lifecycle actions; _lifecycle.TABLE names them) ---------------------

    def _answer_kind(self, message: Response | ErrorResponse) -> str:
        pending = self._requests.pending.get(message.id) if message.id is not None else None
        if pending is None:
            return OTHER_RESPONSE
        if pending.method == "initialize":
            return INITIALIZE_RESPONSE
        if pending.method == "server/discover" and self.era is None:
            return DISCOVER_RESPONSE
        return OTHER_RESPONSE

    def _finish_handshake(self, message: Response | ErrorResponse, now: float) -> list[Event]:
        # The answer to our initialize: READY, or ERROR for a channel we cannot use.
        assert message.id is not None
        del self._requests.pending[message.id]
        if type(message) is ErrorResponse:
            self._fail(f"the server refused initialize: {message.error.message}")
            return [ErrorReceived(id=message.id, method="initialize", error=message.error)]
        try:
            result = decode_result(message, _initialize_decoder)  # type: ignore[arg-type]
        except RemoteProtocolError as exc:
            self._fail(f"invalid initialize result: {exc.message}")
            return self._bad_result(message.id, "initialize", exc.message)
        if result.protocol_version not in self._legacy:
            # 2025-11-25 basic/lifecycle.mdx: a client that does not support the
            # server's version SHOULD disconnect.
            why = (
                f"server chose protocol version {result.protocol_version!r}, "
                f"which we do not speak ({', '.join(self._legacy)})"
            )
            self._fail(why)
            return self._bad_result(message.id, "initialize", why)
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

    def _detect_era(self, message: Response | ErrorResponse, now: float) -> list[Event]:
        # The answer to server/discover while the era is unknown (the probe, or a
        # modern-only client's opening).
        assert message.id is not None
        del self._requests.pending[message.id]
        if type(message) is ErrorResponse:
            return self._on_discover_error(message, now)
        return self._on_discover_result(message, now)  # type: ignore[arg-type]

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
            self._fail(f"no protocol version in common: server speaks {supported}")
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
        self._fail(f"server/discover failed: {error.message}")
        return [ErrorReceived(id=message.id, method="server/discover", error=error)]

    def handle_timeouts(self, now: float) -> list[Event]:
        """Expire overdue requests; a dual-era probe that timed out falls back to
        initialize instead of being reported (unless our caller has sent initialize
        meanwhile: then it is dropped)."""
        probe = self._probe_id
        events = super().handle_timeouts(now)
        if probe is not None and any(getattr(e, "id", None) == probe for e in events):
            self._probe_id = None
            events = [e for e in events if getattr(e, "id", None) != probe]
            if self.state is SessionState.NEW:
                self.initialize(now=now, timeout=self._probe_timeout)
        return events

    def _bad_result(self, request_id: RequestId, method: str, why: str) -> list[Event]:
        error = ErrorObject(code=INVALID_PARAMS, message=f"invalid result: {why}")
        return [
            ProtocolViolation(code=INVALID_PARAMS, message=error.message, id=request_id),
            ErrorReceived(id=request_id, method=method, error=error, local=True),
        ]

    def _refuse_send_initialize_again(self, method: str) -> None:
        # 2025-11-25 basic/lifecycle.mdx: initialize opens the session, once.
        raise LocalProtocolError("initialize is only sent once")
