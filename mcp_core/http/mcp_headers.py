# What the HTTP layer checks on a 2026-07-28 request before any session sees it.
#
# 2026-07-28 basic/transports/streamable-http.mdx, "Request Metadata": the client
# mirrors the method, the tool/prompt name or resource URI, and annotated tool
# arguments into headers, so that intermediaries can route without reading the
# body; the server MUST check that they agree with the body ("Server Validation"),
# or a load balancer and the server could act on different truths. Also here, since
# on HTTP they come with a status of their own: the required `_meta` fields
# (basic/index.mdx "Per-request protocol fields": -32602 and 400) and the removed
# `initialize` (404 and -32601, "Protocol Version Header").

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

import msgspec
from msgspec import UNSET, UnsetType

from ..session.base import CLIENT_CAPABILITIES_KEY, PROTOCOL_VERSION_KEY
from ..wire.errors import HEADER_MISMATCH, INVALID_PARAMS, METHOD_NOT_FOUND, http_status_for
from ..wire.jsonrpc import Request
from .decisions import HttpRequest, Reply, refuse
from .headers import decode_header_value, param_matches

__all__ = ["ToolHeaders", "modern_refusal"]

ToolHeaders = Callable[[str], Mapping[str, tuple[str, ...]]]
"""A tool name -> its ``x-mcp-header`` map (header name -> argument path)."""

# "Standard Request Headers": Mcp-Name mirrors params.name or params.uri; and
# params.taskId for the tasks extension's methods (experimental-ext-tasks
# tasks.mdx "Streamable HTTP: Routing Headers": the client MUST set it).
_NAMED: Final = {
    "tools/call": "name",
    "prompts/get": "name",
    "resources/read": "uri",
    "tasks/get": "task_id",
    "tasks/update": "task_id",
    "tasks/cancel": "task_id",
}


class _Meta(msgspec.Struct):
    # The _meta fields the checks read (UNSET: absent); the rest is skipped,
    # not built (the session reads _meta again, whole).
    protocol_version: Any = msgspec.field(default=UNSET, name=PROTOCOL_VERSION_KEY)
    client_capabilities: msgspec.Raw | UnsetType = msgspec.field(
        default=UNSET, name=CLIENT_CAPABILITIES_KEY
    )


class _Params(msgspec.Struct):
    # What the checks read from params; anything else stays unread. The
    # arguments are read only for a tool with Mcp-Param-* headers.
    name: Any = None
    uri: Any = None
    task_id: Any = msgspec.field(default=None, name="taskId")
    arguments: msgspec.Raw = msgspec.Raw()
    meta: _Meta | None = msgspec.field(default=None, name="_meta")


_params_decoder: Final = msgspec.json.Decoder(_Params)
_NO_PARAMS: Final = _Params()


def modern_refusal(
    request: HttpRequest,
    message: Request,
    revisions: tuple[str, ...],
    tool_headers: ToolHeaders | None = None,
) -> Reply | None:
    """The refusal a 2026-07-28 request earns at the HTTP layer, or None.

    Args:
        request: the request head (its MCP-Protocol-Version names a modern
            revision we serve).
        message: the decoded request.
        revisions: every revision served, for the initialize error.
        tool_headers: the ``x-mcp-header`` map of a tool, to check
            ``Mcp-Param-*`` headers; None checks none.
    """
    rid = message.id
    if message.method == "initialize":
        # versioning.mdx: name the supported versions in any error to initialize.
        supported = sorted(revisions, reverse=True)
        return refuse(
            http_status_for(METHOD_NOT_FOUND),
            f"initialize does not exist in {request.headers['mcp-protocol-version']}",
            METHOD_NOT_FOUND,
            request_id=rid,
            data={"supported": supported},
        )
    params = _NO_PARAMS
    if message.params is not UNSET:
        # Params (or a _meta) that are not an object read as none; the session
        # refuses them.
        try:
            params = _params_decoder.decode(message.params)
        except (msgspec.DecodeError, UnicodeDecodeError):
            params = _NO_PARAMS
    meta = params.meta
    missing = (
        PROTOCOL_VERSION_KEY
        if meta is None or meta.protocol_version is UNSET
        else CLIENT_CAPABILITIES_KEY
        if meta.client_capabilities is UNSET
        else None
    )
    if missing is not None:
        return refuse(
            http_status_for(INVALID_PARAMS),
            f"missing _meta {missing!r}",
            INVALID_PARAMS,
            request_id=rid,
        )
    assert meta is not None
    problem = _header_problem(request.headers, message.method, params, meta, tool_headers)
    if problem is not None:
        # "Server Validation": 400 and -32020, with the request's id.
        return refuse(http_status_for(HEADER_MISMATCH), problem, HEADER_MISMATCH, request_id=rid)
    return None


def _header_problem(
    headers: Mapping[str, str],
    method: str,
    params: _Params,
    meta: _Meta,
    tool_headers: ToolHeaders | None,
) -> str | None:
    # "Server Validation" lists the failures: a required header missing, a
    # value that differs from the body, invalid characters.
    header_method = headers.get("mcp-method")
    if header_method is None:
        return "the Mcp-Method header is required"
    if header_method != method:
        return f"Mcp-Method header value {header_method!r} does not match body value {method!r}"
    version = headers["mcp-protocol-version"]
    if version != meta.protocol_version:
        return (
            f"MCP-Protocol-Version header value {version!r} does not match "
            f"body value {meta.protocol_version!r}"
        )
    field_name = _NAMED.get(method)
    if field_name is None:
        return None
    expected = getattr(params, field_name)
    raw = headers.get("mcp-name")
    if raw is None:
        return "the Mcp-Name header is required"
    name = decode_header_value(raw)
    if name is None:
        return "the Mcp-Name header holds invalid characters"
    if name != expected:
        return f"Mcp-Name header value {name!r} does not match body value {expected!r}"
    if method == "tools/call" and tool_headers is not None:
        return _param_problem(headers, params, tool_headers(str(expected)))
    return None


def _param_problem(
    headers: Mapping[str, str], params: _Params, paths: Mapping[str, tuple[str, ...]]
) -> str | None:
    # "Server Behavior for Custom Headers": an annotated argument present in the
    # body needs its header, and they must agree; an absent one must have none.
    if not paths:
        return None
    body = msgspec.json.decode(params.arguments) if params.arguments else None
    arguments = body if isinstance(body, dict) else {}
    for name, path in paths.items():
        value: Any = arguments
        for key in path:
            value = value.get(key) if isinstance(value, dict) else None
        raw = headers.get(f"mcp-param-{name}")
        if value is None:
            if raw is not None:
                return f"Mcp-Param-{name} header given but the argument is absent"
            continue
        if raw is None:
            return f"the Mcp-Param-{name} header is required"
        decoded = decode_header_value(raw)
        if decoded is None:
            return f"the Mcp-Param-{name} header holds invalid characters"
        if not param_matches(decoded, value):
            return f"Mcp-Param-{name} header value {decoded!r} does not match body value {value!r}"
    return None
