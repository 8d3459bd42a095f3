# The machinery both session roles share.
#
# Theory of operation. A session sits between the codec and the application. The
# transport hands it one complete message at a time (bytes, or a message object in
# the in-memory mode) together with the current time, and gets back the events that
# message caused. Everything the session sends, including the answers it gives on its
# own (error replies, pongs, the handshake), goes into one outgoing buffer drained
# with messages_to_send(); no message leaves any other way.
#
# Receiving a message is a complete step: a message is never split across calls
# (framing is the transport's job: lines for stdio, bodies and SSE for HTTP), so
# receive_*() returns the events at once instead of h11's receive_data/next_event
# pair, which exists there because HTTP bytes arrive in arbitrary pieces.
#
# What is shared here (2025-11-25 and 2026-07-28 basic/index.mdx and
# basic/utilities or basic/patterns):
#   - request ids: ours are increasing integers, never reused while in flight;
#     an incoming id that duplicates one still in flight is refused (-32600).
#   - the pending table: every request we send waits here for its response, with
#     the typed decoder of its result, an optional deadline and a progress token.
#   - cancellation both ways: notifications/cancelled for our requests (never for
#     initialize), and for theirs a RequestCancelled event after which anything we
#     would send for that request is dropped. Responses that arrive for requests we
#     cancelled or timed out are dropped silently.
#   - progress both ways: tokens are ints or strings, progress must increase, and
#     nothing is reported for a request once it has completed.
#   - timeouts: deadlines are computed from the ``now`` the caller passes in;
#     handle_timeouts(now) expires them, and next_deadline() says when to call it.
#
# Errors: a bad *message* from the peer gets an error reply (when it was a request)
# and a ProtocolViolation event, and the session carries on. Misuse by our caller
# raises LocalProtocolError and changes nothing.

from __future__ import annotations

import enum
from collections import OrderedDict
from typing import Any, Final

import msgspec
from msgspec import UNSET

from ._errors import (
    INVALID_REQUEST,
    PARSE_ERROR,
    LocalProtocolError,
    RemoteProtocolError,
)
from ._events import (
    ErrorReceived,
    Event,
    ProgressReceived,
    ProtocolViolation,
    RequestCancelled,
    RequestTimedOut,
    ResponseReceived,
)
from ._jsonrpc import (
    DEFAULT_LIMITS,
    ErrorObject,
    ErrorResponse,
    Limits,
    Message,
    Notification,
    Request,
    RequestId,
    Response,
    decode_batch,
    decode_message,
    decode_params,
    decode_result,
    error_reply,
    is_batch,
)
from ._methods import method_spec, params_decoder, result_decoder
from ._types_base import CancelledNotificationParams, ProgressNotificationParams

__all__ = [
    "SessionState",
    "BaseSession",
    "PROTOCOL_VERSION_KEY",
    "CLIENT_CAPABILITIES_KEY",
    "CLIENT_INFO_KEY",
    "LOG_LEVEL_KEY",
    "SERVER_INFO_KEY",
    "SUBSCRIPTION_ID_KEY",
]

# Reserved _meta keys of 2026-07-28 (basic/index.mdx "_meta").
PROTOCOL_VERSION_KEY: Final = "io.modelcontextprotocol/protocolVersion"
"""Per-request protocol version (required on every 2026-07-28 request)."""
CLIENT_CAPABILITIES_KEY: Final = "io.modelcontextprotocol/clientCapabilities"
"""Per-request client capabilities (required on every 2026-07-28 request)."""
CLIENT_INFO_KEY: Final = "io.modelcontextprotocol/clientInfo"
"""Per-request client name and version (recommended)."""
LOG_LEVEL_KEY: Final = "io.modelcontextprotocol/logLevel"
"""Per-request minimum log level."""
SERVER_INFO_KEY: Final = "io.modelcontextprotocol/serverInfo"
"""Server name and version in every result's _meta (recommended)."""
SUBSCRIPTION_ID_KEY: Final = "io.modelcontextprotocol/subscriptionId"
"""Tags every message of a subscriptions/listen stream with the listen request's id."""


