# Server-Sent Events: an incremental parser and an encoder.
#
# Theory of operation
# -------------------
# Streamable HTTP carries server messages in `text/event-stream` bodies (MCP spec 2025-11-25
# basic/transports, "Streamable HTTP"; 2026-07-28 basic/transports/streamable-http). The wire
# format is WHATWG HTML, section "Server-sent events", subsections "Parsing an event stream"
# and "Interpreting an event stream". This module follows those rules:
#
# * The stream is UTF-8; one leading BOM is dropped. Lines end in CRLF, LF or a lone CR. A CR
#   at the very end of a chunk may be the first half of a CRLF, so `_pending_cr` remembers it
#   and a LF that opens the next chunk is swallowed.
# * A line starting with ":" is a comment. Otherwise the field name runs to the first ":" (the
#   whole line if there is none, with an empty value) and one space after the colon is dropped.
# * `data` appends the value plus "\n" to the data buffer; `event` sets the type; `id` sets the
#   last-event-id buffer unless the value contains NUL; `retry` sets the reconnection time if
#   the value is all ASCII digits. Other fields are ignored.
# * A blank line dispatches: the last event id is committed even if nothing is dispatched, and
#   an event is produced only if the data buffer is non-empty (its final "\n" removed).
# * At end of stream an unterminated event is discarded, so the parser needs no `close`.
#
# Lines are split as bytes and values are decoded with errors="replace" only when an event is
# built. That equals decoding the whole stream first, because every delimiter is ASCII and a
# UTF-8 decoder never swallows an ASCII byte into an invalid sequence.
#
# Memory is bounded by `max_event_bytes`: a line, or the data of one event, that grows past it
# raises `SSEError`, which leaves the parser failed. Events completed earlier in the same chunk
# ride along on the exception, so whatever the chunking, the events returned plus those on the
# error are the same.

from __future__ import annotations

from dataclasses import dataclass
from typing import NoReturn

__all__ = [
    "DEFAULT_MAX_EVENT_BYTES",
    "SSEError",
    "SSEParser",
    "ServerSentEvent",
    "encode_comment",
    "encode_event",
]

DEFAULT_MAX_EVENT_BYTES = 4 * 1024 * 1024
"""Default cap on one SSE line and on one event's data, in bytes (4 MiB).

Matches the stdio line cap (`DEFAULT_MAX_LINE_BYTES`): an SSE event carries one JSON-RPC
message, so both transports accept the same message sizes."""

_BOM = b"\xef\xbb\xbf"
_CR = 13
_LF = 10
_SPACE = 32
_COLON = 58
# Reconnection times with more digits than this (about 30 million years in milliseconds) are
# ignored rather than converted, which also keeps int() clear of its digit limit.
_MAX_RETRY_DIGITS = 18


class SSEError(ValueError):
    """The event stream broke a limit of the parser; the stream should be closed.

    Attributes:
        events: Events completed earlier in the chunk whose processing raised, in order.
    """

    def __init__(self, message: str, events: tuple[ServerSentEvent, ...] = ()) -> None:
        super().__init__(message)
        self.events = events


@dataclass(frozen=True, slots=True)
class ServerSentEvent:
    """One dispatched event.

    Attributes:
        data: The data lines joined with ``"\\n"``, decoded as UTF-8 with replacement.
        event: The event type; ``"message"`` when the ``event`` field is absent or empty,
            as in the WHATWG rules.
        id: The last event id in effect after this event, which persists across events;
            ``None`` if none was set or it was reset by an empty ``id`` field.
        retry: The reconnection time (milliseconds) given by a ``retry`` field in this
            event's block, or ``None``. `SSEParser.retry` keeps the latest value.
    """

    data: str
    event: str = "message"
    id: str | None = None
    retry: int | None = None


