# The id of a JSON-RPC answer, read from the start of a message too long to read whole.
#
# A stdio line over the reader's cap is dropped unread (framing.LineTooLong), and
# only its first bytes are kept. A client still wants to know which of its requests
# the line answered, so that the call fails rather than waits forever. Our own
# encoder (and most others) writes `{"jsonrpc":"2.0","id":...,"result":...}`: the id
# comes before the long part. `answer_id` reads the top-level members of the head
# one by one while they are scalars, and answers only when it has seen `"id"` and
# then `"result"` or `"error"`: the message is an answer and its id is known. A
# `"method"` (a request or notification), a nested value before that, or a head that
# ends first gives None: the caller cannot tell what was lost. Linear in the head.
#
# `response_id_hint` is a cheaper guess, for a client choosing the result type of a
# whole response before decoding it (wire/jsonrpc.py OnePassResponseDecoder): the
# integer id of a response written compactly as our encoder (and the Python SDK)
# write one, `{"jsonrpc":"2.0","id":N,"result":...}`, or as the TypeScript SDK does,
# `{"result":...,"jsonrpc":"2.0","id":N}`. Anything else gives None. It is only a
# guess: the caller checks the id it decodes (a string holding that text fools it).

from __future__ import annotations

import re
from typing import Final

import msgspec

from .jsonrpc import RequestId

__all__ = ["answer_id", "response_id_hint"]

_OPEN: Final = re.compile(rb"\s*\{")
_KEY: Final = re.compile(rb'\s*("(?:[^"\\]|\\.)*")\s*:\s*')
_SCALAR: Final = re.compile(
    rb'("(?:[^"\\]|\\.)*"|-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?|true|false|null)'
    rb"\s*,"
)
_HEAD_ID: Final = re.compile(rb'\{"jsonrpc":"2\.0","id":(0|[1-9][0-9]{0,17}),"result":')
_TAIL_ID: Final = re.compile(rb',"jsonrpc":"2\.0","id":(0|[1-9][0-9]{0,17})\}\s*\Z')
_TAIL_BYTES: Final = 48
"""Enough for the tail above with an 18-digit id and some trailing whitespace."""
_MAX_MEMBERS: Final = 8
"""Members looked at before giving up (an answer has three)."""


def answer_id(head: bytes) -> RequestId | None:
    """The id of the answer that ``head`` begins, or None when it cannot be told
    (not an answer, a malformed start, or the id beyond the head)."""
    opened = _OPEN.match(head)
    if opened is None:
        return None
    pos = opened.end()
    found: object = None
    for _ in range(_MAX_MEMBERS):
        key = _KEY.match(head, pos)
        if key is None:
            return None
        name = _text(key.group(1))
        pos = key.end()
        if name == "result" or name == "error":
            kind = type(found)
            return found if kind is int or kind is str else None  # type: ignore[return-value]
        if name == "method":
            return None
        value = _SCALAR.match(head, pos)
        if value is None:
            return None
        if name == "id":
            found = _text(value.group(1))
        pos = value.end()
    return None


def _text(token: bytes) -> object:
    try:
        return msgspec.json.decode(token)
    except msgspec.DecodeError:
        return None


def response_id_hint(data: bytes) -> int | None:
    """The integer id of the response that ``data`` seems to be, read from where
    compact encoders put it (see above); None when it is not there. A guess only."""
    found = _HEAD_ID.match(data)
    if found is None:
        found = _TAIL_ID.search(data, max(0, len(data) - _TAIL_BYTES))
        if found is None:
            return None
    return int(found[1])
