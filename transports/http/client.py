"""MCP over HTTP, client side, on anyio (asyncio and trio): streamable HTTP in both
eras, and the deprecated HTTP+SSE transport of 2024-11-05 for old servers.

    connect_http(url, ...)     a Client of the server at ``url``; use with ``async with``
    http_connector(url, ...)   the same as a connector, for ``Client(connector, ...)``

What to send, where, with which headers, and what each answer means are the rules of
`mcp_core.HttpClientEndpoint`; this module carries them out: a write step (the
driver's sink hands each outgoing message to the rules), a read loop per HTTP
exchange (h11 on a pooled connection; SSE bodies are read as they stream), and one
table of the exceptions that mean an exchange failed (`_http_pool.FAILURES`).

A request the server refuses fails with `HttpStatusError` (or, when the server
answered with a JSON-RPC error, with `McpError` as over any transport); one that
cannot be carried at all fails with `HttpError`; one that was sent but whose answer
never came (the connection broke, the stream could not be resumed) fails with
`OutcomeUnknownError`: the server may have acted on it, and it is never sent again
on its own. All are `ConnectionClosed`.
"""

from __future__ import annotations

import logging
import math
import ssl
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from typing import Any, Final

import anyio
import h11
from anyio.abc import TaskGroup

from mcp_core import LocalProtocolError, __version__
from mcp_core.http.client import HttpClientConfig, HttpClientEndpoint, Transport
from mcp_core.http.client_actions import (
    AbortExchange,
    ClientAction,
    ClientNote,
    DeliverMessage,
    EndpointClosed,
    FailRequest,
    RequestFailure,
    SendHttp,
)
from mcp_core.http.client_config import DEFAULT_CLIENT_CONFIG, DEFAULT_MAX_ANSWER_BYTES
from mcp_core.http.decisions import Headers
from mcp_core.http.proxy import ProxySettings
from mcp_core.http.urls import split_url
from mcp_core.wire import Message, RequestId

from ..client import Client, Connector
from ..driver import ConnectionClosed, Driver, encode_for_peer
from ..workers import Worker
from .oauth import AuthorizationError, OAuth, header_value
from .pool import (
    DEFAULT_TIMEOUTS,
    FAILURES,
    ConnectionPool,
    HttpClientTimeouts,
    HttpConnection,
    describe,
    environment_proxies,
)

__all__ = [
    "HttpClientTimeouts",
    "HttpError",
    "HttpStatusError",
    "OutcomeUnknownError",
    "connect_http",
    "http_connector",
]

log = logging.getLogger("mcp_core.http")

_FRAMING_HEADERS = ("host", "content-length", "transfer-encoding")
"""Headers the HTTP layer writes itself; given ones are dropped."""


class HttpError(ConnectionClosed):
    """A request could not be carried over HTTP (no connection, a broken one, an
    answer that is not one).

    Attributes:
        method: the HTTP method of the exchange that failed.
        url: its URL.
    """

    def __init__(self, message: str, *, method: str, url: str) -> None:
        super().__init__(message)
        self.method = method
        self.url = url


class HttpStatusError(HttpError):
    """The server refused a request with an HTTP error status.

    Attributes:
        status: the status.
        body: the start of the answer's body.
    """

    def __init__(self, message: str, *, method: str, url: str, status: int, body: bytes) -> None:
        super().__init__(message, method=method, url=url)
        self.status = status
        self.body = body


class OutcomeUnknownError(HttpError):
    """A request was sent, and its answer never came: the server may have received
    it and acted on it (a tool may have run), or not. It was not sent again (RFC
    9112 section 9.3.1); whether to try again is the caller's decision."""


def _error(failure: RequestFailure) -> HttpError:
    text = f"{failure.method} {failure.url}: {failure.reason}"
    if failure.unknown:
        text += (
            "; the server may have received the request and acted on it: the outcome "
            "is unknown, and the request was not sent again"
        )
        return OutcomeUnknownError(text, method=failure.method, url=failure.url)
    if failure.status is None:
        return HttpError(text, method=failure.method, url=failure.url)
    detail = failure.body[:200].decode("utf-8", "replace").strip()
    if detail:
        text = f"{text}: {detail}"
    return HttpStatusError(
        text, method=failure.method, url=failure.url, status=failure.status, body=failure.body
    )


