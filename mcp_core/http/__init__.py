"""Streamable HTTP as sans-IO rules, for servers and clients (both eras).

Server side: `server` (`HttpEndpoint`: given a request head and body, decide the answer;
`legacy`, its part with the legacy era's session rules),
`config`, `decisions` (what it decides), `headers` (media types, Origin and Host),
`mcp_headers` (the 2026-07-28 `Mcp-Method` / `Mcp-Name` / `Mcp-Param-*` checks),
`sessions` (legacy sessions and SSE event storage for resumption), `routing` (which
stream each outgoing message goes on), `legacy_sse` (the
HTTP+SSE transport of 2024-11-05).

Client side: `client` (`HttpClientEndpoint`), `client_config`, `client_actions` (what it
asks the adapter to do), `client_exchange` (the records of requests in flight),
`client_host` (what the endpoint's parts need of it), `client_answers` (its part
that reads JSON and SSE answers), `client_fallbacks` (its part for a lost session,
refused headers, an older server), `tool_headers` (the `Mcp-Param-*` headers a tool's
schema asks for), `urls`, `proxy` (which outbound proxy a request goes through, and how).
"""

from typing import TYPE_CHECKING, Final

from ..lazy import export

if TYPE_CHECKING:
    from .client import (
        DEFAULT_MAX_ANSWER_BYTES,
        HttpClientConfig,
        HttpClientEndpoint,
    )
    from .client_actions import (
        AbortExchange,
        ClientAction,
        ClientNote,
        DeliverMessage,
        EndpointClosed,
        FailRequest,
        HttpOrigin,
        RequestFailure,
        SendHttp,
    )
    from .config import (
        DEFAULT_MAX_BODY_BYTES,
        DEFAULT_MAX_HEADER_BYTES,
        DEFAULT_MAX_HEADERS,
        DEFAULT_MAX_REQUESTS_IN_FLIGHT,
        HttpServerConfig,
    )
    from .decisions import (
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
    from .headers import (
        LOOPBACK_HOSTS,
        LOOPBACK_ORIGINS,
        decode_header_value,
        encode_header_value,
        header_param_paths,
    )
    from .server import (
        HttpEndpoint,
    )
    from .sessions import (
        EventStore,
        MemoryEventStore,
    )
    from .tool_headers import (
        tool_header_map,
    )
    from .urls import (
        resolve_endpoint,
        split_url,
    )

__all__ = [
    "DEFAULT_MAX_ANSWER_BYTES",
    "HttpClientConfig",
    "HttpClientEndpoint",
    "AbortExchange",
    "ClientAction",
    "ClientNote",
    "DeliverMessage",
    "EndpointClosed",
    "FailRequest",
    "HttpOrigin",
    "RequestFailure",
    "SendHttp",
    "DEFAULT_MAX_BODY_BYTES",
    "DEFAULT_MAX_HEADER_BYTES",
    "DEFAULT_MAX_HEADERS",
    "DEFAULT_MAX_REQUESTS_IN_FLIGHT",
    "HttpServerConfig",
    "AuthRefusal",
    "Decision",
    "Dispatch",
    "EndSession",
    "HttpRequest",
    "OpenSseSession",
    "OpenStream",
    "Reply",
    "SendOnStream",
    "LOOPBACK_HOSTS",
    "LOOPBACK_ORIGINS",
    "decode_header_value",
    "encode_header_value",
    "header_param_paths",
    "HttpEndpoint",
    "EventStore",
    "MemoryEventStore",
    "tool_header_map",
    "resolve_endpoint",
    "split_url",
]

# What the names above come from, imported when one is first asked for
# (mcp_core/lazy.py): a process loads only the modules it uses.
_WHERE: Final = {
    ".client": ("DEFAULT_MAX_ANSWER_BYTES", "HttpClientConfig", "HttpClientEndpoint"),
    ".client_actions": (
        "AbortExchange",
        "ClientAction",
        "ClientNote",
        "DeliverMessage",
        "EndpointClosed",
        "FailRequest",
        "HttpOrigin",
        "RequestFailure",
        "SendHttp",
    ),
    ".config": (
        "DEFAULT_MAX_BODY_BYTES",
        "DEFAULT_MAX_HEADER_BYTES",
        "DEFAULT_MAX_HEADERS",
        "DEFAULT_MAX_REQUESTS_IN_FLIGHT",
        "HttpServerConfig",
    ),
    ".decisions": (
        "AuthRefusal",
        "Decision",
        "Dispatch",
        "EndSession",
        "HttpRequest",
        "OpenSseSession",
        "OpenStream",
        "Reply",
        "SendOnStream",
    ),
    ".headers": (
        "LOOPBACK_HOSTS",
        "LOOPBACK_ORIGINS",
        "decode_header_value",
        "encode_header_value",
        "header_param_paths",
    ),
    ".server": ("HttpEndpoint",),
    ".sessions": ("EventStore", "MemoryEventStore"),
    ".tool_headers": ("tool_header_map",),
    ".urls": ("resolve_endpoint", "split_url"),
}


def __getattr__(name: str) -> object:
    return export(__name__, name, _WHERE, globals())
