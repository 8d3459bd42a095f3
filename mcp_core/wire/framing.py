# Newline-delimited framing for the stdio transport.
#
# Theory of operation
# -------------------
# MCP's stdio binding carries one JSON-RPC message per line: "Messages are delimited by
# newlines, and MUST NOT contain embedded newlines" (spec 2025-11-25 basic/transports, "stdio";
# 2026-07-28 basic/transports/stdio). The same framing is recommended for custom stream
# transports (2026-07-28 stdio, opening section).
#
# `LineFramer` turns an arbitrary split of the byte stream into whole lines. It keeps one
# partial line in a bytearray and never lets that grow past `max_line_bytes` (plus one pending
# `\r`). When a line outgrows the cap the framer drops what it holds, reports a single
# `LineTooLong` marker in stream order, and skips input up to the next `\n`, after which it
# resynchronises. A server answers the marker with a -32700 parse error whose id is null,
# because no id can be recovered from a line it never saw whole. The marker keeps the
# line's first bytes (`LineTooLong.head`), from which a client may read the id of the
# answer it lost (`peek.answer_id`).
#
# Invariant (tested with hypothesis): the concatenation of everything `feed` and `close` return
# is the same however the input is split into chunks.
#
# Length rule: the cap counts the bytes of the message only. Neither the `\n` nor a `\r`
# stripped before it count, so a message of exactly `max_line_bytes` bytes is accepted with
# either LF or CRLF endings and one byte more is rejected with either.
#
# Blank and whitespace-only lines are skipped: JSON-RPC never produces them and being lenient
# costs nothing (a peer that pretty-prints a trailing newline still works).

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DEFAULT_MAX_LINE_BYTES", "HEAD_BYTES", "LineFramer", "LineTooLong", "frame"]

DEFAULT_MAX_LINE_BYTES = 4 * 1024 * 1024
"""Default cap on one stdio message, in bytes (4 MiB).

Large enough for realistic tool results (base64 images and embedded resources of a few MiB
are common), small enough that a peer that never sends a newline costs at most a few MiB of
memory per connection. The same order of magnitude as the 4 MiB message caps common in RPC
stacks (gRPC's default receive limit is 4 MiB)."""

# As ints: ``_CR in data`` is a memchr, while ``b"\r" in data`` first tries to read its
# operand as an int and raises and clears a TypeError (CPython 3.11 `_Py_bytes_contains`),
# ~1,900 instructions a test (callgrind; benchmarks/README.md "stdio, third pass").
_LF = 10
_CR = 13


@dataclass(frozen=True, slots=True)
class LineTooLong:
    """Marker for a line longer than the framer's cap; its bytes were discarded.

    The caller should reply with a JSON-RPC parse error (-32700) with ``id: null``.

    Attributes:
        size_hint: A lower bound on the discarded line's length in bytes. The framer stops
            counting once it gives up on a line, so this is always ``max_line_bytes + 1``;
            that keeps the output independent of how the input was split.
        head: The line's first ``min(HEAD_BYTES, max_line_bytes + 1)`` bytes (the same
            however the input was split).
    """

    size_hint: int
    head: bytes = b""


HEAD_BYTES = 256
"""How much of a line over the cap `LineTooLong.head` keeps: enough for the envelope's
``jsonrpc`` and ``id`` members ahead of a long ``result``."""


