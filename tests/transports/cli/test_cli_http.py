"""``mcp-core call URL TOOL`` and ``mcp-core list URL``: the command line talking to
servers over HTTP. The servers run in this process, on an event loop of their own in
a thread (`main` runs its own event loop, as from a shell)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from typing import Any

import anyio.from_thread
import pytest
from net_helpers import RawConnection, response, scripted

from mcp_core import Server
from transports.cli import main
from transports.http.server import serve_http


def run_main(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    bounded = [*args, "--timeout", "10"] if args[0] in ("call", "list") else list(args)
    status = main(bounded)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def tiny() -> Server:
    server = Server("tiny", "1.0")

    @server.tool
    def shout(text: str) -> str:
        """Say it louder."""
        return text.upper()

    @server.tool
    def refuse() -> str:
        """Fail."""
        raise ValueError("not today")

    return server


@contextmanager
def http_server(server: Server) -> Iterator[str]:
    with anyio.from_thread.start_blocking_portal() as portal:
        future, port = portal.start_task(partial(serve_http, server, port=0))
        try:
            yield f"http://127.0.0.1:{port}/mcp"
        finally:
            future.cancel()


def test_call_and_list_over_http(capsys: pytest.CaptureFixture[str]) -> None:
    with http_server(tiny()) as url:
        assert run_main(capsys, "call", url, "shout", "--arg", "text=hi") == (0, "HI\n", "")
        status, out, _ = run_main(capsys, "call", url, "shout", "--arg", "text=x", "--json")
        assert status == 0 and json.loads(out)["content"] == [{"type": "text", "text": "X"}]
        status, out, err = run_main(capsys, "call", url, "refuse")
        assert (status, out) == (1, "") and "not today" in err
        assert run_main(capsys, "list", url) == (0, "shout   Say it louder.\nrefuse  Fail.\n", "")


def test_headers_reach_the_server(capsys: pytest.CaptureFixture[str]) -> None:
    seen: list[dict[str, str]] = []

    async def unauthorized(conn: RawConnection) -> None:
        while (request := await conn.request()) is not None:
            seen.append(request.headers)
            await conn.write(response(401, {"content-type": "text/plain"}, b"token expired"))

    with (
        anyio.from_thread.start_blocking_portal() as portal,
        portal.wrap_async_context_manager(scripted(unauthorized)) as port,
    ):
        url = f"http://127.0.0.1:{port}/mcp"
        args = ["-H", "Authorization: Bearer t", "--header", "X-Trace:1"]
        status, out, err = run_main(capsys, "list", url, *args)
    assert (status, out) == (1, "")
    assert err == f"mcp-core: error: {url} answered HTTP 401 Unauthorized: token expired\n"
    assert seen[0]["authorization"] == "Bearer t" and seen[0]["x-trace"] == "1"


@pytest.mark.parametrize(
    ("args", "status", "message"),
    [
        (["call", "https://", "t"], 2, "names no host"),
        (["call", "server", "t", "-H", "X: y"], 2, "--header only applies to an http"),
        (["list", "http://127.0.0.1:1/mcp", "-H", "no colon"], 2, "--header takes"),
        (["list", "http://127.0.0.1:1/mcp"], 1, "cannot reach http://127.0.0.1:1/mcp: the conn"),
    ],
)
def test_http_failures(
    capsys: pytest.CaptureFixture[str], args: list[str], status: int, message: Any
) -> None:
    got, out, err = run_main(capsys, *args)
    assert (got, out) == (status, "")
    assert message in err
