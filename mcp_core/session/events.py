# Events: what a session reports after it has read a message.
#
# The JSON-RPC messages themselves (Request, Notification, Response, ErrorResponse
# in _jsonrpc) are what both peers send and receive. These events are what only the
# core reports, after it has checked a message against the protocol state: their
# payloads are typed, and they are named for what happened (h2's convention).

from __future__ import annotations

from typing import Any

import msgspec
from msgspec import UNSET

from ..wire.jsonrpc import ErrorObject, RequestId

__all__ = [
    "Event",
    "RequestReceived",
    "NotificationReceived",
    "ResponseReceived",
    "ErrorReceived",
    "InputRequired",
    "RequestCancelled",
    "RequestTimedOut",
    "ProgressReceived",
    "HandshakeCompleted",
    "ProtocolViolation",
]


class _Event(msgspec.Struct, frozen=True, kw_only=True):
    pass


class RequestReceived(_Event, frozen=True, kw_only=True):
    """The peer asks us something; answer with ``send_response`` or ``send_error``.

    Attributes:
        id: the request id, to answer with.
        method: the MCP method.
        params: the typed params (an MCP Struct for the method).
        revision: the protocol revision this request is served under: the one the
            handshake negotiated (legacy era) or the one in the request's ``_meta``
            (2026-07-28 era).
        client: the requesting client's declared capabilities and identity, from the
            handshake or from this request's ``_meta`` (server side only; else None).
        progress_token: the token to report progress with, if the peer asked for it.
    """

    id: RequestId
    method: str
    params: Any
    revision: str
    client: Any = None
    progress_token: RequestId | None = None


class NotificationReceived(_Event, frozen=True, kw_only=True):
    """A notification the application may act on (list changes, log messages...)."""

    method: str
    params: Any


class ResponseReceived(_Event, frozen=True, kw_only=True):
    """The peer answered one of our requests. ``result`` is typed for ``method``."""

    id: RequestId
    method: str
    result: Any


class ErrorReceived(_Event, frozen=True, kw_only=True):
    """One of our requests failed.

    Attributes:
        id: the request's id (None for an error reply the peer could not tie to
            any request).
        method: the request's method, when the id matched one of ours.
        error: the error object.
        local: True when we produced the error ourselves on reading the answer
            (an invalid result), False when the peer sent it.
    """

    id: RequestId | None
    method: str | None
    error: ErrorObject
    local: bool = False


class InputRequired(_Event, frozen=True, kw_only=True):
    """2026-07-28 multi round-trip: the server needs input before it can finish.

    ``result`` is the InputRequiredResult; retry the request (a new id) with
    ``inputResponses`` and the same ``requestState``.
    """

    id: RequestId
    method: str
    result: Any


class RequestCancelled(_Event, frozen=True, kw_only=True):
    """The peer cancelled a request it had sent us; stop working on it.

    Anything we send for it afterwards is dropped (basic/utilities/cancellation).
    """

    id: RequestId
    reason: str | None = None


class RequestTimedOut(_Event, frozen=True, kw_only=True):
    """One of our requests ran past its deadline; a cancellation was sent for it."""

    id: RequestId
    method: str


class ProgressReceived(_Event, frozen=True, kw_only=True):
    """Progress on one of our requests (basic/utilities/progress)."""

    request_id: RequestId
    progress_token: RequestId
    progress: float
    total: float | None = None
    message: str | None = None


class HandshakeCompleted(_Event, frozen=True, kw_only=True):
    """The session is ready: legacy handshake finished, or modern era discovered.

    Attributes:
        revision: the protocol revision in use.
        peer_capabilities: the peer's declared capabilities.
        peer_info: the peer's Implementation (name, version), if it sent one.
        instructions: the server's instructions (client side), if any.
    """

    revision: str
    peer_capabilities: Any
    peer_info: Any = None
    instructions: str | None = None


class ProtocolViolation(_Event, frozen=True, kw_only=True):
    """The peer broke the protocol; the core has already answered where it could.

    Attributes:
        code: the JSON-RPC error code.
        message: what was wrong.
        id: the offending message's id when it had a readable one.
    """

    code: int
    message: str
    id: RequestId | None = None
    data: Any = UNSET


Event = (
    RequestReceived
    | NotificationReceived
    | ResponseReceived
    | ErrorReceived
    | InputRequired
    | RequestCancelled
    | RequestTimedOut
    | ProgressReceived
    | HandshakeCompleted
    | ProtocolViolation
)
"""Any event a session reports."""
