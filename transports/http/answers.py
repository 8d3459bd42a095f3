# Writing the answer to a dispatched request: `Answers`, which `HttpService`
# (transports.http.service) holds and hands its requests to once dispatched.
#
# Handlers run in the task answering their POST (`Answers.serve_here`, through
# `Serving.serve` as every request): a request served at once costs no task and
# no task switch. While a handler runs, a writer task
# (`AnswerWriter`) is started only if the answer must go on meanwhile: messages
# sent before the response, or a stream whose head and keep-alives are due while
# the handler waits. The answer is JSON when the response comes first, else an
# SSE stream, written one write per batch of events, with keep-alive comments
# after `sse_ping` of quiet, and ended early for SSE polling (`poll_after`).

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anyio
from anyio.abc import TaskGroup

from mcp_core.http.decisions import SSE_HEADERS, Dispatch, Headers, OpenStream, Reply
from mcp_core.http.server import HttpEndpoint

from ..driver import Driver
from ..one_request import OneRequest
from .responder import PeerGone, Responder
from .streams import AnswerStream
from .timeouts import HttpTimeouts

__all__ = ["AnswerWriter", "Answers"]


class AnswerWriter:
    """Writes the answer to a request from a task of its own while the request's
    handler runs in the answering task: started when the handler sends a message
    before its response, or waits while the answer is a stream (whose head,
    priming event and keep-alive comments are then due)."""

    def __init__(
        self,
        answers: Answers,
        out: Responder,
        stream: AnswerStream,
        decision: Dispatch,
        on_gone: Callable[[], None] | None,
    ) -> None:
        self._answers = answers
        self._out = out
        self._stream = stream
        self._decision = decision
        self._on_gone = on_gone
        self._scope: anyio.CancelScope | None = None
        self._done: anyio.Event | None = None
        self._gone = False
        self.started = False

    def start(self) -> None:
        """Start writing, once."""
        if self.started:
            return
        self.started = True
        self._scope = anyio.CancelScope()
        self._done = anyio.Event()
        tg = self._answers.tg
        assert tg is not None, "answers are written while the service runs"
        tg.start_soon(self._run)

    async def _run(self) -> None:
        assert self._scope is not None and self._done is not None
        answers, out, stream, decision = self._answers, self._out, self._stream, self._decision
        try:
            with self._scope:
                if self._on_gone is None:
                    # Nobody else watches this answer: the writer does.
                    await out.watched(lambda: answers.write_answer(out, stream, decision))
                else:
                    await answers.write_answer(out, stream, decision)
        except PeerGone:
            self._gone = True
            if self._on_gone is not None:
                self._on_gone()
        finally:
            self._done.set()

    async def finished(self) -> None:
        """Wait until the answer is written.

        Raises:
            PeerGone: the client went away meanwhile.
        """
        assert self._done is not None
        await self._done.wait()
        if self._gone:
            raise PeerGone

    def stop(self) -> None:
        """Stop writing (the answer ended, or its client went)."""
        if self._scope is not None:
            self._scope.cancel()