_MAX_AUTH_ROUNDS: Final = 4
"""Refusals one request goes through before it fails (the flow's own bound on
authorizations, 3, comes first)."""

_MAX_IDLE_RUNNERS: Final = 64
"""Exchange tasks kept waiting for work per client; more exit when done."""


_Job = tuple[SendHttp, anyio.CancelScope]


class _Carrier:
    """Carries one client's messages over HTTP for as long as the connector is entered.

    Each exchange runs in a task of its own, in its own cancel scope (an `Abort`
    cancels it), whose deadline is the exchange's timeout of the moment. Tasks
    are reused: one that has finished an exchange waits for the next (starting a
    task costs more than the rest of a small exchange's work).
    """

    def __init__(
        self,
        endpoint: HttpClientEndpoint,
        pool: ConnectionPool,
        driver: Driver,
        task_group: TaskGroup,
        auth: OAuth | None = None,
        auth_pool: ConnectionPool | None = None,
    ) -> None:
        self.endpoint = endpoint
        self.pool = pool
        self.auth = auth
        self.auth_pool = auth_pool or pool
        self.driver = driver
        self._tg = task_group
        self._scopes: dict[int, anyio.CancelScope] = {}
        #: The refusal (401/403) an exchange's authorization answered, by exchange.
        self._refused: dict[int, int] = {}
        self._idle: list[Worker[_Job]] = []
        self._closed = False
        self._carried: list[_Job] | None = None
        driver.carry = self.carry

    # --- the write step --------------------------------------------------------------------

    def sink(self, messages: list[Message], related: RequestId | None) -> None:
        """The driver's sink: each message goes to the rules, in order."""
        for message in messages:
            try:
                actions = self.endpoint.send(message, encode_for_peer(message))
            except LocalProtocolError:
                return  # closed
            self._apply(actions)

    def _apply(self, actions: list[ClientAction]) -> None:
        for action in actions:
            kind = type(action)
            if kind is DeliverMessage:
                self.driver.feed(action.message)  # type: ignore[union-attr]
            elif kind is SendHttp:
                self._start(action)  # type: ignore[arg-type]
            elif kind is FailRequest:
                assert isinstance(action, FailRequest)
                self.driver.fail(action.request_id, _error(action.failure))
            elif kind is AbortExchange:
                scope = self._scopes.pop(action.exchange, None)  # type: ignore[union-attr]
                if scope is not None:
                    scope.cancel()
            elif kind is EndpointClosed:
                self.driver.close(action.reason)  # type: ignore[union-attr]
            elif kind is ClientNote:
                log.warning("%s", action.text)  # type: ignore[union-attr]

    def _start(self, send: SendHttp) -> None:
        scope = anyio.CancelScope()
        self._scopes[send.exchange] = scope
        carried = self._carried
        if carried is not None and not carried and send.method == "POST" and send.delay <= 0:
            carried.append((send, scope))  # the request's POST: `carry` runs it
        elif self._idle:
            self._idle.pop().start((send, scope))
        else:
            self._tg.start_soon(self._runner, (send, scope))

    def carry(self, related: RequestId | None) -> Awaitable[None] | None:
        """The driver's `carry`: flush, and have the POST of the request being
        waited for run in the waiting task (no task to wake, and none to wake the
        waiter); anything else the flush sends gets an exchange task."""
        jobs: list[_Job] = []
        self._carried = jobs
        try:
            self.driver.flush(related)
        finally:
            self._carried = None
        if not jobs:
            return None
        send, scope = jobs[0]
        return self._run(send, scope, carried=True)

    async def _runner(self, job: _Job | None) -> None:
        runner: Worker[_Job] | None = None
        while job is not None:
            await self._run(*job)
            if self._closed or len(self._idle) >= _MAX_IDLE_RUNNERS:
                return
            if runner is None:
                runner = Worker()
            job = await runner.park(self._idle)

    # --- the read loop ---------------------------------------------------------------------

    async def _run(self, send: SendHttp, scope: anyio.CancelScope, carried: bool = False) -> None:
        endpoint = self.endpoint
        exchange = send.exchange
        connection: HttpConnection | None = None
        ours = False
        with scope:
            try:
                if send.delay > 0:
                    await anyio.sleep(send.delay)
                connection, head = await self._open(send, scope, endpoint.request_sent)
                self._apply(endpoint.receive_head(exchange, head.status_code, head.headers))
                while True:
                    if carried and endpoint.answered(exchange):
                        # The waiting task carries this exchange: once its answer
                        # came, it reads on only what has arrived. A stream the
                        # server keeps open after the response (it SHOULD end it,
                        # 2025-11-25 basic/transports.mdx "Sending Messages to the
                        # Server" item 6) is dropped: nothing more is due on it.
                        chunk = connection.poll_chunk()
                        if chunk is False:
                            raise anyio.EndOfStream
                    else:
                        chunk = await connection.receive_chunk()
                    if chunk is None:
                        break
                    assert isinstance(chunk, bytes)
                    self._apply(endpoint.receive_data(exchange, chunk))
                self._apply(endpoint.receive_end(exchange))
                done, connection = connection, None
                await self.pool.release(done)
            except FAILURES as exc:
                self._apply(endpoint.receive_failure(exchange, describe(exc)))
            except AuthorizationError as exc:
                # The server refused the request (401/403): it did not run.
                refused = self._refused.pop(exchange, None)
                reason = f"authorization failed: {exc}"
                self._apply(endpoint.receive_failure(exchange, reason, refused=refused))
            finally:
                self._refused.pop(exchange, None)
                # Still ours unless an Abort took it: then a cancellation is a timeout.
                ours = self._scopes.pop(exchange, None) is scope
                if connection is not None:
                    await connection.aclose()
        if ours and scope.cancelled_caught:
            self._apply(endpoint.receive_failure(exchange, describe(TimeoutError())))

    async def _open(
        self,
        send: SendHttp,
        scope: anyio.CancelScope | None = None,
        sent: Callable[[int], None] | None = None,
    ) -> tuple[HttpConnection, h11.Response]:
        # Send the request and read the response head; with OAuth, a refusal runs
        # the flow and the request goes again with the new token.
        auth = self.auth
        if auth is None:
            return await self._open_once(send, send.headers, scope, sent)
        server = self.endpoint.url
        await auth.prepare(server, self.auth_pool)
        for _ in range(_MAX_AUTH_ROUNDS):
            token, extra = auth.headers(server, send.method, send.url)
            connection, head = await self._open_once(send, (*send.headers, *extra), scope, sent)
            if head.status_code not in (401, 403):
                if token is not None and 200 <= head.status_code < 300:
                    auth.accepted(server, token)
                return connection, head
            await connection.aclose()
            if scope is not None:
                scope.deadline = math.inf  # the flow bounds its own steps
            self._refused[send.exchange] = head.status_code  # if the flow fails
            await auth.challenged(
                server,
                head.status_code,
                header_value(head.headers, b"www-authenticate"),
                token,
                self.auth_pool,
                header_value(head.headers, b"dpop-nonce"),
            )
        self._refused[send.exchange] = head.status_code
        raise AuthorizationError("the server refused every token")

    async def _open_once(
        self,
        send: SendHttp,
        headers: Headers,
        scope: anyio.CancelScope | None,
        sent: Callable[[int], None] | None,
    ) -> tuple[HttpConnection, h11.Response]:
        # Send the request (then report it `sent`) and read the response head. A
        # GET stream's head comes at once; a POST's may wait for the server's work.
        timeouts = self.pool.timeouts
        head_timeout = timeouts.connect if send.method == "GET" else timeouts.read
        while True:
            connection = await self.pool.acquire(send.origin)
            connection.scope = scope
            written = False
            try:
                await connection.send_request(send.method, send.target, headers, send.body)
                written = True
                if sent is not None:
                    sent(send.exchange)
                return connection, await connection.receive_head(head_timeout)
            except BaseException as exc:
                # Cancelled too (Abort): closing the connection is what tells a
                # 2026-07-28 server that the request is cancelled.
                await connection.aclose()
                retry = isinstance(exc, FAILURES) and not isinstance(exc, TimeoutError)
                if not retry or connection.uses == 0 or not connection.fresh:
                    raise
                if written and send.method == "POST" and not send.replayable:
                    # RFC 9112 section 9.3.1: a request the server may have read
                    # (it was written whole) is not sent again on our own.
                    raise
                # A kept connection the server had closed meanwhile: the request
                # did not get out whole (or, a GET, may go twice). Again, on
                # another connection.

    # --- the end ---------------------------------------------------------------------------

    async def aclose(self, timeout: float) -> None:
        """Stop every exchange and end the session (DELETE), within ``timeout``."""
        deletes: list[SendHttp] = []
        for action in self.endpoint.close():
            if isinstance(action, SendHttp):
                deletes.append(action)
            elif isinstance(action, AbortExchange):
                scope = self._scopes.pop(action.exchange, None)
                if scope is not None:
                    scope.cancel()
        with anyio.move_on_after(timeout):
            for send in deletes:
                try:
                    connection, _ = await self._open(send)
                    await connection.aclose()
                except FAILURES:
                    pass  # the session ends with its idle timeout instead
                except AuthorizationError:
                    pass
                finally:
                    self._refused.pop(send.exchange, None)
        for scope in self._scopes.values():
            scope.cancel()
        self._closed = True
        idle, self._idle = self._idle, []
        for runner in idle:
            runner.start(None)
        await self.pool.aclose()


