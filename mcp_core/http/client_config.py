# How the client talks HTTP to one server: the options of `HttpClientEndpoint`.

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from ..wire.jsonrpc import DEFAULT_LIMITS, Limits
from .decisions import Headers

__all__ = [
    "ACCEPT_BOTH",
    "DEFAULT_CLIENT_CONFIG",
    "DEFAULT_MAX_ANSWER_BYTES",
    "VERSION_HEADER_REVISIONS",
    "HttpClientConfig",
    "Transport",
]

DEFAULT_MAX_ANSWER_BYTES: Final = 16 * 1024 * 1024
"""Largest JSON answer read (16 MiB, the default message limit of the sessions)."""

ACCEPT_BOTH: Final = "application/json, text/event-stream"
"""2025-11-25 "Sending Messages to the Server" item 2: a POST accepts both."""

VERSION_HEADER_REVISIONS: Final = frozenset({"2025-06-18", "2025-11-25"})
"""Legacy revisions whose transport page defines MCP-Protocol-Version."""

Transport = Literal["auto", "streamable", "sse"]


@dataclass(frozen=True, slots=True)
class HttpClientConfig:
    """How the client talks HTTP to one MCP server.

    Attributes:
        headers: extra headers for every request (Authorization, User-Agent...).
        transport: "auto" tries streamable HTTP and falls back to HTTP+SSE;
            "streamable" never falls back; "sse" speaks only HTTP+SSE.
        standalone_stream: open the GET stream of a legacy session.
        default_retry: seconds before reconnecting to a stream whose server gave
            no ``retry`` (WHATWG leaves it to the client; one second, as the
            official SDKs).
        max_reconnects: reconnections in a row that may bring no event before a
            stream is given up (and, for a request's stream, the request
            failed): five, about 25 s with the default ``retry`` and backoff.
        max_retry_delay: the longest wait between reconnections; the wait starts
            at the server's ``retry`` and doubles for each that brought nothing.
        max_answer_bytes: largest JSON answer read.
        max_event_bytes: largest SSE event read; by default the largest answer,
            as big as a server's message may be (Limits.max_message_bytes).
        limits: message limits for decoding what the server sends.
    """

    headers: Headers = ()
    transport: Transport = "auto"
    standalone_stream: bool = True
    default_retry: float = 1.0
    max_reconnects: int = 5
    max_retry_delay: float = 10.0
    max_answer_bytes: int = DEFAULT_MAX_ANSWER_BYTES
    max_event_bytes: int = DEFAULT_MAX_ANSWER_BYTES
    limits: Limits = DEFAULT_LIMITS


DEFAULT_CLIENT_CONFIG: Final = HttpClientConfig()
"""The config used when none is given."""
