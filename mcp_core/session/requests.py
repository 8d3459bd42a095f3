# Requests both ways: ids, the pending and in-flight tables, cancellation,
# progress and timeouts, shared by both session roles (2025-11-25 and 2026-07-28
# basic/index.mdx, basic/utilities or basic/patterns):
#
#   - request ids: ours are increasing integers, never reused while in flight;
#     an incoming id that duplicates one still in flight is refused (-32600).
#   - the pending table: every request we send waits here for its response, with
#     the typed decoder of its result, an optional deadline and a progress token.
#   - the in-flight table: every request of theirs we have admitted and not yet
#     answered; at most Limits.max_requests_in_flight of them (one more is refused
#     with -32603 before it reaches the application).
#   - cancellation both ways: notifications/cancelled for our requests (never for
#     initialize), and for theirs a RequestCancelled event after which anything we
#     would send for that request is dropped. Responses that arrive for requests we
#     cancelled or timed out are dropped silently.
#   - progress both ways: tokens are ints or strings, progress must increase, and
#     nothing is reported for a request once it has completed.
#   - timeouts: deadlines are computed from the ``now`` the caller passes in;
#     handle_timeouts(now) expires them, and next_deadline() says when to call it.
#
# RequestTables holds the tables; every session has one as a member
# (``_requests``). The functions after it are what a session does with them: BaseSession
# (session/base.py) takes each as a method, and adds the lifecycle and the receive
# entry points. Sends that meet an empty table ask the lifecycle (_local) whether the
# session is closed or broken, so the common case pays nothing for that check.

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

import msgspec
from msgspec import UNSET

from ..types.base import CancelledNotificationParams, ProgressNotificationParams
from ..types.methods import method_spec, result_decoder
from ..wire.errors import INTERNAL_ERROR, INVALID_REQUEST, LocalProtocolError, RemoteProtocolError
from ..wire.jsonrpc import (
    ErrorObject,
    ErrorResponse,
    Limits,
    Message,
    Notification,
    Request,
    RequestId,
    Response,
    decode_params,
    decode_result,
)
from .events import (
    ErrorReceived,
    Event,
    ProgressReceived,
    ProtocolViolation,
    RequestCancelled,
    RequestTimedOut,
    ResponseReceived,
)
from .lifecycle import SEND_NOTIFICATION, SEND_RESPONSE, SessionState

if TYPE_CHECKING:
    from .base import BaseSession

__all__ = [
    "RequestTables",
    "with_meta",
    "progress_token_of",
    "duplicate_id_refusal",
    "over_limit_refusal",
]

_READY: Final = SessionState.READY
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
    """``params`` with ``extra`` merged into its ``_meta`` (a new object); a key
    the params' own ``_meta`` has wins (a call declaring more per-request
    capabilities than the session's, e.g. the tasks extension)."""
    if params is UNSET or params is None:
        return {"_meta": extra}
    meta: Any = getattr(params, "meta", _NO_META)  # an MCP Struct has one; a dict has none
    if meta is _NO_META:
        if isinstance(params, dict):
            merged = dict(params)
            merged["_meta"] = {**extra, **(params.get("_meta") or {})}
            return merged
        meta = UNSET
    return msgspec.structs.replace(params, meta={**extra, **meta} if meta else extra.copy())


_NO_META: Final = object()


def progress_token_of(params: Any) -> RequestId | None:
    """The ``_meta.progressToken`` of typed params, if present and well-typed."""
    meta = getattr(params, "meta", None)
    if not meta:
        return None
    token = meta.get("progressToken")
    if type(token) is int or type(token) is str:
        return token
    return None


def duplicate_id_refusal(request_id: RequestId) -> RemoteProtocolError:
    """The refusal of a request whose id one of theirs in flight already has
    (2026-07-28 basic/index.mdx "Requests": an id MUST NOT match one still
    unanswered). It names no request id: the reply must not answer the original."""
    return RemoteProtocolError(
        f"request id {request_id!r} is already in use by a request in flight", INVALID_REQUEST
    )


def over_limit_refusal(limit: int, request_id: RequestId) -> RemoteProtocolError:
    """The refusal of a request past Limits.max_requests_in_flight.

    -32603: the standard code for a failure on our side rather than in the request
    (JSON-RPC 2.0 section 5.1). 2026-07-28 basic/index.mdx "Error Codes" reserves
    -32020..-32099 for codes the spec defines and asks new implementations not to
    use -32000..-32019, and a code outside the reserved range would mean nothing to
    a generic client.
    """
    return RemoteProtocolError(
        f"too many requests in flight (the limit is {limit}); "
        "retry once earlier requests are answered",
        INTERNAL_ERROR,
        data={"maxRequestsInFlight": limit},
        request_id=request_id,
    )