def _ssl_context(verify: bool | ssl.SSLContext) -> ssl.SSLContext | None:
    if isinstance(verify, ssl.SSLContext):
        return verify
    if verify:
        return None  # the pool makes the default, verifying context
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context


def http_connector(
    url: str,
    *,
    headers: Mapping[str, str] | None = None,
    transport: Transport = "auto",
    timeouts: HttpClientTimeouts = DEFAULT_TIMEOUTS,
    verify: bool | ssl.SSLContext = True,
    standalone_stream: bool = True,
    max_idle_connections: int = 4,
    max_reconnects: int = DEFAULT_CLIENT_CONFIG.max_reconnects,
    max_retry_delay: float = DEFAULT_CLIENT_CONFIG.max_retry_delay,
    max_answer_bytes: int = DEFAULT_MAX_ANSWER_BYTES,
    auth: OAuth | None = None,
    trust_env: bool = True,
) -> Connector:
    """A connector for `Client` that talks to the MCP server at ``url`` over HTTP.

    Args:
        url: the server's MCP endpoint (``http://`` or ``https://``); for an old
            HTTP+SSE server, its SSE URL.
        headers: extra headers for every request (``Authorization``...).
        transport: "auto" (streamable HTTP, falling back to HTTP+SSE when the
            server refuses initialize with 400/404/405), "streamable", or "sse".
        timeouts: how long to wait for the server.
        verify: check TLS certificates against the system's trust store (True),
            not at all (False: for tests only), or with the given SSLContext.
        standalone_stream: open the GET stream a legacy session offers for
            server-initiated messages.
        max_idle_connections: idle connections kept for reuse.
        max_reconnects: attempts in a row to resume a broken stream (GET with
            Last-Event-ID) that bring nothing before its request fails.
        max_retry_delay: the longest wait between those attempts (the wait
            starts at the server's SSE ``retry`` and doubles each time).
        max_answer_bytes: the largest answer read (a JSON body or one SSE
            event); a larger one fails its request.
        auth: OAuth 2.1 for a server that asks for it (`OAuth`): the token goes
            on every request, and a 401/403 runs the flow, then the request again.
        trust_env: go through the proxies the environment names (HTTPS_PROXY,
            HTTP_PROXY, NO_PROXY and their lower-case forms, read now), for the
            server and the OAuth flow alike; False connects directly.

    Raises:
        ValueError: ``url`` is not an absolute http(s) URL, or a proxy variable
            holds an unusable URL.
    """
    split_url(url)  # refuse a bad URL now, not at the first request
    proxies = environment_proxies() if trust_env else ProxySettings()
    extra = {"user-agent": f"mcp-core/{__version__}"}
    extra.update((name.lower(), value) for name, value in (headers or {}).items())
    for name in _FRAMING_HEADERS:
        extra.pop(name, None)
    config = HttpClientConfig(
        headers=tuple(extra.items()),
        transport=transport,
        standalone_stream=standalone_stream,
        max_reconnects=max_reconnects,
        max_retry_delay=max_retry_delay,
        max_answer_bytes=max_answer_bytes,
        max_event_bytes=max_answer_bytes,
    )
    context = _ssl_context(verify)

    @asynccontextmanager
    async def connect(driver: Driver) -> AsyncIterator[HttpClientEndpoint]:
        endpoint = HttpClientEndpoint(url, config)
        pool = ConnectionPool(timeouts, context, max_idle_connections, proxies)
        auth_pool = ConnectionPool(timeouts, context, 2, proxies) if auth is not None else None
        async with anyio.create_task_group() as tg:
            carrier = _Carrier(endpoint, pool, driver, tg, auth, auth_pool)
            driver.attach(carrier.sink)
            try:
                yield endpoint
            finally:
                driver.close("the client was closed")
                with anyio.CancelScope(shield=True):
                    await carrier.aclose(timeouts.close)
                    if auth_pool is not None:
                        await auth_pool.aclose()
                tg.cancel_scope.cancel()

    return connect


