# The pump: a driver run over a message stream (stdio, a socket with framing, a
# memory object stream in tests).
#
# Theory of operation. Two loops share the stream. The reader feeds what it
# receives to the driver; the writer sends what the driver's sink queued in the
# `_Outbox`. The driver knows no stream: `pump` installs the writer's sink.
#
#   reading   `_Reader`: the task that reads also serves the requests it read,
#             until a handler first waits (`Serving.start` tells when);
#             then the reading goes on in another task (a parked reader task,
#             else a new one), and this one stays with the handler. Every stream
#             is read a list at a time: a `BatchStream` gives every message one
#             read brought, any other stream one message per list.
#   writing   the writer task sends what is queued, in order. Over a
#             `BatchStream` the sink writes straight to the wire while nothing
#             is queued and the writer is idle, and the writer sends everything
#             queued in one write. While the reading task serves a read of
#             several messages, the answers it makes are held and go out in one
#             write when it has served them all (or when one of them waits):
#             one system call, and one wake-up of the peer, per read.
#   pressure  over a byte stream the sink encodes each message as it queues it,
#             and the outbox counts the bytes not yet written; while they pass
#             ``max_outbox_bytes`` the reader reads nothing more, so a peer that
#             never reads our answers stops being read (its writes block) instead
#             of growing our memory without end. What is read already is still
#             served: past the bound go at most the answers to one read's worth.
#   the end   the peer stopped sending: what is in flight is answered, briefly;
#             then the driver closes, the writer drains, and the stream closes.
#
# `encode_for_peer` is the one place outgoing messages become bytes, for every
# transport that carries bytes.

from __future__ import annotations

from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, Final, Protocol, runtime_checkable

import anyio
import msgspec
from anyio.abc import ObjectStream, TaskGroup, TaskStatus
from msgspec import EncodeError

from mcp_core.session import RequestReceived
from mcp_core.wire import (
    INTERNAL_ERROR,
    ErrorObject,
    ErrorResponse,
    LineTooLong,
    Message,
    RequestId,
    Response,
    encode_message,
)

from .workers import Worker, run_worker

if TYPE_CHECKING:
    from .driver import Driver

__all__ = ["DEFAULT_MAX_OUTBOX_BYTES", "BatchStream", "encode_for_peer", "pump"]

_DRAIN_SECONDS: Final = 2.0

DEFAULT_MAX_OUTBOX_BYTES: Final = 8 * 1024 * 1024
"""Bytes of outgoing messages a pump holds unwritten before it stops reading: half
the largest message (16 MiB), many times what a peer that reads keeps waiting."""

_MAX_PARKED_READERS: Final = 16
"""Reader tasks of a pump kept waiting for the reading to come back to them."""


@runtime_checkable
class BatchStream(Protocol):
    """A byte message stream that can also move several messages per call, and write
    without waiting (stdio: see `transports.stdio_streams.StdioStream`)."""

    async def receive_batch(self) -> list[bytes | LineTooLong]: ...

    async def send_batch(self, items: Sequence[bytes]) -> None: ...

    def send_batch_nowait(self, items: Sequence[bytes]) -> bool: ...


def encode_for_peer(message: Message) -> bytes:
    """Encode one outgoing message as JSON, for transports that carry bytes.

    A result JSON cannot carry (a handler returned something msgspec cannot
    encode) goes out as a -32603 error reply instead: one bad answer fails its
    request, not the connection.

    Raises:
        TypeError, msgspec.EncodeError: any other message cannot be encoded.
    """
    try:
        return encode_message(message)
    except (TypeError, msgspec.EncodeError) as exc:
        if type(message) is not Response:
            raise
        error = ErrorObject(
            code=INTERNAL_ERROR, message=f"Internal error: the result cannot be encoded: {exc}"
        )
        return encode_message(ErrorResponse(id=message.id, error=error))


