# Header-level helpers of the streamable-HTTP rules, sans I/O.
#
# Media types (Accept, Content-Type), the Origin and Host allowlists that guard a
# local server against DNS rebinding (2025-11-25 basic/transports.mdx "Security
# Warning"), and the 2026-07-28 request-metadata headers: the Base64 sentinel of
# `Mcp-Name` / `Mcp-Param-*` values and the `x-mcp-header` annotations of a tool's
# input schema (2026-07-28 basic/transports/streamable-http.mdx "Request Metadata").

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterable, Mapping
from typing import Any, Final

__all__ = [
    "CREDENTIAL_FIELDS",
    "KEPT_VALUE_CHARS",
    "LOOPBACK_HOSTS",
    "LOOPBACK_ORIGINS",
    "accepts",
    "media_type",
    "host_allowed",
    "origin_allowed",
    "is_loopback",
    "decode_header_value",
    "encode_header_value",
    "header_param_paths",
    "param_matches",
]

CREDENTIAL_FIELDS: Final = frozenset(
    {"authorization", "proxy-authorization", "dpop", "cookie", "set-cookie"}
)
"""Header fields that carry a credential (a token, a DPoP proof, a cookie, a proxy's
password): a table of ours that keeps fields for reuse never keeps these past their
message (RFC 9110 section 11.6.2 and 11.7.2, RFC 9449 section 4.1, RFC 6265)."""

KEPT_VALUE_CHARS: Final = 128
"""The longest header value a table of ours keeps for reuse: a peer (or a tool's
arguments mirrored in ``Mcp-Param-*``) sending new long values would otherwise fill
it with head-sized strings. Session ids, versions, media types and hosts are shorter."""

LOOPBACK_HOSTS: Final = ("localhost", "127.0.0.1", "[::1]")
"""Host names a server bound to a loopback address answers to (any port)."""

LOOPBACK_ORIGINS: Final = (
    "http://localhost:*",
    "http://127.0.0.1:*",
    "http://[::1]:*",
    "https://localhost:*",
    "https://127.0.0.1:*",
    "https://[::1]:*",
)
"""Origins of pages served from this machine; ``:*`` admits any port or none."""

_SENTINEL_HEAD: Final = "=?base64?"
_SENTINEL_TAIL: Final = "?="


def media_type(value: str) -> str:
    """The bare, lower-case media type of a Content-Type value (no parameters)."""
    return value.split(";", 1)[0].strip().lower()


def accepts(accept: str | None, wanted: str) -> bool:
    """Whether an Accept header admits ``wanted`` (``type/subtype``); wildcards
    count, a ``q=0`` entry refuses (RFC 9110 section 12.5.1)."""
    if accept is None:
        return False
    kind = wanted.split("/", 1)[0]
    for item in accept.split(","):
        parts = [p.strip() for p in item.split(";")]
        if any(p.replace(" ", "") in ("q=0", "q=0.0", "q=0.00", "q=0.000") for p in parts[1:]):
            continue
        if parts[0].lower() in (wanted, f"{kind}/*", "*/*"):
            return True
    return False


def is_loopback(host: str) -> bool:
    """Whether a bind address or host name stays on this machine."""
    host = host.strip("[]").lower()
    return host in ("localhost", "::1") or host.startswith("127.")


def _split_host(authority: str) -> tuple[str, str | None]:
    # "[::1]:8000" -> ("[::1]", "8000"); "example.com" -> ("example.com", None)
    authority = authority.strip().lower()
    if authority.startswith("["):
        end = authority.find("]")
        if end < 0:
            return authority, None
        rest = authority[end + 1 :]
        return authority[: end + 1], rest[1:] if rest.startswith(":") else None
    host, sep, port = authority.rpartition(":")
    return (host, port) if sep else (authority, None)


def host_allowed(host: str | None, allowed: Iterable[str] | None) -> bool:
    """Whether a Host header names one of ``allowed`` (host names, any port).

    ``allowed`` None admits anything. A missing Host is refused when there is a
    list (HTTP/1.1 requires the header, RFC 9112 section 3.2).
    """
    if allowed is None:
        return True
    if not host:
        return False
    name, _ = _split_host(host)
    return name in {a.lower() for a in allowed}


