"""MCP over streamable HTTP: an h11 server on anyio (asyncio and trio).

    serve_http(server, host, port, path)   serve until cancelled
    run_http(server, ...)                  the same, as the whole program

The HTTP rules (which status, which session, JSON or SSE, event ids, replay) are
`mcp_core.HttpEndpoint`'s, and carrying them out (sessions, streams, the writing
of answers) is `_http_service.HttpService`'s, shared with the ASGI adapter; this
module reads requests with h11 and writes the service's answers on the socket.

Timeouts (`HttpTimeouts`): a connection idle between requests, a request head
or body that trickles in (slowloris), and a write the client does not read are
all cut off.

Shutdown (`HttpServer.shutdown`; `run_http` on SIGTERM or SIGINT): the server
stops accepting, closes idle connections and ends the sessions' GET streams with
their last chunk (a 2025-11-25 client resumes them with Last-Event-ID, elsewhere);
requests in flight are answered (with `Connection: close`), and a request that
comes on an open connection meanwhile is answered 503 and its connection closed.
Past the grace period (``shutdown_grace``, 10 s) the SSE answers still open are
ended the same way, and what is left is cancelled. Then `serve` returns.

Binding. On a loopback address the server answers only to the loopback Host
names (DNS-rebinding protection). On any other address it refuses to start
unless ``allowed_hosts`` names the Host names clients use, or is None to accept
any Host (an explicit opt-out): a server reachable from the network that answers
to every name is what DNS rebinding needs (2025-11-25 basic/transports.mdx
"Security Warning").

Also served, at ``config.sse_path`` (``/sse``) and ``config.sse_messages_path``
(``/messages``): the deprecated HTTP+SSE transport of 2024-11-05, for clients
that speak only that (``HttpServerConfig(sse_path=None)`` turns it off).
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import logging
import math
import resource
import signal
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, Final

import anyio
from anyio.abc import SocketAttribute, SocketListener, SocketStream, TaskGroup, TaskStatus

from mcp_core import REVISIONS, Limits, Server
from mcp_core.http import EventStore
from mcp_core.http.decisions import Reply
from mcp_core.http.headers import LOOPBACK_HOSTS, is_loopback
from mcp_core.http.server import HttpServerConfig
from mcp_core.wire import DEFAULT_LIMITS

from ..driver import DEFAULT_MAX_CONCURRENCY
from .connection import HttpConnection
from .service import DEFAULT_TIMEOUTS, Authenticate, HttpService, HttpTimeouts, PeerGone

__all__ = [
    "DEFAULT_SHUTDOWN_GRACE",
    "HttpTimeouts",
    "HttpServer",
    "UnsafeBindError",
    "default_config",
    "serve_http",
    "run_http",
]

log = logging.getLogger("mcp_core.http")

_OUT_OF_DESCRIPTORS: Final = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM})
"""accept() errors that say the process (or the system) has no room for another
socket now: the listener waits and tries again instead of ending the server."""
_STARVED_LOG_INTERVAL: Final = 60.0
"""Seconds between two warnings that accept() is out of descriptors."""
_ACCEPT_RETRY: Final = (0.01, 1.0)
"""First and longest pause between accept() attempts while out of descriptors."""
_DESCRIPTORS_KEPT: Final = 64
"""Descriptors left below the process's limit by the default connection cap: room for
the listener, logs, an event store, a client connection of a handler's own."""

DEFAULT_SHUTDOWN_GRACE: Final = 10.0
"""Seconds a shutdown waits for the requests in flight (uvicorn waits for them
without a bound by default; Kubernetes sends SIGKILL 30 s after SIGTERM)."""
_LAST_WORDS: Final = 1.0
"""Seconds left, past the grace period, for the streams ended then to be written."""
_SWEEP_MIN: Final = 0.005
"""The shortest interval between two looks for reads past their deadline."""
STOP_SIGNALS: Final = (signal.SIGTERM, signal.SIGINT)
"""The signals on which `run_http` shuts down gracefully (a second one: at once)."""


