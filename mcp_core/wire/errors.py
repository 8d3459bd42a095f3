# Errors, h11-style.
#
# Strategy: code inside mcp_core raises LocalProtocolError whenever something is
# wrong, because most checks do not know who is to blame. The single receive entry
# points (the codec's decode functions and the sessions' receive methods) catch it and
# re-raise it as RemoteProtocolError, because there the bad value came from the peer.
# Every error carries its wire meaning: the JSON-RPC error code, an HTTP status hint
# for transports that have one, and, for remote errors, the id of the offending
# message when it could be read so that a ready-to-send error reply can be built.

from __future__ import annotations

from typing import Any

__all__ = [
    "PARSE_ERROR",
    "INVALID_REQUEST",
    "METHOD_NOT_FOUND",
    "INVALID_PARAMS",
    "INTERNAL_ERROR",
    "RESOURCE_NOT_FOUND",
    "URL_ELICITATION_REQUIRED",
    "HEADER_MISMATCH",
    "MISSING_REQUIRED_CLIENT_CAPABILITY",
    "UNSUPPORTED_PROTOCOL_VERSION",
    "REQUEST_CANCELLED",
    "SERVICE_UNAVAILABLE",
    "SharedStateUnavailable",
    "ERROR_NAMES",
    "http_status_for",
    "ProtocolError",
    "LocalProtocolError",
    "RemoteProtocolError",
]

# JSON-RPC 2.0 specification, section 5.1 "Error object".
PARSE_ERROR = -32700
"""Invalid JSON was received (JSON-RPC 2.0 section 5.1)."""
INVALID_REQUEST = -32600
"""The JSON sent is not a valid Request object (JSON-RPC 2.0 section 5.1)."""
METHOD_NOT_FOUND = -32601
"""The method does not exist or is not available (JSON-RPC 2.0 section 5.1)."""
INVALID_PARAMS = -32602
"""Invalid method parameters (JSON-RPC 2.0 section 5.1)."""
INTERNAL_ERROR = -32603
"""Internal JSON-RPC error (JSON-RPC 2.0 section 5.1)."""

# MCP codes. 2026-07-28 basic/index.mdx "Error codes" lists the live and retired ones.
RESOURCE_NOT_FOUND = -32002
"""Resource not found: 2025-11-25 and earlier (server/resources.mdx); -32602 after."""
URL_ELICITATION_REQUIRED = -32042
"""URL elicitation required: 2025-11-25 only (client/elicitation.mdx)."""
HEADER_MISMATCH = -32020
"""HTTP headers disagree with the body: 2026-07-28 transports/streamable-http.mdx."""
MISSING_REQUIRED_CLIENT_CAPABILITY = -32021
"""The request needs a client capability the client did not declare: 2026-07-28."""
UNSUPPORTED_PROTOCOL_VERSION = -32022
"""The request's protocol version is not served here: 2026-07-28 basic/versioning.mdx."""
REQUEST_CANCELLED = -32800
"""Code we put on the error that fails a locally cancelled request (never sent)."""

# Ours: JSON-RPC 2.0 section 5.1 leaves -32000 to -32099 to implementations; MCP
# uses -32000..-32042 (2026-07-28 basic/index.mdx "Error codes"), not -32050.
SERVICE_UNAVAILABLE = -32050
"""The server's shared state store (Redis) cannot be reached: nothing was done, the
client may retry. Answered with HTTP 503 on a 2026-07-28 request."""


class SharedStateUnavailable(Exception):
    """The shared state store cannot be reached or did not answer in time; the
    server answers SERVICE_UNAVAILABLE (HTTP 503) with this message."""


ERROR_NAMES: dict[int, str] = {
    PARSE_ERROR: "Parse error",
    INVALID_REQUEST: "Invalid Request",
    METHOD_NOT_FOUND: "Method not found",
    INVALID_PARAMS: "Invalid params",
    INTERNAL_ERROR: "Internal error",
    RESOURCE_NOT_FOUND: "Resource not found",
    URL_ELICITATION_REQUIRED: "URL elicitation required",
    HEADER_MISMATCH: "Header mismatch",
    MISSING_REQUIRED_CLIENT_CAPABILITY: "Missing required client capability",
    UNSUPPORTED_PROTOCOL_VERSION: "Unsupported protocol version",
    REQUEST_CANCELLED: "Request cancelled",
    SERVICE_UNAVAILABLE: "Service unavailable",
}
"""Short names of the codes we know. Unknown codes from peers stay plain ints."""

# One table from JSON-RPC code to HTTP status. Streamable HTTP (2026-07-28
# transports/streamable-http.mdx "Error handling") makes -32020/-32021/-32022 a 400;
# a message we could not parse or accept is the client's fault (400); a method the
# server lacks is 404-ish in REST terms, but MCP answers it inside a 200 reply for
# requests that reached the JSON-RPC layer, so only transport-level refusals map here.
_HTTP_STATUS: dict[int, int] = {
    PARSE_ERROR: 400,
    INVALID_REQUEST: 400,
    METHOD_NOT_FOUND: 404,
    INVALID_PARAMS: 400,
    INTERNAL_ERROR: 500,
    HEADER_MISMATCH: 400,
    MISSING_REQUIRED_CLIENT_CAPABILITY: 400,
    UNSUPPORTED_PROTOCOL_VERSION: 400,
    SERVICE_UNAVAILABLE: 503,
}


def http_status_for(code: int) -> int:
    """The HTTP status that goes with a JSON-RPC error code (400 when unknown)."""
    return _HTTP_STATUS.get(code, 400)


class ProtocolError(Exception):
    """Base class for protocol errors.

    Attributes:
        code: the JSON-RPC error code this error is reported with.
        message: a human-readable description (also ``str(error)``).
        data: optional structured details for the error object's ``data`` member.
        http_status: the HTTP status a transport should answer with.
    """

    def __init__(
        self,
        message: str,
        code: int = INVALID_REQUEST,
        *,
        data: Any = None,
        http_status: int | None = None,
    ) -> None:
        if type(self) is ProtocolError:
            raise TypeError("ProtocolError is abstract; raise Local or Remote")
        super().__init__(message)
        self.message = message
        self.code = code
        self.data = data
        self.http_status = http_status if http_status is not None else http_status_for(code)


class LocalProtocolError(ProtocolError):
    """We, or our caller, tried to do something the protocol does not allow."""

    def _reraise_as_remote(self, request_id: int | str | None = None) -> RemoteProtocolError:
        return RemoteProtocolError(
            self.message,
            self.code,
            data=self.data,
            http_status=self.http_status,
            request_id=request_id,
        )


class RemoteProtocolError(ProtocolError):
    """The peer sent something the protocol does not allow.

    Attributes:
        request_id: the id of the offending message when it could be read, else
            None; the error reply to send back carries this id (JSON-RPC 2.0
            section 5: null when the id could not be determined).
    """

    def __init__(
        self,
        message: str,
        code: int = INVALID_REQUEST,
        *,
        data: Any = None,
        http_status: int | None = None,
        request_id: int | str | None = None,
    ) -> None:
        super().__init__(message, code, data=data, http_status=http_status)
        self.request_id = request_id
