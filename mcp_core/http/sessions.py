# Sessions and SSE event storage of the streamable-HTTP server, sans I/O.
#
# Theory of operation. A legacy-era client (2025-03-26 .. 2025-11-25) opens a
# session with `initialize`; the server names it with an `Mcp-Session-Id` and the
# client sends that id on every later request (2025-11-25 basic/transports.mdx
# "Session Management"). A session here is only the HTTP side of that: its id, when
# it was last used, how many SSE streams are attached to it, and its event store.
# The protocol side (the ServerSession and its handlers) lives with the transport,
# which binds it to the record so the rules can read the negotiated revision.
#
# Every SSE event the server sends in a session gets an id that is unique across
# all of the session's streams ("globally unique across all streams within that
# session", same page, "Resumability and Redelivery"), made of the stream's id and
# a session-wide sequence number, so it also names its stream (the page's SHOULD).
# The event store remembers recent events per session, so that a client whose
# connection broke can reconnect with GET and `Last-Event-ID` and get what it
# missed *on that stream only* ("MUST NOT replay messages that would have been
# delivered on a different stream").

from __future__ import annotations

from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable
from typing import Any, Final, Protocol

from .routing import STANDALONE_STREAM, StreamRouter

__all__ = [
    "DEFAULT_MAX_STORED_EVENTS",
    "DEFAULT_MAX_STORED_BYTES",
    "STANDALONE_STREAM",
    "EventStore",
    "MemoryEventStore",
    "HttpSession",
    "holder",
    "pick_victim",
]

DEFAULT_MAX_STORED_EVENTS: Final = 256
"""Events kept per session for replay. A reconnecting client needs the events of a
few seconds; an event store is a safety net for broken connections, not a log."""

DEFAULT_MAX_STORED_BYTES: Final = 4 * 1024 * 1024
"""Bytes of event data kept per session for replay (4 MiB, the size of one
maximal message), so that a few large results cannot pin unbounded memory."""


class EventStore(Protocol):
    """Where a session's SSE events wait for a client that may reconnect.

    One store serves one session. Event ids must be unique within it. The
    interface is two calls, both synchronous and both on the server's hot path
    (one `store` per event written), so that any backend fits: the in-memory
    `MemoryEventStore` by default, or a shared store such as Redis, where
    `store` appends to a per-session stream (``XADD`` with ``MAXLEN`` for the
    bound, the entry id as event id, prefixed by the stream id) and
    `replay_after` reads the entries after one (``XRANGE`` from it, keeping
    those of its stream). A networked store should buffer writes rather than
    block here. Pass a factory (one store per session) as ``event_store`` to
    `serve_http`, `asgi_app` or `HttpEndpoint`.
    """

    def store(self, stream_id: str, message: bytes | None) -> str:
        """Remember one event of ``stream_id`` (``None``: a priming event, which
        carries no message) and return its event id."""
        ...

    def replay_after(self, event_id: str) -> tuple[str, list[tuple[str, bytes]]] | None:
        """The stream ``event_id`` belongs to and the (event id, message) pairs sent
        on that stream after it, oldest first; None for an unknown id (never
        issued, or already forgotten)."""
        ...


class MemoryEventStore:
    """A bounded in-memory `EventStore`: the oldest events go first.

    Args:
        max_events: events kept at most.
        max_bytes: bytes of messages kept at most (the newest event is always
            kept, however large).
        id_prefix: put before the sequence number of every event id, so that
            the ids several processes make for one session never collide.
    """

    __slots__ = ("_bytes", "_events", "_prefix", "_seq", "max_bytes", "max_events")

    def __init__(
        self,
        max_events: int = DEFAULT_MAX_STORED_EVENTS,
        max_bytes: int = DEFAULT_MAX_STORED_BYTES,
        id_prefix: str = "",
    ) -> None:
        if max_events < 1 or max_bytes < 0:
            raise ValueError("max_events must be at least 1 and max_bytes not negative")
        self.max_events = max_events
        self.max_bytes = max_bytes
        # Made by the first event: most sessions of a JSON-answering server never
        # store one, and an empty OrderedDict is 128 bytes of an idle session.
        self._events: OrderedDict[str, tuple[str, int, bytes | None]] | None = None
        self._bytes = 0
        self._seq = 0
        self._prefix = id_prefix

    def store(self, stream_id: str, message: bytes | None) -> str:
        self._seq += 1
        event_id = f"{stream_id}-{self._prefix}{self._seq}"
        events = self._events
        if events is None:
            events = self._events = OrderedDict()
        events[event_id] = (stream_id, self._seq, message)
        self._bytes += len(message or b"")
        while len(events) > 1 and (len(events) > self.max_events or self._bytes > self.max_bytes):
            _, (_, _, old) = events.popitem(last=False)
            self._bytes -= len(old or b"")
        return event_id

    def replay_after(self, event_id: str) -> tuple[str, list[tuple[str, bytes]]] | None:
        # Eviction is oldest first, so when event_id is still here, so is every
        # later event of its stream: the replay has no holes.
        events = self._events
        entry = None if events is None else events.get(event_id)
        if entry is None or events is None:
            return None
        stream_id, seq, _ = entry
        later = [
            (eid, message)
            for eid, (sid, n, message) in events.items()
            if sid == stream_id and n > seq and message is not None
        ]
        return stream_id, later

    def __len__(self) -> int:
        return len(self._events or ())


