# The `WWW-Authenticate: Bearer ...` challenges of a resource server.
#
# RFC 6750 section 3: the challenge's attributes are quoted strings; `error` is
# one of invalid_request (400), invalid_token (401), insufficient_scope (403), and
# a request that carried no token gets no `error` at all (section 3.1: "the
# resource server SHOULD NOT include an error code or other error information").
# MCP adds `resource_metadata` (RFC 9728 section 5.1), so that a client finds the
# authorization server from the challenge alone (2025-06-18 basic/authorization.mdx
# "Authorization Server Location": MUST; 2025-11-25 and 2026-07-28
# authorization-server-discovery.mdx: this or the well-known URIs), and `scope`,
# the scopes this request needs (2026-07-28 basic/authorization/index.mdx "Scope
# Selection Strategy": SHOULD; "Scope Challenge Handling": all of them at once).

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

__all__ = ["INSUFFICIENT_SCOPE", "INVALID_REQUEST", "INVALID_TOKEN", "bearer_challenge"]

INVALID_REQUEST: Final = "invalid_request"
"""RFC 6750 section 3.1: a malformed request (answered 400)."""

INVALID_TOKEN: Final = "invalid_token"
"""RFC 6750 section 3.1: expired, revoked, malformed or otherwise invalid (401)."""

INSUFFICIENT_SCOPE: Final = "insufficient_scope"
"""RFC 6750 section 3.1: the token lacks scopes the request needs (403)."""

# RFC 6750 section 3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E ), and
# error_description may hold %x20-21 / %x23-5B / %x5D-7E: no quote, no backslash,
# nothing outside printable ASCII.
_NOT_SCOPE: Final = re.compile(r"[^\x21\x23-\x5b\x5d-\x7e]")
_NOT_TEXT: Final = re.compile(r"[^\x20\x21\x23-\x5b\x5d-\x7e]")


def bearer_challenge(
    metadata_url: str,
    scopes: Sequence[str] = (),
    error: str | None = None,
    description: str | None = None,
) -> str:
    """The value of a ``WWW-Authenticate`` header for the Bearer scheme.

    Args:
        metadata_url: where the Protected Resource Metadata is.
        scopes: the scopes the request needs; none omits ``scope``. A scope
            holding characters RFC 6750 does not allow is left out.
        error: an RFC 6750 error code, or None for a request with no token.
        description: a short text for people (``error_description``); characters
            a quoted string cannot carry become ``?``.
    """
    parts = []
    if error is not None:
        parts.append(f'error="{error}"')
    parts.append(f'resource_metadata="{_NOT_TEXT.sub("%", metadata_url)}"')
    usable = [s for s in scopes if s and not _NOT_SCOPE.search(s)]
    if usable:
        parts.append(f'scope="{" ".join(usable)}"')
    if description:
        parts.append(f'error_description="{_NOT_TEXT.sub("?", description)}"')
    return "Bearer " + ", ".join(parts)
