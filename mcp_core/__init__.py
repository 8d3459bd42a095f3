"""mcp-core: the Model Context Protocol as sans-IO state machines.

Bytes and messages go in, events and bytes come out; nothing here reads a socket,
starts a task or looks at a clock. See DESIGN.md for the layers.
"""

from .http.client import DEFAULT_MAX_ANSWER_BYTES, HttpClientConfig, HttpClientEndpoint
from .http.client_actions import (
    Abort,
    Action,
    Closed,
    Deliver,
    Fail,
    Failure,
    Note,
    Origin,
    Send,
)
from .http.config import (
    DEFAULT_MAX_BODY_BYTES,
    DEFAULT_MAX_HEADER_BYTES,
    DEFAULT_MAX_HEADERS,
    DEFAULT_MAX_REQUESTS_IN_FLIGHT,
    HttpServerConfig,
)
from .http.decisions import (
    AuthRefusal,
    Decision,
    Dispatch,
    EndSession,
    HttpRequest,
    OpenSseSession,
    OpenStream,
    Reply,
    SendOnStream,
)
from .http.headers import (
    LOOPBACK_HOSTS,
    LOOPBACK_ORIGINS,
    decode_header_value,
    encode_header_value,
    header_param_paths,
)
from .http.server import HttpEndpoint
from .http.sessions import EventStore, MemoryEventStore
from .http.tool_headers import tool_header_map
from .http.urls import resolve_endpoint, split_url
from .server.app import Server
from .server.context import Context, McpError, Peer, ResourceNotFoundError
from .server.request_state import (
    ReplayGuard,
    ReplayStore,
    StateRejected,
    StateSealer,
    request_binding,
)
from .server.uri_template import UriTemplate, is_template
from .session.base import SessionState
from .session.client import ClientConfig, ClientSession
from .session.events import (
    ErrorReceived,
    Event,
    HandshakeCompleted,
    InputRequired,
    NotificationReceived,
    ProgressReceived,
    ProtocolViolation,
    RequestCancelled,
    RequestReceived,
    RequestTimedOut,
    ResponseReceived,
)
from .session.server import LOG_LEVELS, ClientInfo, ServerConfig, ServerSession
from .types.methods import (
    LATEST_REVISION,
    LEGACY_REVISIONS,
    METHODS,
    REVISIONS,
    MethodSpec,
    method_spec,
    params_decoder,
    result_decoder,
)
from .wire.errors import (
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
from .wire.framing import DEFAULT_MAX_LINE_BYTES, LineFramer, LineTooLong
from .wire.framing import frame as frame_line
from .wire.jsonrpc import (
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
from .wire.sse import (
    DEFAULT_MAX_EVENT_BYTES,
    ServerSentEvent,
    SSEError,
    SSEParser,
    encode_comment,
    encode_event,
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
    # framing
    "DEFAULT_MAX_LINE_BYTES",
    "LineFramer",
    "LineTooLong",
    "frame_line",
    "DEFAULT_MAX_EVENT_BYTES",
    "ServerSentEvent",
    "SSEError",
    "SSEParser",
    "encode_comment",
    "encode_event",
    # streamable HTTP (and HTTP+SSE of 2024-11-05), server side
    "DEFAULT_MAX_BODY_BYTES",
    "DEFAULT_MAX_HEADER_BYTES",
    "DEFAULT_MAX_HEADERS",
    "DEFAULT_MAX_REQUESTS_IN_FLIGHT",
    "LOOPBACK_HOSTS",
    "LOOPBACK_ORIGINS",
    "AuthRefusal",
    "Decision",
    "Dispatch",
    "EndSession",
    "EventStore",
    "HttpEndpoint",
    "HttpRequest",
    "HttpServerConfig",
    "MemoryEventStore",
    "OpenSseSession",
    "OpenStream",
    "Reply",
    "SendOnStream",
    "header_param_paths",
    # streamable HTTP and HTTP+SSE, client side
    "DEFAULT_MAX_ANSWER_BYTES",
    "HttpClientConfig",
    "HttpClientEndpoint",
    "Abort",
    "Action",
    "Closed",
    "Deliver",
    "Fail",
    "Failure",
    "Note",
    "Origin",
    "Send",
    "decode_header_value",
    "encode_header_value",
    "resolve_endpoint",
    "split_url",
    "tool_header_map",
    # revisions and methods
    "LATEST_REVISION",
    "LEGACY_REVISIONS",
    "METHODS",
    "REVISIONS",
    "MethodSpec",
    "method_spec",
    "params_decoder",
    "result_decoder",
    # sessions and events
    "ClientConfig",
    "ClientSession",
    "ClientInfo",
    "LOG_LEVELS",
    "ServerConfig",
    "ServerSession",
    "SessionState",
    "Event",
    "ErrorReceived",
    "HandshakeCompleted",
    "InputRequired",
    "NotificationReceived",
    "ProgressReceived",
    "ProtocolViolation",
    "RequestCancelled",
    "RequestReceived",
    "RequestTimedOut",
    "ResponseReceived",
    # the server application
    "Server",
    "Context",
    "Peer",
    "McpError",
    "ResourceNotFoundError",
    # helpers for servers
    "ReplayGuard",
    "ReplayStore",
    "StateRejected",
    "StateSealer",
    "request_binding",
    "UriTemplate",
    "is_template",
]