class _Outbox:
    """The pump's queue of outgoing messages: the sink fills it, the writer empties it.

    A deque and a wake-up event rather than a memory object stream: taking what is
    there costs no checkpoint. With ``encode`` the sink queues each message as
    bytes (a message that cannot be encoded stays a Message, for the writer to
    fail on), and ``pending`` counts the bytes queued or being written; `room`
    waits while they pass ``bound``.
    """

    __slots__ = (
        "_room",
        "_wake",
        "bound",
        "busy",
        "closed",
        "encode",
        "held",
        "holding",
        "items",
        "owed",
        "pending",
    )

    def __init__(self, encode: bool, bound: int) -> None:
        self.items: deque[bytes | Message] = deque()
        self.encode = encode
        self.bound = bound
        #: Bytes queued, held by the writer, or owed by a direct write.
        self.pending = 0
        #: The writer is sending: new messages must queue behind what it holds.
        self.busy = False
        #: The stream kept this many bytes of a direct write; the writer must finish it.
        self.owed = 0
        #: Direct writes are held (`held`) rather than written: see `_Reader`.
        self.holding = False
        #: Encoded messages the sink held, in order, not counted in `pending`.
        self.held: list[bytes] = []
        self.closed = False
        self._wake: anyio.Event | None = None
        self._room: anyio.Event | None = None

    def put(self, messages: list[Message], related: RequestId | None) -> None:
        """Queue messages for the writer (a sink)."""
        if self.encode:
            for message in messages:
                try:
                    data = encode_for_peer(message)
                except (TypeError, EncodeError):
                    self.items.append(message)
                    continue
                self.pending += len(data)
                self.items.append(data)
        else:
            self.items.extend(messages)
        self.wake()

    def put_encoded(self, batch: list[bytes]) -> None:
        """Queue messages already encoded, for the writer."""
        self.items.extend(batch)
        self.pending += sum(map(len, batch))
        self.wake()

    def owe(self, size: int) -> None:
        """A direct write of ``size`` bytes went out in part; the writer finishes it."""
        self.owed = size
        self.pending += size
        self.wake()

    def written(self, size: int) -> None:
        """``size`` bytes went out: wake the reader if that made room."""
        self.pending -= size
        if self._room is not None and self.pending <= self.bound:
            self._room.set()

    async def room(self) -> None:
        """Wait while more than ``bound`` bytes wait to be written."""
        while self.pending > self.bound and not self.closed:
            self._room = anyio.Event()
            await self._room.wait()
            self._room = None

    def wake(self) -> None:
        if self._wake is not None:
            self._wake.set()

    def close(self) -> None:
        """No more messages; the writer stops once it has written what is queued."""
        self.closed = True
        self.wake()
        if self._room is not None:
            self._room.set()

    async def wait(self) -> bool:
        """Wait until there is something to write; False once closed and done."""
        while not self.items and not self.owed:
            if self.closed:
                return False
            self._wake = anyio.Event()
            await self._wake.wait()
            self._wake = None
        return True


def _encoded(item: bytes | Message) -> bytes:
    return item if isinstance(item, bytes) else encode_for_peer(item)