def connect_http(
    url: str,
    *,
    headers: Mapping[str, str] | None = None,
    transport: Transport = "auto",
    timeouts: HttpClientTimeouts = DEFAULT_TIMEOUTS,
    verify: bool | ssl.SSLContext = True,
    standalone_stream: bool = True,
    max_idle_connections: int = 4,
    max_reconnects: int = DEFAULT_CLIENT_CONFIG.max_reconnects,
    max_retry_delay: float = DEFAULT_CLIENT_CONFIG.max_retry_delay,
    max_answer_bytes: int = DEFAULT_MAX_ANSWER_BYTES,
    auth: OAuth | None = None,
    trust_env: bool = True,
    **client_options: Any,
) -> Client:
    """A `Client` of the MCP server at ``url``; use it with ``async with``::

        async with connect_http("http://127.0.0.1:8000/mcp") as client:
            print(await client.call_tool("add", {"a": 1, "b": 2}))

    Args:
        url: the server's MCP endpoint.
        headers: extra headers for every request.
        transport: "auto", "streamable" or "sse" (see `http_connector`).
        timeouts: how long to wait for the server.
        verify: TLS certificate checking (see `http_connector`).
        standalone_stream: open a legacy session's GET stream.
        max_idle_connections: idle connections kept for reuse.
        max_reconnects, max_retry_delay, max_answer_bytes: see `http_connector`.
        auth: OAuth 2.1 (see `http_connector`).
        trust_env: use the environment's proxies (see `http_connector`).
        client_options: anything `Client` takes (callbacks, revisions, timeout...).
    """
    connector = http_connector(
        url,
        headers=headers,
        transport=transport,
        timeouts=timeouts,
        verify=verify,
        standalone_stream=standalone_stream,
        max_idle_connections=max_idle_connections,
        max_reconnects=max_reconnects,
        max_retry_delay=max_retry_delay,
        max_answer_bytes=max_answer_bytes,
        auth=auth,
        trust_env=trust_env,
    )
    return Client(connector, **client_options)
