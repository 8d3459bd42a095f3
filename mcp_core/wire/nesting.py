# How deep a JSON text nests, decided from its bytes alone.
#
# Theory of operation. msgspec recurses on nested arrays and objects and raises
# RecursionError at a depth that depends on the caller's stack, so the codec refuses
# anything nested deeper than Limits.max_depth itself, with an answer that depends on
# the bytes alone. Two scans give that answer:
#
#   nesting_exceeds(data, max_depth) - for any bytes at all, JSON or not. It runs
#       before msgspec on a message that failed to parse (or a batch), so that a
#       message too deep is refused as too deep whatever else is wrong with it.
#   valid_nesting_exceeds(data, max_depth) - for bytes msgspec has just parsed
#       without error, and gives the same answer as nesting_exceeds on them. Every
#       incoming message takes this one: knowing the text is valid JSON lets it skip
#       work the general scan must do (see there).
#
# Both work in a few passes of C string methods over the bytes (translate, count,
# replace, find), never in a Python loop per byte: a 40 KB tools/list result is
# scanned in ~30 microseconds (benchmarks/README.md "codec").

from __future__ import annotations

import re
from typing import Final

__all__ = ["nesting_exceeds", "valid_nesting_exceeds"]

# Bytes that say nothing about nesting once escapes are gone: all but brackets and quotes.
_NOT_STRUCTURE: Final = bytes(b for b in range(256) if b not in b'[]{}"')
_OPENERS: Final = b"[{"
# Up to this size the openers are counted whole with one bytes.translate (a C loop,
# well under a nanosecond a byte); larger texts use _count_up_to, which costs a
# Python step per opener but stops early and skips long runs without brackets.
_TRANSLATE_MAX: Final = 4096
# _count_up_to gives up after this many openers when they come so densely that
# counting on would cost more than the scan that follows it anyway...
_DENSITY_SAMPLE: Final = 16
# ...but only in texts this small: in larger ones a scan that turns out to be
# unneeded costs more than the ~10 microseconds counting to the limit can.
_GIVE_UP_MAX: Final = 64 * 1024
_EMPTY_PAIR: Final = re.compile(rb"\[\]|\{\}")
# Openers to "(", closers to ")", quotes kept, all else deleted (valid JSON only:
# it matches every closer with its opener, so their kinds need not be told apart).
_LEVELS: Final = bytes.maketrans(b"[{]}", b"(())")


def _unescaped(data: bytes) -> bytes:
    # Escaped backslashes and quotes go first, so every remaining quote opens or
    # closes a string: left to right, "\\\\" pairs off backslashes exactly as a JSON
    # reader does, and a backslash left before a quote escapes it.
    if b"\\" in data:
        return data.replace(b"\\\\", b"").replace(b'\\"', b"")
    return data


def _bracket_skeleton(data: bytes) -> bytes:
    # The brackets of ``data`` that stand outside strings, in order. Once escapes are
    # gone, everything but brackets and quotes goes. Removing two adjacent quotes
    # keeps the open/close alternation (an empty string, or the seam between two
    # strings with nothing outside them), so only strings that hold brackets are
    # left for the slower split.
    skeleton = _unescaped(data).translate(None, _NOT_STRUCTURE).replace(b'""', b"")
    if b'"' in skeleton:
        skeleton = b"".join(skeleton.split(b'"')[::2])
    return skeleton


def _count_up_to(data: bytes, limit: int, give_up: bool) -> int:
    # Openers, counted with bytes.find (memchr speed) and given up past ``limit``:
    # bytes.count walks every byte in a slow loop. With ``give_up``, a text whose
    # first openers come more densely than one in 2 * limit / _DENSITY_SAMPLE bytes
    # is taken to hold more than ``limit`` (the answer only picks the next step).
    count = 0
    for opener in (b"{", b"["):
        at = data.find(opener)
        while at >= 0:
            count += 1
            if count > limit:
                return count
            if give_up and count == _DENSITY_SAMPLE and at * 2 * limit < len(data) * count:
                return limit + 1
            at = data.find(opener, at + 1)
    return count


