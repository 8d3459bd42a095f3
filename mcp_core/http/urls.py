# URLs of an MCP server, as the client reads them.
#
# `split_url` turns the URL a user gives into where to connect and what to ask for.
# `resolve_endpoint` reads the `endpoint` event of the deprecated HTTP+SSE transport
# (2024-11-05 basic/transports.mdx "HTTP with SSE": "When a client connects, the
# server MUST send an endpoint event containing a URI for the client to use for
# sending messages"). The URI is usually relative (the official SDKs send a path
# with a session query); it is resolved against the SSE stream's URL, and one that
# points at another origin is refused: the stream's server must not be able to
# send our messages, and the credentials in our headers, anywhere else.

from __future__ import annotations

from typing import Final
from urllib.parse import urljoin, urlsplit

from .client_actions import HttpOrigin

__all__ = ["DEFAULT_PORTS", "host_header", "resolve_endpoint", "split_url"]

DEFAULT_PORTS: Final = {"http": 80, "https": 443}
"""The port of each scheme when the URL names none."""


def split_url(url: str) -> tuple[HttpOrigin, str]:
    """Where to connect for ``url`` and the request target to send.

    Raises:
        ValueError: not an absolute http(s) URL with a host.
    """
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS:
        raise ValueError(f"{url!r} is not an http:// or https:// URL")
    host = parts.hostname
    if not host:
        raise ValueError(f"{url!r} names no host")
    try:
        port = parts.port or DEFAULT_PORTS[scheme]
    except ValueError:
        raise ValueError(f"{url!r} has an invalid port") from None
    if parts.username is not None:
        raise ValueError(f"{url!r}: give credentials in headers, not in the URL")
    target = parts.path or "/"
    if parts.query:
        target = f"{target}?{parts.query}"
    return (scheme, host, port), target


def host_header(origin: HttpOrigin) -> str:
    """The Host header for ``origin`` (RFC 9110 section 7.2): the port only when it
    is not the scheme's default, an IPv6 address in brackets."""
    scheme, host, port = origin
    name = f"[{host}]" if ":" in host else host
    return name if DEFAULT_PORTS.get(scheme) == port else f"{name}:{port}"


def resolve_endpoint(sse_url: str, data: str) -> str:
    """The POST URL an HTTP+SSE ``endpoint`` event names, made absolute.

    Raises:
        ValueError: the event is empty, or names another origin (scheme, host or
            port) than ``sse_url``'s.
    """
    reference = data.strip()
    if not reference:
        raise ValueError("the endpoint event names no URL")
    url = urljoin(sse_url, reference)
    try:
        theirs, _ = split_url(url)
    except ValueError as exc:
        raise ValueError(f"the endpoint event names an unusable URL: {exc}") from None
    ours, _ = split_url(sse_url)
    if theirs != ours:
        raise ValueError(f"the endpoint event names another origin: {url!r}")
    return url
