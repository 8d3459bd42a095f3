"""A message trace: the last messages a connection sent and received, for a person.

Each `TraceEntry` says when (the caller's clock), which server, which way
("sent", "received", or "event" for what happened to the connection: connecting,
connected, lost, retrying), the JSON-RPC kind, the method (for a response, the
method of the request it answers), the id and the message itself. The buffer keeps
the last ``capacity`` entries and forgets older ones; a callback sees every entry
as it is recorded.

Secrets in headers are never recorded: an event that shows a connection's headers
shows them through `redact_headers`. The messages are recorded as they went over
the wire.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

import msgspec

__all__ = ["REDACTED", "Trace", "TraceEntry", "redact_headers"]

Direction = Literal["sent", "received", "event"]

REDACTED: Final = "<redacted>"

_SECRET_HEADERS: Final = frozenset(
    {"authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key", "api-key"}
)
_SECRET_WORDS: Final = ("token", "secret", "password", "key", "auth", "credential")
_MAX_UNREADABLE: Final = 200
"""Characters of a message that is not JSON kept in its entry."""
_MAX_PENDING: Final = 4096
"""Request ids remembered (to name the method of their answer) per trace."""


def redact_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """``headers`` with the value of every header that may hold a secret replaced."""
    shown = {}
    for name, value in headers.items():
        lower = name.lower()
        secret = lower in _SECRET_HEADERS or any(word in lower for word in _SECRET_WORDS)
        shown[name] = REDACTED if secret else value
    return shown


@dataclass(frozen=True)
class TraceEntry:
    """One message, or one thing that happened to a connection.

    Attributes:
        time: the caller's clock when it was recorded.
        server: the server's name.
        direction: "sent", "received" or "event".
        type: "request", "notification", "response", "error", "unreadable" (not
            JSON-RPC) or "event".
        method: the request's or notification's method; for a response or an
            error, the method of the request it answers, when known; for an
            event, what happened ("connected", "lost"...).
        id: the JSON-RPC id, if any.
        message: the message as decoded JSON (text for one that is not JSON); for
            an event, its details.
    """

    time: float
    server: str
    direction: Direction
    type: str
    method: str | None
    id: Any
    message: Any

    def line(self) -> str:
        """The entry as one line for a terminal."""
        arrow = {"sent": "->", "received": "<-", "event": "**"}[self.direction]
        what = " ".join(str(part) for part in (self.type, self.method, self.id) if part is not None)
        body = (
            self.message
            if isinstance(self.message, str)
            else msgspec.json.encode(self.message).decode()
        )
        return f"{self.time:.3f} {self.server} {arrow} {what}: {body}"


def _kind(message: Any) -> tuple[str, str | None, Any]:
    if not isinstance(message, dict):
        return "unreadable", None, None
    method = message.get("method")
    request_id = message.get("id")
    if isinstance(method, str):
        return ("request" if "id" in message else "notification"), method, request_id
    if "error" in message:
        return "error", None, request_id
    if "result" in message:
        return "response", None, request_id
    return "unreadable", None, request_id


class Trace:
    """A bounded trace of one or more connections.

    Args:
        capacity: entries kept; older ones are forgotten.
        on_entry: called with every entry as it is recorded.
    """

    def __init__(
        self, capacity: int = 1000, on_entry: Callable[[TraceEntry], Any] | None = None
    ) -> None:
        if capacity < 1:
            raise ValueError("a trace keeps at least one entry")
        self._entries: deque[TraceEntry] = deque(maxlen=capacity)
        self.on_entry = on_entry
        # (server, the direction of the request, its id) -> its method.
        self._pending: dict[tuple[str, str, Any], str] = {}

    def _add(self, entry: TraceEntry) -> TraceEntry:
        self._entries.append(entry)
        if self.on_entry is not None:
            self.on_entry(entry)
        return entry

    def record(self, now: float, server: str, direction: Direction, message: Any) -> TraceEntry:
        """Record one message that went ``direction``: decoded JSON, or the bytes of
        the wire (decoded here; bytes that are not JSON are kept as text)."""
        if isinstance(message, bytes | bytearray | memoryview):
            try:
                message = msgspec.json.decode(message)
            except msgspec.DecodeError:
                message = bytes(message)[:_MAX_UNREADABLE].decode(errors="replace")
        kind, method, request_id = _kind(message)
        hashable = isinstance(request_id, str | int)
        if kind == "request" and method is not None and hashable:
            if len(self._pending) >= _MAX_PENDING:
                self._pending.pop(next(iter(self._pending)))
            self._pending[(server, direction, request_id)] = method
        elif kind in ("response", "error") and hashable:
            asked = "received" if direction == "sent" else "sent"
            method = self._pending.pop((server, asked, request_id), None)
        return self._add(TraceEntry(now, server, direction, kind, method, request_id, message))

    def event(self, now: float, server: str, what: str, **details: Any) -> TraceEntry:
        """Record something that happened to a connection (``what``: "connecting",
        "connected", "lost", "retrying", ...). A ``headers`` detail is recorded
        through `redact_headers`."""
        if "headers" in details:
            details["headers"] = redact_headers(details["headers"])
        return self._add(TraceEntry(now, server, "event", "event", what, None, details))

    def entries(self, server: str | None = None) -> list[TraceEntry]:
        """The entries kept, oldest first (of one server, or all)."""
        if server is None:
            return list(self._entries)
        return [entry for entry in self._entries if entry.server == server]

    def clear(self) -> None:
        """Forget every entry."""
        self._entries.clear()
        self._pending.clear()
