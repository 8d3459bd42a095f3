# The header fields of the message heads we send with h11.
#
# h11 checks and normalises every header field of every event it is given: about
# a microsecond a field, most of a small request's head, for fields we built
# ourselves and send again and again (Host, Content-Type, Accept, the protocol
# version, the session id). So the fields h11 reads go through h11 (framing:
# Content-Length, Transfer-Encoding; connection management: Connection, Expect,
# Upgrade; and Host, which a request needs), and every other field is checked
# once per distinct (name, value), with h11's own rules, and kept as the bytes of
# its line, which go into the head h11 wrote, before its final empty line. What
# goes on the wire is what h11 would have written, and h11's state machine sees
# every field it acts on.
#
# A response head is remembered whole, by its status and fields (`response_head`):
# the h11 `Response` event and the lines of the other fields. h11 takes an event's
# fields as they are when they are its own `Headers` (what a Response it built
# holds), so sending a remembered Response again checks nothing again, and h11
# still sees every response: its state machine and its framing and keep-alive
# rules run as for a new event.
#
# Both tables live as long as the process and are shared by every connection, so
# they keep no credential (Authorization, DPoP, Proxy-Authorization, cookies:
# `mcp_core.http.headers.CREDENTIAL_FIELDS`) and no long value (over
# `KEPT_VALUE_CHARS`: an argument mirrored in an Mcp-Param header): such a field is
# checked and written for its message only, as the server's table of decoded
# fields does (mcp_core/http/decisions.py).

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

import h11

from mcp_core.http.headers import CREDENTIAL_FIELDS, KEPT_VALUE_CHARS

__all__ = ["lines_of", "response_head", "with_lines"]

H11_FIELDS: Final = frozenset(
    {"host", "content-length", "transfer-encoding", "connection", "expect", "upgrade"}
)
"""Fields h11 reads: they go through h11."""

# h11's rules (h11/_abnf.py): a field name is a token; a value has no NUL, no
# line breaks and no whitespace at either end.
_NAME: Final = re.compile(rb"[-!#$%&'*+.^_`|~0-9a-zA-Z]+")
_VALUE: Final = re.compile(rb"(?:[^\x00\s]+(?:[ \t]+[^\x00\s]+)*)?")

_MAX_LINES: Final = 4096
"""Distinct fields kept (a field whose value changes with every message, such as
an argument mirrored in an Mcp-Param header, would otherwise grow the cache)."""

_lines: dict[tuple[str, str], bytes] = {}

_MAX_HEADS: Final = 1024
"""Distinct response heads kept (the Content-Length is a part of the key)."""

_heads: dict[tuple[int, tuple[tuple[str, str], ...]], tuple[h11.Response, bytes]] = {}


def _line(name: str, value: str) -> bytes:
    line = _lines.get((name, value))
    if line is None:
        raw_name = name.encode("ascii")
        raw_value = value.encode("ascii")
        if not _NAME.fullmatch(raw_name):
            raise h11.LocalProtocolError(f"Illegal header name {raw_name!r}")
        if not _VALUE.fullmatch(raw_value):
            raise h11.LocalProtocolError(f"Illegal header value {raw_value!r}")
        line = b"%s: %s\r\n" % (raw_name, raw_value)
        if _keeps(name, value):
            if len(_lines) >= _MAX_LINES:
                _lines.clear()
            _lines[name, value] = line
    return line


def _keeps(name: str, value: str) -> bool:
    # Whether a field may stay in a table of this module after its message.
    return len(value) <= KEPT_VALUE_CHARS and name.lower() not in CREDENTIAL_FIELDS


def lines_of(headers: Iterable[tuple[str, str]]) -> tuple[list[tuple[str, str]], bytes]:
    """Split header fields into those for h11 and the lines of the others.

    Raises:
        h11.LocalProtocolError: a field h11 would refuse (as h11 would).
        UnicodeEncodeError: a name or value that is not ASCII (as with h11).
    """
    own: list[tuple[str, str]] = []
    lines = b""
    for name, value in headers:
        if name.lower() in H11_FIELDS:
            own.append((name, value))
        else:
            lines += _line(name, value)
    return own, lines


def with_lines(head: bytes, lines: bytes) -> bytes:
    """The head h11 wrote, with ``lines`` before its final empty line."""
    return head[:-2] + lines + b"\r\n" if lines else head


def response_head(status: int, headers: tuple[tuple[str, str], ...]) -> tuple[h11.Response, bytes]:
    """The h11 event of a response head with these fields and the lines of those
    h11 does not read (`lines_of`), made once per distinct head.

    Raises:
        h11.LocalProtocolError: a field h11 would refuse (as h11 would).
        UnicodeEncodeError: a name or value that is not ASCII (as with h11).
    """
    key = (status, headers)
    head = _heads.get(key)
    if head is None:
        own, lines = lines_of(headers)
        head = (h11.Response(status_code=status, headers=own), lines)
        if all(_keeps(name, value) for name, value in headers):
            if len(_heads) >= _MAX_HEADS:
                _heads.clear()
            _heads[key] = head
    return head
