# What an access log says about each request a server answers, sans I/O.
#
# `AccessSession` is a ServerSession that keeps, for every request of the peer's,
# what an operator wants to read about it once it is answered: the method, the
# tool or prompt it names or the resource URI, the revision it was served under,
# and how it ended (a result, a tool's error result, a JSON-RPC error code, or a
# cancellation). It notes each request as it arrives (`_on_request`, which every
# request of both eras passes, the ones the session answers on its own or refuses
# included) and each answer as it leaves (`messages_to_send`, the one way out of
# every session), so a runtime finds every request in `take_answered`, however
# and wherever it was served. It reads no clock: it keeps the ``now`` the request
# was received at, and the runtime subtracts it from its own ``now``.
#
# It never keeps an argument value or a result: only the method, the name or URI
# the request targets, and codes. A plain ServerSession keeps nothing, at no cost.

from __future__ import annotations

import hashlib
from typing import Any, Final

import msgspec
from msgspec import UNSET

from ..wire.jsonrpc import (
    ErrorResponse,
    Message,
    Notification,
    Request,
    RequestId,
    Response,
    decode_params,
)
from .base import PROTOCOL_VERSION_KEY, SessionState
from .events import Event, RequestReceived
from .requests import _cancelled_decoder
from .server import ServerSession

__all__ = ["AccessSession", "Answered", "tag"]

_NEW: Final = SessionState.NEW

# The method's params field that names what a request targets, and the word an
# access log gives it (the OpenTelemetry MCP conventions' gen_ai.tool.name,
# gen_ai.prompt.name and mcp.resource.uri): 2025-11-25 server/tools.mdx,
# server/prompts.mdx, server/resources.mdx.
_TARGETS: Final[dict[str, tuple[str, str]]] = {
    "tools/call": ("name", "tool"),
    "prompts/get": ("name", "prompt"),
    "resources/read": ("uri", "uri"),
    "resources/subscribe": ("uri", "uri"),
    "resources/unsubscribe": ("uri", "uri"),
}

OK: Final = "ok"
"""Status of a request answered with a result."""
TOOL_ERROR: Final = "tool_error"
"""Status of a tools/call answered with a result whose ``isError`` is true (the
tool failed; 2025-11-25 server/tools.mdx "Error Handling")."""
ERROR: Final = "error"
"""Status of a request answered with a JSON-RPC error (see ``code``)."""
CANCELLED: Final = "cancelled"
"""Status of a request the peer cancelled: it is never answered."""


class Answered(msgspec.Struct, frozen=True, kw_only=True):
    """One request of the peer's, as it ended.

    Attributes:
        id: its JSON-RPC id (None for an error answering a message with no id
            that could be read).
        method: its method; None when the message could not be read as a request.
        target: what ``subject`` is: "tool", "prompt" or "uri"; None when the
            method names none.
        subject: the tool or prompt name, or the resource URI, as the peer sent it.
        revision: the protocol revision it was served under, when one was settled.
        status: `OK`, `TOOL_ERROR`, `ERROR` or `CANCELLED`.
        code: the JSON-RPC error code, with `ERROR`.
        received: the ``now`` the session was given with the request (None when
            the request was never noted: an unreadable message).
    """

    id: RequestId | None
    method: str | None
    target: str | None = None
    subject: str | None = None
    revision: str | None = None
    status: str = OK
    code: int | None = None
    received: float | None = None


class _Noted(msgspec.Struct, gc=False):
    # A request of the peer's on its way through the session.
    method: str
    received: float
    target: str | None = None
    subject: str | None = None
    revision: str | None = None


def tag(value: str) -> str:
    """A short stable tag for a value a log must not show (a principal, a session
    id that would let its reader act as the session): the first 12 hex digits of
    its BLAKE2b digest. It tells entries of one value from another's; it hides the
    value only as well as the value resists guessing."""
    return hashlib.blake2b(value.encode(), digest_size=6).hexdigest()


def _status(result: Any) -> str:
    # A tools/call result, typed or as a dict (Server.wire_form keeps both).
    is_error = result.get("isError") if type(result) is dict else getattr(result, "is_error", None)
    return TOOL_ERROR if is_error is True else OK


class AccessSession(ServerSession):
    """A ServerSession that notes how each of the peer's requests ended, for an
    access log: take the notes with `take_answered` after `messages_to_send`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._noted: dict[RequestId, _Noted] = {}
        self._answered: list[Answered] = []

    def take_answered(self) -> list[Answered]:
        """Take the requests that ended since the last call, in the order their
        answers left (`messages_to_send`) or their cancellation arrived."""
        answered = self._answered
        self._answered = []
        return answered

    def _on_request(self, message: Request, now: float) -> list[Event]:
        noted = _Noted(message.method, now)
        self._noted[message.id] = noted
        events = super()._on_request(message, now)
        if self.state is _NEW:
            # A 2026-07-28 request names its revision (one the session answers
            # itself, server/discover, makes no event to read it from).
            meta = getattr(message.params, "meta", None)
            version = meta.get(PROTOCOL_VERSION_KEY) if type(meta) is dict else None
            if type(version) is str:
                noted.revision = version
        for event in events:
            if type(event) is RequestReceived and event.id == message.id:
                noted.revision = event.revision
                field = _TARGETS.get(event.method)
                if field is not None:
                    subject = getattr(event.params, field[0], None)
                    if type(subject) is str:
                        noted.target, noted.subject = field[1], subject
        return events

    def _on_notification(self, message: Notification, now: float) -> list[Event]:
        events = super()._on_notification(message, now)
        if message.method == "notifications/cancelled" and self._noted:
            request_id = decode_params(message, _cancelled_decoder).request_id
            if request_id is not UNSET:
                self._cancelled(request_id)
        return events

    def _cancelled(self, request_id: RequestId) -> None:
        noted = self._noted.get(request_id)
        # Still noted, out of flight, and no answer queued: the cancellation ended
        # it (2025-11-25 basic/utilities/cancellation.mdx: it is never answered).
        if (
            noted is not None
            and request_id not in self._requests.incoming
            and not any(_answers(message, request_id) for message in self._out)
        ):
            del self._noted[request_id]
            self._answered.append(self._ended(request_id, noted, CANCELLED, None))

    def messages_to_send(self) -> list[Message]:
        out = super().messages_to_send()
        for message in out:
            if isinstance(message, Response):
                noted = self._noted.pop(message.id, None)
                if noted is not None:
                    status = _status(message.result) if noted.target == "tool" else OK
                    self._answered.append(self._ended(message.id, noted, status, None))
            elif isinstance(message, ErrorResponse):
                self._errored(message.id, message.error.code)
        return out

    def _errored(self, request_id: RequestId | None, code: int) -> None:
        noted = None if request_id is None else self._noted.pop(request_id, None)
        if noted is None:
            # Refused before it could be read as a request (parse error, invalid
            # request): the session knows no method for it.
            self._answered.append(Answered(id=request_id, method=None, status=ERROR, code=code))
            return
        self._answered.append(self._ended(request_id, noted, ERROR, code))

    def _ended(
        self, request_id: RequestId | None, noted: _Noted, status: str, code: int | None
    ) -> Answered:
        return Answered(
            id=request_id,
            method=noted.method,
            target=noted.target,
            subject=noted.subject,
            revision=noted.revision or self.revision,
            status=status,
            code=code,
            received=noted.received,
        )


def _answers(message: Message, request_id: RequestId) -> bool:
    return isinstance(message, (Response, ErrorResponse)) and message.id == request_id