class SessionState(enum.Enum):
    """Lifecycle states of a legacy-era session (2025-11-25 basic/lifecycle.mdx).

    A 2026-07-28 session has no handshake: it is READY from its first request.
    """

    #: Nothing exchanged yet.
    NEW = "new"
    #: initialize sent (client) or answered (server); waiting for the other half.
    INITIALIZING = "initializing"
    #: The handshake is over (or the session is stateless); normal operation.
    READY = "ready"
    #: Closed by our caller; nothing more is sent or accepted.
    CLOSED = "closed"
    #: The channel broke (the peer negotiated something we cannot speak). Sticky.
    ERROR = "error"


# The states as plain module constants: every message is checked against them, and a
# global read costs less than an attribute lookup on the Enum class.
_READY: Final = SessionState.READY
_CLOSED: Final = SessionState.CLOSED
_ERROR: Final = SessionState.ERROR

# How many ids of requests we gave up on (cancelled, timed out) we remember, so that
# their late responses are dropped quietly rather than reported as violations.
_FORGOTTEN_IDS_KEPT: Final = 1024

_any_decoder: Final = msgspec.json.Decoder()
_progress_decoder: Final = msgspec.json.Decoder(ProgressNotificationParams)
_cancelled_decoder: Final = msgspec.json.Decoder(CancelledNotificationParams)


# The two records below are made for every request, so they are Structs built in C:
# making and dropping one takes ~90 ns, against ~175 ns for a __slots__ class with
# an __init__ (timeit), and gc=False saves ~15 ns of that. gc=False is safe: their
# fields are strings, numbers, bools and a module-level decoder, none of which can
# lead back to the record, so it can never be part of a reference cycle.


class _Pending(msgspec.Struct, gc=False):
    """A request of ours that waits for its response."""

    method: str
    decoder: msgspec.json.Decoder[Any]
    deadline: float | None
    progress_token: RequestId | None
    last_progress: float | None = None


class _Incoming(msgspec.Struct, gc=False):
    """A request of theirs that we have not answered yet."""

    method: str
    progress_token: RequestId | None
    modern: bool
    last_progress: float | None = None


def with_meta(params: Any, extra: dict[str, Any]) -> Any:
    """``params`` with ``extra`` merged into its ``_meta`` (a new object)."""
    if params is UNSET or params is None:
        return {"_meta": extra}
    if isinstance(params, dict):
        merged = dict(params)
        merged["_meta"] = {**(params.get("_meta") or {}), **extra}
        return merged
    meta = getattr(params, "meta", UNSET)
    return msgspec.structs.replace(params, meta={**(meta or {}), **extra})


def progress_token_of(params: Any) -> RequestId | None:
    """The ``_meta.progressToken`` of typed params, if present and well-typed."""
    meta = getattr(params, "meta", None)
    if not meta:
        return None
    token = meta.get("progressToken")
    if type(token) is int or type(token) is str:
        return token
    return None


