# The client side of a connection, for both protocol eras.
#
# Theory of operation. session/opening.py opens the session: era detection
# (server/discover, falling back to initialize) and the legacy handshake, as
# functions ClientSession takes as methods. What follows the opening is here.
#
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
from msgspec import UNSET, Raw

from ..types.base import (
    Implementation,
    Result,
    ServerCapabilities,
)
from ..types.client import InputRequiredResult
from ..types.methods import (
    LATEST_REVISION,
    LEGACY_REVISIONS,
    decode_method_result,
    method_spec,
    result_decoder,
)
from ..types.tasks import CreateTaskResult, DetailedTask
from ..wire.errors import (
    INVALID_PARAMS,
    METHOD_NOT_FOUND,
    LocalProtocolError,
    RemoteProtocolError,
)
from ..wire.jsonrpc import (
    DEFAULT_LIMITS,
    Limits,
    Message,
    Notification,
    Request,
    RequestId,
    Response,
    decode_message,
    decode_result,
)
from . import opening as _opening
from .answers import read_answer
from .base import _READY, BaseSession
from .config import (
    NEEDS_CLIENT_CAPABILITY,
    NEEDS_SERVER_CAPABILITY,
    has_capability,
    missing_client_capability,
)
from .events import (
    Event,
    InputRequired,
    NotificationReceived,
    RequestReceived,
    ResponseReceived,
)
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
from .opening import ClientConfig
from .requests import _Pending, progress_token_of, with_meta

__all__ = ["ClientConfig", "ClientSession"]