def _openers_exceed(data: bytes, max_depth: int, give_up: bool = False) -> bool:
    # Whether ``data`` holds more than ``max_depth`` openers (a level needs one):
    # when it does not, it cannot be nested deeper than ``max_depth``.
    size = len(data)
    if size <= _TRANSLATE_MAX:
        return size - len(data.translate(None, _OPENERS)) > max_depth
    return _count_up_to(data, max_depth, give_up and size <= _GIVE_UP_MAX) > max_depth


def nesting_exceeds(data: bytes, max_depth: int) -> bool:
    """Whether ``data`` nests arrays and objects deeper than ``max_depth``.

    Exact for JSON; for other bytes, brackets that match nothing count as levels,
    so that msgspec is never handed more depth than ``max_depth``.
    """
    # Cheap bounds first: nesting needs two bytes a level and one opener a level.
    if len(data) <= 2 * max_depth or not _openers_exceed(data, max_depth):
        return False
    skeleton = _bracket_skeleton(data)
    # A pass of bytes.replace deletes at least one level and at most two ("{[]}"
    # goes whole), which bounds the depth from both sides in C-speed passes.
    passes, rest = 0, skeleton
    while rest:
        shorter = rest.replace(b"[]", b"").replace(b"{}", b"")
        if len(shorter) == len(rest):
            # Only unmatched brackets remain: not valid JSON. Count them as nesting
            # so that msgspec is never handed more depth than the limit.
            return passes + len(rest) > max_depth
        passes, rest = passes + 1, shorter
        if passes > max_depth:
            return True
    if 2 * passes <= max_depth:
        return False
    # In between: count exactly. re.sub never rescans what it replaced, so each
    # pass deletes exactly one level.
    for _ in range(max_depth):
        skeleton = _EMPTY_PAIR.sub(b"", skeleton)
        if not skeleton:
            return False
    return True


def valid_nesting_exceeds(data: bytes, max_depth: int) -> bool:
    """nesting_exceeds for a text msgspec has parsed as JSON without error.

    What validity buys: brackets outside strings match, so one translate can turn
    both kinds into "(" and ")", and the depth is bounded chunk by chunk from
    counts rather than found by deleting level after level.
    """
    if len(data) <= 2 * max_depth or not _openers_exceed(data, max_depth, give_up=True):
        return False
    skeleton = _unescaped(data).translate(_LEVELS, _NOT_STRUCTURE)
    levels = skeleton.translate(None, b'"')
    # Every string's quotes are adjacent in the skeleton (no bracket inside it)
    # exactly when the quotes pair off left to right: every run of quotes has an
    # even length, which is when counting '""' finds half of them. Else some
    # string holds brackets, and the general scan sorts them out.
    quotes = len(skeleton) - len(levels)
    if quotes and 2 * skeleton.count(b'""') != quotes:
        return nesting_exceeds(data, max_depth)
    # The depth inside a chunk is at most its depth on entry plus its openers. In a
    # chunk of max_depth levels that bound stays within the limit unless the chunk
    # starts or ends about half the limit deep, which real messages rarely do;
    # where it does not, the levels are counted exactly instead.
    step = max_depth or 1
    depth = 0
    for start in range(0, len(levels), step):
        opened = levels.count(b"(", start, start + step)
        if depth + opened > max_depth:
            return _levels_exceed(levels, max_depth)
        # (Past the last chunk the depth is not needed, so its length can be wrong.)
        depth += 2 * opened - step
    return False


def _levels_exceed(levels: bytes, max_depth: int) -> bool:
    # ``levels``: matched "(" and ")" only. A pass deletes every innermost pair and,
    # as bytes.replace never rescans what it wrote, nothing else: one level a pass.
    for _ in range(max_depth):
        levels = levels.replace(b"()", b"")
        if not levels:
            return False
    return True
