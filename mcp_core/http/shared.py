"""What several server processes share, as small interfaces with in-memory defaults.

One process keeps everything in its own memory (`sessions.MemoryEventStore`, the
endpoint's session table). Behind a load balancer without stickiness, any worker
may get any request, so what a request needs must be where every worker can read
it. Each piece is an interface here, with an in-memory default that behaves as one
process always did; the Redis backends are in ``transports.redis``.

- `SessionRegistry`: which legacy sessions exist, with what the handshake settled
  (revision, client capabilities and info) and who opened them, so a worker that
  never saw a session's ``initialize`` can serve its later requests (2025-11-25
  basic/transports.mdx "Session Management": the client sends the id on every
  request, to whichever worker).
- `EventLog`: the SSE events of a session, so a client reconnecting with
  ``Last-Event-ID`` gets what it missed on that stream from any worker (same
  page, "Resumability and Redelivery"); with the request each stream answers
  and which workers are alive, so that a stream whose worker died ends with an
  error rather than never (`lost_answer`).
- `Bus`: messages for every worker (list changes, resource updates) or for the
  worker that waits for one (a client's answer to a server request, routed by
  session).

The methods are coroutines: a networked backend waits on a round trip. The core
never awaits them; the adapter does, before or after asking the core (the core
decides, the adapter does the I/O). Values are raw JSON bytes; every key carries
its principal (another principal's session is simply not there) and an expiry.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol

import msgspec

from ..session.config import ClientInfo
from ..types.base import ClientCapabilities, Implementation
from ..wire.errors import INTERNAL_ERROR, RemoteProtocolError, SharedStateUnavailable
from ..wire.jsonrpc import ErrorObject, ErrorResponse, Response, decode_message
from .sessions import DEFAULT_MAX_STORED_EVENTS

__all__ = [
    "SessionRecord",
    "SessionRegistry",
    "MemorySessionRegistry",
    "EventLog",
    "MemoryEventLog",
    "replay_from",
    "answers",
    "lost_answer",
    "Bus",
    "SharedStateUnavailable",
    "encode_record",
    "decode_record",
    "record_of",
    "client_of",
]


class SessionRecord(msgspec.Struct, frozen=True, kw_only=True):
    """What the handshake of a legacy session settled, for any worker."""

    session_id: str
    #: Who opened it; None when nobody was authenticated.
    principal: str | None
    #: The negotiated protocol revision.
    revision: str
    #: The client's ``capabilities`` and ``clientInfo``, as raw JSON.
    client_capabilities: msgspec.Raw = msgspec.Raw(b"{}")
    client_info: msgspec.Raw = msgspec.Raw(b"{}")
    created: float = 0.0


def record_of(
    session_id: str, principal: str | None, protocol: Any, now: float
) -> SessionRecord | None:
    """What to register of a session whose protocol side (a ServerSession)
    answered ``initialize``; None when it has not (no revision or client yet)."""
    revision = getattr(protocol, "revision", None)
    client: ClientInfo | None = getattr(protocol, "client", None)
    if revision is None or client is None:
        return None
    return SessionRecord(
        session_id=session_id,
        principal=principal,
        revision=revision,
        client_capabilities=msgspec.Raw(msgspec.json.encode(client.capabilities)),
        client_info=msgspec.Raw(msgspec.json.encode(client.info)),
        created=now,
    )


def client_of(record: SessionRecord) -> ClientInfo:
    """The client a registered session negotiated with (for `ServerSession.resume`)."""
    capabilities = msgspec.json.decode(record.client_capabilities, type=ClientCapabilities)
    info = msgspec.json.decode(record.client_info, type=Implementation | None)
    return ClientInfo(capabilities=capabilities, info=info)


def encode_record(record: SessionRecord) -> bytes:
    """The record as JSON bytes (what a shared registry stores)."""
    return msgspec.json.encode(record)


def decode_record(data: bytes) -> SessionRecord:
    """A record from `encode_record`'s bytes."""
    return msgspec.json.decode(data, type=SessionRecord)


