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
# These are functions of the session (``session``, a ClientSession), which
# ClientSession takes as its methods of the same name (the lifecycle actions with
# a leading underscore: the table resolves "_" + action); session/client.py adds
# everything after the opening.

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

import msgspec
from msgspec import UNSET

from ..types.base import (
    ClientCapabilities,
    DiscoverResult,
    Implementation,
    InitializeRequestParams,
    InitializeResult,
    RequestParams,
)
from ..types.methods import REVISIONS
from ..wire.errors import (
    INVALID_PARAMS,
    UNSUPPORTED_PROTOCOL_VERSION,
    LocalProtocolError,
    RemoteProtocolError,
)
from ..wire.jsonrpc import (
    ErrorObject,
    ErrorResponse,
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

if TYPE_CHECKING:
    from .client import ClientSession

__all__ = ["ClientConfig"]

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


# --- opening ----------------------------------------------------------------------


def start(session: ClientSession, now: float = 0.0, timeout: float | None = None) -> RequestId:
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
    if session.state is not SessionState.NEW or session._requests.pending or session._started:
        raise LocalProtocolError("start() opens a new session, once")
    session._started = True
    if session._modern:
        request_id = session.discover(session._modern[-1], now=now, timeout=timeout)
        if session._legacy:
            session._probe_id = request_id
            session._probe_timeout = timeout
        return request_id
    return session.initialize(now=now, timeout=timeout)


def initialize(session: ClientSession, now: float = 0.0, timeout: float | None = None) -> RequestId:
    """Send initialize with our newest legacy revision (legacy handshake).

    Raises:
        LocalProtocolError: the session was already opened, or we speak no
            legacy revision.
    """
    if not session._legacy:
        raise LocalProtocolError("initialize is only sent by a legacy-capable client")
    session._local(SEND_INITIALIZE, "initialize")
    params = InitializeRequestParams(
        protocol_version=session._legacy[-1],
        capabilities=session.config.capabilities,
        client_info=session.config.client_info,
    )
    return session._queue_request(
        "initialize", params, _initialize_decoder, now, timeout, progress=False
    )


def discover(
    session: ClientSession,
    version: str | None = None,
    *,
    now: float = 0.0,
    timeout: float | None = None,
) -> RequestId:
    """Send server/discover under ``version`` (default: our newest).

    Raises:
        LocalProtocolError: we speak no modern revision, or not ``version``,
            or the legacy handshake is under way, or the session is closed or
            broken.
    """
    if session.state is not _READY:
        session._local(SEND_DISCOVER, "server/discover")
    version = version or (session._modern[-1] if session._modern else None)
    if version is None or version not in session._modern:
        raise LocalProtocolError(f"we do not speak a modern revision {version!r}")
    meta = meta_for(session, version)
    return session._queue_request(
        "server/discover",
        RequestParams(meta=meta),
        _discover_decoder,
        now,
        timeout,
        progress=False,
    )


def meta_for(session: ClientSession, version: str) -> dict[str, Any]:
    meta: dict[str, Any] = {
        PROTOCOL_VERSION_KEY: version,
        CLIENT_CAPABILITIES_KEY: session.config.capabilities,
        CLIENT_INFO_KEY: session.config.client_info,
    }
    if session.log_level is not None:
        meta[LOG_LEVEL_KEY] = session.log_level
    return meta


# --- the opening (lifecycle actions; _lifecycle.TABLE names them) ---------------------


def answer_kind(session: ClientSession, message: Response | ErrorResponse) -> str:
    pending = session._requests.pending.get(message.id) if message.id is not None else None
    if pending is None:
        return OTHER_RESPONSE
    if pending.method == "initialize":
        return INITIALIZE_RESPONSE
    if pending.method == "server/discover" and session.era is None:
        return DISCOVER_RESPONSE
    return OTHER_RESPONSE


def finish_handshake(
    session: ClientSession, message: Response | ErrorResponse, now: float
) -> list[Event]:
    # The answer to our initialize: READY, or ERROR for a channel we cannot use.
    assert message.id is not None
    del session._requests.pending[message.id]
    if isinstance(message, ErrorResponse):
        session._fail(f"the server refused initialize: {message.error.message}")
        return [ErrorReceived(id=message.id, method="initialize", error=message.error)]
    try:
        result = decode_result(message, _initialize_decoder)
    except RemoteProtocolError as exc:
        session._fail(f"invalid initialize result: {exc.message}")
        return bad_result(session, message.id, "initialize", exc.message)
    if result.protocol_version not in session._legacy:
        # 2025-11-25 basic/lifecycle.mdx: a client that does not support the
        # server's version SHOULD disconnect.
        why = (
            f"server chose protocol version {result.protocol_version!r}, "
            f"which we do not speak ({', '.join(session._legacy)})"
        )
        session._fail(why)
        return bad_result(session, message.id, "initialize", why)
    session.era = "legacy"
    session.revision = result.protocol_version
    session.server_capabilities = result.capabilities
    session.server_info = result.server_info
    session.instructions = None if result.instructions is UNSET else result.instructions
    session.state = SessionState.READY
    session._out.append(Notification(method="notifications/initialized"))
    return [
        HandshakeCompleted(
            revision=result.protocol_version,
            peer_capabilities=result.capabilities,
            peer_info=result.server_info,
            instructions=session.instructions,
        )
    ]


def detect_era(
    session: ClientSession, message: Response | ErrorResponse, now: float
) -> list[Event]:
    # The answer to server/discover while the era is unknown (the probe, or a
    # modern-only client's opening).
    assert message.id is not None
    del session._requests.pending[message.id]
    if isinstance(message, ErrorResponse):
        return _on_discover_error(session, message, now)
    return _on_discover_result(session, message, now)


def _on_discover_result(session: ClientSession, message: Response, now: float) -> list[Event]:
    session._probe_id = None
    try:
        result = decode_result(message, _discover_decoder)
    except RemoteProtocolError as exc:
        if session._legacy:
            return _fall_back(session, now)
        return bad_result(session, message.id, "server/discover", exc.message)
    return _choose_version(session, result.supported_versions, now, result)


def _choose_version(
    session: ClientSession, supported: list[str], now: float, discovered: DiscoverResult | None
) -> list[Event]:
    common = [r for r in session._modern if r in supported]
    if not common:
        if session._legacy and any(r in supported for r in session._legacy):
            session.initialize(now=now, timeout=session._probe_timeout)
            return []
        session._fail(f"no protocol version in common: server speaks {supported}")
        return [
            ProtocolViolation(
                code=UNSUPPORTED_PROTOCOL_VERSION,
                message=f"no protocol version in common: server speaks {supported}",
            )
        ]
    version = common[-1]
    if discovered is None:
        # The server refused our version but named one we share: ask again.
        session.discover(version, now=now, timeout=session._probe_timeout)
        return []
    session.era = "modern"
    session.revision = version
    session._meta = meta_for(session, version)
    session.server_capabilities = discovered.capabilities
    meta = discovered.meta if isinstance(discovered.meta, dict) else {}
    info = meta.get("io.modelcontextprotocol/serverInfo")
    try:
        session.server_info = None if info is None else msgspec.convert(info, Implementation)
    except msgspec.ValidationError:
        session.server_info = None
    session.instructions = None if discovered.instructions is UNSET else discovered.instructions
    session.state = SessionState.READY
    return [
        HandshakeCompleted(
            revision=version,
            peer_capabilities=discovered.capabilities,
            peer_info=session.server_info,
            instructions=session.instructions,
        )
    ]


def _fall_back(session: ClientSession, now: float) -> list[Event]:
    if not session._legacy or session.state is not SessionState.NEW:
        return []
    session.initialize(now=now, timeout=session._probe_timeout)
    return []


def _on_discover_error(session: ClientSession, message: ErrorResponse, now: float) -> list[Event]:
    error = message.error
    session._probe_id = None
    if error.code == UNSUPPORTED_PROTOCOL_VERSION and isinstance(error.data, dict):
        supported = error.data.get("supported")
        if isinstance(supported, list):
            return _choose_version(session, [str(v) for v in supported], now, None)
    if session._legacy:
        # Any other error: a legacy server (stdio.mdx "Backward Compatibility").
        session.initialize(now=now, timeout=session._probe_timeout)
        return []
    session._fail(f"server/discover failed: {error.message}")
    return [ErrorReceived(id=message.id, method="server/discover", error=error)]


def handle_timeouts(session: ClientSession, now: float) -> list[Event]:
    """Expire overdue requests; a dual-era probe that timed out falls back to
    initialize instead of being reported (unless our caller has sent initialize
    meanwhile: then it is dropped)."""
    probe = session._probe_id
    events = BaseSession.handle_timeouts(session, now)
    if probe is not None and any(getattr(e, "id", None) == probe for e in events):
        session._probe_id = None
        events = [e for e in events if getattr(e, "id", None) != probe]
        if session.state is SessionState.NEW:
            session.initialize(now=now, timeout=session._probe_timeout)
    return events


def bad_result(session: ClientSession, request_id: RequestId, method: str, why: str) -> list[Event]:
    error = ErrorObject(code=INVALID_PARAMS, message=f"invalid result: {why}")
    return [
        ProtocolViolation(code=INVALID_PARAMS, message=error.message, id=request_id),
        ErrorReceived(id=request_id, method=method, error=error, local=True),
    ]


def refuse_send_initialize_again(session: ClientSession, method: str) -> None:
    # 2025-11-25 basic/lifecycle.mdx: initialize opens the session, once.
    raise LocalProtocolError("initialize is only sent once")
