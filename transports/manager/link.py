"""One server of a manager: its connection, and getting it back when it is lost.

Theory of operation. A `Link` runs one task (`run`) for as long as the server is
in the manager:

    connecting --handshake done--> connected --connection lost--> disconnected
        |                                                             |
        +--failed--> disconnected: wait the backoff, then connecting <-+
                     failed: retries used up (or auto_reconnect off);
                             waits for a manual `reconnect`

Success resets the retries. The connection counts as lost when its driver closes
(a stdio server exited, the session broke) or when a request on it fails with
the connection (`lose`: over HTTP nothing else tells). A manual reconnect closes
the connection and starts again at once with fresh retries.

While connected, a 2026-07-28 server whose capabilities declare ``listChanged``
gets a ``subscriptions/listen`` stream for its lists, so its list changes reach
the catalog as a legacy server's do; that stream failing with the connection
(once the HTTP client has given up resuming it) counts as a loss too. A stream
the server ends cleanly (shutting down, it answers the listen request) is opened
again after the first backoff delay, the listings then refreshed: a server that
is gone fails that, and is reconnected as for any loss. A
handshake-era server is pinged every ``ping_interval`` seconds: a ping that
fails with the connection, or gets no answer in time, is a loss. (A 2026-07-28
server without a listen stream has neither: its death shows at the next request.)
"""

from __future__ import annotations

import logging
import math
import sys
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Final, Literal
from urllib.parse import urlsplit

import anyio

from mcp_core.manager import Backoff, Retries, ServerConfig, Trace
from mcp_core.types import Implementation, ServerCapabilities

from ..client import Client, Connector
from ..driver import ConnectionClosed
from ..http.client import HttpStatusError, OutcomeUnknownError, http_connector
from ..http.pool import HttpClientTimeouts
from ..server_connection import ServerConnection
from ..stdio import stdio_connector
from ..stdio_process import StdioProcess
from .errors import ServerUnavailable
from .oauth import server_oauth
from .tracing import capture, install, uninstall

__all__ = ["Link", "ServerStatus", "State"]

State = Literal["connecting", "connected", "failed", "disconnected"]

_HTTP_TRANSPORT: Final = {"auto": "auto", "streamable-http": "streamable", "sse": "sse"}
_PYTHON_NAMES: Final = frozenset({"python", "python3"})
"""Commands that mean the interpreter running the manager (as for ``mcp-core call``)."""
_STDERR_LINES: Final = 20

log = logging.getLogger("mcp_core.manager")
# Silent unless the program configures logging (`mcp-core gateway --log-level`):
# the other commands that run a manager report states their own way.
log.addHandler(logging.NullHandler())


@dataclass(frozen=True)
class ServerStatus:
    """Where one server's connection stands.

    Attributes:
        id: the server's id in the manager (its name).
        name: its name.
        state: "connecting", "connected", "failed" (given up: a manual reconnect
            starts again) or "disconnected" (lost, or between retries).
        last_error: why the last connection failed or ended, if it did.
        last_connected: when it last connected (seconds since the epoch).
        attempts: retries since it last connected.
        transport: what it actually connected with: "stdio", "streamable-http"
            or "sse" ("memory": a server in this process); None before the
            first connection.
        capabilities: what the server declared, once connected.
        server_info: its name and version, as it told.
        revision: the protocol revision in use.
        pid: a stdio server's process id.
        stderr: the last lines a stdio server wrote on its stderr.
    """

    id: str
    name: str
    state: State
    last_error: str | None
    last_connected: float | None
    attempts: int
    transport: str | None
    capabilities: ServerCapabilities | None
    server_info: Implementation | None
    revision: str | None
    pid: int | None
    stderr: tuple[str, ...]


