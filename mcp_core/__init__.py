"""mcp-core: the Model Context Protocol as sans-IO state machines.

Bytes and messages go in, events and bytes come out; nothing here reads a socket,
starts a task or looks at a clock. See DESIGN.md for the layers.
"""

from ._errors import (
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
    encode_batch,
    encode_message,
    error_reply,
    is_batch,
)

__version__ = "0.1.0"

__all__ = [
    "__version__",
    # errors
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
    # JSON-RPC
    "DEFAULT_LIMITS",
    "ErrorObject",
    "ErrorResponse",
    "Limits",
    "Message",
    "Notification",
    "Request",
    "RequestId",
    "Response",
    "decode_batch",
    "decode_message",
    "decode_params",
    "decode_result",
    "encode_batch",
    "encode_message",
    "error_reply",
    "is_batch",
]
