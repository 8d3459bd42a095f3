# Reading a `WWW-Authenticate` header (RFC 9110 section 11.6.1).
#
# A header holds one or more challenges, `scheme [ param=value, ... ]`, separated by
# commas; values are tokens or quoted strings. MCP clients read the Bearer one
# (RFC 6750 section 3) for `resource_metadata` (RFC 9728 section 5.1), `scope` and
# `error` (2025-11-25 basic/authorization.mdx "Protected Resource Metadata Discovery
# Requirements": "MCP clients MUST be able to parse WWW-Authenticate headers").

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = ["Challenge", "bearer_challenge", "parse_challenges"]

_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
_QUOTED = re.compile(r'"((?:[^"\\]|\\.)*)"')
_TOKEN68 = re.compile(r"[A-Za-z0-9\-._~+/]+=*")
_SPACE = " \t"


@dataclass(frozen=True, slots=True)
class Challenge:
    """One challenge: its scheme (lower case) and parameters (names lower case)."""

    scheme: str
    params: dict[str, str] = field(default_factory=dict)

    @property
    def scopes(self) -> tuple[str, ...] | None:
        """The `scope` parameter split on spaces; None when absent."""
        scope = self.params.get("scope")
        return None if scope is None else tuple(scope.split())


def _skip(text: str, at: int, chars: str) -> int:
    while at < len(text) and text[at] in chars:
        at += 1
    return at


def parse_challenges(header: str) -> list[Challenge]:
    """Every challenge of a `WWW-Authenticate` value, in order. What cannot be read
    ends the parse: the challenges read so far are returned."""
    found: list[Challenge] = []
    at = 0
    while True:
        at = _skip(header, at, _SPACE + ",")
        scheme = _TOKEN.match(header, at)
        if scheme is None:
            return found
        params: dict[str, str] = {}
        found.append(Challenge(scheme.group().lower(), params))
        at = _skip(header, scheme.end(), _SPACE)
        token68 = _TOKEN68.fullmatch(header, at, _end_of_item(header, at))
        if token68 is not None and "=" not in header[at : token68.end()].rstrip("="):
            at = token68.end()  # a token68 credential: nothing MCP reads
            continue
        while True:
            name = _TOKEN.match(header, at)
            if name is None:
                return found
            after = _skip(header, name.end(), _SPACE)
            if after >= len(header) or header[after] != "=":
                at = name.start()  # the next challenge's scheme
                break
            at = _skip(header, after + 1, _SPACE)
            quoted = _QUOTED.match(header, at)
            if quoted is not None:
                value = re.sub(r"\\(.)", r"\1", quoted.group(1))
                at = quoted.end()
            else:
                token = _TOKEN.match(header, at)
                if token is None:
                    return found
                value, at = token.group(), token.end()
            params.setdefault(name.group().lower(), value)
            at = _skip(header, at, _SPACE)
            if at < len(header) and header[at] == ",":
                at = _skip(header, at + 1, _SPACE + ",")


def _end_of_item(header: str, at: int) -> int:
    comma = header.find(",", at)
    return len(header) if comma < 0 else comma


def bearer_challenge(header: str | None) -> Challenge | None:
    """The Bearer challenge of a `WWW-Authenticate` value, else its DPoP one (RFC
    9449 section 7.1: same parameters), if it has either."""
    if not header:
        return None
    found = {challenge.scheme: challenge for challenge in reversed(parse_challenges(header))}
    return found.get("bearer") or found.get("dpop")
