"""Putting a `mcp_core.manager.Trace` on a live connection.

The hooks sit on the client's session, where every message of every transport
passes: what arrives (``receive_bytes``, ``receive_message``) and what leaves
(``messages_to_send``). They are installed only while a trace is on, so a
connection without one pays nothing, and removed when it is switched off (what
was there before, telemetry's own wrappers, stays).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from mcp_core.session.client import ClientSession
from mcp_core.wire import Message

from ..client import Connector
from ..driver import Driver, encode_for_peer

__all__ = ["Record", "capture", "install", "uninstall"]

Record = Callable[[str, Any], None]
"""``record(direction, message)``: "sent" or "received", and the message (bytes or
a message object)."""

_HOOKED = ("receive_bytes", "receive_message", "messages_to_send")
_KEPT = "_traced_kept"


def install(session: ClientSession, record: Record) -> None:
    """Trace every message ``session`` receives and sends, from now on."""
    uninstall(session)
    receive_bytes = session.receive_bytes
    receive_message = session.receive_message
    messages_to_send = session.messages_to_send

    # receive_bytes decodes and hands the message to receive_message, the hooked
    # one: a message recorded as its bytes is not recorded again.
    reading = [False]

    def traced_bytes(data: bytes, now: float = 0.0) -> Any:
        record("received", data)
        reading[0] = True
        try:
            return receive_bytes(data, now)
        finally:
            reading[0] = False

    def traced_message(message: Message, now: float = 0.0) -> Any:
        if not reading[0]:
            record("received", _encoded(message))
        return receive_message(message, now)

    def traced_out() -> list[Message]:
        out = messages_to_send()
        for message in out:
            record("sent", _encoded(message))
        return out

    # What the session had of its own (telemetry's wrappers: transports/otel/
    # notifications.py), put back by `uninstall`.
    session.__dict__[_KEPT] = {
        name: session.__dict__[name] for name in _HOOKED if name in session.__dict__
    }
    for name, hook in zip(_HOOKED, (traced_bytes, traced_message, traced_out), strict=True):
        setattr(session, name, hook)


def uninstall(session: ClientSession) -> None:
    """Stop tracing ``session``."""
    kept = session.__dict__.pop(_KEPT, None)
    if kept is None:
        return
    for name in _HOOKED:
        session.__dict__.pop(name, None)
    session.__dict__.update(kept)


def _encoded(message: Message) -> bytes | str:
    try:
        return encode_for_peer(message)
    except Exception as exc:  # what cannot be encoded is not sent either
        return f"<not encodable: {exc}>"


def capture(connector: Connector, seen: Callable[[Any], None]) -> Connector:
    """``connector``, telling ``seen`` what it yields (the HTTP endpoint, the stdio
    process) once it is connected."""

    @asynccontextmanager
    async def connect(driver: Driver) -> AsyncIterator[Any]:
        async with connector(driver) as value:
            seen(value)
            yield value

    return connect