class RequestTables:
    """The tables of requests, both ways: ours waiting for an answer (pending),
    theirs admitted and not yet answered (incoming, at most max_in_flight), and
    the ids of ours we gave up on (forgotten). A member of every session
    (``session._requests``); the session's methods below send through it."""

    __slots__ = ("forgotten", "incoming", "max_in_flight", "next_id", "pending")

    def __init__(self, limits: Limits) -> None:
        self.pending: dict[RequestId, _Pending] = {}
        self.incoming: dict[RequestId, _Incoming] = {}
        # Ids given up on, oldest first (a dict keeps insertion order, and costs
        # half an OrderedDict in every idle session).
        self.forgotten: dict[RequestId, None] = {}
        self.next_id = 0
        self.max_in_flight = limits.max_requests_in_flight

    def forget(self, request_id: RequestId) -> None:
        """Remember that we gave up on ``request_id``: its late answer is dropped."""
        forgotten = self.forgotten
        forgotten[request_id] = None
        if len(forgotten) > _FORGOTTEN_IDS_KEPT:
            del forgotten[next(iter(forgotten))]


# What a session does with its tables. BaseSession (session/base.py) takes each
# function below as its method of the same name (the private ones with a leading
# underscore), as ServerSession takes per_request.finish_result: the session is
# ``session``.

# --- output -----------------------------------------------------------------------


def messages_to_send(session: BaseSession) -> list[Message]:
    """Take every message queued for the peer, oldest first."""
    out = session._out
    session._out = []
    return out


def pending_requests(session: BaseSession) -> int:
    """How many of our requests wait for a response."""
    return len(session._requests.pending)


def requests_in_flight(session: BaseSession) -> int:
    """How many of the peer's requests we have not answered yet."""
    return len(session._requests.incoming)


# --- sending ----------------------------------------------------------------------


def queue_request(
    session: BaseSession,
    method: str,
    params: Any,
    decoder: msgspec.json.Decoder[Any],
    now: float,
    timeout: float | None,
    progress: bool,
) -> RequestId:
    pending = session._requests.pending
    request_id = session._requests.next_id + 1
    while request_id in pending:  # ids are ours alone, but be sure
        request_id += 1
    session._requests.next_id = request_id
    token: RequestId | None = None
    if progress:
        token = request_id
        params = with_meta(params, {"progressToken": token})
    deadline = None if timeout is None else now + timeout
    pending[request_id] = _Pending(method, decoder, deadline, token)
    session._out.append(Request(id=request_id, method=method, params=params))
    return request_id


def decoder_for(
    session: BaseSession, method: str, revision: str | None
) -> msgspec.json.Decoder[Any]:
    spec = method_spec(method, revision) if revision is not None else None
    if spec is None or spec.result_type is None:
        return _any_decoder
    return result_decoder(spec)


def send_response(session: BaseSession, request_id: RequestId, result: Any) -> None:
    """Answer a request of the peer's with a result.

    An answer to a request the peer has cancelled is dropped, as the
    cancellation rules require (basic/utilities/cancellation.mdx).

    Raises:
        LocalProtocolError: no such request is waiting for an answer, or the
            session is closed or broken.
    """
    table = session._requests.incoming
    incoming = table.pop(request_id, None)
    if incoming is None:
        session._unanswerable(request_id)
        return
    if not table:
        table.clear()  # gives back its slots: an idle session keeps an empty dict
    if incoming.modern:
        result = session._finish_result(result, incoming.method)
    session._out.append(Response(id=request_id, result=result))


def unanswerable(session: BaseSession, request_id: RequestId) -> None:
    # Off the hot path: an answer to a request that is not in flight.
    if session.state is not _READY:
        session._local(SEND_RESPONSE)
    if request_id in session._requests.forgotten:
        return
    raise LocalProtocolError(f"no request with id {request_id!r} awaits an answer")


def finish_result(session: BaseSession, result: Any, method: str) -> Any:
    # What a 2026-07-28 result gains on its way out (the server adds to it).
    return result


def send_error(
    session: BaseSession, request_id: RequestId, code: int, message: str, data: Any = UNSET
) -> None:
    """Answer a request of the peer's with an error.

    Raises:
        LocalProtocolError: no such request is waiting for an answer, or the
            session is closed or broken.
    """
    table = session._requests.incoming
    if table.pop(request_id, None) is None:
        session._unanswerable(request_id)
        return
    if not table:
        table.clear()
    session._out.append(
        ErrorResponse(id=request_id, error=ErrorObject(code=code, message=message, data=data))
    )


def cancel_request(session: BaseSession, request_id: RequestId, reason: str | None = None) -> None:
    """Give up on one of our requests and tell the peer.

    Its response, should one still come, is dropped quietly.

    Raises:
        LocalProtocolError: no such request, or it is ``initialize``, which must
            never be cancelled (2025-11-25 basic/utilities/cancellation.mdx),
            or the session is closed or broken.
    """
    if session.state is not _READY:
        session._local(SEND_NOTIFICATION, "notifications/cancelled")
    pending = session._requests.pending.get(request_id)
    if pending is None:
        raise LocalProtocolError(f"no request of ours with id {request_id!r} is pending")
    if pending.method == "initialize":
        raise LocalProtocolError("the initialize request must not be cancelled")
    del session._requests.pending[request_id]
    session._requests.forget(request_id)
    params = CancelledNotificationParams(
        request_id=request_id, reason=UNSET if reason is None else reason
    )
    session._out.append(Notification(method="notifications/cancelled", params=params))