def origin_allowed(origin: str | None, allowed: Iterable[str]) -> bool:
    """Whether an Origin header is absent or matches an entry of ``allowed``.

    Entries are ``scheme://host[:port]``; a ``:*`` port matches any port or
    none; ``*`` matches every origin.
    """
    if origin is None:
        return True
    origin = origin.strip().lower()
    scheme, sep, authority = origin.partition("://")
    if not sep:
        return "*" in allowed  # "null" and the like
    host, port = _split_host(authority)
    for entry in allowed:
        entry = entry.lower()
        if entry == "*" or entry == origin:
            return True
        e_scheme, e_sep, e_authority = entry.partition("://")
        if not e_sep or e_scheme != scheme:
            continue
        e_host, e_port = _split_host(e_authority)
        if e_host == host and (e_port == "*" or e_port == port):
            return True
    return False


def _safe(value: str) -> bool:
    # RFC 9110 field values as 2026-07-28 "Value Encoding" restricts them:
    # visible ASCII, space and tab. (An ASCII character is printable exactly when
    # it is one of " " to "~"; both tests run in C, not a character at a time.)
    return value.isascii() and value.replace("\t", " ").isprintable()


def decode_header_value(value: str) -> str | None:
    """The value of an ``Mcp-Name`` / ``Mcp-Param-*`` header, the Base64 sentinel
    (``=?base64?...?=``) decoded; None when it holds invalid characters or its
    Base64 is broken (2026-07-28 streamable-http.mdx "Value Encoding")."""
    if not _safe(value):
        return None
    if value.startswith(_SENTINEL_HEAD) and value.endswith(_SENTINEL_TAIL):
        encoded = value[len(_SENTINEL_HEAD) : len(value) - len(_SENTINEL_TAIL)]
        try:
            return base64.b64decode(encoded, validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            return None
    return value


def encode_header_value(value: str) -> str:
    """An ``Mcp-Name`` / ``Mcp-Param-*`` value as the client sends it: as it is when
    it is plain ASCII, else the Base64 sentinel of its UTF-8 bytes (2026-07-28
    streamable-http.mdx "Value Encoding": non-ASCII, control characters, leading or
    trailing whitespace, and any value that itself looks like the sentinel)."""
    plain = (
        _safe(value)
        and value == value.strip(" \t")
        and not (value.startswith(_SENTINEL_HEAD) and value.endswith(_SENTINEL_TAIL))
    )
    if plain:
        return value
    encoded = base64.b64encode(value.encode("utf-8", "surrogatepass")).decode("ascii")
    return f"{_SENTINEL_HEAD}{encoded}{_SENTINEL_TAIL}"


def header_param_paths(input_schema: Any) -> dict[str, tuple[str, ...]]:
    """The ``x-mcp-header`` annotations of a tool's input schema: lower-case header
    name (without ``Mcp-Param-``) -> the property path of its value.

    Only properties reachable through a chain of ``properties`` keys count
    (2026-07-28 streamable-http.mdx "Constraints on x-mcp-header values").
    """
    found: dict[str, tuple[str, ...]] = {}

    def walk(schema: Any, path: tuple[str, ...]) -> None:
        if not isinstance(schema, Mapping):
            return
        properties = schema.get("properties")
        if not isinstance(properties, Mapping):
            return
        for key, sub in properties.items():
            if not isinstance(sub, Mapping):
                continue
            name = sub.get("x-mcp-header")
            if isinstance(name, str) and name:
                found.setdefault(name.lower(), (*path, key))
            walk(sub, (*path, key))

    walk(input_schema, ())
    return found


def param_matches(header: str, value: Any) -> bool:
    """Whether a decoded ``Mcp-Param-*`` header carries the body's ``value``:
    strings as they are, booleans as ``true``/``false``, integers compared as
    numbers (``42.0`` equals ``42``, the page's "Server Validation" note)."""
    if isinstance(value, bool):
        return header == ("true" if value else "false")
    if isinstance(value, str):
        return header == value
    if isinstance(value, int | float):
        try:
            return float(header) == float(value)
        except ValueError:
            return False
    return False