def describe(exc: BaseException) -> str:
    """An exception as a person reads it."""
    if isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        return describe(exc.exceptions[0])
    text = str(exc)
    if isinstance(exc, TimeoutError):
        return f"no answer in time{f' ({text})' if text else ''}"
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _log_change(link: Link) -> None:
    # One line per change of a link's state, with the server's name and why;
    # where it connects without credentials (no userinfo, query or arguments).
    state, config, reason = link.state, link.config, link.last_error
    details: dict[str, Any] = {"server": link.name, "state": state}
    level, text = logging.INFO, str(state)
    if state == "connecting":
        if config.url is not None:
            url = urlsplit(config.url)
            host = f"[{url.hostname}]" if ":" in (url.hostname or "") else url.hostname
            where = f"{url.scheme}://{host}{f':{url.port}' if url.port else ''}{url.path}"
        else:
            where = str(config.command or "memory")
        text = f"connecting to {where}"
        retry = link.retries.attempts
        if retry:
            text = f"reconnecting to {where} (retry {retry})"
            details["retry"] = retry
    elif state == "connected":
        text = f"connected ({link.transport}, {link.revision})"
        details.update(transport=link.transport, revision=link.revision)
    elif state == "failed" or (state == "disconnected" and not link.removed and reason):
        level = logging.ERROR if state == "failed" else logging.WARNING
        gave_up = f" (gave up after {link.retries.attempts} retries)" if state == "failed" else ""
        text = f"{state}: {reason}{gave_up}"
        details["reason"] = reason
    log.log(level, "server %s: %s", link.name, text, extra=details)


def _transport_of(value: Any) -> str:
    if isinstance(value, ServerConnection):
        return "memory"
    if isinstance(value, StdioProcess):
        return "stdio"
    return "sse" if getattr(value, "transport", None) == "sse" else "streamable-http"


def _listen_flags(capabilities: ServerCapabilities) -> dict[str, bool]:
    return {
        kind: getattr(getattr(capabilities, kind), "list_changed", None) is True
        for kind in ("tools", "prompts", "resources")
    }


