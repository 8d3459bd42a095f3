# The 2026-07-28 request metadata headers, from the client's side.
#
# 2026-07-28 basic/transports/streamable-http.mdx "Request Metadata": every POST
# carries `MCP-Protocol-Version` (equal to the body's `_meta` version), `Mcp-Method`
# (the body's method) and, for tools/call, resources/read and prompts/get,
# `Mcp-Name` (params.name or params.uri). A tool may also mark arguments with
# `x-mcp-header` in its input schema; a client MUST mirror them into
# `Mcp-Param-{name}` headers, and MUST drop from tools/list any tool whose
# annotations break the rules ("Schema Extension"), so that one bad tool does not
# make the others unusable. The server compares every header with the body (see
# _http_modern for that side), so what we send is computed from the body alone.

from __future__ import annotations

import string
from collections.abc import Mapping
from typing import Any, Final

import msgspec

from .headers import encode_header_value

__all__ = [
    "MAX_SAFE_INTEGER",
    "OutgoingFields",
    "absorb_tool_listing",
    "metadata_headers",
    "peek_request",
    "tool_header_map",
]

MAX_SAFE_INTEGER: Final = 2**53 - 1
"""The largest integer an ``Mcp-Param-*`` header may carry ("Schema Extension":
the safe range of IEEE 754 doubles, so that every JSON parser reads it exactly)."""

_TCHAR: Final = frozenset(string.ascii_letters + string.digits + "!#$%&'*+-.^_`|~")
_HEADER_TYPES: Final = frozenset({"string", "integer", "boolean"})
# Keywords whose values are instances, not schemas: an "x-mcp-header" key inside a
# default or an example is data.
_DATA_KEYWORDS: Final = frozenset({"default", "const", "enum", "examples"})
# Mcp-Name mirrors the params member each method is named by: 2026-07-28
# basic/transports "Standard Request Headers" (name, uri), and the tasks
# extension's taskId (experimental-ext-tasks tasks.mdx "Streamable HTTP: Routing
# Headers"). The server checks the same table (mcp_headers.py).
_NAMED: Final = {
    "tools/call": "name",
    "prompts/get": "name",
    "resources/read": "uri",
    "tasks/get": "taskId",
    "tasks/update": "taskId",
    "tasks/cancel": "taskId",
}


class OutgoingFields(msgspec.Struct):
    """What the headers are computed from: the fields of an outgoing request."""

    method: Any = None
    params: Any = None


_fields_decoder: Final = msgspec.json.Decoder(OutgoingFields)
_result_decoder: Final = msgspec.json.Decoder(dict[str, Any])


def peek_request(body: bytes) -> OutgoingFields:
    """The method and params of an encoded request (params as plain JSON data)."""
    fields = _fields_decoder.decode(body)
    if not isinstance(fields.params, dict):
        fields.params = {}
    return fields