class SessionRegistry(Protocol):
    """Where legacy sessions are registered. Every record expires ``ttl`` seconds
    after it was last put or touched (the session's idle timeout)."""

    async def put(self, record: SessionRecord, ttl: float) -> None:
        """Register (or renew) a session."""
        ...

    async def get(self, principal: str | None, session_id: str) -> SessionRecord | None:
        """The session, if ``principal`` opened it and it has not expired."""
        ...

    async def drop(self, principal: str | None, session_id: str) -> None:
        """Forget a session (DELETE, or ended by the server)."""
        ...


class MemorySessionRegistry:
    """A `SessionRegistry` in one process's memory (the caller's clock)."""

    def __init__(self) -> None:
        self._records: dict[tuple[str | None, str], tuple[SessionRecord, float]] = {}
        #: The clock: set by the caller before each call (seconds).
        self.now = 0.0

    async def put(self, record: SessionRecord, ttl: float) -> None:
        self._records[(record.principal, record.session_id)] = (record, self.now + ttl)

    async def get(self, principal: str | None, session_id: str) -> SessionRecord | None:
        found = self._records.get((principal, session_id))
        if found is None:
            return None
        if found[1] <= self.now:
            del self._records[(principal, session_id)]
            return None
        return found[0]

    async def drop(self, principal: str | None, session_id: str) -> None:
        self._records.pop((principal, session_id), None)


class EventLog(Protocol):
    """The SSE events of every session, for replay from any worker.

    The worker that sends an event names it (ids unique within the session and
    naming their stream: 2025-11-25 basic/transports.mdx "Resumability and
    Redelivery") and appends it here after; the log keeps a bounded number of
    recent events per session (a safety net for broken connections).
    """

    async def append(
        self,
        principal: str | None,
        session_id: str,
        stream_id: str,
        event_id: str,
        message: bytes | None,
    ) -> None:
        """Store one event (``message`` None: a priming event)."""
        ...

    async def append_many(
        self,
        events: Sequence[tuple[str | None, str, str, str, bytes | None]],
        streams: Sequence[tuple[str | None, str, str, bytes]] = (),
    ) -> None:
        """Store several events, in order: (principal, session id, stream id,
        event id, message) each; and name new streams: (principal, session id,
        stream id, JSON of the id of the request it answers) each (one round
        trip for a networked log)."""
        ...

    async def request_of(
        self, principal: str | None, session_id: str, stream_id: str
    ) -> bytes | None:
        """The JSON id of the request a stream answers, if it was named."""
        ...

    async def beat(self, worker: str, ttl: float) -> None:
        """Worker ``worker`` (the tag its stream ids begin with) is alive for
        ``ttl`` seconds more."""
        ...

    async def alive(self, worker: str) -> bool:
        """Whether worker ``worker`` beat within its last ``ttl``."""
        ...

    async def after(
        self, principal: str | None, session_id: str, event_id: str
    ) -> tuple[str, list[tuple[str, bytes]]] | None:
        """The stream of ``event_id`` and the events sent on it after that one,
        oldest first; None for an id never stored or already forgotten."""
        ...

    async def drop(self, principal: str | None, session_id: str) -> None:
        """Forget a session's events."""
        ...


