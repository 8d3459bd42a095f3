# Where each outgoing message of an HTTP-served session goes.
#
# A `_Stream` is one HTTP answer in the making: the JSON body or the SSE events of
# one POST, or a session's standalone GET stream. The driver's sink runs
# synchronously inside the session's flush; it only queues bytes on the right
# stream and wakes its writer, the connection task that owns the socket.
#
# Which stream each message goes on is the endpoint's decision
# (`mcp_core.http.routing`): the sinks here only carry it out.
#
# A legacy stream whose client went away keeps collecting events in the event
# store (they are numbered and kept there, not queued), so that a GET with
# Last-Event-ID can replay them and take the stream over.

from __future__ import annotations

from collections.abc import Callable
from time import monotonic as _monotonic
from typing import Final

import anyio
import anyio.lowlevel

from mcp_core.http.decisions import Dispatch
from mcp_core.http.routing import STANDALONE_STREAM, ends_stream
from mcp_core.http.server import HttpEndpoint
from mcp_core.wire import Message, RequestId, encode_event

from ..driver import Sink, encode_for_peer
from ..server_connection import ServerConnection

__all__ = ["LegacySession", "LegacySseConnection", "AnswerStream", "modern_sink"]

MAX_QUEUED_EVENTS: Final = 1024
"""Events a stream holds for a client that reads too slowly; past this its
connection is dropped (a legacy client can resume from the event store)."""


class AnswerStream:
    """One answer being written: JSON once, or SSE events as they come.

    Attributes:
        session_id: the legacy session, or None (2026-07-28).
        stream_id: its id within the session, for event ids.
        request_id: the request whose response ends it; None for the
            standalone stream, which ends with its session.
        mode: None until decided, then "json" or "sse".
        json_only: the answer must be JSON (others go to the standalone stream).
        response: the final message and its bytes, for a JSON answer.
        items: SSE events waiting to be written.
        done: the final message is queued: end after writing what is queued.
        attached: a connection is writing this stream.
        owner: the responder of that connection (a POST's, or a GET's that took
            the stream over), so that only it detaches the stream.
        overflow: the client read too slowly; its connection is dropped.
        early: called when a message is queued before the stream's end, for a
            stream whose writer is busy running the request's handler.
        batch: the ids of the requests of a 2025-03-26 batch answered together.
        pending: responses still to come before the stream ends.
        batched: the responses of a batch answered in JSON, until the last.
        direct: while its SSE writer waits, how to write its events at once
            (the connection's `try_send`): what the socket takes then is written
            by whoever queued it, and the writer sleeps on.
    """

    __slots__ = (
        "_wake",
        "attached",
        "batch",
        "batched",
        "direct",
        "done",
        "early",
        "items",
        "json_only",
        "mode",
        "overflow",
        "owner",
        "pending",
        "request_id",
        "response",
        "session_id",
        "spoke",
        "stream_id",
    )

    def __init__(
        self,
        session_id: str | None,
        stream_id: str | None,
        request_id: RequestId | None,
        mode: str | None = None,
        json_only: bool = False,
        batch: tuple[RequestId, ...] = (),
    ) -> None:
        self.session_id = session_id
        self.batch = batch
        self.pending = len(batch) or 1
        self.batched: list[bytes] | None = [] if batch else None
        self.stream_id = stream_id
        self.request_id = request_id
        self.mode = mode
        self.json_only = json_only
        self.response: tuple[Message, bytes] | None = None
        self.items: list[bytes] = []
        self.done = False
        self.attached = False
        self.owner: object = None
        self.overflow = False
        self.early: Callable[[], None] | None = None
        self.direct: Callable[[bytes], bool | None] | None = None
        self.spoke = 0.0  # when `direct` last wrote (time.monotonic)
        # The writer's event, made when it first waits: an idle session's
        # standalone stream then costs no event. True: woken with nobody waiting.
        self._wake: anyio.Event | bool | None = None

    def wake(self) -> None:
        wake = self._wake
        if wake is None:
            self._wake = True
        elif wake is not True:
            # The writer waits (or is woken and not yet running): nothing of
            # this stream is being written.
            direct = self.direct
            if direct is not None and not self.done and not self.overflow:
                items = self.items
                if not items:
                    return  # nothing new for the writer (the events went)
                written = direct(items[0] if len(items) == 1 else b"".join(items))
                if written is not None:
                    items.clear()
                    self.spoke = _monotonic()
                    if written:
                        return
                    # Written in part: the writer sends the rest (an empty write).
                    items.append(b"")
            assert isinstance(wake, anyio.Event)
            wake.set()

    def quiet_for(self) -> float:
        """Seconds since an event was last written (directly, or by `spoken`)."""
        return _monotonic() - self.spoke

    def spoken(self) -> None:
        """Its writer wrote an event just now: a keep-alive comment is due only
        after sse_ping of quiet from here, whichever way the next ones go."""
        self.spoke = _monotonic()

    async def wait(self) -> None:
        """Wait for something new (a message, the end)."""
        wake = self._wake
        if wake is True:
            self._wake = None
            await anyio.lowlevel.checkpoint()
            return
        if wake is None:
            wake = self._wake = anyio.Event()
        assert isinstance(wake, anyio.Event)
        await wake.wait()
        self._wake = None

    def take(self) -> bytes:
        """Everything queued, as one write."""
        data = b"".join(self.items)
        self.items.clear()
        return data

    def put(self, endpoint: HttpEndpoint, message: Message, final: bool) -> None:
        """Queue one message; ``final``: it is the response that ends the stream."""
        if self.done:
            return
        data = encode_for_peer(message)
        if self.mode is None:
            # Answer JSON when the response is the first thing to say, else SSE.
            self.mode = "json" if final else "sse"
        if final:
            self.pending -= 1
        if self.mode == "json":
            batched = self.batched
            if batched is not None:
                # A batch's responses go out together, as one JSON array.
                batched.append(data)
                if self.pending:
                    return
                data = b"[" + b",".join(batched) + b"]"
            self.response = (message, data)
            self.done = True
        else:
            self.push(endpoint.event(self.session_id, self.stream_id, data))
            self.done = final and not self.pending
            if not final and self.early is not None:
                self.early()
        self.wake()

    def attach(self, owner: object) -> None:
        """A connection starts writing the stream (taking it over from any other)."""
        self.attached = True
        self.owner = owner

    def detach(self, owner: object) -> None:
        """The connection of ``owner`` stopped writing the stream; what it had not
        written yet is dropped (a legacy stream's events wait in the event store)."""
        if self.owner is owner:
            self.attached = False
            self.owner = None
            self.items.clear()

    def push(self, event: bytes) -> None:
        """Queue one encoded SSE event, if a connection is writing the stream."""
        if self.attached:
            self.items.append(event)
            if len(self.items) > MAX_QUEUED_EVENTS:
                self.overflow = True
        self.wake()

    def finish(self) -> None:
        """End the stream without a response (the session ended)."""
        self.done = True
        self.wake()