def tool_header_map(input_schema: Any) -> dict[str, tuple[str, ...]]:
    """The ``x-mcp-header`` annotations of a tool: header name (as written, without
    ``Mcp-Param-``) -> the property path of the argument it mirrors.

    Raises:
        ValueError: an annotation breaks a rule of 2026-07-28 streamable-http.mdx
            "Schema Extension" (the message says which): it is not a token, it is
            not on a string/integer/boolean property, it is not reachable from the
            root through ``properties`` alone, or it repeats another (ignoring
            case). The tool must then be dropped.
    """
    found: dict[str, tuple[str, ...]] = {}
    seen: dict[str, str] = {}

    def check(node: Mapping[str, Any], path: tuple[str, ...] | None) -> None:
        name = node["x-mcp-header"]
        where = ".".join(path) if path else "the schema root"
        if not path:
            raise ValueError(f"x-mcp-header at {where} is not on a property reached by properties")
        if not isinstance(name, str) or not name or not set(name) <= _TCHAR:
            raise ValueError(f"x-mcp-header on {where} is not an HTTP token")
        if node.get("type") not in _HEADER_TYPES:
            raise ValueError(f"x-mcp-header on {where} needs type string, integer or boolean")
        if name.lower() in seen:
            raise ValueError(f"x-mcp-header {name!r} on {where} repeats {seen[name.lower()]}")
        seen[name.lower()] = where
        found[name] = path

    def walk(node: Any, path: tuple[str, ...] | None) -> None:
        # ``path`` is the chain of properties keys that reached ``node``, or None
        # once anything else (items, anyOf, $defs, ...) was crossed.
        if isinstance(node, list):
            for item in node:
                walk(item, None)
            return
        if not isinstance(node, Mapping):
            return
        if "x-mcp-header" in node:
            check(node, path)
        for key, value in node.items():
            if key == "x-mcp-header" or key in _DATA_KEYWORDS:
                continue
            if key == "properties" and isinstance(value, Mapping):
                for name, sub in value.items():
                    walk(sub, None if path is None else (*path, str(name)))
            else:
                walk(value, None)

    walk(input_schema, ())
    return found


def _header_text(value: Any) -> str | None:
    # "Value Encoding", type conversion: strings as they are, integers in decimal,
    # booleans as true/false; anything else (null, a number, a structure) has no
    # header form and is omitted.
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value) if abs(value) <= MAX_SAFE_INTEGER else None
    if isinstance(value, str):
        return value
    return None


def metadata_headers(
    fields: OutgoingFields,
    version: str,
    tool_headers: Mapping[str, tuple[str, ...]] | None = None,
) -> list[tuple[str, str]]:
    """The request metadata headers of one 2026-07-28 request.

    Args:
        fields: the request's method and params (`peek_request`).
        version: the protocol version of its ``_meta``.
        tool_headers: for tools/call, the tool's `tool_header_map`, if known.
    """
    method = str(fields.method)
    headers = [("mcp-protocol-version", version), ("mcp-method", method)]
    params: dict[str, Any] = fields.params
    named = _NAMED.get(method)
    if named is not None and isinstance(params.get(named), str):
        headers.append(("mcp-name", encode_header_value(params[named])))
    if method == "tools/call" and tool_headers:
        arguments = params.get("arguments")
        for name, path in tool_headers.items():
            value: Any = arguments
            for key in path:
                value = value.get(key) if isinstance(value, dict) else None
            text = _header_text(value)
            if text is not None:
                headers.append((f"mcp-param-{name.lower()}", encode_header_value(text)))
    return headers


def absorb_tool_listing(
    result: msgspec.Raw, maps: dict[str, dict[str, tuple[str, ...]]]
) -> tuple[msgspec.Raw, list[str]]:
    """Read a 2026-07-28 tools/list result: record each tool's `tool_header_map` in
    ``maps`` and drop the tools whose annotations are invalid ("Schema Extension":
    the client MUST exclude them, and SHOULD log why).

    Returns:
        The result to hand on (``result`` itself when nothing was dropped), and one
        line per dropped tool.
    """
    try:
        listing = _result_decoder.decode(result)
    except (msgspec.DecodeError, UnicodeDecodeError):
        return result, []  # the session reports the invalid result
    tools = listing.get("tools")
    if not isinstance(tools, list):
        return result, []
    kept: list[Any] = []
    dropped: list[str] = []
    for tool in tools:
        name = tool.get("name") if isinstance(tool, dict) else None
        if not isinstance(name, str):
            kept.append(tool)
            continue
        try:
            maps[name] = tool_header_map(tool.get("inputSchema"))
        except ValueError as exc:
            maps.pop(name, None)
            dropped.append(f"tool {name!r} dropped from tools/list: {exc}")
            continue
        kept.append(tool)
    if not dropped:
        return result, []
    listing["tools"] = kept
    return msgspec.Raw(msgspec.json.encode(listing)), dropped
