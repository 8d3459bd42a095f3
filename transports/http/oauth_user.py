"""Sending the user to the authorization server, two ways.

`browser_agent` opens the system browser on the authorization URL and waits for the
redirect on a loopback listener: 127.0.0.1 only, on the redirect URI's port (a
stable one per client, since the URI is registered), one request answered with a
short page. `headless_agent` prints the URL and reads the redirected URL the user
pastes (for a machine with no browser, or a terminal over SSH).
"""

from __future__ import annotations

import inspect
import sys
import webbrowser
from collections.abc import Callable
from typing import TextIO
from urllib.parse import urlsplit

import anyio
import h11

from ..errors import RECEIVE_ENDED
from .oauth import UserAgent

__all__ = ["browser_agent", "headless_agent", "wait_for_redirect"]

_PAGE = (
    b"<!doctype html><title>Authorized</title>"
    b"<p>The MCP client has the authorization response. You may close this window.</p>"
)


def browser_agent(open_url: Callable[[str], object] = webbrowser.open) -> UserAgent:
    """Open ``open_url(authorization_url)`` (the system browser) and wait for the
    redirect on the loopback listener of the redirect URI."""

    async def agent(url: str, redirect_uri: str) -> str:
        async def launch() -> None:
            await anyio.to_thread.run_sync(open_url, url, abandon_on_cancel=True)

        return await wait_for_redirect(redirect_uri, launch)

    return agent


def headless_agent(
    out: TextIO | None = None, read_line: Callable[[], str] | None = None
) -> UserAgent:
    """Print the authorization URL and read the URL the browser was sent back to."""

    async def agent(url: str, redirect_uri: str) -> str:
        stream = out if out is not None else sys.stderr
        print(f"Open this URL to authorize:\n\n  {url}\n", file=stream)
        print(f"Then paste the URL you are sent back to ({redirect_uri}...):", file=stream)
        stream.flush()
        line: str = await anyio.to_thread.run_sync(
            read_line or sys.stdin.readline, abandon_on_cancel=True
        )
        return line.strip()

    return agent


async def wait_for_redirect(redirect_uri: str, launch: Callable[[], object]) -> str:
    """Listen on 127.0.0.1 at the redirect URI's port, call ``launch``, and return
    the full URL of the first request to the redirect URI's path."""
    parts = urlsplit(redirect_uri)
    if parts.hostname not in ("127.0.0.1", "localhost") or parts.port is None:
        raise ValueError(f"{redirect_uri!r} is not a loopback URI with a port")
    path = parts.path or "/"
    listener = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=parts.port)
    async with listener:
        result = await launch_and_accept(listener, path, launch)
    return f"{parts.scheme}://{parts.netloc}{result}"


async def launch_and_accept(
    listener: anyio.abc.Listener[anyio.abc.SocketStream], path: str, launch: Callable[[], object]
) -> str:
    found: list[str] = []
    async with anyio.create_task_group() as tg:

        async def serve(stream: anyio.abc.SocketStream) -> None:
            async with stream:
                try:
                    target = await _read_target(stream)
                except (*RECEIVE_ENDED, h11.RemoteProtocolError):
                    return
                if target is None or urlsplit(target).path != path:
                    await stream.send(_response(404, b"not found"))
                    return
                await stream.send(_response(200, _PAGE))
                found.append(target)
                tg.cancel_scope.cancel()

        tg.start_soon(listener.serve, serve)
        result = launch()
        if inspect.isawaitable(result):
            await result
    return found[0]


async def _read_target(stream: anyio.abc.SocketStream) -> str | None:
    connection = h11.Connection(h11.SERVER)
    with anyio.move_on_after(10):
        while True:
            event = connection.next_event()
            if isinstance(event, h11.Request):
                return event.target.decode("latin-1")
            if event is h11.NEED_DATA:
                data = await stream.receive(65536)
                connection.receive_data(data)
            else:
                return None
    return None


def _response(status: int, body: bytes) -> bytes:
    kind = b"text/html; charset=utf-8" if status == 200 else b"text/plain"
    return (
        b"HTTP/1.1 %d %s\r\ncontent-type: %s\r\ncontent-length: %d\r\nconnection: close\r\n\r\n"
        % (status, b"OK" if status == 200 else b"Not Found", kind, len(body))
    ) + body