def modern_sink(endpoint: HttpEndpoint, stream: AnswerStream) -> Sink:
    """The driver sink of a 2026-07-28 request's own connection: everything it
    sends goes on that request's stream, which its response ends."""
    request_id = stream.request_id

    def sink(messages: list[Message], related: RequestId | None) -> None:
        for message in messages:
            stream.put(endpoint, message, ends_stream(message, request_id))

    return sink


class LegacySession:
    """A legacy-era HTTP session: its ServerConnection and its live streams."""

    def __init__(
        self, session_id: str, connection: ServerConnection, endpoint: HttpEndpoint
    ) -> None:
        self.id = session_id
        self.connection = connection
        self.endpoint = endpoint
        self.standalone = AnswerStream(session_id, STANDALONE_STREAM, None, mode="sse")
        #: Unfinished streams by stream id (the standalone one included).
        self.streams: dict[str, AnswerStream] = {STANDALONE_STREAM: self.standalone}
        self.routes = endpoint.routes(session_id)
        connection.driver.attach(self._sink)
        connection.cancelled = self._cancelled

    def open(self, dispatch: Dispatch) -> AnswerStream:
        """The stream for a dispatched request (the endpoint routes its messages
        there already); made before the body is fed, since the session may answer
        at once (ping)."""
        assert dispatch.stream_id is not None
        assert dispatch.request_id is not None or dispatch.batch
        stream = AnswerStream(
            self.id,
            dispatch.stream_id,
            dispatch.request_id,
            mode="sse" if dispatch.sse else ("json" if dispatch.json_only else None),
            json_only=dispatch.json_only,
            batch=dispatch.batch,
        )
        stream.attached = True  # the POST's connection waits for it
        self.streams[dispatch.stream_id] = stream
        return stream

    def abandon(self, stream: AnswerStream) -> None:
        """Its client left before anything identified the stream to it (no event
        id was sent): nobody can resume it, so forget it."""
        stream_id = stream.stream_id or ""
        self.streams.pop(stream_id, None)
        for request_id in stream.batch or (stream.request_id,):
            if request_id is not None:
                self.routes.abandon(request_id, stream_id)
        stream.finish()

    def _cancelled(self, request_id: RequestId) -> None:
        # 2025-11-25 basic/utilities/cancellation.mdx: no response is sent for a
        # cancelled request, so the stream that waited for one ends now (an
        # answer that must be JSON has nothing to say: its client, which
        # cancelled, hangs up). A batch's stream waits for the others.
        for stream_id, stream in self.streams.items():
            if stream.request_id == request_id and not stream.batch and not stream.json_only:
                self.routes.abandon(request_id, stream_id)
                if stream.mode is None:
                    stream.mode = "sse"
                stream.finish()
                del self.streams[stream_id]
                return

    def _sink(self, messages: list[Message], related: RequestId | None) -> None:
        route = self.routes.route
        streams = self.streams
        for message in messages:
            stream_id, final = route(message, related)
            stream = streams.get(stream_id) if stream_id is not None else None
            if stream is None:
                continue  # dropped, or the session has ended
            stream.put(self.endpoint, message, final)
            if stream.done:
                del streams[stream_id]  # type: ignore[arg-type]

    def close(self) -> None:
        """End the session: stop serving it and end every stream."""
        self.connection.close()
        for stream in list(self.streams.values()):
            stream.finish()
        self.streams.clear()
        self.routes.clear()


class LegacySseConnection:
    """A session of the deprecated HTTP+SSE transport (2024-11-05): one
    ServerConnection whose every message goes on the session's one stream, as a
    ``message`` event (basic/transports.mdx "HTTP with SSE")."""

    def __init__(self, session_id: str, connection: ServerConnection) -> None:
        self.id = session_id
        self.connection = connection
        self.stream = AnswerStream(session_id, None, None, mode="sse")
        self.stream.attached = True
        connection.driver.attach(self._sink)

    def _sink(self, messages: list[Message], related: RequestId | None) -> None:
        for message in messages:
            self.stream.push(encode_event(encode_for_peer(message), event="message"))

    def close(self) -> None:
        """End the session: stop serving it and end its stream."""
        self.connection.close()
        self.stream.finish()