def abandon_request(session: BaseSession, request_id: RequestId) -> bool:
    """Give up on one of our requests without telling the peer, because the
    transport lost it (its stream broke, the server refused it). A late answer
    is dropped quietly.

    Returns:
        Whether it was pending.
    """
    if session._requests.pending.pop(request_id, None) is None:
        return False
    session._requests.forget(request_id)
    return True


def send_progress(
    session: BaseSession,
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
            completion; in a broken or closed session nothing is), or
            ``progress`` does not increase.
    """
    incoming = session._requests.incoming.get(request_id)
    if incoming is None:
        if session.state is not _READY:
            session._local(SEND_NOTIFICATION, "notifications/progress")
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
    session._out.append(Notification(method="notifications/progress", params=params))
    return True


# --- time -------------------------------------------------------------------------


def next_deadline(session: BaseSession) -> float | None:
    """The earliest deadline among our pending requests, or None."""
    if session.state is _ERROR:
        return None
    deadlines = [p.deadline for p in session._requests.pending.values() if p.deadline is not None]
    return min(deadlines) if deadlines else None


def handle_timeouts(session: BaseSession, now: float) -> list[Event]:
    """Expire our requests whose deadline is past, cancelling them at the peer.

    Returns:
        One RequestTimedOut event per expired request (none once the session
        is broken: its requests wait for close()).
    """
    if session.state is _ERROR:
        return []
    expired = [
        (rid, p)
        for rid, p in session._requests.pending.items()
        if p.deadline is not None and p.deadline <= now
    ]
    events: list[Event] = []
    for request_id, pending in expired:
        if pending.method == "initialize":
            # Cannot be cancelled: give up on it without telling the peer.
            del session._requests.pending[request_id]
            session._requests.forget(request_id)
        else:
            session.cancel_request(request_id, "request timed out")
        events.append(RequestTimedOut(id=request_id, method=pending.method))
    return events


def on_response(session: BaseSession, message: Response, now: float) -> list[Event]:
    pending = session._requests.pending.pop(message.id, None)
    if pending is None:
        return session._unexpected_answer(message.id)
    result = decode_result(message, pending.decoder)
    return session._on_result(message.id, pending, result)


def on_result(
    session: BaseSession, request_id: RequestId, pending: _Pending, result: Any
) -> list[Event]:
    return [ResponseReceived(id=request_id, method=pending.method, result=result)]


def on_error_response(session: BaseSession, message: ErrorResponse, now: float) -> list[Event]:
    method: str | None = None
    if message.id is not None:
        pending = session._requests.pending.pop(message.id, None)
        if pending is None:
            return session._unexpected_answer(message.id)
        method = pending.method
    return session._on_error(message, method, now)


def on_error(
    session: BaseSession, message: ErrorResponse, method: str | None, now: float
) -> list[Event]:
    return [ErrorReceived(id=message.id, method=method, error=message.error)]


def unexpected_answer(session: BaseSession, request_id: RequestId) -> list[Event]:
    if request_id in session._requests.forgotten:
        return []
    # Never answer a response (JSON-RPC 2.0 section 5); report it only.
    return [
        ProtocolViolation(
            code=INVALID_REQUEST,
            message=f"response for unknown request id {request_id!r}",
            id=request_id,
        )
    ]


def held_here(session: BaseSession, message: Message) -> bool:
    """Whether ``message`` concerns what this session holds in this process.

    A runtime that shares one session between processes feeds a message to the
    process that holds what it names, and passes the others on: an answer goes
    where its request waits, and a cancellation where the request it names is
    served (2025-11-25 basic/utilities/cancellation.mdx: the receiver stops
    processing it). Every other message, and a cancellation that cannot be
    read (ignored wherever it is fed), is held here.
    """
    if type(message) is Response or type(message) is ErrorResponse:
        return message.id is None or message.id in session._requests.pending
    if type(message) is Notification and message.method == "notifications/cancelled":
        try:
            request_id = decode_params(message, _cancelled_decoder).request_id
        except RemoteProtocolError:
            return True
        return request_id is UNSET or request_id in session._requests.incoming
    return True


# --- shared notifications ---------------------------------------------------------


def on_cancelled(session: BaseSession, message: Notification) -> list[Event]:
    params = decode_params(message, _cancelled_decoder)
    request_id = params.request_id
    if request_id is UNSET:
        return []
    incoming = session._requests.incoming.get(request_id)
    # Unknown or finished requests: ignore (cancellation.mdx: the race is normal).
    # initialize cannot be cancelled.
    if incoming is None or incoming.method == "initialize":
        return []
    del session._requests.incoming[request_id]
    session._requests.forget(request_id)
    reason = None if params.reason is UNSET else params.reason
    return [RequestCancelled(id=request_id, reason=reason)]


def on_progress(session: BaseSession, message: Notification) -> list[Event]:
    params = decode_params(message, _progress_decoder)
    token = params.progress_token
    # Our progress tokens are the ids of the requests that carry them.
    pending = session._requests.pending.get(token)
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
