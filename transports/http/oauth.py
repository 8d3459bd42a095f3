"""OAuth for the HTTP client: `connect_http(url, auth=OAuth(...))`.

The flow itself is `mcp_core.auth.flow.OAuthFlow`; this module carries out what it
asks: HTTP requests to the authorization server (each bounded by ``timeout``, never
following a redirect), loading and storing credentials (`TokenStore`), and sending
the user to the authorization server (`UserAgent`: the system browser with a
loopback listener, or a headless prompt; see `transports.http.oauth_user`).

One lock per `OAuth` serialises the flows: while one runs (or refreshes a token),
every other request that was refused waits for it, then retries with its token.

An authorization can also be split across processes: `OAuth.start` gets the URL to
send the user to and keeps the pending authorization in the store;
`OAuth.finish`, in any process sharing the store, takes the URL the user was sent
back to and stores the tokens, which the next connection finds.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager, suppress
from typing import Any, Final
from urllib.parse import parse_qs, urlsplit

import anyio

from mcp_core.auth.actions import (
    Authorized,
    AuthorizeUser,
    Failed,
    FlowAction,
    LoadCredentials,
    SendRequest,
    StoreCredentials,
)
from mcp_core.auth.config import OAuthConfig
from mcp_core.auth.flow import OAuthFlow
from mcp_core.http.urls import host_header, split_url

from .oauth_store import MemoryStore, PendingStore, TokenStore
from .pool import FAILURES, ConnectionPool, describe

__all__ = ["AuthorizationError", "OAuth", "UserAgent"]

UserAgent = Callable[[str, str], Awaitable[str]]
"""Sends the user to an authorization URL and returns the URL they were redirected
to: ``await agent(authorization_url, redirect_uri)``."""

MAX_BODY: Final = 1 << 20
"""Largest metadata or token response read (1 MiB); more is refused."""

_PROBE_HEADERS: Final = (
    ("content-type", "application/json"),
    ("accept", "application/json, text/event-stream"),
)
"""`OAuth.start` asks the server for its challenge with an empty JSON object, no
token: a protected server refuses it before reading it."""


class AuthorizationError(Exception):
    """The OAuth flow failed; the message says why."""


class OAuth:
    """OAuth 2.1 for `connect_http` / `http_connector` (``auth=``).

    Args:
        config: the client's OAuth settings (`OAuthConfig`); or give its fields
            as keyword arguments.
        store: where credentials are kept, by issuer (default: in memory).
        user_agent: sends the user to the authorization server (default: the
            system browser and a loopback listener on the redirect URI's port).
        timeout: seconds for each HTTP request of the flow.
        user_timeout: seconds to wait for the user to come back.
        clock: Unix time, for token expiry.
    """

    def __init__(
        self,
        config: OAuthConfig | None = None,
        *,
        store: TokenStore | None = None,
        user_agent: UserAgent | None = None,
        timeout: float = 30.0,
        user_timeout: float = 300.0,
        clock: Callable[[], float] = time.time,
        **settings: Any,
    ) -> None:
        self.config = config if config is not None else OAuthConfig(**settings)
        self.store: TokenStore = store if store is not None else MemoryStore()
        if user_agent is None:
            from .oauth_user import browser_agent

            user_agent = browser_agent()
        self.user_agent = user_agent
        self.timeout = timeout
        self.user_timeout = user_timeout
        self.clock = clock
        self._flows: dict[str, OAuthFlow] = {}
        self._lock = anyio.Lock()

    def _flow(self, server_url: str) -> OAuthFlow:
        flow = self._flows.get(server_url)
        if flow is None:
            flow = self._flows[server_url] = OAuthFlow(self.config, server_url)
        return flow

    async def prepare(self, server_url: str, pool: ConnectionPool) -> None:
        """Refresh the token for ``server_url`` first if it is about to expire."""
        flow = self._flow(server_url)
        if flow.token(self.clock()) is not None or flow.stage.value != "idle":
            return
        async with self._lock:
            actions = flow.refresh(self.clock())
            if actions:
                with suppress(AuthorizationError):  # then the 401 starts a full flow
                    await self._run(flow, actions, pool)

    def headers(
        self, server_url: str, method: str, url: str
    ) -> tuple[str | None, list[tuple[str, str]]]:
        """The token a request to ``url`` of the server at ``server_url`` carries
        (None before any authorization) and the headers that carry it (with a
        DPoP proof for a DPoP-bound token)."""
        flow = self._flow(server_url)
        now = self.clock()
        return flow.token(now), flow.resource_headers(method, url, now)

    def accepted(self, server_url: str, token: str) -> None:
        """A request that carried ``token`` was not refused."""
        self._flow(server_url).accepted(token)

    async def challenged(
        self,
        server_url: str,
        status: int,
        www_authenticate: str | None,
        sent: str | None,
        pool: ConnectionPool,
        dpop_nonce: str | None = None,
    ) -> str:
        """The server refused a request that carried ``sent`` (or no token): run
        the flow, and return the token to retry with.

        Raises:
            AuthorizationError: the flow failed.
        """
        flow = self._flow(server_url)
        async with self._lock:
            current = flow.token(self.clock())
            if current is not None and current != sent:
                return current  # another request's flow got a new token meanwhile
            actions = flow.challenged(status, www_authenticate, self.clock(), dpop_nonce)
            return await self._run(flow, actions, pool)

    async def _run(self, flow: OAuthFlow, actions: list[FlowAction], pool: ConnectionPool) -> str:
        done = await self._drive(flow, actions, pool, stop_at_user=False)
        assert isinstance(done, Authorized)
        return done.access_token

    async def _drive(
        self, flow: OAuthFlow, actions: list[FlowAction], pool: ConnectionPool, stop_at_user: bool
    ) -> Authorized | AuthorizeUser:
        """Carry out the flow's actions up to `Authorized`, or up to `AuthorizeUser`
        when ``stop_at_user``."""
        while True:
            follow: list[FlowAction] | None = None
            for action in actions:
                if isinstance(action, StoreCredentials):
                    await self.store.save(action.credentials)
                elif isinstance(action, Authorized):
                    return action
                elif isinstance(action, Failed):
                    raise AuthorizationError(action.reason)
                elif isinstance(action, SendRequest):
                    follow = await self._send(flow, action, pool)
                elif isinstance(action, LoadCredentials):
                    stored = await self.store.load(action.issuer)
                    follow = flow.loaded(stored, self.clock())
                elif isinstance(action, AuthorizeUser):
                    if stop_at_user:
                        return action
                    follow = await self._authorize_user(flow, action)
            if follow is None:
                raise AuthorizationError("the OAuth flow stopped without an answer")
            actions = follow

    # --- an authorization split across processes -----------------------------------------

    async def start(self, server_url: str, pool: ConnectionPool | None = None) -> str | None:
        """Begin an authorization for ``server_url`` that `finish` completes, here or
        in another process sharing the store: ask the server for its challenge,
        discover, register if need be, and keep the pending authorization in the
        store (a `PendingStore`).

        Returns:
            The URL to send the user to; None when a stored token (or a refresh)
            already serves, and there is nothing to authorize.

        Raises:
            AuthorizationError: the flow failed.
        """
        pending_store = self._pending_store()
        async with self._lock, _own_pool(pool) as own:
            status, challenge = await self._probe(server_url, own)
            flow = self._flow(server_url)
            if status not in (401, 403):
                status, challenge = 401, None  # discovery from the well-known URIs
            actions = flow.challenged(status, challenge, self.clock())
            done = await self._drive(flow, actions, own, stop_at_user=True)
            pending = flow.pending()
            if isinstance(done, Authorized) or pending is None:
                return None
            await pending_store.save_pending(pending)
            return done.url

    async def finish(self, redirect_url: str, pool: ConnectionPool | None = None) -> str:
        """Complete an authorization `start` began, from ``redirect_url``, the URL
        the user was sent back to (with its ``code``, ``state`` and ``iss``): the
        code is exchanged and the tokens stored, for every later connection.

        Returns:
            The URL of the MCP server the tokens are for.

        Raises:
            AuthorizationError: no pending authorization has this state (unknown,
                or finished already), the user refused, or the exchange failed.
        """
        fields = parse_qs(urlsplit(redirect_url).query)
        state = fields.get("state", [""])[0]
        pending = await self._pending_store().take_pending(state) if state else None
        if pending is None:
            raise AuthorizationError("no pending authorization carries this redirect's state")
        async with self._lock, _own_pool(pool) as own:
            stored = await self.store.load(pending.issuer)
            flow = OAuthFlow.resume(self.config, pending, stored)
            self._flows[pending.server_url] = flow
            actions = flow.redirected(redirect_url, self.clock())
            await self._drive(flow, actions, own, stop_at_user=False)
        return pending.server_url

    def _pending_store(self) -> PendingStore:
        store = self.store
        if not hasattr(store, "save_pending") or not hasattr(store, "take_pending"):
            raise TypeError(f"{type(store).__name__} keeps no pending authorizations")
        return store  # type: ignore[return-value]

    async def _probe(self, server_url: str, pool: ConnectionPool) -> tuple[int, str | None]:
        """The server's status and challenge for a request with no token."""
        request = SendRequest("POST", server_url, _PROBE_HEADERS, b"{}", "challenge")
        try:
            with anyio.fail_after(self.timeout):
                status, headers, _ = await fetch(pool, request)
        except ValueError as exc:
            raise AuthorizationError(str(exc)) from None
        except FAILURES as exc:
            raise AuthorizationError(f"{server_url}: {describe(exc)}") from None
        found = [value for name, value in headers if name.lower() == "www-authenticate"]
        return status, found[0] if found else None

    async def _send(
        self, flow: OAuthFlow, request: SendRequest, pool: ConnectionPool
    ) -> list[FlowAction]:
        try:
            with anyio.fail_after(self.timeout):
                status, headers, body = await fetch(pool, request)
        except ValueError as exc:
            return flow.request_failed(str(exc))
        except FAILURES as exc:
            return flow.request_failed(describe(exc))
        return flow.received(status, headers, body, self.clock())

    async def _authorize_user(self, flow: OAuthFlow, action: AuthorizeUser) -> list[FlowAction]:
        try:
            with anyio.fail_after(self.user_timeout):
                callback = await self.user_agent(action.url, action.redirect_uri)
        except TimeoutError:
            return flow.request_failed("the user did not come back from the authorization server")
        return flow.redirected(callback, self.clock())


@asynccontextmanager
async def _own_pool(pool: ConnectionPool | None) -> AsyncIterator[ConnectionPool]:
    if pool is not None:
        yield pool
        return
    own = ConnectionPool(max_idle=1)
    try:
        yield own
    finally:
        with anyio.CancelScope(shield=True):
            await own.aclose()


async def fetch(
    pool: ConnectionPool, request: SendRequest, limit: int = MAX_BODY
) -> tuple[int, list[tuple[str, str]], bytes]:
    """One HTTP exchange: (status, headers, body). The caller bounds it in time.

    Raises:
        ValueError: a bad URL, or a body over ``limit``.
        Any of `FAILURES`: the exchange failed.
    """
    origin, target = split_url(request.url)
    headers = [("host", host_header(origin)), *request.headers]
    connection = await pool.acquire(origin)
    try:
        await connection.send_request(request.method, target, headers, request.body)
        head = await connection.receive_head(pool.timeouts.read)
        chunks: list[bytes] = []
        size = 0
        while (chunk := await connection.receive_chunk()) is not None:
            size += len(chunk)
            if size > limit:
                raise ValueError(f"{request.url}: the answer is over {limit} bytes")
            chunks.append(chunk)
    except BaseException:
        await connection.aclose()
        raise
    await pool.release(connection)
    pairs = [(name.decode("latin-1"), value.decode("latin-1")) for name, value in head.headers]
    return head.status_code, pairs, b"".join(chunks)


def header_value(headers: Sequence[tuple[bytes, bytes]], name: bytes) -> str | None:
    """A response header's value, if present (the first, for a repeated one)."""
    for key, value in headers:
        if key == name:
            return value.decode("latin-1")
    return None