class Answers:
    """Writes the answers of an `HttpService`'s dispatched requests.

    Attributes:
        tg: the service's task group while it runs (writer tasks start there).
        now: the service's clock (the event loop's, once it runs).
    """

    def __init__(self, endpoint: HttpEndpoint, timeouts: HttpTimeouts) -> None:
        self.endpoint = endpoint
        self.timeouts = timeouts
        self.tg: TaskGroup | None = None
        self.now: Callable[[], float] = anyio.current_time

    async def serve_here(
        self,
        out: Responder,
        stream: AnswerStream,
        decision: Dispatch,
        link: Driver | OneRequest,
        jobs: list[Any],
        on_gone: Callable[[], None] | None,
    ) -> None:
        # Serve a request's handler in the task answering its POST (no task to
        # start, no task switch to wait for it), then write the answer. A handler
        # that sends something before its response, or that waits while the answer
        # is a stream, gets a writer task meanwhile (`AnswerWriter`), so that its
        # messages, and a stream's head and keep-alives, reach the client while it
        # goes on. ``on_gone``: what to do when the client goes (None: the writer
        # watches for that itself, as this task is not watched; and each job has
        # a cancel scope of its own, which notifications/cancelled cancels).
        serve = link.serving.serve
        if on_gone is None and stream.mode == "json":
            # A JSON-only answer (response_mode "json") of a request nobody
            # watches: nothing goes out before the response (its messages go on
            # the standalone stream), so there is no writer to start. Its
            # cancellation (notifications/cancelled) ends the connection, with
            # no response (2025-11-25 basic/utilities/cancellation.mdx): the
            # connection's own scope is the request's, no scope of its own.
            closing = out.closing()
            for job in jobs:
                if closing is None:
                    with anyio.CancelScope() as scope:
                        await serve(job, scope)
                else:
                    await serve(job, closing)
            response = stream.response
            if response is None:
                await self.write_answer(out, stream, decision)
            else:
                await out.reply(self.endpoint.json_reply(decision, *response))
            return
        writer = AnswerWriter(self, out, stream, decision, on_gone)
        stream.early = writer.start

        def waits() -> None:
            if on_gone is not None:
                out.watch()
            if stream.mode == "sse":
                writer.start()

        start = link.serving.start
        try:
            for job in jobs:
                if on_gone is None:
                    with anyio.CancelScope() as scope:
                        rest = start(job, scope)
                        if rest is not None:
                            waits()
                            await rest
                else:
                    rest = start(job)
                    if rest is not None:
                        waits()
                        await rest
            # From here on one task writes the answer: the writer, if it started,
            # else this one (a stream has one writer: Stream.wait has one waiter).
            stream.early = None
            if writer.started:
                out.watch()
                await writer.finished()
            else:
                await self.write_answer(out, stream, decision)
        finally:
            stream.early = None
            writer.stop()

    async def answer(self, out: Responder, stream: AnswerStream, decision: Dispatch) -> None:
        # The answer to a dispatched request, JSON or SSE, with the client watched
        # meanwhile: one that hangs up raises PeerGone.
        await out.watched(lambda: self.write_answer(out, stream, decision))

    async def write_answer(self, out: Responder, stream: AnswerStream, decision: Dispatch) -> None:
        # Every wait for the application watches for a hang-up first (out.watch).
        if stream.mode is None or (stream.mode == "json" and stream.response is None):
            out.watch()
            while stream.mode is None:
                await stream.wait()
            while stream.mode == "json" and stream.response is None:
                await stream.wait()
        if stream.mode == "json":
            assert stream.response is not None
            message, data = stream.response
            await out.reply(self.endpoint.json_reply(decision, message, data))
            return
        first = decision.priming
        if first is None:
            # Nothing to say before the first event: wait for it, so that it goes
            # with the head (a quiet handler's client still gets the head, and a
            # keep-alive comment, after sse_ping).
            first = b""
            if not stream.items and not stream.done:
                out.watch()
                with anyio.move_on_after(self.timeouts.sse_ping) as quiet:
                    await stream.wait()
                if quiet.cancelled_caught:
                    first = b":\n\n"
        head = (*SSE_HEADERS, *decision.headers)
        if decision.poll_after is not None:
            # A stream that may end before its response: its client comes back
            # with a GET, on another connection, as this one stays with the
            # request's handler until it returns.
            head = (*head, ("connection", "close"))
        await self.write_sse(out, stream, head, first + stream.take(), decision.poll_after)

    async def stream_events(
        self, out: Responder, stream: AnswerStream | None, decision: OpenStream
    ) -> None:
        # A GET stream: the replay, then the live stream if it goes on.
        first = (decision.priming or b"") + b"".join(decision.replay)
        if stream is None:
            # Resuming a stream that has ended: the replay is all there is.
            await out.reply(Reply(200, decision.headers, first))
            return
        # A request's stream that its POST (or an earlier GET) still holds is taken
        # over: what was queued for that connection is in the replay already.
        stream.items.clear()
        stream.attach(out)
        live = stream
        await out.watched(lambda: self.write_sse(out, live, decision.headers, first + live.take()))

    async def write_sse(
        self,
        out: Responder,
        stream: AnswerStream,
        head: Headers,
        first: bytes,
        poll_after: float | None = None,
    ) -> None:
        # What is there goes with the head, and a stream that is complete by then
        # (a response that came at once) is one write. With ``poll_after``, a
        # stream still going then is ended (SSE polling: the client comes back
        # with GET and Last-Event-ID for the rest, kept in the event store).
        data = first + stream.take() if stream.items else first
        if stream.done and not stream.overflow:
            await out.start(200, head, data, end=True)
            return
        await out.start(200, head, data)
        # While this task waits, what is queued is written at once if the socket
        # takes it (a responder that can: the h11 server's connection).
        direct = getattr(out, "try_send", None)
        stream.direct = direct
        try:
            await self._write_events(out, stream, poll_after)
        finally:
            if stream.direct is direct:
                stream.direct = None

    async def _write_events(
        self, out: Responder, stream: AnswerStream, poll_after: float | None
    ) -> None:
        ping = self.timeouts.sse_ping
        close_at = None if poll_after is None else self.now() + poll_after
        quiet_left = ping  # before a keep-alive comment is due
        while True:
            if stream.items:
                data = stream.take()
                if stream.done and not stream.overflow and not stream.items:
                    await out.end(data)
                    return
                stream.spoken()
                await out.send(data)
                continue
            if stream.done or stream.overflow:
                break
            left = quiet_left if close_at is None else min(quiet_left, close_at - self.now())
            if left <= 0:
                # Polling: its events wait in the event store for the client's GET.
                stream.detach(out)
                break
            out.watch()
            with anyio.move_on_after(left) as quiet:
                await stream.wait()
            if quiet.cancelled_caught and left == quiet_left:
                # Events written directly meanwhile (`AnswerStream.wake`) did not
                # wake this task: the comment is due after sse_ping of quiet since.
                since = stream.quiet_for()
                if since < ping:
                    quiet_left = ping - since
                    continue
                await out.send(b":\n\n")
            quiet_left = ping
        if stream.overflow:
            raise PeerGone
        await out.end()
