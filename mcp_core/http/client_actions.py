# What the client-side HTTP rules decide; the adapter carries it out.
#
# `HttpClientEndpoint` (_http_client) turns outgoing messages and what the server
# answers into the actions below, h11 style: plain frozen records that an adapter
# acts on without knowing anything of MCP. An *exchange* is one HTTP request and
# its response; the rules number them, and the adapter reports back what happened
# to each by its number (head, body chunks, end, or failure).

from __future__ import annotations

from dataclasses import dataclass

from ..wire.jsonrpc import Message, RequestId
from .decisions import Headers

__all__ = [
    "AbortExchange",
    "ClientAction",
    "EndpointClosed",
    "DeliverMessage",
    "FailRequest",
    "RequestFailure",
    "ClientNote",
    "HttpOrigin",
    "SendHttp",
]

HttpOrigin = tuple[str, str, int]
"""Where to connect: (scheme, host, port); ``scheme`` is "http" or "https"."""


@dataclass(frozen=True, slots=True)
class SendHttp:
    """Start an exchange: send one HTTP request and report its answer.

    Attributes:
        exchange: the exchange's number, to report back with.
        method: the HTTP method ("POST", "GET" or "DELETE").
        url: the absolute URL, for messages and errors.
        origin: where to connect.
        target: the request target (path and query).
        headers: every request header, Host included (Content-Length is the
            adapter's).
        body: the request body.
        delay: seconds to wait before sending (an SSE ``retry``).
        replayable: the request may reach the server twice without harm (a GET,
            a DELETE, a notification, a request that only reads): if a kept-alive
            connection breaks with nothing come back, it may go again even after
            it was written. Any other request goes again only if it was not
            written whole (RFC 9112 section 9.3.1).
    """

    exchange: int
    method: str
    url: str
    origin: HttpOrigin
    target: str
    headers: Headers
    body: bytes = b""
    delay: float = 0.0
    replayable: bool = False


@dataclass(frozen=True, slots=True)
class DeliverMessage:
    """Hand one message from the server to the session (a Message, or bytes the
    session must judge itself: unreadable JSON, a batch)."""

    message: Message | bytes


@dataclass(frozen=True, slots=True)
class RequestFailure:
    """Why a request cannot be answered.

    Attributes:
        method: the HTTP method of the exchange that failed.
        url: its URL.
        reason: what went wrong, for people.
        status: the HTTP status the server answered with, or None when no answer
            came (the connection failed, the stream ended early).
        body: the start of the answer's body, for diagnosis.
        unknown: the request was sent whole and its answer never came: the
            server may have received it and acted on it (a tool may have run),
            so it was not sent again (RFC 9112 section 9.3.1) and the outcome is
            unknown.
    """

    method: str
    url: str
    reason: str
    status: int | None = None
    body: bytes = b""
    unknown: bool = False


@dataclass(frozen=True, slots=True)
class FailRequest:
    """One of our requests will never be answered: fail whoever waits for it."""

    request_id: RequestId
    failure: RequestFailure


@dataclass(frozen=True, slots=True)
class AbortExchange:
    """Stop an exchange at once and close its connection (for a 2026-07-28 request
    this is its cancellation); nothing more is reported for it."""

    exchange: int


@dataclass(frozen=True, slots=True)
class EndpointClosed:
    """The connection to the server is over; fail everything that waits."""

    reason: str


@dataclass(frozen=True, slots=True)
class ClientNote:
    """Something the user should hear of, for the log (a tool dropped from a
    listing, a server that breaks a rule we can live with)."""

    text: str


ClientAction = SendHttp | DeliverMessage | FailRequest | AbortExchange | EndpointClosed | ClientNote
"""Anything the client rules ask the adapter to do."""