_input_required_decoder: Final = msgspec.json.Decoder(InputRequiredResult)
_UNREAD: Final = object()


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
        # The dual-era probe (server/discover) while it is out, and its timeout.
        self._probe_id: RequestId | None = None
        self._probe_timeout: float | None = None
        self._started = False
        # The _meta of every modern request, once the version is chosen.
        self._meta: dict[str, Any] = {}
        # method -> result decoder, for the requests that passed every check of
        # send_request under the revision and server capabilities below; see _route.
        self._routes: dict[str, msgspec.json.Decoder[Any]] = {}
        self._routed_revision: str | None = None
        self._routed_capabilities: ServerCapabilities | None = None

    # --- the opening (session/opening.py) -----------------------------------------------

    start = _opening.start
    initialize = _opening.initialize
    discover = _opening.discover
    handle_timeouts = _opening.handle_timeouts
    _meta_for = _opening.meta_for
    _answer_kind = _opening.answer_kind
    _bad_result = _opening.bad_result
    # Lifecycle actions (rows of lifecycle.TABLE name them without the underscore).
    _finish_handshake = _opening.finish_handshake
    _detect_era = _opening.detect_era
    _refuse_send_initialize_again = _opening.refuse_send_initialize_again

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
        if progress:
            return self._queue_request(method, params, decoder, now, timeout, progress)
        # _queue_request without a progress token, inlined: nearly every request.
        tables = self._requests
        pending = tables.pending
        request_id = tables.next_id + 1
        while request_id in pending:  # ids are ours alone, but be sure
            request_id += 1
        tables.next_id = request_id
        deadline = None if timeout is None else now + timeout
        pending[request_id] = _Pending(method, decoder, deadline, None)
        self._out.append(Request(id=request_id, method=method, params=params))
        return request_id

    def can_send(self, method: str) -> bool:
        """Whether `send_request` would send ``method`` now: the session is
        ready, the revision has it, and the server declared what it needs."""
        if self.state is not _READY:
            return False
        try:
            self._route(method)
        except LocalProtocolError:
            return False
        return True

    def _route(self, method: str) -> msgspec.json.Decoder[Any]:
        # Every check of send_request, in order; the result decoder if all pass.
        if self.state is not _READY:
            self._local(SEND_PING if method == "ping" else SEND_REQUEST, method)
        # Before READY only a ping gets here (initialize is out): in our newest
        # legacy revision, the one we offered.
        revision = self.revision or self._legacy[-1]
        spec = method_spec(method, revision)
        if spec is None or spec.sender == "server" or spec.kind != "request":
            raise LocalProtocolError(f"no client request {method!r} in revision {revision}")
        needs = NEEDS_SERVER_CAPABILITY.get(method)
        if needs is not None and not has_capability(self.server_capabilities, *needs):
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
            LocalProtocolError: the session is closed or broken, or the capability
                is missing.
        """
        if self.state is not _READY:
            self._local(SEND_NOTIFICATION, method)
        if method == "notifications/roots/list_changed" and not has_capability(
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

    def _decode(self, data: bytes | Raw, limits: Limits = DEFAULT_LIMITS) -> Message:
        # How receive_bytes decodes: a response to a request of ours may be read
        # with its result in one pass (session/answers.py).
        if self.state is _READY and type(data) is bytes:
            return read_answer(self._requests.pending, data, limits)
        return decode_message(data, limits)

    def _on_response(self, message: Response, now: float) -> list[Event]:
        pending = self._requests.pending.pop(message.id, None)
        if pending is None:
            return self._requests.unexpected_answer(message.id)
        method = pending.method
        # decode_result, its fast path inlined; it says what is wrong, if anything.
        raw = message.result
        decoder = pending.decoder
        if type(raw) is decoder.type:
            # Read in one pass with the response (session/answers.py), or built
            # in this process: decode_result hands it back as it is.
            result = raw
        else:
            try:
                result = decoder.decode(raw) if type(raw) is Raw else _UNREAD
            except (msgspec.DecodeError, UnicodeDecodeError):
                result = _UNREAD
        if result is _UNREAD:
            try:
                result = decode_result(message, pending.decoder)
            except RemoteProtocolError as exc:
                if self.era == "modern" and _result_type(message) == "input_required":
                    return self._input_required(message, method)
                if method == "tools/call":
                    task = _task_result(message, self.revision)
                    if task is not None:
                        return [ResponseReceived(id=message.id, method=method, result=task)]
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

    # --- receiving requests and notifications -----------------------------------------

    def _on_request(self, message: Request, now: float) -> list[Event]:
        if self.state is _READY:  # the table's READY rows, one action for all kinds
            return self._serve_server_request(message, now)
        method = message.method
        if method == "initialize":
            return self._step(INITIALIZE_REQUEST, message, now)
        return self._step(PING_REQUEST if method == "ping" else OTHER_REQUEST, message, now)

    def _refuse_server_request(self, message: Request, now: float) -> list[Event]:
        # No session to serve it in yet (the table's NEW and INITIALIZING rows).
        raise RemoteProtocolError(
            f"no server requests outside a legacy session ({message.method!r})",
            METHOD_NOT_FOUND,
            request_id=message.id,
        )

    def _answer_ping(self, message: Request, now: float) -> list[Event]:
        # 2025-11-25 basic/utilities/ping.mdx: the receiver MUST answer promptly,
        # with an empty result, even while our initialize awaits its answer.
        self._admit_request(message, None, modern=False)
        self.send_response(message.id, Result())
        return []

    def _refuse_send_not_ready(self, method: str) -> None:
        raise LocalProtocolError(
            f"the session is not ready for {method!r}: wait for HandshakeCompleted"
        )

    def _serve_server_request(self, message: Request, now: float) -> list[Event]:
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
        needs = NEEDS_CLIENT_CAPABILITY.get(method)
        if needs is not None and not has_capability(self.config.capabilities, needs, None):
            raise RemoteProtocolError(
                f"this client did not declare the {needs!r} capability",
                METHOD_NOT_FOUND,
                request_id=message.id,
            )
        params = self._decode_typed(message, method, revision)
        missing = missing_client_capability(self.config.capabilities, method, params)
        if missing is not None:
            # 2025-11-25 client/elicitation.mdx "Error Handling": a mode the client
            # did not declare is -32602; sampling with tools undeclared likewise.
            raise RemoteProtocolError(
                f"this client did not declare the {missing[0]}.{missing[1]} capability",
                INVALID_PARAMS,
                request_id=message.id,
            )
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
        if message.method == "notifications/initialized":
            return self._step(INITIALIZED_NOTIFICATION, message, now)
        if self.state is _READY:  # the table's READY row, called directly
            return self._take_notification(message, now)
        return self._step(OTHER_NOTIFICATION, message, now)

    def _take_notification(self, message: Notification, now: float) -> list[Event]:
        method = message.method
        if method == "notifications/progress":
            return self._requests.progress_received(message)
        if method == "notifications/cancelled":
            return self._requests.cancelled(message)
        revision = self.revision
        if revision is None:
            return []
        spec = method_spec(method, revision)
        if spec is None or spec.sender == "client" or spec.kind != "notification":
            return []  # unknown notifications are ignored
        params = self._decode_typed(message, method, revision)
        return [NotificationReceived(method=method, params=params)]


_any: Final = msgspec.json.Decoder()


def _task_result(message: Response, revision: str | None) -> Any:
    # A tools/call answered with a task: the 2026-07-28 extension's flat
    # CreateTaskResult (resultType "task"), or the 2025-11-25 one ({"task": ...}).
    # decode_method_result chooses; None when it is neither (or does not fit).
    spec = method_spec("tools/call", revision or LATEST_REVISION)
    if spec is None:
        return None
    result = message.result
    data = result if isinstance(result, Raw) else Raw(msgspec.json.encode(result))
    try:
        found = decode_method_result(spec, data)
    except (msgspec.ValidationError, msgspec.DecodeError):
        return None
    return found if isinstance(found, (CreateTaskResult, DetailedTask)) else None


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