class _Writer:
    """The writing side of a pump: the driver's sink, and the writer task's loop.

    Over a `BatchStream` the sink writes straight to the wire while nothing is
    queued and the writer is idle (the order stays the session's), else it
    queues for the writer; any other stream is written by the writer alone.
    Errors of a direct write are left for the writer to meet and act on.
    """

    __slots__ = ("_batch", "_driver", "_objects", "_outbox", "_serving", "_stream", "done")

    def __init__(self, driver: Driver, stream: ObjectStream[Any], outbox: _Outbox, objects: bool):
        self._driver = driver
        self._stream = stream
        self._outbox = outbox
        self._objects = objects
        self._serving = driver.serving.serving
        # Checked once: a runtime protocol check costs microseconds.
        self._batch: BatchStream | None = (
            stream if isinstance(stream, BatchStream) and not objects else None
        )
        #: Set when the writer task has ended.
        self.done = anyio.Event()

    @property
    def batch_stream(self) -> BatchStream | None:
        return self._batch

    def sink(self) -> Callable[[list[Message], RequestId | None], None]:
        """The sink to install in the driver."""
        return self._outbox.put if self._batch is None else self._write_now

    def _write_now(self, messages: list[Message], related: RequestId | None) -> None:
        # The sink of a batch stream. Not waking a writer task takes a third off a
        # sequential round trip over stdio; with 16 calls in flight, one write per
        # message still beats batching them behind a wake-up (measured: 1.8x).
        outbox = self._outbox
        if outbox.items or outbox.busy or outbox.owed:
            outbox.put(messages, related)
            return
        if not outbox.holding and len(self._serving) > 1:
            # Other requests are in flight (handlers waiting, or in worker threads,
            # whose answers come several per loop turn): the writer sends what
            # they answer meanwhile in one write. A direct write per answer
            # would also hand the GIL to a worker thread at each system call.
            outbox.put(messages, related)
            return
        try:
            # The encoder itself, mapped: no frame per message. A message it cannot
            # encode goes to the writer, with `encode_for_peer`'s fallback (`put`).
            batch = list(map(encode_message, messages))
        except (TypeError, EncodeError):
            # The writer meets the error; what was held goes before.
            outbox.put_encoded(self._take_held())
            outbox.put(messages, related)
            return
        if outbox.holding:
            outbox.held += batch
            return
        self._send_now(batch)

    def _send_now(self, batch: list[bytes]) -> None:
        assert self._batch is not None
        outbox = self._outbox
        try:
            done = self._batch.send_batch_nowait(batch)
        except (anyio.BrokenResourceError, anyio.ClosedResourceError):
            outbox.put_encoded(batch)  # for the writer to meet the error and act on it
            return
        if not done:
            outbox.owe(sum(map(len, batch)))

    def _take_held(self) -> list[bytes]:
        outbox = self._outbox
        held, outbox.held = outbox.held, []
        return held

    def hold(self) -> None:
        """From now on, what the driver sends is held (over a batch stream)."""
        self._outbox.holding = self._driver.serving.more_to_serve = self._batch is not None

    def write_held(self) -> None:
        """Write what was held, and hold no more."""
        outbox = self._outbox
        outbox.holding = self._driver.serving.more_to_serve = False
        if outbox.held:
            held = self._take_held()
            if outbox.items or outbox.busy or outbox.owed:
                outbox.put_encoded(held)
            else:
                self._send_now(held)

    async def run(self, tg: TaskGroup) -> None:
        """The writer task: send what is queued, in order, until the outbox closes."""
        outbox, stream, batch_stream = self._outbox, self._stream, self._batch
        items = outbox.items
        try:
            while await outbox.wait():
                outbox.busy = True
                if batch_stream is not None:
                    # Everything queued goes out in one write: under load, one system
                    # call and one checkpoint carry many messages.
                    batch = [_encoded(item) for item in items]
                    items.clear()
                    size = sum(map(len, batch)) + outbox.owed
                    outbox.owed = 0
                    await batch_stream.send_batch(batch)
                    outbox.written(size)
                elif self._objects:
                    await stream.send(items.popleft())
                else:
                    data = _encoded(items.popleft())
                    await stream.send(data)
                    outbox.written(len(data))
                outbox.busy = False
        except anyio.BrokenResourceError:
            self._driver.send_failed("the peer closed the connection")
            tg.cancel_scope.cancel()
        except anyio.ClosedResourceError:
            self._driver.close("the peer closed the connection")
            tg.cancel_scope.cancel()
        finally:
            self.done.set()


