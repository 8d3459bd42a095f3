"""The wire format: JSON-RPC 2.0 messages and how they travel as bytes.

- `jsonrpc`: the envelope (`Request`, `Notification`, `Response`, `ErrorResponse`), the
  codec with its size and nesting limits, batches;
- `errors`: `LocalProtocolError` / `RemoteProtocolError`, the JSON-RPC error codes and the
  one table from a code to an HTTP status;
- `nesting`: how deep a JSON text nests, decided from its bytes before msgspec parses it;
- `framing`: newline-delimited JSON for stdio;
- `peek`: the id of an answer, read from the start of a line too long to read whole;
- `sse`: Server-Sent Events, an incremental parser and an encoder.

Nothing here knows an MCP method: these are the layers below the sessions.
"""

from .errors import (
    ERROR_NAMES,
    HEADER_MISMATCH,
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    PARSE_ERROR,
    RESOURCE_NOT_FOUND,
    UNSUPPORTED_PROTOCOL_VERSION,
    URL_ELICITATION_REQUIRED,
    LocalProtocolError,
    ProtocolError,
    RemoteProtocolError,
    http_status_for,
)
from .framing import (
    DEFAULT_MAX_LINE_BYTES,
    LineFramer,
    LineTooLong,
)
from .framing import (
    frame as frame_line,
)
from .jsonrpc import (
    DEFAULT_LIMITS,
    ErrorObject,
    ErrorResponse,
    Limits,
    Message,
    Notification,
    OnePassDecoder,
    OnePassResponseDecoder,
    Request,
    RequestId,
    Response,
    check_utf8,
    decode_batch,
    decode_message,
    decode_params,
    decode_result,
    encode_batch,
    encode_message,
    error_reply,
    is_batch,
)
from .sse import (
    DEFAULT_MAX_EVENT_BYTES,
    ServerSentEvent,
    SSEError,
    SSEParser,
    encode_comment,
    encode_event,
)

__all__ = [
    "ERROR_NAMES",
    "HEADER_MISMATCH",
    "INTERNAL_ERROR",
    "INVALID_PARAMS",
    "INVALID_REQUEST",
    "METHOD_NOT_FOUND",
    "MISSING_REQUIRED_CLIENT_CAPABILITY",
    "PARSE_ERROR",
    "RESOURCE_NOT_FOUND",
    "UNSUPPORTED_PROTOCOL_VERSION",
    "URL_ELICITATION_REQUIRED",
    "LocalProtocolError",
    "ProtocolError",
    "RemoteProtocolError",
    "http_status_for",
    "DEFAULT_MAX_LINE_BYTES",
    "LineFramer",
    "LineTooLong",
    "frame_line",
    "DEFAULT_LIMITS",
    "ErrorObject",
    "ErrorResponse",
    "Limits",
    "Message",
    "Notification",
    "OnePassDecoder",
    "OnePassResponseDecoder",
    "Request",
    "RequestId",
    "Response",
    "check_utf8",
    "decode_batch",
    "decode_message",
    "decode_params",
    "decode_result",
    "encode_batch",
    "encode_message",
    "error_reply",
    "is_batch",
    "DEFAULT_MAX_EVENT_BYTES",
    "ServerSentEvent",
    "SSEError",
    "SSEParser",
    "encode_comment",
    "encode_event",
]