class LineFramer:
    """Incremental splitter of a byte stream into newline-terminated messages.

    Holds at most ``max_line_bytes + 1`` bytes of a partial line (the extra byte is a trailing
    ``\\r`` that may be the first half of a CRLF).
    """

    __slots__ = ("_buf", "_discarding", "_max")

    def __init__(self, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES) -> None:
        """Create a framer.

        Args:
            max_line_bytes: Largest accepted message in bytes, not counting the line
                terminator (``\\n`` or ``\\r\\n``).

        Raises:
            ValueError: If ``max_line_bytes`` is less than 1.
        """
        if max_line_bytes < 1:
            raise ValueError("max_line_bytes must be at least 1")
        self._max = max_line_bytes
        self._buf = bytearray()
        self._discarding = False

    @property
    def max_line_bytes(self) -> int:
        """The cap on one message, in bytes, excluding the terminator."""
        return self._max

    @property
    def buffered_bytes(self) -> int:
        """How many bytes of a partial line are held (diagnostic; never above cap + 1)."""
        return len(self._buf)

    def feed(self, data: bytes | bytearray | memoryview) -> list[bytes | LineTooLong]:
        """Add bytes from the peer and return every line they complete.

        Args:
            data: The next chunk of the stream, split anywhere.

        Returns:
            In stream order, each complete non-blank line without its terminator (one ``\\r``
            before the ``\\n`` is stripped), and one `LineTooLong` per line over the cap. The
            marker appears as soon as the cap is exceeded, possibly before the line ends.
        """
        if type(data) is not bytes:
            data = bytes(data)
        cap = self._max
        buf = self._buf
        # Fast path: nothing pending, LF-only input, and the chunk is too short to hold an
        # over-long line. This is the steady state of a stdio session.
        if not buf and not self._discarding and len(data) <= cap and _CR not in data:
            parts = data.split(b"\n")
            tail = parts.pop()
            if tail:
                buf += tail
            return [p for p in parts if p and not p.isspace()]

        out: list[bytes | LineTooLong] = []
        pos = 0
        if self._discarding:
            nl = data.find(b"\n")
            if nl < 0:
                return out
            self._discarding = False
            pos = nl + 1
        elif buf:
            nl = data.find(b"\n")
            if nl < 0:
                if self._overflows(len(buf) + len(data), data[-1] if data else buf[-1]):
                    self._give_up(out, discard=True, head=self._head(buf, data))
                else:
                    buf += data
                return out
            if len(buf) + nl > cap + 1:
                # Too long even if it ends in "\r"; don't bother joining it.
                self._give_up(out, discard=False, head=self._head(buf, data[:nl]))
            else:
                buf += data[:nl]
                self._emit(bytes(buf), out)
                buf.clear()
            pos = nl + 1

        parts = (data[pos:] if pos else data).split(b"\n")
        tail = parts.pop()
        for line in parts:
            self._emit(line, out)
        if tail:
            if self._overflows(len(tail), tail[-1]):
                self._give_up(out, discard=True, head=self._head(b"", tail))
            else:
                buf += tail
        return out

    def close(self) -> list[bytes | LineTooLong]:
        """Signal end of input and return the final line, if any.

        A last line without a terminating newline is still returned (after stripping one
        trailing ``\\r``), because a peer that exits after its final write shouldn't lose it.
        The framer is then back in its initial state.

        Returns:
            An empty list, or a list with the final line.
        """
        out: list[bytes | LineTooLong] = []
        if self._buf:
            self._emit(bytes(self._buf), out)
        self._buf.clear()
        self._discarding = False
        return out

    def _overflows(self, partial_len: int, last_byte: int) -> bool:
        # A partial line of cap + 1 bytes is still fine if its last byte is a "\r" that a
        # following "\n" would strip.
        cap = self._max
        return partial_len > cap and not (partial_len == cap + 1 and last_byte == _CR)

    def _head(self, start: bytes | bytearray, rest: bytes) -> bytes:
        # The first bytes of a line over the cap: it has at least cap + 1 of them.
        size = min(HEAD_BYTES, self._max + 1)
        return bytes(start[:size]) + rest[: max(size - len(start), 0)]

    def _give_up(self, out: list[bytes | LineTooLong], *, discard: bool, head: bytes) -> None:
        self._buf.clear()
        self._discarding = discard
        out.append(LineTooLong(self._max + 1, head))

    def _emit(self, line: bytes, out: list[bytes | LineTooLong]) -> None:
        if line[-1:] == b"\r":
            line = line[:-1]
        if len(line) > self._max:
            out.append(LineTooLong(self._max + 1, self._head(b"", line)))
        elif line and not line.isspace():
            out.append(line)


def frame(message: bytes) -> bytes:
    """Terminate one encoded message for the stdio transport.

    Args:
        message: A serialized JSON-RPC message.

    Returns:
        ``message`` followed by ``b"\\n"``.

    Raises:
        ValueError: If ``message`` contains ``\\n`` or ``\\r`` (the spec forbids embedded
            newlines, and a bare ``\\r`` would be stripped by a CRLF-tolerant reader).
    """
    if _LF in message or _CR in message:
        raise ValueError("a stdio message must not contain CR or LF")
    return message + b"\n"