def default_max_connections() -> int:
    """The default cap on open connections: the soft limit on open files less
    `_DESCRIPTORS_KEPT` (at least 16), so that idle connections are closed before
    accept() runs out of descriptors (`Too many open files`)."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return 65536
    return max(16, soft - _DESCRIPTORS_KEPT)


class HttpServer:
    """Serves one `Server` on streamable HTTP; `serve_http` makes and runs one.

    Args:
        server: the application.
        config: the endpoint's rules and limits.
        revisions: protocol revisions served.
        limits: message limits of each session.
        timeouts: how long clients may take.
        max_concurrency: requests served at once per session.
        authenticate: the authentication hook (see `Authenticate`), or None.
        event_store: makes each session's SSE event store; by default a
            bounded `MemoryEventStore`.
        max_connections: connections open at once; when a new one would pass
            it, the connection idle the longest is closed, and if none is idle
            the new one is answered 503 and closed. By default
            `default_max_connections()`, below the limit on open files.
        shutdown_grace: seconds `shutdown` waits for the requests in flight.
    """

    def __init__(
        self,
        server: Server,
        config: HttpServerConfig,
        *,
        revisions: tuple[str, ...] = REVISIONS,
        limits: Limits = DEFAULT_LIMITS,
        timeouts: HttpTimeouts = DEFAULT_TIMEOUTS,
        max_concurrency: int = DEFAULT_MAX_CONCURRENCY,
        authenticate: Authenticate | None = None,
        event_store: Callable[[], EventStore] | None = None,
        max_connections: int | None = None,
        shutdown_grace: float = DEFAULT_SHUTDOWN_GRACE,
    ) -> None:
        self.service = HttpService(
            server,
            config,
            revisions=revisions,
            limits=limits,
            timeouts=timeouts,
            max_concurrency=max_concurrency,
            authenticate=authenticate,
            event_store=event_store,
        )
        self.endpoint = self.service.endpoint
        #: Live legacy sessions by id (the service's).
        self.sessions = self.service.sessions
        self.timeouts = timeouts
        self.max_connections = max_connections or default_max_connections()
        #: Open connections, and those waiting for a request, each oldest first.
        self.connections: dict[HttpConnection, None] = {}
        self.idle: dict[HttpConnection, None] = {}
        #: Connections waiting to read, with the time their wait ends (`_sweep`).
        self.waits: dict[HttpConnection, float] = {}
        #: Connections waiting for a write to be taken, with its deadline (`_sweep`).
        self.writes: dict[HttpConnection, float] = {}
        self.shutdown_grace = shutdown_grace
        #: `shutdown` was called: no request is taken any more.
        self.stopping = False
        #: The signal that began the shutdown, if one did.
        self.stopped_by: signal.Signals | None = None
        self._accepting: list[anyio.CancelScope] = []
        self._emptied: anyio.Event | None = None
        self._hurried = False
        self._grace: anyio.CancelScope | None = None
        self._tg: TaskGroup | None = None

    def shutdown(self) -> None:
        """Stop serving, gracefully: no new connection, idle ones closed, GET
        streams ended; requests in flight are answered within ``shutdown_grace``
        seconds, then `serve` returns. Called again: stop waiting for them."""
        if self.stopping:
            self._hurried = True
            if self._grace is not None:
                self._grace.cancel()
            return
        self.stopping = True
        self.service.health.draining = True
        for scope in self._accepting:
            scope.cancel()
        self._close_idle(every=True)
        self.service.end_streams(in_flight=False)

    async def serve(
        self,
        host: str,
        port: int,
        *,
        stop_signals: Sequence[signal.Signals] = (),
        task_status: TaskStatus[int] = anyio.TASK_STATUS_IGNORED,
    ) -> None:
        """Listen on ``host``:``port`` and serve until cancelled, or until
        `shutdown` (called, or on one of ``stop_signals``) has finished.

        ``task_status.started`` gets the port bound (useful with port 0).
        """
        listener = await anyio.create_tcp_listener(local_host=host, local_port=port)
        async with listener, self.service.running() as tg:
            if stop_signals:
                await tg.start(self._stop_on, stop_signals)
            task_status.started(int(listener.extra(SocketAttribute.local_port)))
            self._tg = tg
            tg.start_soon(self._sweep)
            # One listener per address family; each is a SocketListener, whose
            # accept() we call ourselves.
            *others, last = [one for one in listener.listeners if isinstance(one, SocketListener)]
            for other in others:
                tg.start_soon(self._accept, other, tg)
            try:
                await self._accept(last, tg)  # until shutdown()
                await listener.aclose()
                await self._drain()
            finally:
                self._tg = None

    async def _stop_on(
        self, signals: Sequence[signal.Signals], *, task_status: TaskStatus[None]
    ) -> None:
        # Each signal is a shutdown(): the first begins it, the next ends the grace.
        with anyio.open_signal_receiver(*signals) as received:
            task_status.started()
            async for signum in received:
                if not self.stopping:
                    self.stopped_by = signum
                    log.warning(
                        "%s: shutting down (%g s for the requests in flight; again to stop now)",
                        signal.Signals(signum).name,
                        self.shutdown_grace,
                    )
                self.shutdown()

    async def _drain(self) -> None:
        # Shutting down: wait for the connections to finish what they are doing,
        # within the grace period; then end the SSE answers still open, cleanly,
        # and give them a moment to be written. What is left is cancelled.
        with anyio.move_on_after(self.shutdown_grace) as self._grace:
            if self._hurried:
                self._grace.cancel()
            await self._emptied_out()
        if self.connections:
            log.warning(
                "shutting down: %d connections still busy after %g s; ending them",
                len(self.connections),
                self.shutdown_grace,
            )
            self.service.end_streams(in_flight=True)
            with anyio.move_on_after(_LAST_WORDS):
                await self._emptied_out()

    async def _emptied_out(self) -> None:
        while self.connections:
            self._emptied = anyio.Event()
            await self._emptied.wait()

    async def _accept(self, listener: SocketListener, tg: TaskGroup) -> None:
        # Our own accept loop: anyio's serve() ends the server on the first
        # failed accept(), and running out of descriptors is a passing state.
        # shutdown() cancels it.
        with anyio.CancelScope() as scope:
            self._accepting.append(scope)
            if self.stopping:
                scope.cancel()
            await self._accept_loop(listener, tg)

    async def _accept_loop(self, listener: SocketListener, tg: TaskGroup) -> None:
        pause = _ACCEPT_RETRY[0]
        said = -math.inf
        while True:
            try:
                sock = await listener.accept()
            except (OSError, anyio.BrokenResourceError) as failure:
                # anyio's trio backend wraps the OSError.
                exc = failure if isinstance(failure, OSError) else failure.__cause__
                if not isinstance(exc, OSError) or exc.errno not in _OUT_OF_DESCRIPTORS:
                    raise
                if anyio.current_time() - said > _STARVED_LOG_INTERVAL:
                    said = anyio.current_time()
                    log.warning(
                        "accept() failed (%s) with %d connections open: closing idle "
                        "connections and waiting for descriptors to free up",
                        exc.strerror,
                        len(self.connections),
                    )
                if not self._close_idle():
                    await anyio.sleep(pause)
                    pause = min(pause * 2, _ACCEPT_RETRY[1])
                else:
                    await anyio.sleep(0)
                continue
            pause = _ACCEPT_RETRY[0]
            if len(self.connections) >= self.max_connections and not self._close_idle():
                tg.start_soon(self._refuse_socket, sock)
            else:
                tg.start_soon(self._serve_socket, sock)

    async def _sweep(self) -> None:
        # Ends the connections whose read waited past its deadline (keep_alive,
        # head, body), and closes the socket under a write past ``write``: one
        # wake-up every eighth of the shortest timeout rather than a timer armed
        # and disarmed in the event loop for every read and write. A wait is cut
        # off within that eighth after its deadline.
        t = self.timeouts
        tick = max(_SWEEP_MIN, min(t.keep_alive, t.head, t.body, t.write) / 8)
        now = self.service.now
        waits, writes = self.waits, self.writes
        while True:
            await anyio.sleep(tick)
            if waits or writes:
                moment = now()
                for connection in [c for c, deadline in waits.items() if deadline <= moment]:
                    del waits[connection]
                    connection.close_idle()
                for connection in [c for c, deadline in writes.items() if deadline <= moment]:
                    del writes[connection]
                    await connection.cut_off()

    def _close_idle(self, every: bool = False) -> bool:
        # Closes the connection that has waited longest for a request (or every
        # idle one); False if every connection is busy.
        closed = False
        for connection in list(self.idle):
            connection.close_idle()
            closed = True
            if not every:
                break
        return closed

    async def _refuse_socket(self, sock: SocketStream) -> None:
        assert self._tg is not None
        async with sock:
            connection = HttpConnection(self, sock, self._tg)
            with contextlib.suppress(PeerGone, anyio.BrokenResourceError, OSError):
                await connection.reply(Reply(503, (("retry-after", "1"),), close=True))

    async def _serve_socket(self, sock: SocketStream) -> None:
        assert self._tg is not None
        async with sock:
            connection = HttpConnection(self, sock, self._tg)
            self.connections[connection] = None
            try:
                await connection.run()
            except (PeerGone, anyio.BrokenResourceError, anyio.ClosedResourceError):
                pass
            except Exception:  # pragma: no cover - a bug of ours; keep serving others
                log.exception("HTTP connection failed")
            finally:
                del self.connections[connection]
                self.idle.pop(connection, None)
                self.waits.pop(connection, None)
                self.writes.pop(connection, None)
                if self._emptied is not None and not self.connections:
                    self._emptied.set()


class UnsafeBindError(ValueError):
    """Serving on a non-loopback address was asked for without saying which Host
    names to answer to (``allowed_hosts``), or that any will do (None)."""


def _unsafe_bind(host: str) -> UnsafeBindError:
    return UnsafeBindError(
        f"refusing to serve on {host}, which is not a loopback address, without "
        "allowed_hosts: name the Host names clients will use (allowed_hosts="
        "['mcp.example.com'], or mcp-core serve --allowed-host mcp.example.com), or "
        "accept any Host with allowed_hosts=None (--any-host), which turns off the "
        "DNS-rebinding protection (2025-11-25 basic/transports.mdx, Security Warning)"
    )


def default_config(host: str, path: str = "/mcp", **options: Any) -> HttpServerConfig:
    """The endpoint config for a server bound to ``host``.

    On a loopback address Host names are checked against the loopback names
    unless ``allowed_hosts`` says otherwise. On any other address
    ``allowed_hosts`` must be given: the names to answer to, or None for any.

    Raises:
        UnsafeBindError: ``host`` is not a loopback address and ``options`` has
            no ``allowed_hosts``.
    """
    if "allowed_hosts" not in options:
        if not is_loopback(host):
            raise _unsafe_bind(host)
        options["allowed_hosts"] = LOOPBACK_HOSTS
    elif options["allowed_hosts"] is not None:
        options["allowed_hosts"] = tuple(options["allowed_hosts"])
    return HttpServerConfig(path=path, **options)


class _Unset:
    """The type of `_UNSET`: no ``allowed_hosts`` argument given."""


_UNSET: Final = _Unset()


def _config_for(
    host: str,
    path: str,
    config: HttpServerConfig | None,
    allowed_hosts: Sequence[str] | _Unset | None,
) -> HttpServerConfig:
    # serve_http's config from its arguments, refusing an unsafe bind.
    if config is None:
        options = {} if isinstance(allowed_hosts, _Unset) else {"allowed_hosts": allowed_hosts}
        return default_config(host, path, **options)
    if not isinstance(allowed_hosts, _Unset):
        hosts = None if allowed_hosts is None else tuple(allowed_hosts)
        return dataclasses.replace(config, allowed_hosts=hosts)
    if not is_loopback(host) and config.allowed_hosts == LOOPBACK_HOSTS:
        raise _unsafe_bind(host)
    return config


async def serve_http(
    server: Server,
    host: str = "127.0.0.1",
    port: int = 8000,
    path: str = "/mcp",
    *,
    config: HttpServerConfig | None = None,
    allowed_hosts: Sequence[str] | _Unset | None = _UNSET,
    authenticate: Authenticate | None = None,
    event_store: Callable[[], EventStore] | None = None,
    revisions: tuple[str, ...] = REVISIONS,
    limits: Limits = DEFAULT_LIMITS,
    timeouts: HttpTimeouts = DEFAULT_TIMEOUTS,
    max_concurrency: int = DEFAULT_MAX_CONCURRENCY,
    max_connections: int | None = None,
    shutdown_grace: float = DEFAULT_SHUTDOWN_GRACE,
    stop_signals: Sequence[signal.Signals] = (),
    task_status: TaskStatus[int] = anyio.TASK_STATUS_IGNORED,
) -> signal.Signals | None:
    """Serve ``server`` at ``http://host:port/path`` until cancelled, or until one
    of ``stop_signals`` arrives: then shut down gracefully (see `HttpServer.shutdown`)
    and return that signal; a second signal cuts the grace period short.

    Args:
        server: the application.
        host: the address to bind; keep the default loopback address unless the
            server is meant for other machines (2025-11-25 basic/transports.mdx
            "Security Warning": SHOULD bind only to localhost when local).
        port: the port; 0 picks a free one (reported through ``task_status``).
        path: the MCP endpoint's path.
        config: the endpoint's rules; by default `default_config(host, path)`.
            Its ``allowed_hosts`` counts as given unless it is the loopback
            default.
        allowed_hosts: the Host names to answer to (any port), or None for any;
            required on a non-loopback ``host`` (here or in ``config``).
        authenticate: the authentication hook (see `Authenticate`): who each
            request comes from, or a 401/403 refusal. None admits everyone.
        event_store: makes each session's SSE event store (see
            `mcp_core.EventStore`); by default a bounded `MemoryEventStore`.
        revisions: protocol revisions served (default: all, both eras).
        limits: message limits of each session.
        timeouts: how long clients may take.
        max_concurrency: requests served at once per session.
        max_connections: connections open at once (see `HttpServer`).
        shutdown_grace: seconds a shutdown waits for the requests in flight.
        stop_signals: signals that shut the server down (`run_http` passes
            SIGTERM and SIGINT); none by default.

    Raises:
        UnsafeBindError: a non-loopback ``host`` without ``allowed_hosts``.
    """
    http = HttpServer(
        server,
        _config_for(host, path, config, allowed_hosts),
        revisions=revisions,
        limits=limits,
        timeouts=timeouts,
        max_concurrency=max_concurrency,
        authenticate=authenticate,
        event_store=event_store,
        max_connections=max_connections,
        shutdown_grace=shutdown_grace,
    )
    await http.serve(host, port, stop_signals=stop_signals, task_status=task_status)
    return http.stopped_by


def run_http(
    server: Server,
    *,
    backend: str = "asyncio",
    on_listening: Callable[[str], None] | None = None,
    **options: Any,
) -> signal.Signals | None:
    """Run ``server`` on HTTP as the whole program, until SIGTERM or SIGINT, which
    shut it down gracefully (`HttpServer.shutdown`); returns the signal.

    Args:
        server: the application.
        backend: "asyncio" or "trio".
        on_listening: called with the endpoint's URL once the port is bound
            (with port 0, the URL names the port picked).
        options: anything `serve_http` takes (host, port, path...).

    Raises:
        UnsafeBindError: as `serve_http`, before anything starts.
    """

    # Refuse an unsafe bind before starting a loop, so that it leaves as itself.
    options["config"] = _config_for(
        str(options.get("host", "127.0.0.1")),
        str(options.get("path", "/mcp")),
        options.get("config"),
        options.pop("allowed_hosts", _UNSET),
    )
    status: TaskStatus[int] = anyio.TASK_STATUS_IGNORED
    if on_listening is not None:
        status = _Announce(lambda port: on_listening(_url(options, port)))
    options.setdefault("stop_signals", STOP_SIGNALS)
    # No task group here: a failure to bind leaves as itself (an OSError).
    return anyio.run(partial(serve_http, server, task_status=status, **options), backend=backend)


class _Announce:
    """A task status that calls back with the port once `serve_http` listens."""

    def __init__(self, callback: Callable[[int], None]) -> None:
        self.callback = callback

    def started(self, value: int | None = None) -> None:
        assert value is not None
        self.callback(value)


def _url(options: dict[str, Any], port: int) -> str:
    host = str(options.get("host", "127.0.0.1"))
    config = options.get("config")
    path = config.path if isinstance(config, HttpServerConfig) else options.get("path", "/mcp")
    return f"http://{f'[{host}]' if ':' in host else host}:{port}{path}"