class _Reader:
    """The read loop of a pump, which passes from task to task.

    The task reading also serves what it reads: a request's handler runs in it
    (no task to wake, no task switch) until the handler first waits; then another
    task takes over the reading, and this one stays with the handler, in a cancel
    scope of its own that stands for that request (a cancellation, or the driver
    closing, cancels it). A handler that answers at once costs nothing more than
    the feeding did.

    While it serves a read of several messages, the answers are held
    (`_Writer.hold`) and written together (`_Writer.write_held`) once it has
    served them all, or when one of them waits.

    Args:
        driver: the driver to feed.
        receive: returns the next list of items, at least one (raises as an
            ObjectStream's ``receive`` does at the end).
        outbox: nothing is received while it holds more than its bound.
        tg: where reader tasks run.
        writer: holds and writes what the driver sends.
    """

    def __init__(
        self,
        driver: Driver,
        receive: Callable[[], Awaitable[list[Any]]],
        outbox: _Outbox,
        tg: TaskGroup,
        writer: _Writer,
    ) -> None:
        self.driver = driver
        self._receive = receive
        self._outbox = outbox
        self._tg = tg
        self._writer = writer
        self._items: deque[Any] = deque()
        self._jobs: deque[RequestReceived] = deque()
        #: Set when the stream ended or reading failed (`failure`).
        self.ended = anyio.Event()
        self.failure: BaseException | None = None
        self._parked: list[Worker[bool]] = []

    def start(self) -> None:
        """Have a task read: a parked reader task, else a new one."""
        if self._parked:
            self._parked.pop().start(True)
        else:
            self._tg.start_soon(self._task)

    async def _task(self) -> None:
        # A reader task reads (serving what it reads) until the reading passes on,
        # finishes the request it kept, then parks until the reading comes back
        # to it: a task is started only when none is parked. Its cancel scope
        # works as a handler task's does (`transports.workers`).
        await run_worker(True, self._parked, _MAX_PARKED_READERS, self.ended.is_set, self._read)

    def _pass_on(self) -> None:
        # The request being served here waits: this task keeps it, and the
        # reading goes on in another task. What this read brought besides goes
        # to handler tasks (one new reader per read, not per request that waits).
        serving, items, jobs = self.driver.serving, self._items, self._jobs
        while jobs:
            serving.in_task(jobs.popleft())
        while items:
            self.driver.feed(items.popleft())
        self._writer.write_held()
        self.start()

    async def _read(self, _: bool, scope: anyio.CancelScope) -> None:
        driver, items, jobs = self.driver, self._items, self._jobs
        serving = driver.serving
        start = serving.start
        while True:
            if jobs:
                # Served here, in this task's scope, which stands for the request
                # from now on.
                rest = start(jobs.popleft(), scope)
                if rest is not None:
                    # It waits: this task stays with it, the reading goes on elsewhere.
                    self._pass_on()
                    await rest
                    return
            elif items:
                jobs.extend(driver.keep(items.popleft()))
            else:
                # The read is served: the thread jobs its requests wait for run
                # as one batch (`Serving.run_batch`), answered here if they end soon.
                rest = serving.run_batch(scope)
                if rest is not None:
                    self._pass_on()
                    await rest
                    return
                self._writer.write_held()
                outbox = self._outbox
                try:
                    # Nothing more is read while the peer has not taken what we owe it.
                    if outbox.pending > outbox.bound:
                        await outbox.room()
                    batch = await self._receive()
                except anyio.EndOfStream:
                    self.ended.set()
                    return
                except (anyio.BrokenResourceError, anyio.ClosedResourceError) as exc:
                    self.failure = exc
                    self.ended.set()
                    return
                if len(batch) > 1:
                    self._writer.hold()
                items.extend(batch)


async def pump(
    driver: Driver,
    stream: ObjectStream[Any],
    *,
    objects: bool = False,
    max_outbox_bytes: int = DEFAULT_MAX_OUTBOX_BYTES,
    task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED,
) -> None:
    """Run ``driver`` over a message stream until either side ends it.

    Args:
        driver: the driver to feed.
        stream: an ObjectStream whose items are whole messages: JSON bytes (or
            LineTooLong markers) by default, Message objects with ``objects``.
        objects: pass Message objects instead of encoding them.
        max_outbox_bytes: bytes of encoded messages held unwritten past which
            nothing more is read until the peer takes some (not with ``objects``).

    Reads until the stream ends, then closes the driver (failing what waits) and
    the stream. Start it with ``await tg.start(...)`` to send before anything is
    received (a client opening the session): the driver can send once it has
    started.
    """
    outbox = _Outbox(not objects, max_outbox_bytes)
    writer = _Writer(driver, stream, outbox, objects)
    driver.attach(writer.sink())
    async with anyio.create_task_group() as tg:
        tg.start_soon(writer.run, tg)
        task_status.started()
        try:
            await _read_until_end(driver, stream, outbox, tg, writer)
        except anyio.BrokenResourceError:
            driver.receive_failed("reading from the peer failed")
        except anyio.ClosedResourceError:
            pass
        finally:
            driver.close("the peer closed the connection")
            # Let the writer drain what was queued before the end, briefly.
            outbox.close()
            with anyio.CancelScope(shield=True):
                with anyio.move_on_after(_DRAIN_SECONDS):
                    await writer.done.wait()
                tg.cancel_scope.cancel()
                await stream.aclose()


async def _read_until_end(
    driver: Driver, stream: ObjectStream[Any], outbox: _Outbox, tg: TaskGroup, writer: _Writer
) -> None:
    # Read (and serve) until the peer stops sending, then answer what is in flight.
    async def receive_one() -> list[Any]:
        return [await stream.receive()]

    batch_stream = writer.batch_stream
    receive = receive_one if batch_stream is None else batch_stream.receive_batch
    reader = _Reader(driver, receive, outbox, tg, writer)
    reader.start()
    await reader.ended.wait()
    if reader.failure is not None:
        raise reader.failure
    # The peer has stopped sending: a stdio client closing our stdin to shut
    # down (2025-11-25 basic/lifecycle.mdx "Shutdown"), or a script piping
    # requests in. Answer what is in flight before closing, briefly.
    await driver.finish_serving(_DRAIN_SECONDS)