class Link:
    """One server of a manager.

    Args:
        config: the server.
        backoff: the manager's schedule (``max_reconnect_attempts`` of the
            config replaces its limit).
        random: the jitter's random source.
        client_options: what every `Client` of this server gets (callbacks
            already bound to it).
        changed: called after every change of state.
        connected: called when a connection is ready, before anyone uses it.
        trace: the manager's global switch; the config's ``trace`` turns it on
            for this server alone.
        trace_capacity: entries the trace keeps.
        on_trace: sees every trace entry.
        connector: connects instead of the config's url or command (a server
            in this process: `transports.memory.pipe`); its transport reads
            "memory".
    """

    def __init__(
        self,
        config: ServerConfig,
        *,
        backoff: Backoff,
        random: Callable[[], float],
        client_options: dict[str, Any],
        changed: Callable[[Link], None],
        connected: Callable[[Link], None],
        trace: bool = False,
        trace_capacity: int = 1000,
        on_trace: Callable[[Any], Any] | None = None,
        connector: Connector | None = None,
    ) -> None:
        self.config = config
        self._connector = connector
        self.name = config.name
        self.retries = Retries(replace(backoff, max_attempts=config.max_reconnect_attempts), random)
        self._random = random
        self._client_options = client_options
        self._changed = changed
        self._connected = connected
        self.trace = Trace(trace_capacity, on_trace)
        self.tracing = trace or config.trace
        self.state: State = "connecting"
        self.client: Client | None = None
        self.last_error: str | None = None
        self.last_connected: float | None = None
        self.transport: str | None = None
        self.capabilities: ServerCapabilities | None = None
        self.server_info: Implementation | None = None
        self.revision: str | None = None
        self.pid: int | None = None
        self.stderr: deque[str] = deque(maxlen=_STDERR_LINES)
        #: Set once the first attempt is over, whichever way it went.
        self.settled = anyio.Event()
        #: Set when `run` has returned.
        self.done = anyio.Event()
        self._lost: anyio.Event | None = None
        self._opening: anyio.CancelScope | None = None  # while connecting
        self._loss: str | None = None
        self._wake = anyio.Event()
        self._manual = False
        self.removed = False
        #: The server's OAuth, kept across reconnections (its tokens, its lock).
        self.oauth = server_oauth(config)

    # --- what others see ----------------------------------------------------------------

    def status(self) -> ServerStatus:
        """A snapshot of the connection's state."""
        return ServerStatus(
            id=self.name,
            name=self.name,
            state=self.state,
            last_error=self.last_error,
            last_connected=self.last_connected,
            attempts=self.retries.attempts,
            transport=self.transport,
            capabilities=self.capabilities,
            server_info=self.server_info,
            revision=self.revision,
            pid=self.pid,
            stderr=tuple(self.stderr),
        )

    def _set(self, state: State) -> None:
        if state != self.state:
            self.state = state
            if state != "connecting":  # `_attempt` says so, each time
                _log_change(self)
            self._changed(self)

    def _event(self, what: str, **details: Any) -> None:
        if self.tracing:
            self.trace.event(time.time(), self.name, what, **details)

    def _record(self, direction: str, message: Any) -> None:
        self.trace.record(time.time(), self.name, direction, message)  # type: ignore[arg-type]

    def set_tracing(self, on: bool) -> None:
        """Switch this server's trace on or off, on the live connection too."""
        self.tracing = on
        if self.client is not None:
            if on:
                install(self.client.session, self._record)
            else:
                uninstall(self.client.session)

    # --- the controls -------------------------------------------------------------------

    def lose(self, reason: str) -> None:
        """The connection is gone (a request on it failed with it): reconnect.
        While it is still opening, the attempt is abandoned."""
        if self._opening is not None:
            self._loss = reason
            self._opening.cancel()
        if self._lost is not None and not self._lost.is_set():
            self._loss = reason
            if not self.removed and not self._manual:
                self.last_error = reason  # already there when the state changes
            self.client = None
            self._set("disconnected")
            self._lost.set()

    def reconnect(self) -> None:
        """Close the connection if there is one and connect again now, retries reset."""
        self._manual = True
        self.lose("reconnect asked for")
        self._wake.set()

    def remove(self) -> None:
        """Close the connection for good; `run` returns."""
        self.removed = True
        self.lose("removed")
        self._wake.set()

    # --- the task -----------------------------------------------------------------------

    async def run(self) -> None:
        """Connect, and reconnect, until removed."""
        try:
            while not self.removed:
                if self._manual:
                    self._manual = False
                    self.retries.reset()
                await self._attempt()
                self.settled.set()
                if self.removed or self._manual:
                    continue
                delay = self.retries.next_delay() if self.config.auto_reconnect else None
                if delay is None:
                    self._set("failed")
                    self._event("gave up", attempts=self.retries.attempts)
                else:
                    self._set("disconnected")
                    self._event("retrying", delay=round(delay, 3), attempt=self.retries.attempts)
                await self._pause(delay)
        finally:
            self.client = None
            self.settled.set()
            self._set("disconnected")
            self.done.set()

    async def _pause(self, delay: float | None) -> None:
        if self._manual or self.removed:
            return
        self._wake = wake = anyio.Event()
        with anyio.move_on_after(math.inf if delay is None else delay):
            await wake.wait()

    async def _attempt(self) -> None:
        self._set("connecting")
        _log_change(self)
        self._event("connecting", **self._where())
        self._loss = None
        try:
            with anyio.CancelScope() as self._opening:
                await self._session()
        except Exception as exc:
            self.last_error = describe(exc)
            self._event("failed", error=self.last_error)
        else:
            if self._loss is not None and not self.removed and not self._manual:
                self.last_error = self._loss
            self._event("lost", reason=self._loss)
        finally:
            self.client = None
            self._lost = None
            self._opening = None

    def _where(self) -> dict[str, Any]:
        config = self.config
        if config.url is not None:
            return {"url": config.url, "headers": config.request_headers()}
        return {"command": [config.command, *config.args]}

    async def _session(self) -> None:
        connected_with: list[Any] = []
        client = self._client(connected_with.append)
        async with client:
            self._opening = None  # open: from now on, a loss ends it the usual way
            lost = self._lost = anyio.Event()
            if self.removed or self._manual:
                return
            client.driver.on_close(self.lose)
            value = connected_with[0] if connected_with else None
            self.transport = _transport_of(value)
            self.pid = value.pid if isinstance(value, StdioProcess) else None
            self.capabilities = client.server_capabilities
            self.server_info = client.server_info
            self.revision = client.revision
            self.last_connected = time.time()
            self.last_error = None
            self.retries.reset()
            self._connected(self)
            self.client = client
            self._set("connected")
            self._event("connected", transport=self.transport, revision=self.revision)
            self.settled.set()
            async with anyio.create_task_group() as tg:
                flags = _listen_flags(client.server_capabilities)
                if client.era == "modern" and any(flags.values()):
                    tg.start_soon(self._listen, client, flags)
                interval = self.config.ping_interval
                if client.era == "legacy" and interval is not None:
                    tg.start_soon(self._keepalive, client, interval)
                await lost.wait()
                tg.cancel_scope.cancel()

    async def _listen(self, client: Client, flags: dict[str, bool]) -> None:
        again = False
        try:
            while True:
                listening = client.listen(
                    tools=flags["tools"], prompts=flags["prompts"], resources=flags["resources"]
                )
                async with listening:
                    if again:
                        # What changed between the two streams is unknown.
                        self._connected(self)
                    await anyio.sleep_forever()
                # The server ended the stream (2026-07-28 basic/patterns/
                # subscriptions.mdx "Graceful Closure": shutting down, say). Listen
                # again after a pause: a server that is gone fails that, and the
                # link reconnects; one still there (or a successor behind its
                # balancer) gets a new stream.
                self._event("listening ended")
                again = True
                await anyio.sleep(self.retries.backoff.delay(1, self._random))
        except Exception as exc:
            # The stream breaking with the connection is how an idle HTTP server's
            # death shows: reconnect, as for a request.
            if not self.failed_request(exc, "the subscriptions/listen stream"):
                self._event("listening failed", error=describe(exc))

    async def _keepalive(self, client: Client, interval: float) -> None:
        # 2025-11-25 basic/utilities/ping.mdx "Implementation Considerations": ping
        # periodically, and treat a timeout as a connection failure. Over HTTP
        # nothing else shows an idle server's death: its GET stream is reopened
        # a few times, then given up on without a word.
        wait = min(interval, self.config.connect_timeout)
        while True:
            await anyio.sleep(interval)
            try:
                with anyio.fail_after(wait):
                    await client.ping()
            except TimeoutError:
                self.lose(f"no answer to a ping within {wait:g} s")
                return
            except Exception as exc:
                if self.failed_request(exc):
                    return
                self._event("keepalive failed", error=describe(exc))

    def _client(self, seen: Callable[[Any], None]) -> Client:
        config = self.config
        options = dict(self._client_options)
        options.update(
            timeout=config.request_timeout,
            handshake_timeout=config.connect_timeout,
            probe_timeout=min(config.connect_timeout, 10.0),
        )
        connector: Connector
        if self._connector is not None:
            connector = self._connector
        elif config.command is not None:
            command = sys.executable if config.command in _PYTHON_NAMES else config.command
            connector = stdio_connector(
                [command, *config.args],
                env=config.env or None,
                cwd=config.cwd,
                stderr=self._stderr_line,
            )
        else:
            assert config.url is not None
            connect = min(config.connect_timeout, 10.0)
            connector = http_connector(
                config.url,
                headers=config.request_headers(),
                transport=_HTTP_TRANSPORT[config.transport],  # type: ignore[arg-type]
                timeouts=HttpClientTimeouts(connect=connect),
                auth=self.oauth,
            )
        client = Client(capture(connector, seen), **options)
        if self.tracing:
            install(client.session, self._record)
        return client

    def _stderr_line(self, line: bytes) -> None:
        self.stderr.append(line.decode(errors="replace").rstrip("\r\n"))

    def usable(self, what: str = "the request") -> Client:
        """The connected client, for one request (``what``, named if it is not sent).

        Raises:
            ServerUnavailable: not connected; it says ``what`` was not sent.
        """
        client = self.client
        if client is None or self.state != "connected":
            why = f" (last error: {self.last_error})" if self.last_error else ""
            raise ServerUnavailable(
                f"server {self.name!r} is not connected ({self.state}): {what} was not sent{why}",
                self.name,
            )
        return client

    def failed_request(self, exc: BaseException, what: str | None = None) -> bool:
        """A request on this connection raised ``exc``: whether it means the
        connection is gone (then it is marked lost, and reconnects); ``what``
        names the request in the reason the loss is given."""
        while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
            exc = exc.exceptions[0]  # what a task group wrapped
        if not isinstance(exc, ConnectionClosed) or isinstance(exc, HttpStatusError):
            return False
        reason = describe(exc)
        if isinstance(exc, OutcomeUnknownError):
            # What it says of its request's outcome would be quoted to others.
            reason = reason.split("; ", 1)[0]
        self.lose(reason if what is None else f"{what} failed: {reason}")
        return True