class MemoryEventLog:
    """An `EventLog` in one process's memory, bounded per session."""

    def __init__(self, max_events: int = DEFAULT_MAX_STORED_EVENTS) -> None:
        self.max_events = max_events
        self._events: dict[tuple[str | None, str], list[tuple[str, str, bytes | None]]] = {}
        self._streams: dict[tuple[str | None, str, str], bytes] = {}
        self._alive: dict[str, float] = {}
        #: The clock: set by the caller before each call (seconds).
        self.now = 0.0

    async def append(
        self,
        principal: str | None,
        session_id: str,
        stream_id: str,
        event_id: str,
        message: bytes | None,
    ) -> None:
        events = self._events.setdefault((principal, session_id), [])
        events.append((stream_id, event_id, message))
        del events[: -self.max_events]

    async def append_many(
        self,
        events: Sequence[tuple[str | None, str, str, str, bytes | None]],
        streams: Sequence[tuple[str | None, str, str, bytes]] = (),
    ) -> None:
        for principal, session_id, stream_id, request_id in streams:
            self._streams[(principal, session_id, stream_id)] = request_id
        for event in events:
            await self.append(*event)

    async def request_of(
        self, principal: str | None, session_id: str, stream_id: str
    ) -> bytes | None:
        return self._streams.get((principal, session_id, stream_id))

    async def beat(self, worker: str, ttl: float) -> None:
        self._alive[worker] = self.now + ttl

    async def alive(self, worker: str) -> bool:
        return self._alive.get(worker, self.now) > self.now

    async def after(
        self, principal: str | None, session_id: str, event_id: str
    ) -> tuple[str, list[tuple[str, bytes]]] | None:
        return replay_from(self._events.get((principal, session_id), []), event_id)

    async def drop(self, principal: str | None, session_id: str) -> None:
        self._events.pop((principal, session_id), None)
        for key in [k for k in self._streams if k[:2] == (principal, session_id)]:
            del self._streams[key]


def replay_from(
    events: list[tuple[str, str, bytes | None]], event_id: str
) -> tuple[str, list[tuple[str, bytes]]] | None:
    """From a session's (stream id, event id, message) events, oldest first: the
    stream of ``event_id`` and the messages sent on it after that event (priming
    events carry none); None when ``event_id`` is not among them. The oldest go
    first when the log is trimmed, so when ``event_id`` is here every later
    event is too: the replay has no holes."""
    for index, (stream_id, found, _) in enumerate(events):
        if found == event_id:
            later = [
                (eid, message)
                for sid, eid, message in events[index + 1 :]
                if sid == stream_id and message is not None
            ]
            return stream_id, later
    return None


def answers(messages: Sequence[bytes], request_id: bytes) -> bool:
    """Whether one of a stream's ``messages`` is the response to the request
    whose JSON id is ``request_id`` (after which the stream has ended)."""
    wanted = msgspec.json.decode(request_id)
    for data in messages:
        try:
            message = decode_message(data)
        except RemoteProtocolError:
            continue
        if type(message) in (Response, ErrorResponse) and message.id == wanted:  # type: ignore[union-attr]
            return True
    return False


def lost_answer(request_id: bytes) -> bytes:
    """The error response that ends a stream whose worker is gone before it
    answered: its handler's work is lost with it, and whether it had any
    effect is unknown (2025-11-25 basic/transports.mdx "Sending Messages to the
    Server" item 6: the stream SHOULD eventually include a response; an
    internal error, -32603, is the truth the server can tell)."""
    return msgspec.json.encode(
        ErrorResponse(
            id=msgspec.json.decode(request_id),
            error=ErrorObject(
                code=INTERNAL_ERROR,
                message="the server process answering this request stopped before it "
                "answered; the result is lost and may or may not have taken effect",
            ),
        )
    )


class Bus(Protocol):
    """Messages between workers, by topic: published to every worker listening
    on the topic at that moment (none kept for later)."""

    async def publish(self, topic: str, message: bytes) -> None:
        """Send ``message`` to every current listener of ``topic``."""
        ...

    def listen(self, topic: str) -> AbstractAsyncContextManager[AsyncIterator[bytes]]:
        """Listen on ``topic``: entered, the messages published from then on.

        A listener that may have missed messages (its connection to a shared
        bus was lost) must end, with an error or not, never go on silently: its
        owner listens anew and tells its clients what may have been missed.
        """
        ...
