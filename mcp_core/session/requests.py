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
# RequestTables holds the tables and what is done with them alone (ids, giving up,
# deadlines, the peer's cancellations and progress); every session has one as a
# member (``_requests``). BaseSession (session/base.py) sends and answers through
# it: what needs the session too (its outgoing queue, its lifecycle, a server's
# 2026-07-28 results) is a method of the session. Sends that meet an empty table
# ask the lifecycle (_local) whether the session is closed or broken, so the
# common case pays nothing for that check.

from __future__ import annotations

from typing import Any, Final

import msgspec
from msgspec import UNSET

from ..types.base import CancelledNotificationParams, ProgressNotificationParams
from ..types.methods import method_spec, result_decoder
from ..wire.errors import INTERNAL_ERROR, INVALID_REQUEST, RemoteProtocolError
from ..wire.jsonrpc import (
    ErrorResponse,
    Limits,
    Message,
    Notification,
    Request,
    RequestId,
    Response,
    decode_params,
)
from .events import (
    Event,
    ProgressReceived,
    ProtocolViolation,
    RequestCancelled,
)
from .lifecycle import SessionState

__all__ = [
    "RequestTables",
    "decoder_for",
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


def with_meta(params: Any, extra: dict[str, Any], *, override: bool = False) -> Any:
    """``params`` with ``extra`` merged into its ``_meta`` (a new object); a key
    the params' own ``_meta`` has wins (a call declaring more per-request
    capabilities than the session's, e.g. the tasks extension), unless
    ``override``: then ``extra``'s do (a sender's trace context replaces what
    relayed params carried from an earlier hop)."""
    if params is UNSET or params is None:
        return {"_meta": extra}
    meta: Any = getattr(params, "meta", _NO_META)  # an MCP Struct has one; a dict has none
    if meta is _NO_META:
        if isinstance(params, dict):
            merged = dict(params)
            own = params.get("_meta") or {}
            merged["_meta"] = {**own, **extra} if override else {**extra, **own}
            return merged
        meta = UNSET
    if not meta:
        return msgspec.structs.replace(params, meta=extra.copy())
    merged = {**meta, **extra} if override else {**extra, **meta}
    return msgspec.structs.replace(params, meta=merged)


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

    # --- ours ------------------------------------------------------------------------

    def new_request(
        self,
        method: str,
        params: Any,
        decoder: msgspec.json.Decoder[Any],
        now: float,
        timeout: float | None,
        progress: bool,
    ) -> Request:
        """A request of ours with a fresh id, pending from now on (with a progress
        token, its id, when ``progress``)."""
        pending = self.pending
        request_id = self.next_id + 1
        while request_id in pending:  # ids are ours alone, but be sure
            request_id += 1
        self.next_id = request_id
        token: RequestId | None = None
        if progress:
            token = request_id
            params = with_meta(params, {"progressToken": token})
        deadline = None if timeout is None else now + timeout
        pending[request_id] = _Pending(method, decoder, deadline, token)
        return Request(id=request_id, method=method, params=params)

    def give_up(self, request_id: RequestId) -> _Pending | None:
        """Stop waiting for one of our requests (its late answer is dropped).

        Returns:
            What was pending, or None if nothing was.
        """
        pending = self.pending.pop(request_id, None)
        if pending is not None:
            self.forget(request_id)
        return pending

    def next_deadline(self) -> float | None:
        """The earliest deadline among our pending requests, or None."""
        deadlines = [p.deadline for p in self.pending.values() if p.deadline is not None]
        return min(deadlines) if deadlines else None

    def overdue(self, now: float) -> list[tuple[RequestId, _Pending]]:
        """Our pending requests whose deadline is past, oldest first."""
        return [
            (rid, p)
            for rid, p in self.pending.items()
            if p.deadline is not None and p.deadline <= now
        ]

    def unexpected_answer(self, request_id: RequestId) -> list[Event]:
        """The events of an answer to no request of ours that waits: none for one
        we gave up on, else a ProtocolViolation (never answered: JSON-RPC 2.0
        section 5)."""
        if request_id in self.forgotten:
            return []
        return [
            ProtocolViolation(
                code=INVALID_REQUEST,
                message=f"response for unknown request id {request_id!r}",
                id=request_id,
            )
        ]

    def progress_received(self, message: Notification) -> list[Event]:
        """The peer's notifications/progress on a request of ours.

        Raises:
            RemoteProtocolError: the progress does not increase (-32600).
        """
        params = decode_params(message, _progress_decoder)
        token = params.progress_token
        # Our progress tokens are the ids of the requests that carry them.
        pending = self.pending.get(token)
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

    # --- theirs ----------------------------------------------------------------------

    def answered(self, request_id: RequestId) -> _Incoming | None:
        """Take a request of theirs out of flight, as it is answered; None: it is
        not in flight."""
        table = self.incoming
        incoming = table.pop(request_id, None)
        if incoming is not None and not table:
            table.clear()  # gives back its slots: an idle session keeps an empty dict
        return incoming

    def cancelled(self, message: Notification) -> list[Event]:
        """The peer's notifications/cancelled: the request it names leaves flight
        (anything we would still send for it is dropped)."""
        params = decode_params(message, _cancelled_decoder)
        request_id = params.request_id
        if request_id is UNSET:
            return []
        incoming = self.incoming.get(request_id)
        # Unknown or finished requests: ignore (cancellation.mdx: the race is normal).
        # initialize cannot be cancelled.
        if incoming is None or incoming.method == "initialize":
            return []
        del self.incoming[request_id]
        self.forget(request_id)
        reason = None if params.reason is UNSET else params.reason
        return [RequestCancelled(id=request_id, reason=reason)]

    def holds(self, message: Message) -> bool:
        """Whether ``message`` concerns what these tables hold (see
        `BaseSession.held_here`)."""
        if type(message) is Response or type(message) is ErrorResponse:
            return message.id is None or message.id in self.pending
        if type(message) is Notification and message.method == "notifications/cancelled":
            try:
                request_id = decode_params(message, _cancelled_decoder).request_id
            except RemoteProtocolError:
                return True
            return request_id is UNSET or request_id in self.incoming
        return True


def decoder_for(method: str, revision: str | None) -> msgspec.json.Decoder[Any]:
    """The decoder of ``method``'s result in ``revision`` (any JSON if unknown)."""
    spec = method_spec(method, revision) if revision is not None else None
    if spec is None or spec.result_type is None:
        return _any_decoder
    return result_decoder(spec)