class SSEParser:
    """Incremental parser of a ``text/event-stream`` body.

    Feed it the body bytes as they arrive; it returns the events that are complete.
    """

    __slots__ = (
        "_block_retry",
        "_bom_pending",
        "_buf",
        "_data",
        "_event_type",
        "_failed",
        "_id_buffer",
        "_last_event_id",
        "_max",
        "_pending_cr",
        "_retry",
    )

    def __init__(self, max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES) -> None:
        """Create a parser at the start of a stream.

        Args:
            max_event_bytes: Largest accepted line, and largest accepted data of one event,
                in bytes.

        Raises:
            ValueError: If ``max_event_bytes`` is less than 1.
        """
        if max_event_bytes < 1:
            raise ValueError("max_event_bytes must be at least 1")
        self._max = max_event_bytes
        self._buf = bytearray()
        self._bom_pending = True
        self._pending_cr = False
        self._failed = False
        self._data = bytearray()
        self._event_type = b""
        self._block_retry: int | None = None
        self._id_buffer: str | None = None
        self._last_event_id: str | None = None
        self._retry: int | None = None

    @property
    def last_event_id(self) -> str | None:
        """The last event id committed by a blank line, or ``None`` (unset or reset)."""
        return self._last_event_id

    @property
    def retry(self) -> int | None:
        """The latest valid ``retry`` value in milliseconds, or ``None`` if none was seen."""
        return self._retry

    def feed(self, data: bytes | bytearray | memoryview) -> list[ServerSentEvent]:
        """Add body bytes and return the events they complete.

        Args:
            data: The next chunk of the body, split anywhere.

        Returns:
            The completed events in order (possibly none).

        Raises:
            SSEError: A line or an event's data exceeded ``max_event_bytes``, or the parser
                had already failed. The parser stays failed; the exception's ``events``
                attribute holds the events completed earlier in this chunk.
        """
        if self._failed:
            raise SSEError("the event stream parser has already failed")
        if type(data) is not bytes:
            data = bytes(data)
        if self._bom_pending:
            # The buffer only ever holds a prefix of the BOM in this state.
            head = bytes(self._buf) + data
            if len(head) < len(_BOM) and _BOM.startswith(head):
                self._buf[:] = head
                return []
            self._bom_pending = False
            self._buf.clear()
            data = head[len(_BOM) :] if head.startswith(_BOM) else head
        if not data:
            return []
        if self._pending_cr:
            self._pending_cr = False
            if data[0] == _LF:
                data = data[1:]
        if _CR in data:  # an int: a memchr (see wire/framing.py)
            self._pending_cr = data[-1] == _CR
            data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")

        lines = data.split(b"\n")
        tail = lines.pop()
        buf = self._buf
        out: list[ServerSentEvent] = []
        if not lines:
            if len(buf) + len(tail) > self._max:
                self._fail("an event stream line exceeds max_event_bytes", out)
            buf += tail
            return out
        if buf:
            lines[0] = bytes(buf) + lines[0]
            buf.clear()
        check_lengths = len(lines[0]) + len(data) > self._max
        for line in lines:
            if check_lengths and len(line) > self._max:
                self._fail("an event stream line exceeds max_event_bytes", out)
            self._line(line, out)
        if len(tail) > self._max:
            self._fail("an event stream line exceeds max_event_bytes", out)
        buf += tail
        return out

    def _fail(self, message: str, out: list[ServerSentEvent]) -> NoReturn:
        self._failed = True
        self._buf.clear()
        self._data.clear()
        raise SSEError(message, tuple(out))

    def _line(self, line: bytes, out: list[ServerSentEvent]) -> None:
        if not line:
            self._dispatch(out)
            return
        colon = line.find(b":")
        if colon == 0:
            return  # comment
        if colon < 0:
            name = line
            value = b""
        else:
            name = line[:colon]
            start = colon + 1
            if len(line) > start and line[start] == _SPACE:
                start += 1
            value = line[start:]
        if name == b"data":
            if len(self._data) + len(value) + 1 > self._max:
                self._fail("an event's data exceeds max_event_bytes", out)
            self._data += value
            self._data.append(_LF)
        elif name == b"event":
            self._event_type = value
        elif name == b"id":
            if b"\0" not in value:
                self._id_buffer = value.decode("utf-8", "replace") if value else None
        elif name == b"retry" and value.isdigit():
            digits = value.lstrip(b"0")
            if len(digits) <= _MAX_RETRY_DIGITS:
                self._retry = self._block_retry = int(digits or b"0")

    def _dispatch(self, out: list[ServerSentEvent]) -> None:
        self._last_event_id = self._id_buffer
        if self._data:
            del self._data[-1]
            out.append(
                ServerSentEvent(
                    data=self._data.decode("utf-8", "replace"),
                    event=self._event_type.decode("utf-8", "replace") or "message",
                    id=self._last_event_id,
                    retry=self._block_retry,
                )
            )
            self._data.clear()
        self._event_type = b""
        self._block_retry = None


def _split_lines(text: bytes) -> list[bytes]:
    return text.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n")


def _check_field(what: str, value: str) -> bytes:
    if "\r" in value or "\n" in value or "\0" in value:
        raise ValueError(f"an SSE {what} must not contain CR, LF or NUL")
    return value.encode("utf-8")


def encode_event(
    data: str | bytes,
    *,
    event: str | None = None,
    id: str | None = None,
    retry: int | None = None,
) -> bytes:
    """Encode one event, terminated by a blank line.

    Args:
        data: The payload; str is encoded as UTF-8. Each of its lines (split on CRLF, CR or
            LF) becomes one ``data:`` line, so a parser returns it with ``"\\n"`` endings.
        event: The event type, or ``None`` to omit the field (parsers default to
            ``"message"``).
        id: The event id, or ``None`` to omit it. An empty string resets the client's last
            event id.
        retry: A reconnection time in milliseconds, or ``None``.

    Returns:
        The encoded event: ``id``, ``event``, ``retry`` and ``data`` lines, then ``"\\n"``.

    Raises:
        ValueError: If ``event`` or ``id`` contains CR, LF or NUL, ``retry`` is negative, or
            ``data`` is a str that can't be encoded as UTF-8 (lone surrogates).
    """
    raw = data.encode("utf-8") if isinstance(data, str) else data
    if event is None and id is None and retry is None and _LF not in raw and _CR not in raw:
        return b"".join((b"data: ", raw, b"\n\n"))
    parts: list[bytes] = []
    if id is not None:
        parts += (b"id: ", _check_field("id", id), b"\n")
    if event is not None:
        parts += (b"event: ", _check_field("event name", event), b"\n")
    if retry is not None:
        if retry < 0:
            raise ValueError("retry must not be negative")
        parts += (b"retry: ", b"%d" % retry, b"\n")
    for line in _split_lines(raw):
        parts += (b"data: ", line, b"\n")
    parts.append(b"\n")
    return b"".join(parts)


def encode_comment(text: str = "") -> bytes:
    """Encode a comment block, e.g. a keep-alive that parsers ignore.

    Args:
        text: The comment; each of its lines becomes one ``:`` line.

    Returns:
        The comment lines followed by a blank line. Send it only between events: the blank
        line dispatches any event the peer has half-received.

    Raises:
        ValueError: If ``text`` can't be encoded as UTF-8 (lone surrogates).
    """
    if not text:
        return b":\n\n"
    lines = _split_lines(text.encode("utf-8"))
    return b"".join([b": " + line + b"\n" for line in lines]) + b"\n"
