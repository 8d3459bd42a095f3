"""The client-side helpers of the HTTP rules: header value encoding and the
x-mcp-header rules (2026-07-28 basic/transports/streamable-http.mdx "Request
Metadata"), URLs, the HTTP+SSE endpoint (2024-11-05 "HTTP with SSE"), Host headers."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from http_client_helpers import TOOLS, Wire, call, header

from mcp_core.http import encode_header_value, resolve_endpoint, split_url, tool_header_map


@pytest.mark.parametrize(
    ("value", "encoded"),
    [
        ("us-west1", "us-west1"),
        ("Hello, 世界", "=?base64?SGVsbG8sIOS4lueVjA==?="),
        (" padded ", "=?base64?IHBhZGRlZCA=?="),
        ("line1\nline2", "=?base64?bGluZTEKbGluZTI=?="),
        ("=?base64?literal?=", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="),
        ("", ""),
    ],
)
def test_header_value_encoding(value: str, encoded: str) -> None:
    # The examples of 2026-07-28 "Value Encoding".
    assert encode_header_value(value) == encoded
    if encoded.startswith("=?base64?"):
        assert base64.b64decode(encoded[9:-2]).decode() == value


def prop(**schema: Any) -> dict[str, Any]:
    return {"type": "object", "properties": {"p": schema}}


@pytest.mark.parametrize(
    ("schema", "problem"),
    [
        (prop(type="string", **{"x-mcp-header": "Region"}), None),
        ({"type": "object", "x-mcp-header": "Root"}, "the schema root"),
        (prop(type="string", **{"x-mcp-header": ""}), "not an HTTP token"),
        (prop(type="string", **{"x-mcp-header": "a b"}), "not an HTTP token"),
        (prop(type="string", **{"x-mcp-header": 3}), "not an HTTP token"),
        (prop(type="number", **{"x-mcp-header": "N"}), "type string, integer or boolean"),
        (prop(type="array", items={"type": "string", "x-mcp-header": "I"}), "the schema root"),
        (
            {"type": "object", "anyOf": [prop(type="string", **{"x-mcp-header": "A"})]},
            "the schema root",
        ),
        ({"$defs": {"d": {"type": "string", "x-mcp-header": "D"}}}, "the schema root"),
        (
            {
                "type": "object",
                "properties": {
                    "a": {"type": "string", "x-mcp-header": "Same"},
                    "b": {"type": "string", "x-mcp-header": "same"},
                },
            },
            "repeats",
        ),
        (prop(type="string", default={"x-mcp-header": "data, not schema"}), None),
    ],
)
def test_x_mcp_header_rules(schema: Any, problem: str | None) -> None:
    # 2026-07-28 "Constraints on x-mcp-header values".
    if problem is None:
        tool_header_map(schema)
    else:
        with pytest.raises(ValueError, match=problem):
            tool_header_map(schema)


def test_x_mcp_header_map_gives_paths() -> None:
    assert tool_header_map(TOOLS[0]["inputSchema"]) == {
        "Region": ("region",),
        "Dry": ("opts", "dry"),
        "Limit": ("limit",),
    }


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ("/messages/?session_id=1", "http://h:1/messages/?session_id=1"),
        ("messages", "http://h:1/sse/messages"),
        ("http://h:1/other", "http://h:1/other"),
        ("  /m  ", "http://h:1/m"),
    ],
)
def test_endpoint_urls_resolve_against_the_stream(data: str, expected: str) -> None:
    assert resolve_endpoint("http://h:1/sse/", data) == expected


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        ("", "names no URL"),
        ("https://h:1/m", "another origin"),
        ("http://h:2/m", "another origin"),
        ("http://evil/m", "another origin"),
        ("ftp://h:1/m", "unusable URL"),
    ],
)
def test_endpoint_urls_must_stay_on_the_origin(data: str, problem: str) -> None:
    # The server must not send our messages (and our headers) elsewhere.
    with pytest.raises(ValueError, match=problem):
        resolve_endpoint("http://h:1/sse", data)


@pytest.mark.parametrize(
    ("url", "origin", "target"),
    [
        ("http://127.0.0.1:8000/mcp", ("http", "127.0.0.1", 8000), "/mcp"),
        ("https://Example.com", ("https", "example.com", 443), "/"),
        ("http://[::1]:9/a?b=c", ("http", "::1", 9), "/a?b=c"),
    ],
)
def test_split_url(url: str, origin: tuple[str, str, int], target: str) -> None:
    assert split_url(url) == (origin, target)


@pytest.mark.parametrize(
    "url", ["ftp://h/x", "/relative", "http://", "http://h:99999/", "http://u:p@h/"]
)
def test_unusable_urls(url: str) -> None:
    with pytest.raises(ValueError):
        split_url(url)


def test_host_headers() -> None:
    for url, host in [
        ("http://h/x", "h"),
        ("http://h:80/x", "h"),
        ("https://h:8443/x", "h:8443"),
        ("http://[::1]:9/x", "[::1]:9"),
    ]:
        (post,) = Wire(url).send(call(modern=True))
        assert header(post, "host") == host
