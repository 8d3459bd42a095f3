"""Security and limits of the HTTP servers, from the wire.

Raw HTTP/1.1 against the h11 server (asyncio and trio) and against the ASGI app
mounted in Starlette under uvicorn (asyncio): the authentication hook and the
principal it binds to a session, the head limits (431), the body limit (413), the
in-flight cap (429), slow clients cut off, and the refusal to bind beyond loopback
without ``allowed_hosts``. Every wait is bounded by LIMIT.
"""

from __future__ import annotations

import subprocess
import sys

import anyio
import pytest
from adapter_flavours import FLAVOURS, by_flavour, flavour_fixture  # noqa: F401
from http_helpers import (
    LIMIT,
    META,
    Gates,
    call,
    initialize,
    make_server,
    modern_headers,
    open_session,
)
from test_http_sse_2024 import Stream, post, serving

from mcp_core import Context, HttpServerConfig, Server
from mcp_core.http import AuthRefusal, HttpRequest
from transports.http.server import HttpTimeouts, UnsafeBindError, default_config, run_http
from transports.http.server import serve_http as serve_h11

pytestmark = pytest.mark.anyio

CHALLENGE = ("www-authenticate", 'Bearer realm="mcp"')


def bearer(head: HttpRequest) -> str | AuthRefusal:
    """A toy hook: ``Authorization: Bearer NAME`` is principal NAME."""
    scheme, _, name = head.headers.get("authorization", "").partition(" ")
    if scheme != "Bearer" or not name:
        return AuthRefusal(401, "a bearer token is required", (CHALLENGE,))
    if name == "mallory":
        return AuthRefusal(403, "mallory may not use this server")
    return name


async def async_bearer(head: HttpRequest) -> str | AuthRefusal:
    await anyio.sleep(0)  # as a hook that asks a token service would
    return bearer(head)


def whoami_server(gates: Gates) -> Server:
    server = make_server(gates)

    @server.tool
    def whoami(ctx: Context) -> str:
        """Who the transport says is calling."""
        return str(ctx.principal)

    return server


def auth(name: str) -> dict[str, str]:
    return {"authorization": f"Bearer {name}"}


async def test_the_hook_refuses_with_401_or_403(flavour: tuple[str, str]) -> None:
    hook = bearer if flavour[1] == "h11" else async_bearer
    async with (
        serving(flavour, whoami_server(Gates()), authenticate=hook) as served,
        served.client("/mcp") as raw,
    ):
        await raw.send("POST", initialize())
        refused = await raw.answer()
        assert refused.status == 401 and refused.headers["www-authenticate"] == CHALLENGE[1]
        assert "bearer token" in refused.json()["error"]["message"]
        await raw.send("POST", initialize(), **auth("mallory"))
        assert (await raw.answer()).status == 403
        # Refusals keep the connection usable.
        await raw.send("POST", initialize(), **auth("alice"))
        assert (await raw.answer()).status == 200
        async with served.client("/sse") as raw:
            await raw.send("GET")
            assert (await raw.answer()).status == 401


async def test_a_session_belongs_to_the_principal_that_opened_it(
    flavour: tuple[str, str],
) -> None:
    async with (
        serving(flavour, whoami_server(Gates()), authenticate=bearer) as served,
        served.client("/mcp") as alice,
    ):
        await alice.send("POST", initialize(), **auth("alice"))
        opened = await alice.answer()
        sid = opened.headers["mcp-session-id"]
        done = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        await alice.send("POST", done, mcp_session_id=sid, **auth("alice"))
        assert (await alice.answer()).status == 202
        await alice.send("POST", call("whoami", {}), mcp_session_id=sid, **auth("alice"))
        events = (await alice.answer()).body.decode()
        assert '"text":"alice"' in events
        async with served.client("/mcp") as bob:
            # Bob holds Alice's session id: for him there is no such session.
            await bob.send("POST", call("whoami", {}), mcp_session_id=sid, **auth("bob"))
            assert (await bob.answer()).status == 404
            await bob.send("GET", mcp_session_id=sid, **auth("bob"))
            assert (await bob.answer()).status == 404
            # A 2026-07-28 request carries its principal to the handler.
            request = call("whoami", {}, id=5, _meta=META)
            await bob.send("POST", request, **modern_headers("tools/call", "whoami"), **auth("bob"))
            answer = await bob.answer()
            assert answer.json()["result"]["content"][0]["text"] == "bob"


async def test_an_http_sse_session_belongs_to_its_principal(flavour: tuple[str, str]) -> None:
    async with (
        serving(flavour, whoami_server(Gates()), authenticate=bearer) as served,
        served.client("/sse") as raw,
    ):
        await raw.send("GET", **auth("alice"))
        stream = Stream(raw)
        head = await raw.head()
        assert head.status == 200
        (first,) = await raw.events(lambda got: bool(got))
        stream.endpoint = first.data
        taken = await post(served, stream.endpoint, initialize(), **auth("bob"))
        assert taken.status == 404
        mine = await post(served, stream.endpoint, initialize(), **auth("alice"))
        assert mine.status == 202
        assert (await stream.message())["id"] == 0