class BaseSession:
    """What ClientSession and ServerSession share. Not used on its own."""

    #: Which side we are: "client" or "server".
    our_role: str = ""

    def __init__(self, limits: Limits = DEFAULT_LIMITS) -> None:
        self.limits = limits
        self.state = SessionState.NEW
        #: The protocol revision in use; None until negotiated or detected.
        self.revision: str | None = None
        self._out: list[Message] = []
        self._pending: dict[RequestId, _Pending] = {}
        self._incoming: dict[RequestId, _Incoming] = {}
        self._forgotten: OrderedDict[RequestId, None] = OrderedDict()
        self._next_id = 0

    # --- output -----------------------------------------------------------------------

    def messages_to_send(self) -> list[Message]:
        """Take every message queued for the peer, oldest first."""
        out = self._out
        self._out = []
        return out

    @property
    def pending_requests(self) -> int:
        """How many of our requests wait for a response."""
        return len(self._pending)

    @property
    def requests_in_flight(self) -> int:
        """How many of the peer's requests we have not answered yet."""
        return len(self._incoming)

    def _check_open(self) -> None:
        if self.state is _CLOSED or self.state is _ERROR:
            raise LocalProtocolError(f"the session is {self.state.value}")

    # --- sending ----------------------------------------------------------------------

    def _queue_request(
        self,
        method: str,
        params: Any,
        decoder: msgspec.json.Decoder[Any],
        now: float,
        timeout: float | None,
        progress: bool,
    ) -> RequestId:
        pending = self._pending
        request_id = self._next_id + 1
        while request_id in pending:  # ids are ours alone, but be sure
            request_id += 1
        self._next_id = request_id
        token: RequestId | None = None
        if progress:
            token = request_id
            params = with_meta(params, {"progressToken": token})
        deadline = None if timeout is None else now + timeout
        pending[request_id] = _Pending(method, decoder, deadline, token)
        self._out.append(Request(id=request_id, method=method, params=params))
        return request_id

    def _decoder_for(self, method: str, revision: str | None) -> msgspec.json.Decoder[Any]:
        spec = method_spec(method, revision) if revision is not None else None
        if spec is None or spec.result_type is None:
            return _any_decoder
        return result_decoder(spec)

    def send_notification(self, method: str, params: Any = UNSET) -> None:
        """Queue a notification.

        Raises:
            LocalProtocolError: the session is closed.
        """
        self._check_open()
        self._out.append(Notification(method=method, params=params))

    def send_response(self, request_id: RequestId, result: Any) -> None:
        """Answer a request of the peer's with a result.

        An answer to a request the peer has cancelled is dropped, as the
        cancellation rules require (basic/utilities/cancellation.mdx).

        Raises:
            LocalProtocolError: no such request is waiting for an answer.
        """
        incoming = self._incoming.pop(request_id, None)
        if incoming is None:
            if request_id in self._forgotten:
                return
            raise LocalProtocolError(f"no request with id {request_id!r} awaits an answer")
        if incoming.modern:
            result = self._finish_result(result, incoming.method)
        self._out.append(Response(id=request_id, result=result))

    def _finish_result(self, result: Any, method: str) -> Any:
        # What a 2026-07-28 result gains on its way out (the server adds to it).
        return result

    def send_error(self, request_id: RequestId, code: int, message: str, data: Any = UNSET) -> None:
        """Answer a request of the peer's with an error.

        Raises:
            LocalProtocolError: no such request is waiting for an answer.
        """
        if self._incoming.pop(request_id, None) is None:
            if request_id in self._forgotten:
                return
            raise LocalProtocolError(f"no request with id {request_id!r} awaits an answer")
        self._out.append(
            ErrorResponse(id=request_id, error=ErrorObject(code=code, message=message, data=data))
        )

    def cancel_request(self, request_id: RequestId, reason: str | None = None) -> None:
        """Give up on one of our requests and tell the peer.

        Its response, should one still come, is dropped quietly.

        Raises:
            LocalProtocolError: no such request, or it is ``initialize``, which must
                never be cancelled (2025-11-25 basic/utilities/cancellation.mdx).
        """
        pending = self._pending.get(request_id)
        if pending is None:
            raise LocalProtocolError(f"no request of ours with id {request_id!r} is pending")
        if pending.method == "initialize":
            raise LocalProtocolError("the initialize request must not be cancelled")
        del self._pending[request_id]
        self._forget(request_id)
        params = CancelledNotificationParams(
            request_id=request_id, reason=UNSET if reason is None else reason
        )
        self._out.append(Notification(method="notifications/cancelled", params=params))

    def abandon_request(self, request_id: RequestId) -> bool:
        """Give up on one of our requests without telling the peer, because the
        transport lost it (its stream broke, the server refused it). A late answer
        is dropped quietly.

        Returns:
            Whether it was pending.
        """
        if self._pending.pop(request_id, None) is None:
            return False
        self._forget(request_id)
        return True

    def send_progress(
        self,
        request_id: RequestId,
        progress: float,
        total: float | None = None,
        message: str | None = None,
    ) -> bool:
        """Report progress on a request of the peer's, if the peer asked for it.

        Returns:
            True if a notification was queued; False when the request carries no
            progress token (progress is opt-in, basic/utilities/progress.mdx).

        Raises:
            LocalProtocolError: the request is not in flight (progress stops at
                completion) or ``progress`` does not increase.
        """
        incoming = self._incoming.get(request_id)
        if incoming is None:
            raise LocalProtocolError(f"request {request_id!r} is not in flight")
        token = incoming.progress_token
        if token is None:
            return False
        if incoming.last_progress is not None and progress <= incoming.last_progress:
            raise LocalProtocolError(
                f"progress must increase: {progress} after {incoming.last_progress}"
            )
        incoming.last_progress = progress
        params = ProgressNotificationParams(
            progress_token=token,
            progress=progress,
            total=UNSET if total is None else total,
            message=UNSET if message is None else message,
        )
        self._out.append(Notification(method="notifications/progress", params=params))
        return True

    # --- time -------------------------------------------------------------------------

    def next_deadline(self) -> float | None:
        """The earliest deadline among our pending requests, or None."""
        deadlines = [p.deadline for p in self._pending.values() if p.deadline is not None]
        return min(deadlines) if deadlines else None

    def handle_timeouts(self, now: float) -> list[Event]:
        """Expire our requests whose deadline is past, cancelling them at the peer.

        Returns:
            One RequestTimedOut event per expired request.
        """
        expired = [
            (rid, p)
            for rid, p in self._pending.items()
            if p.deadline is not None and p.deadline <= now
        ]
        events: list[Event] = []
        for request_id, pending in expired:
            if pending.method == "initialize":
                # Cannot be cancelled: give up on it without telling the peer.
                del self._pending[request_id]
                self._forget(request_id)
            else:
                self.cancel_request(request_id, "request timed out")
            events.append(RequestTimedOut(id=request_id, method=pending.method))
        return events

    def _forget(self, request_id: RequestId) -> None:
        self._forgotten[request_id] = None
        if len(self._forgotten) > _FORGOTTEN_IDS_KEPT:
            self._forgotten.popitem(last=False)

    # --- receiving --------------------------------------------------------------------

    def receive_bytes(self, data: bytes, now: float = 0.0) -> list[Event]:
        """Take one complete message (or, where allowed, a batch) as JSON bytes.

        Args:
            data: exactly one JSON text.
            now: the current time, in the same unit as request timeouts.

        Returns:
            The events the message caused; often one, sometimes none (a pong the
            core answered itself), more for a batch.
        """
        if self.state is _CLOSED:
            return []
        try:
            message = decode_message(data, self.limits)
        except RemoteProtocolError as exc:
            # A batch always lands here (an array is never a message), so asking
            # is_batch only now, rather than before every decode, changes nothing:
            # what follows is what would have happened had we asked first.
            if not is_batch(data):
                return self._violation(exc, reply=True)
            try:
                return self._receive_batch(data, now)
            except RemoteProtocolError as batch_exc:
                return self._violation(batch_exc, reply=True)
        return self.receive_message(message, now)

    def _receive_batch(self, data: bytes, now: float) -> list[Event]:
        # Batches exist only in 2025-03-26 (its basic/index.mdx "Batching"). Each
        # member is handled as if it came alone; their answers go out one by one.
        if self.revision != "2025-03-26":
            raise RemoteProtocolError(
                f"batches are not allowed in protocol revision {self.revision or '(none)'}",
                INVALID_REQUEST,
            )
        events: list[Event] = []
        for member in decode_batch(data, self.limits):
            try:
                message = decode_message(member, self.limits)
            except RemoteProtocolError as exc:
                events.extend(self._violation(exc, reply=True))
                continue
            if type(message) is Request and message.method == "initialize":
                refusal = RemoteProtocolError(
                    "initialize must not be part of a batch",
                    INVALID_REQUEST,
                    request_id=message.id,
                )
                events.extend(self._violation(refusal, reply=True))
                continue
            events.extend(self.receive_message(message, now))
        return events

    def receive_unreadable(self, reason: str) -> list[Event]:
        """Answer a message the transport had to drop unread, e.g. a stdio line over
        its cap (LineTooLong): a -32700 parse error whose id is null, since no id
        could be read (JSON-RPC 2.0 section 5). The session goes on.

        Returns:
            One ProtocolViolation.
        """
        if self.state is _CLOSED:
            return []
        return self._violation(RemoteProtocolError(reason, PARSE_ERROR), reply=True)

    def receive_message(self, message: Message, now: float = 0.0) -> list[Event]:
        """Take one message object (the in-memory mode, or after decode_message).

        Returns:
            The events the message caused.
        """
        if self.state is _CLOSED:
            return []
        kind = type(message)
        try:
            if kind is Response:
                return self._on_response(message, now)  # type: ignore[arg-type]
            if kind is Request:
                return self._on_request(message, now)  # type: ignore[arg-type]
            if kind is Notification:
                return self._on_notification(message, now)  # type: ignore[arg-type]
            return self._on_error_response(message, now)  # type: ignore[arg-type]
        except RemoteProtocolError as exc:
            return self._violation(exc, reply=kind is Request)

    def _violation(self, exc: RemoteProtocolError, *, reply: bool) -> list[Event]:
        if reply:
            # Requests are admitted as in flight only after every check has passed,
            # so a refused request was never in flight; an earlier request with the
            # same id (a peer reusing ids) stays in flight and is answered normally.
            self._out.append(error_reply(exc))
        return [
            ProtocolViolation(
                code=exc.code,
                message=exc.message,
                id=exc.request_id,
                data=UNSET if exc.data is None else exc.data,
            )
        ]

    def _admit_request(
        self, message: Request, progress_token: RequestId | None, modern: bool
    ) -> None:
        if message.id in self._incoming:
            # Do not pop the original: it is still in flight and will be answered.
            raise RemoteProtocolError(
                f"request id {message.id!r} is already in use by a request in flight",
                INVALID_REQUEST,
            )
        self._incoming[message.id] = _Incoming(message.method, progress_token, modern)

    def _on_request(self, message: Request, now: float) -> list[Event]:
        raise NotImplementedError

    def _on_notification(self, message: Notification, now: float) -> list[Event]:
        raise NotImplementedError

    def _on_response(self, message: Response, now: float) -> list[Event]:
        pending = self._pending.pop(message.id, None)
        if pending is None:
            return self._unexpected_answer(message.id)
        result = decode_result(message, pending.decoder)
        return self._on_result(message.id, pending, result)

    def _on_result(self, request_id: RequestId, pending: _Pending, result: Any) -> list[Event]:
        return [ResponseReceived(id=request_id, method=pending.method, result=result)]

    def _on_error_response(self, message: ErrorResponse, now: float) -> list[Event]:
        method: str | None = None
        if message.id is not None:
            pending = self._pending.pop(message.id, None)
            if pending is None:
                return self._unexpected_answer(message.id)
            method = pending.method
        return self._on_error(message, method, now)

    def _on_error(self, message: ErrorResponse, method: str | None, now: float) -> list[Event]:
        return [ErrorReceived(id=message.id, method=method, error=message.error)]

    def _unexpected_answer(self, request_id: RequestId) -> list[Event]:
        if request_id in self._forgotten:
            return []
        # Never answer a response (JSON-RPC 2.0 section 5); report it only.
        return [
            ProtocolViolation(
                code=INVALID_REQUEST,
                message=f"response for unknown request id {request_id!r}",
                id=request_id,
            )
        ]

    # --- shared notifications ---------------------------------------------------------

    def _on_cancelled(self, message: Notification) -> list[Event]:
        params = decode_params(message, _cancelled_decoder)
        request_id = params.request_id
        if request_id is UNSET:
            return []
        incoming = self._incoming.get(request_id)
        # Unknown or finished requests: ignore (cancellation.mdx: the race is normal).
        # initialize cannot be cancelled.
        if incoming is None or incoming.method == "initialize":
            return []
        del self._incoming[request_id]
        self._forget(request_id)
        reason = None if params.reason is UNSET else params.reason
        return [RequestCancelled(id=request_id, reason=reason)]

    def _on_progress(self, message: Notification) -> list[Event]:
        params = decode_params(message, _progress_decoder)
        token = params.progress_token
        # Our progress tokens are the ids of the requests that carry them.
        pending = self._pending.get(token)
        if pending is None or type(pending.progress_token) is not type(token):
            # Progress for a request that completed (or never asked) is dropped.
            return []
        request_id = token
        if pending.last_progress is not None and params.progress <= pending.last_progress:
            raise RemoteProtocolError(
                f"progress must increase: {params.progress} after {pending.last_progress}",
                INVALID_REQUEST,
            )
        pending.last_progress = params.progress
        return [
            ProgressReceived(
                request_id=request_id,
                progress_token=token,
                progress=params.progress,
                total=None if params.total is UNSET else params.total,
                message=None if params.message is UNSET else params.message,
            )
        ]

    def close(self) -> list[RequestId]:
        """Close the session: nothing more is sent or accepted.

        Returns:
            The ids of our requests that were still pending; the caller fails
            whoever waits for them.
        """
        self.state = _CLOSED
        abandoned = list(self._pending)
        self._pending.clear()
        self._incoming.clear()
        return abandoned

    @staticmethod
    def _decode_typed(message: Request | Notification, method: str, revision: str) -> Any:
        spec = method_spec(method, revision)
        if spec is None:
            return decode_params(message, _any_decoder) if message.params is not UNSET else {}
        return decode_params(message, params_decoder(spec))
