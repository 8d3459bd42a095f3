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
# What both roles share: the request tables (ids, pending, in flight) as a member,
# RequestTables, with what the session does through them (cancellation, progress,
# timeouts: its methods, session/requests.py), what the session sends and answers
# through it, and the lifecycle and the receive entry points.
#
# The lifecycle (what may arrive or be sent in which state) is the table of
# session/lifecycle.py; this class runs it: _step() for what arrives, _local() for what
# our caller asks, each consulted only when the state is not READY (and, for a
# stateless server, NEW), whose ordinary rows the sessions call directly.
#
# Errors, as h11 splits them: a bad *message* from the peer gets an error reply
# (when it was a request) and a ProtocolViolation event, and the session carries
# on. Misuse by our caller raises LocalProtocolError and changes nothing. A broken
# *channel* (send_failed, receive_failed, or a peer we cannot speak with) puts the
# session in ERROR for good: receiving raises RemoteProtocolError, sending raises
# LocalProtocolError, nothing is queued.
#
# Requests in flight are capped (Limits.max_requests_in_flight): one more is
# refused with -32603 before it reaches the application.

from __future__ import annotations

from typing import Any, ClassVar, Final

import msgspec
from msgspec import UNSET

from ..types.base import CancelledNotificationParams, ProgressNotificationParams
from ..types.methods import method_spec, params_decoder
from ..wire.errors import (
    INTERNAL_ERROR,
    INVALID_REQUEST,
    PARSE_ERROR,
    LocalProtocolError,
    RemoteProtocolError,
)
from ..wire.jsonrpc import (
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
from ..wire.peek import answer_id
from .events import (
    ErrorReceived,
    Event,
    ProtocolViolation,
    RequestTimedOut,
    ResponseReceived,
)
from .lifecycle import (
    CLOSE,
    OTHER_NOTIFICATION,
    OTHER_RESPONSE,
    RECEIVE_FAILED,
    SEND_FAILED,
    SEND_NOTIFICATION,
    SEND_RESPONSE,
    Compiled,
    SessionState,
    compile_rules,
)
from .requests import (
    RequestTables,
    _any_decoder,
    _Incoming,
    decoder_for,
    duplicate_id_refusal,
    over_limit_refusal,
)

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

MAX_UNREADABLE_IN_A_ROW: Final = 32
"""Messages from a server that a client cannot read (not JSON, no JSON-RPC shape, no
id), one after another, before it takes the channel as lost: a few stray lines (a
server's own print, say) pass; a server writing garbage fails the connection with
that reason instead of looping until a timeout."""


# The states as plain module constants: every message is checked against them, and a
# global read costs less than an attribute lookup on the Enum class.
_READY: Final = SessionState.READY
_CLOSED: Final = SessionState.CLOSED
_ERROR: Final = SessionState.ERROR


class BaseSession:
    """What ClientSession and ServerSession share. Not used on its own.

    Attributes:
        state: the lifecycle state (a SessionState).
        revision: the protocol revision in use; None until negotiated or detected.
        error_reason: why the session is in ERROR; None while it is not.
    """

    #: Which side we are: "client" or "server".
    our_role: str = ""
    # Messages in a row that could not be read (a client gives up past a bound).
    _unreadable = 0
    #: Whether the message being taken was decoded here from bytes: its typed params
    #: then hold plain JSON values, as Raw params would (session/per_request.py).
    _from_wire = False
    #: How receive_bytes decodes a message (both roles read some in one pass).
    _decode = staticmethod(decode_message)
    # The lifecycle table's rows for our role, resolved to our methods (see
    # _lifecycle.compile_rules): {state: {kind: (function, next state or None)}}.
    _received_rules: ClassVar[Compiled] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.our_role:
            cls._received_rules, cls._local_rules = compile_rules(cls, cls.our_role)

    #: Requests the core answers the moment they arrive: they hold nothing, so the
    #: in-flight cap never refuses them (ping.mdx: a ping MUST be answered promptly).
    _answered_at_once: frozenset[str] = frozenset({"ping"})
    # The lifecycle table's rows for what our caller asks, resolved likewise.
    _local_rules: ClassVar[Compiled] = {}

    def __init__(self, limits: Limits = DEFAULT_LIMITS) -> None:
        #: The tables of requests both ways (session/requests.py).
        self._requests = RequestTables(limits)
        # Everything we send, drained by messages_to_send (as h2's data_to_send).
        self._out: list[Message] = []
        self.limits = limits
        self.state = SessionState.NEW
        self.revision: str | None = None
        self.error_reason: str | None = None

    # --- the request tables (session/requests.py) -------------------------------------

    def messages_to_send(self) -> list[Message]:
        """Take every message queued for the peer, oldest first."""
        out = self._out
        self._out = []
        return out

    @property
    def pending_requests(self) -> int:
        """How many of our requests wait for a response."""
        return len(self._requests.pending)

    @property
    def requests_in_flight(self) -> int:
        """How many of the peer's requests we have not answered yet."""
        return len(self._requests.incoming)

    def awaits(self, request_id: RequestId) -> bool:
        """Whether a request of ours with this id waits for its answer (a runtime
        that shares a session between processes routes an answer to the one
        that awaits it)."""
        return request_id in self._requests.pending

    def held_here(self, message: Message) -> bool:
        """Whether ``message`` concerns what this session holds in this process.

        A runtime that shares one session between processes feeds a message to the
        process that holds what it names, and passes the others on: an answer goes
        where its request waits, and a cancellation where the request it names is
        served (2025-11-25 basic/utilities/cancellation.mdx: the receiver stops
        processing it). Every other message, and a cancellation that cannot be
        read (ignored wherever it is fed), is held here.
        """
        return self._requests.holds(message)

    def send_response(self, request_id: RequestId, result: Any) -> None:
        """Answer a request of the peer's with a result.

        An answer to a request the peer has cancelled is dropped, as the
        cancellation rules require (basic/utilities/cancellation.mdx).

        Raises:
            LocalProtocolError: no such request is waiting for an answer, or the
                session is closed or broken.
        """
        # RequestTables.answered, inlined: once for every request answered.
        table = self._requests.incoming
        incoming = table.pop(request_id, None)
        if incoming is None:
            self._unanswerable(request_id)
            return
        if not table:
            table.clear()  # gives back its slots: an idle session keeps an empty dict
        if incoming.modern:
            result = self._finish_result(result, incoming.method)
        self._out.append(Response(id=request_id, result=result))

    def send_error(self, request_id: RequestId, code: int, message: str, data: Any = UNSET) -> None:
        """Answer a request of the peer's with an error.

        Raises:
            LocalProtocolError: no such request is waiting for an answer, or the
                session is closed or broken.
        """
        if self._requests.answered(request_id) is None:
            self._unanswerable(request_id)
            return
        error = ErrorObject(code=code, message=message, data=data)
        self._out.append(ErrorResponse(id=request_id, error=error))

    def _unanswerable(self, request_id: RequestId) -> None:
        # Off the hot path: an answer to a request that is not in flight.
        if self.state is not _READY:
            self._local(SEND_RESPONSE)
        if request_id in self._requests.forgotten:
            return
        raise LocalProtocolError(f"no request with id {request_id!r} awaits an answer")

    def _finish_result(self, result: Any, method: str) -> Any:
        # What a 2026-07-28 result gains on its way out (the server adds to it).
        return result

    def cancel_request(self, request_id: RequestId, reason: str | None = None) -> None:
        """Give up on one of our requests and tell the peer.

        Its response, should one still come, is dropped quietly.

        Raises:
            LocalProtocolError: no such request, or it is ``initialize``, which must
                never be cancelled (2025-11-25 basic/utilities/cancellation.mdx),
                or the session is closed or broken.
        """
        if self.state is not _READY:
            self._local(SEND_NOTIFICATION, "notifications/cancelled")
        pending = self._requests.pending.get(request_id)
        if pending is None:
            raise LocalProtocolError(f"no request of ours with id {request_id!r} is pending")
        if pending.method == "initialize":
            raise LocalProtocolError("the initialize request must not be cancelled")
        self._requests.give_up(request_id)
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
        return self._requests.give_up(request_id) is not None

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
                completion; in a broken or closed session nothing is), or
                ``progress`` does not increase.
        """
        incoming = self._requests.incoming.get(request_id)
        if incoming is None:
            if self.state is not _READY:
                self._local(SEND_NOTIFICATION, "notifications/progress")
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

    def next_deadline(self) -> float | None:
        """The earliest deadline among our pending requests, or None."""
        if self.state is _ERROR:
            return None
        return self._requests.next_deadline()

    def handle_timeouts(self, now: float) -> list[Event]:
        """Expire our requests whose deadline is past, cancelling them at the peer.

        Returns:
            One RequestTimedOut event per expired request (none once the session
            is broken: its requests wait for close()).
        """
        if self.state is _ERROR:
            return []
        events: list[Event] = []
        for request_id, pending in self._requests.overdue(now):
            if pending.method == "initialize":
                # Cannot be cancelled: give up on it without telling the peer.
                self._requests.give_up(request_id)
            else:
                self.cancel_request(request_id, "request timed out")
            events.append(RequestTimedOut(id=request_id, method=pending.method))
        return events

    def _queue_request(
        self,
        method: str,
        params: Any,
        decoder: msgspec.json.Decoder[Any],
        now: float,
        timeout: float | None,
        progress: bool,
    ) -> RequestId:
        request = self._requests.new_request(method, params, decoder, now, timeout, progress)
        self._out.append(request)
        return request.id

    _decoder_for = staticmethod(decoder_for)

    def _on_response(self, message: Response, now: float) -> list[Event]:
        pending = self._requests.pending.pop(message.id, None)
        if pending is None:
            return self._requests.unexpected_answer(message.id)
        result = decode_result(message, pending.decoder)
        return [ResponseReceived(id=message.id, method=pending.method, result=result)]

    def _on_error_response(self, message: ErrorResponse, now: float) -> list[Event]:
        method: str | None = None
        if message.id is not None:
            pending = self._requests.pending.pop(message.id, None)
            if pending is None:
                return self._requests.unexpected_answer(message.id)
            method = pending.method
        return [ErrorReceived(id=message.id, method=method, error=message.error)]

    def _admit_request(
        self, message: Request, progress_token: RequestId | None, modern: bool
    ) -> None:
        # Take one of their requests in flight, or refuse it: its id is in flight
        # already (-32600), or too many are (-32603) and it is not answered at once.
        tables = self._requests
        incoming = tables.incoming
        if message.id in incoming:
            raise duplicate_id_refusal(message.id)
        limit = tables.max_in_flight
        if len(incoming) >= limit and message.method not in self._answered_at_once:
            raise over_limit_refusal(limit, message.id)
        incoming[message.id] = _Incoming(message.method, progress_token, modern)

    # --- the lifecycle table ----------------------------------------------------------

    def _local(self, kind: str, subject: str = "") -> None:
        # Our caller asks for ``kind`` (``subject``: the method, or a reason). The
        # row's action refuses by raising LocalProtocolError; else its state follows.
        rule = self._local_rules[self.state].get(kind)
        if rule is None:
            raise LocalProtocolError(f"cannot {kind} while the session is {self.state.value}")
        action, next_state = rule
        action(self, subject)
        if next_state is not None:
            self.state = next_state

    def _step(self, kind: str, message: Any, now: float) -> list[Event]:
        # A received message of ``kind``: its row's action, then its row's state.
        rule = self._received_rules[self.state].get(kind)
        if rule is None:
            return self._out_of_order(kind, message, now)
        action, next_state = rule
        events: list[Event] = action(self, message, now)
        if next_state is not None:
            self.state = next_state
        return events

    def _out_of_order(self, kind: str, message: Any, now: float) -> list[Event]:
        # What the table lacks is a protocol error: -32600, replied to a request.
        raise RemoteProtocolError(
            f"a {kind} is not expected while the session is {self.state.value}",
            INVALID_REQUEST,
            request_id=message.id if type(message) is Request else None,
        )

    def _answer_kind(self, message: Response | ErrorResponse) -> str:
        # Which answer this is, for the table (the client tells its handshake apart).
        return OTHER_RESPONSE

    def _receive_dead(self) -> list[Event]:
        # CLOSED and ERROR treat every received kind alike (one action per state in
        # the table), so the message need not even be decoded to pick its row.
        action, _ = self._received_rules[self.state][OTHER_NOTIFICATION]
        events: list[Event] = action(self, None, 0.0)
        return events

    # Actions shared by both roles (the table names them without the underscore).

    def _ignore(self, message: Any, now: float) -> list[Event]:
        return []

    def _drop(self, message: Any, now: float) -> list[Event]:
        return []  # CLOSED: nothing more is accepted, nothing is answered

    def _raise_broken(self, message: Any, now: float) -> list[Event]:
        raise RemoteProtocolError(
            f"the session is broken ({self.error_reason}); nothing more can be received",
            INTERNAL_ERROR,
        )

    def _take_answer(self, message: Response | ErrorResponse, now: float) -> list[Event]:
        if type(message) is Response:
            return self._on_response(message, now)
        assert type(message) is ErrorResponse
        return self._on_error_response(message, now)

    def _allow(self, subject: str) -> None:
        return None

    def _refuse_send_closed(self, subject: str) -> None:
        raise LocalProtocolError("the session is closed")

    def _refuse_send_broken(self, subject: str) -> None:
        raise LocalProtocolError(f"the session is broken ({self.error_reason})")

    def _break_channel(self, reason: str) -> None:
        # Nothing queued can leave any more, and no request of theirs can be
        # answered; ours stay pending for close() to hand back.
        self.error_reason = reason
        self._out.clear()
        self._requests.incoming.clear()

    def _ignore_channel(self, reason: str) -> None:
        return None  # already over: the first reason stands

    def _abandon_requests(self, reason: str) -> None:
        self._requests.pending.clear()
        self._requests.incoming.clear()
        self._out.clear()

    def _fail(self, reason: str) -> None:
        # An action found the channel broken (a peer we cannot speak with).
        self._break_channel(reason)
        self.state = SessionState.ERROR

    # --- sending ----------------------------------------------------------------------

    def send_notification(self, method: str, params: Any = UNSET) -> None:
        """Queue a notification.

        Raises:
            LocalProtocolError: the session is closed or broken.
        """
        if self.state is not _READY:
            self._local(SEND_NOTIFICATION, method)
        self._out.append(Notification(method=method, params=params))

    def fail_request(self, request_id: RequestId, error: BaseException | str) -> None:
        """Answer a request of the peer's whose handler failed: -32603.

        The rule every adapter applies to a handler's unexpected exception: the
        request gets a JSON-RPC "Internal error" answer (JSON-RPC 2.0 section 5.1,
        -32603; 2026-07-28 basic/index.mdx "Error Codes" keeps the standard codes)
        and the session goes on. The message is "Internal error: " and the
        exception's text (its type's name when it has none), or ``error`` itself
        when it is a string. Errors the handler meant to send with their own code
        go through send_error.

        Raises:
            LocalProtocolError: no such request is waiting for an answer, or the
                session is closed or broken; nothing is queued and nothing changes.
                (A request the peer cancelled is answered by nothing, silently.)
        """
        detail = error if isinstance(error, str) else str(error) or type(error).__name__
        self.send_error(request_id, INTERNAL_ERROR, f"Internal error: {detail}")

    # --- receiving --------------------------------------------------------------------

    def receive_bytes(self, data: bytes, now: float = 0.0) -> list[Event]:
        """Take one complete message (or, where allowed, a batch) as JSON bytes.

        Args:
            data: exactly one JSON text.
            now: the current time, in the same unit as request timeouts.

        Returns:
            The events the message caused; often one, sometimes none (a pong the
            core answered itself), more for a batch. None once CLOSED.

        Raises:
            RemoteProtocolError: the session is in ERROR (sticky): nothing was
                read, nothing queued, and the state stays ERROR.
        """
        state = self.state
        if state is _CLOSED or state is _ERROR:
            return self._receive_dead()
        try:
            # A server reads requests in one pass: the params of a known method come
            # out typed, which decode_params hands back as they are
            # (wire/jsonrpc.py OnePassDecoder); a client, large responses to its
            # requests with their result (session/answers.py), else the envelope.
            message = self._decode(data, self.limits)
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
        # receive_message reads the typed params of a message decoded here as plain
        # JSON values (session/per_request.py).
        self._from_wire = True
        try:
            return self.receive_message(message, now)
        finally:
            self._from_wire = False

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

    def receive_unreadable(self, reason: str, head: bytes | None = None) -> list[Event]:
        """Answer a message the transport had to drop unread, e.g. a stdio line over
        its cap (LineTooLong): a -32700 parse error whose id is null, since no id
        could be read (JSON-RPC 2.0 section 5). The session goes on.

        A client is told the start of a message dropped for its size (``head``):
        it must not wait forever for an answer it lost. If the head is the start
        of an answer to a request of ours (`mcp_core.wire.peek.answer_id`), that
        request fails (a local ErrorReceived, -32700, ``reason``); otherwise the
        client cannot tell what it lost, and the channel fails with ``reason``.

        Returns:
            One ProtocolViolation (none once CLOSED), or a client's ErrorReceived.

        Raises:
            RemoteProtocolError: the session is in ERROR (see receive_bytes), or a
                client's channel failed just now.
        """
        state = self.state
        if state is _CLOSED or state is _ERROR:
            return self._receive_dead()
        if head is not None and self.our_role == "client":
            return self._lost_answer(reason, head)
        return self._violation(RemoteProtocolError(reason, PARSE_ERROR), reply=True)

    def _lost_answer(self, reason: str, head: bytes) -> list[Event]:
        request_id = answer_id(head)
        pending = self._requests.pending.get(request_id) if request_id is not None else None
        if request_id is None or pending is None:
            reason = f"the server wrote a {reason}, and which request it answers cannot be read"
            self._local(RECEIVE_FAILED, reason)
            raise RemoteProtocolError(reason, PARSE_ERROR)
        self.abandon_request(request_id)
        error = ErrorObject(code=PARSE_ERROR, message=f"the answer is a {reason}")
        return [ErrorReceived(id=request_id, method=pending.method, error=error, local=True)]

    def receive_message(self, message: Message, now: float = 0.0) -> list[Event]:
        """Take one message object (the in-memory mode, or after decode_message).

        Returns:
            The events the message caused (none once CLOSED).

        Raises:
            RemoteProtocolError: the session is in ERROR (see receive_bytes).
        """
        state = self.state
        if state is _CLOSED or state is _ERROR:
            return self._receive_dead()
        if self._unreadable:
            self._unreadable = 0  # a readable message ends a run of unreadable ones
        # One look at the message's exact type: ``taken`` is the message as the
        # handler of that type takes it (mypy cannot narrow through ``kind``).
        kind = type(message)
        taken: Any = message
        try:
            if kind is Response:
                if state is _READY:  # the table's READY row: take_answer
                    return self._on_response(taken, now)
                return self._step(self._answer_kind(taken), message, now)
            if kind is Request:
                return self._on_request(taken, now)
            if kind is Notification:
                return self._on_notification(taken, now)
            if state is _READY:
                return self._on_error_response(taken, now)
            return self._step(self._answer_kind(taken), message, now)
        except RemoteProtocolError as exc:
            return self._violation(exc, reply=kind is Request)

    def _on_request(self, message: Request, now: float) -> list[Event]:
        raise NotImplementedError

    def _on_notification(self, message: Notification, now: float) -> list[Event]:
        raise NotImplementedError

    def _violation(self, exc: RemoteProtocolError, *, reply: bool) -> list[Event]:
        if reply and exc.request_id is None and self.our_role == "client":
            # A client answers nothing it cannot read an id of: JSON-RPC 2.0 section 5
            # has the Server answer a parse error, and a client that did would echo
            # a server that writes garbage forever. Past MAX_UNREADABLE_IN_A_ROW such
            # messages the channel is taken as lost, with a reason that says so.
            self._unreadable += 1
            if self._unreadable >= MAX_UNREADABLE_IN_A_ROW:
                reason = (
                    f"the server wrote {self._unreadable} messages in a row that are not "
                    f"JSON-RPC (the last: {exc.message})"
                )
                self._local(RECEIVE_FAILED, reason)
                raise RemoteProtocolError(reason, exc.code)
            reply = False
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

    # --- the end ----------------------------------------------------------------------

    def close(self) -> list[RequestId]:
        """Close the session: nothing more is sent or accepted.

        A broken session stays in ERROR (sticky), but gives up its requests too.

        Returns:
            The ids of our requests that were still pending; the caller fails
            whoever waits for them.
        """
        abandoned = list(self._requests.pending)
        self._local(CLOSE, "closed by our caller")
        return abandoned

    def send_failed(self, reason: str = "a write to the peer failed") -> None:
        """Tell the session that the transport could not write what it sent.

        The channel is broken: the session enters ERROR for good (from CLOSED or
        ERROR, nothing changes). What is still queued is dropped, the peer's
        requests can no longer be answered, and ours stay pending until close()
        hands them back.
        """
        self._local(SEND_FAILED, reason)

    def receive_failed(self, reason: str) -> None:
        """Tell the session that the transport lost the framing of what arrives
        (a stream it cannot find the next message in). Like send_failed: ERROR.
        A single unreadable message is not that: see receive_unreadable."""
        self._local(RECEIVE_FAILED, reason)

    @staticmethod
    def _decode_typed(message: Request | Notification, method: str, revision: str) -> Any:
        spec = method_spec(method, revision)
        if spec is None:
            return decode_params(message, _any_decoder) if message.params is not UNSET else {}
        return decode_params(message, params_decoder(spec))