class HttpSession:
    """The HTTP side of one legacy-era session.

    Attributes:
        id: the ``Mcp-Session-Id``.
        created: when it was minted (the caller's clock).
        last_seen: the last request that named it, or the last time a stream of
            it was attached or detached.
        attached: SSE streams of it currently being written to a client; a
            session with attached streams never idles out.
        standalone_open: whether the standalone GET stream is attached.
        events: its event store.
        protocol: the protocol side, bound by the transport (a ServerSession);
            the rules read its ``revision`` and ``requests_in_flight``.
        principal: who opened it (initialize), as the transport authenticated
            them; None when nobody was.
        address: the client address its initialize came from, if known.
        routes: the streams of its requests' answers, and where each message
            it sends goes (see `routing`).
        stream_prefix: what its request streams' ids begin with.
    """

    __slots__ = (
        "_next_stream",
        "address",
        "attached",
        "created",
        "events",
        "id",
        "last_seen",
        "principal",
        "protocol",
        "routes",
        "standalone_open",
        "stream_prefix",
    )

    def __init__(
        self,
        session_id: str,
        now: float,
        events: EventStore,
        principal: str | None = None,
        address: str | None = None,
        stream_prefix: str = "",
    ) -> None:
        self.id = session_id
        self.principal = principal
        self.address = address
        self.created = now
        self.last_seen = now
        self.attached = 0
        self.standalone_open = False
        self.events = events
        self.protocol: Any = None
        self.routes = StreamRouter()
        self._next_stream = 0
        self.stream_prefix = stream_prefix

    @property
    def revision(self) -> str | None:
        """The protocol revision the session negotiated, once known."""
        return getattr(self.protocol, "revision", None)

    def new_stream_id(self) -> str:
        """A stream id not used before in this session (never the standalone one)."""
        self._next_stream += 1
        return f"{self.stream_prefix}{self._next_stream}"


def holder(principal: str | None, address: str | None) -> tuple[str, str | None]:
    """Who holds a session, for fair eviction: its principal, or without one the
    client address it came from (None: unknown, one holder for all of them)."""
    return ("principal", principal) if principal is not None else ("address", address)


def pick_victim(
    candidates: Iterable[HttpSession],
    newcomer: tuple[str, str | None],
    *,
    now: float,
    grace: float,
    ready: Callable[[HttpSession], bool],
) -> HttpSession | None:
    """The session to end so that ``newcomer`` (a `holder`) gets one, or None.

    Only sessions with no stream open are ended, of a holder that holds at
    least as many as the newcomer (its own counted with the one it asks for).
    Among them, from the holder with the most sessions, so that one address or
    principal that opens session after session ends its own before anyone
    else's; then, within that holder: a handshake
    older than ``grace`` seconds (oldest first), else the longest-idle session
    that finished its handshake, and only as a last resort a handshake still
    within its grace (so newcomers do not end each other mid-handshake while
    anything else can go). ``ready`` says whether a session finished its
    handshake.
    """
    pool = list(candidates)
    counts = Counter(holder(s.principal, s.address) for s in pool)
    counts[newcomer] += 1
    # Never from a holder smaller than the newcomer's: one that holds many
    # busy sessions cannot end the idle one of someone who holds fewer.
    idle = [
        s
        for s in pool
        if s.attached == 0 and counts[holder(s.principal, s.address)] >= counts[newcomer]
    ]
    if not idle:
        return None
    largest = max(counts[holder(s.principal, s.address)] for s in idle)
    mine = [s for s in idle if counts[holder(s.principal, s.address)] == largest]

    def rank(session: HttpSession) -> tuple[int, float, float]:
        if ready(session):
            return (1, session.last_seen, session.created)
        if now - session.created >= grace:
            return (0, session.created, session.last_seen)
        return (2, session.created, session.last_seen)

    return min(mine, key=rank)