async def test_head_limits_get_431(flavour: tuple[str, str]) -> None:
    config = HttpServerConfig(max_headers=20, max_header_bytes=2048)
    async with (
        serving(flavour, make_server(Gates()), config=config) as served,
        served.client("/mcp") as raw,
    ):
        await raw.send("POST", initialize(), **{f"x_{n}": "1" for n in range(20)})
        assert (await raw.answer()).status == 431
        async with served.client("/mcp") as raw:
            await raw.send("POST", initialize(), cookie="c" * 3000)
            assert (await raw.answer()).status == 431


async def test_a_large_body_gets_413(flavour: tuple[str, str]) -> None:
    config = HttpServerConfig(max_body_bytes=1000)
    async with (
        serving(flavour, make_server(Gates()), config=config) as served,
        served.client("/mcp") as raw,
    ):
        await raw.send("POST", call("echo", {"text": "x" * 2000}))
        assert (await raw.answer()).status == 413


async def test_a_request_beyond_the_in_flight_cap_gets_429(flavour: tuple[str, str]) -> None:
    gates = Gates()
    config = HttpServerConfig(max_requests_in_flight=1)
    async with (
        serving(flavour, make_server(gates), config=config) as served,
        served.client("/mcp") as first,
        served.client("/mcp") as second,
    ):
        sid = await open_session(first, "2025-06-18")
        await first.send("POST", call("hang", {}, id=1), mcp_session_id=sid)
        with anyio.fail_after(LIMIT):
            await gates.started.wait()
        await second.send("POST", call("echo", {"text": "x"}, id=2), mcp_session_id=sid)
        refused = await second.answer()
        assert refused.status == 429 and refused.headers["retry-after"] == "1"
        assert refused.json()["id"] == 2 and refused.json()["error"]["data"] == {"limit": 1}
        gates.release.set()
        assert (await first.answer()).json()["id"] == 1
        await second.send("POST", call("echo", {"text": "x"}, id=3), mcp_session_id=sid)
        assert (await second.answer()).json()["id"] == 3


# --- the h11 server only --------------------------------------------------------------------


@pytest.mark.parametrize("flavour", FLAVOURS[:2], ids=["h11-asyncio", "h11-trio"], indirect=True)
async def test_a_head_too_large_to_buffer_gets_431_and_a_close(flavour: tuple[str, str]) -> None:
    config = HttpServerConfig(max_header_bytes=1024)
    async with (
        serving(flavour, make_server(Gates()), config=config) as served,
        served.client("/mcp") as raw,
    ):
        await raw.sock.send(b"GET /mcp HTTP/1.1\r\nhost: localhost\r\nx: " + b"a" * 20000)
        with anyio.fail_after(LIMIT):
            answer = await raw.sock.receive()
        assert answer.startswith(b"HTTP/1.1 431")
        assert await raw.closed()


@pytest.mark.parametrize("flavour", FLAVOURS[:2], ids=["h11-asyncio", "h11-trio"], indirect=True)
async def test_a_slow_body_is_cut_off(flavour: tuple[str, str]) -> None:
    timeouts = HttpTimeouts(body=0.05)
    async with (
        serving(flavour, make_server(Gates()), timeouts=timeouts) as served,
        served.client("/mcp") as raw,
    ):
        await raw.sock.send(
            b"POST /mcp HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\n"
            b"accept: application/json, text/event-stream\r\ncontent-length: 100\r\n\r\n{"
        )
        assert await raw.closed()


# --- binding beyond loopback ----------------------------------------------------------------


@pytest.mark.parametrize("flavour", FLAVOURS[:1], ids=["h11-asyncio"], indirect=True)
async def test_a_non_loopback_bind_needs_allowed_hosts(flavour: tuple[str, str]) -> None:
    server = make_server(Gates())
    # Refused before anything listens.
    with pytest.raises(UnsafeBindError, match="allowed_hosts"):
        await serve_h11(server, host="0.0.0.0", port=0)
    with pytest.raises(UnsafeBindError):
        await serve_h11(server, host="::", port=0, config=HttpServerConfig())
    with pytest.raises(UnsafeBindError):
        run_http(server, host="192.0.2.1", port=0)
    # An explicit list, or an explicit None (any Host), is a decision made.
    assert default_config("0.0.0.0", allowed_hosts=["mcp.example.com"]).allowed_hosts == (
        "mcp.example.com",
    )
    assert default_config("0.0.0.0", allowed_hosts=None).allowed_hosts is None
    assert default_config("127.0.0.1").allowed_hosts == ("localhost", "127.0.0.1", "[::1]")


def test_the_command_line_refuses_a_non_loopback_bind() -> None:
    argv = [sys.executable, "-m", "transports", "serve", "examples/hello.py"]
    done = subprocess.run(
        [*argv, "--transport", "http", "--host", "0.0.0.0", "--port", "0"],
        capture_output=True,
        text=True,
        timeout=LIMIT * 4,
    )
    assert done.returncode == 2
    assert "refusing to serve on 0.0.0.0" in done.stderr and "--allowed-host" in done.stderr
    both = subprocess.run(
        [*argv, "--transport", "http", "--any-host", "--allowed-host", "x"],
        capture_output=True,
        text=True,
        timeout=LIMIT * 4,
    )
    assert both.returncode == 2 and "exclude each other" in both.stderr
