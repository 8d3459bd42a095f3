# One small HTTP exchange for a verifier: a JWKS to GET, a token to introspect.
# It goes through the proxies the environment names, as the client's exchanges do
# (transports/http/pool.py).
#
# Each exchange opens a connection of its own and closes it (`connection: close`):
# a JWKS is fetched seldom, and introspection answers are cached, so a pool would
# keep sockets open for nothing. The whole exchange is bounded by one timeout and
# the answer by a size: an authorization server that hangs or floods us delays a
# request by ``timeout`` at most, and costs ``max_bytes`` of memory at most.

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import anyio
import msgspec

from mcp_core.http.urls import host_header, split_url

from ..http.pool import FAILURES, ConnectionPool, HttpClientTimeouts, describe

__all__ = ["FetchError", "Fetched", "fetch"]


class FetchError(Exception):
    """The exchange failed: no connection, a timeout, a broken or too large answer."""


@dataclass(frozen=True, slots=True)
class Fetched:
    """An answer: its status and its whole body."""

    status: int
    body: bytes

    def json_object(self, what: str) -> dict[str, Any]:
        """The body, a 200's JSON object.

        Raises:
            FetchError: another status, or a body that is not a JSON object;
                ``what`` names the exchange in the message.
        """
        if self.status != 200:
            raise FetchError(f"{what}: status {self.status}")
        try:
            document = msgspec.json.decode(self.body)
        except msgspec.DecodeError:
            raise FetchError(f"{what}: not JSON") from None
        if not isinstance(document, dict):
            raise FetchError(f"{what}: not a JSON object")
        return document


async def fetch(
    method: str,
    url: str,
    *,
    headers: Sequence[tuple[str, str]] = (),
    body: bytes = b"",
    timeout: float = 10.0,
    max_bytes: int = 1024 * 1024,
) -> Fetched:
    """Send one request to ``url`` and read its answer.

    Raises:
        FetchError: see there; ``url`` not an http(s) URL is one too.
    """
    try:
        origin, target = split_url(url)
        pool = ConnectionPool(HttpClientTimeouts(connect=timeout, read=timeout, write=timeout))
    except ValueError as exc:
        raise FetchError(str(exc)) from None
    head = [("host", host_header(origin)), ("connection", "close"), *headers]
    try:
        with anyio.fail_after(timeout):
            connection = await pool.acquire(origin)
            try:
                await connection.send_request(method, target, head, body)
                response = await connection.receive_head(timeout)
                chunks: list[bytes] = []
                size = 0
                while (chunk := await connection.receive_chunk()) is not None:
                    size += len(chunk)
                    if size > max_bytes:
                        raise FetchError(f"{url}: the answer exceeds {max_bytes} bytes")
                    chunks.append(chunk)
            finally:
                await connection.aclose()
    except FAILURES as exc:
        raise FetchError(f"{method} {url}: {describe(exc)}") from None
    return Fetched(response.status_code, b"".join(chunks))
