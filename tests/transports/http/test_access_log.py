"""The access log (transports/access.py), from the wire: one record per request
answered, with its method, tool, prompt or URI, revision, status or JSON-RPC
error code, duration and the tags of its session and principal; off unless the
logger ``mcp_core.access`` is at INFO; and never an argument value, a credential
or a session id, in either format. Bytes over a message stream (what stdio
carries) on asyncio and trio, both eras; raw HTTP against the h11 server on
asyncio and trio and the ASGI app under uvicorn. Every wait is bounded."""

from __future__ import annotations

import json
import logging
import math
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any, Final

import anyio
import pytest
from adapter_flavours import by_flavour, flavour_fixture  # noqa: F401
from anyio.streams.stapled import StapledObjectStream
from asgi_by_hand import asgi_request
from http_helpers import LIMIT, META, RawClient, call, initialize, modern_headers, running
from test_http_sse_2024 import serving

from mcp_core import Server
from mcp_core.http import AuthRefusal, HttpRequest
from mcp_core.http.server import HttpServerConfig
from mcp_core.session.access import tag
from transports.cli.logs import JsonFormatter, TextFormatter
from transports.http.asgi import asgi_app
from transports.server_connection import serve_stream

pytestmark = pytest.mark.anyio

SECRET: Final = "arg-value-9d1c"  # an argument value
TOKEN: Final = "token-value-5e7b"  # a credential
PRINCIPAL: Final = "alice@example.org"


def make_server(gate: list[anyio.Event] | None = None) -> Server:
    server = Server("access", "1")

    @server.tool
    def echo(text: str) -> str:
        """Echo."""
        return text

    @server.tool
    def boom() -> str:
        """Fail."""
        raise ValueError("boom")

    @server.tool
    async def wait() -> str:
        """Wait until cancelled."""
        assert gate is not None
        gate[0].set()
        await anyio.sleep_forever()
        return "never"

    @server.resource("config://app")
    def config() -> str:
        """Settings."""
        return "x = 1"

    @server.prompt
    def greet(name: str) -> str:
        """Greet."""
        return f"hello {name}"

    return server


@pytest.fixture
def access(caplog: pytest.LogCaptureFixture) -> Iterator[list[logging.LogRecord]]:
    """The access log on, and its records as they come."""
    caplog.set_level(logging.INFO, logger="mcp_core.access")
    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    keep = Keep()
    logger = logging.getLogger("mcp_core.access")
    logger.addHandler(keep)
    try:
        yield records
    finally:
        logger.removeHandler(keep)


def rendered(records: list[logging.LogRecord]) -> str:
    """Every record as both formats would write it."""
    text, json_ = TextFormatter(), JsonFormatter()
    return "\n".join(f(r) for r in records for f in (text.format, json_.format))


def only(records: list[logging.LogRecord], **fields: Any) -> logging.LogRecord:
    (record,) = [r for r in records if all(getattr(r, k, None) == v for k, v in fields.items())]
    return record


def message(payload: dict[str, Any]) -> bytes:
    return json.dumps({"jsonrpc": "2.0", **payload}).encode()


class Wire:
    """Bytes to and from a server served on a message stream."""

    def __init__(self, stream: StapledObjectStream[Any]) -> None:
        self.stream = stream

    async def send(self, payload: dict[str, Any] | bytes) -> None:
        await self.stream.send(payload if isinstance(payload, bytes) else message(payload))

    async def answer(self, request_id: int | None) -> dict[str, Any]:
        """The answer to ``request_id``, skipping anything else."""
        with anyio.fail_after(LIMIT):
            while True:
                got = json.loads(await self.stream.receive())
                if "method" not in got and got.get("id") == request_id:
                    return dict(got)


@asynccontextmanager
async def wired(server: Server) -> AsyncIterator[Wire]:
    to_server = anyio.create_memory_object_stream[Any](math.inf)
    to_client = anyio.create_memory_object_stream[Any](math.inf)
    async with anyio.create_task_group() as tg:
        tg.start_soon(serve_stream, server, StapledObjectStream(to_client[0], to_server[1]))
        try:
            yield Wire(StapledObjectStream(to_server[0], to_client[1]))
        finally:
            tg.cancel_scope.cancel()


async def test_a_stream_logs_each_request_of_the_handshake_era(
    anyio_backend: str, access: list[logging.LogRecord]
) -> None:
    gate = [anyio.Event()]
    async with wired(make_server(gate)) as wire:
        await wire.send(initialize())
        await wire.answer(0)
        await wire.send({"method": "notifications/initialized"})
        await wire.send(call("echo", {"text": SECRET}, id=1))
        assert (await wire.answer(1))["result"]["content"][0]["text"] == SECRET
        await wire.send(call("boom", {}, id=2))
        assert (await wire.answer(2))["result"]["isError"] is True
        await wire.send(call("nothing", {}, id=3))
        await wire.answer(3)
        read = {"id": 4, "method": "resources/read", "params": {"uri": "config://app"}}
        await wire.send(read)
        await wire.answer(4)
        prompt = {"id": 5, "method": "prompts/get", "params": {"name": "greet"}}
        await wire.send({**prompt, "params": {"name": "greet", "arguments": {"name": SECRET}}})
        await wire.answer(5)
        await wire.send(b"{not json")
        await wire.answer(None)
        await wire.send({"id": 6, "method": "no/such/method"})
        await wire.answer(6)
        await wire.send(call("wait", {}, id=7))
        with anyio.fail_after(LIMIT):
            await gate[0].wait()
        await wire.send({"method": "notifications/cancelled", "params": {"requestId": 7}})
        await wire.send({"id": 8, "method": "ping"})
        await wire.answer(8)  # logged as its answer left, after the cancellation
    legacy = {"revision": "2025-11-25", "session": "-", "principal": "-"}
    assert only(access, method="initialize", status="ok", **legacy)
    echo = only(access, tool="echo")
    assert (echo.method, echo.status, echo.code) == ("tools/call", "ok", None)
    assert echo.duration_ms >= 0 and echo.revision == "2025-11-25"
    assert only(access, tool="boom").status == "tool_error"
    assert only(access, tool="nothing").code == -32602
    assert only(access, uri="config://app").method == "resources/read"
    assert only(access, prompt="greet").status == "ok"
    unreadable = only(access, code=-32700)
    assert unreadable.method is None and unreadable.duration_ms is None
    assert only(access, method="no/such/method").code == -32601
    assert only(access, tool="wait").status == "cancelled"
    assert only(access, method="ping").status == "ok"
    assert len(access) == 10
    said = rendered(access)
    assert SECRET not in said
    assert "tools/call tool=echo 2025-11-25 ok " in said


async def test_a_stream_logs_requests_of_the_2026_era(
    anyio_backend: str, access: list[logging.LogRecord]
) -> None:
    async with wired(make_server()) as wire:
        await wire.send(call("echo", {"text": SECRET}, id=1, _meta=META))
        await wire.answer(1)
        await wire.send(call("echo", {"text": SECRET}, id=2))  # no _meta: refused
        refused = await wire.answer(2)
    echo = only(access, code=None)
    assert (echo.tool, echo.revision, echo.status) == ("echo", "2026-07-28", "ok")
    assert only(access, status="error").code == refused["error"]["code"]
    assert SECRET not in rendered(access)


async def test_off_unless_asked_for(anyio_backend: str, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)  # the root logger: everything else at DEBUG
    async with wired(make_server()) as wire:
        await wire.send(call("echo", {"text": "hi"}, id=1, _meta=META))
        await wire.answer(1)
    assert [r for r in caplog.records if r.name == "mcp_core.access"] == []


def bearer(head: HttpRequest) -> str | AuthRefusal:
    """``Authorization: Bearer TOKEN`` is PRINCIPAL."""
    if head.headers.get("authorization") != f"Bearer {TOKEN}":
        return AuthRefusal(401, "a bearer token is required")
    return PRINCIPAL


async def test_http_logs_both_eras_without_credentials(
    flavour: tuple[str, str], access: list[logging.LogRecord]
) -> None:
    auth = {"authorization": f"Bearer {TOKEN}"}
    async with (
        serving(flavour, make_server(), authenticate=bearer) as served,
        served.client("/mcp") as raw,
    ):
        await raw.send("POST", initialize(), **auth)
        opened = await raw.answer()
        session_id = opened.headers["mcp-session-id"]
        done = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        await raw.send("POST", done, mcp_session_id=session_id, **auth)
        assert (await raw.answer()).status == 202
        legacy_call = call("echo", {"text": SECRET}, id=1)
        await raw.send("POST", legacy_call, mcp_session_id=session_id, **auth)
        assert (await raw.answer()).status == 200
        modern = call("echo", {"text": SECRET}, id=2, _meta=META)
        await raw.send("POST", modern, **modern_headers("tools/call", "echo"), **auth)
        assert (await raw.answer()).status == 200
    principal = tag(PRINCIPAL)
    legacy = only(access, tool="echo", revision="2025-11-25")
    assert (legacy.session, legacy.principal, legacy.status) == (tag(session_id), principal, "ok")
    assert only(access, method="initialize").session == tag(session_id)
    stateless = only(access, tool="echo", revision="2026-07-28")
    assert (stateless.session, stateless.principal, stateless.status) == ("-", principal, "ok")
    said = rendered(access)
    for hidden in (SECRET, TOKEN, PRINCIPAL, session_id, "Bearer"):
        assert hidden not in said


async def refused_with(
    port: int, target: str, method: str, body: Any = None, **headers: str
) -> int:
    """Send one request on a connection of its own; the status it got."""
    async with RawClient(port, target) as raw:
        await raw.send(method, body, **headers)
        return (await raw.head()).status


async def test_http_refusals_get_a_line_each_with_their_status(
    flavour: tuple[str, str], access: list[logging.LogRecord]
) -> None:
    # Refused before any MCP session reads them: the line says the HTTP method,
    # the path (never its query) and the status; never a credential, a body or
    # a session id (a tag of it).
    auth = {"authorization": f"Bearer {TOKEN}"}
    config = HttpServerConfig(max_body_bytes=4096)
    unknown = "no-such-session-4a1f"
    async with serving(flavour, make_server(), config, authenticate=bearer) as served:
        mcp = f"{served.prefix}/mcp"
        port = served.port
        got = [
            await refused_with(
                port, mcp, "POST", b'{"jsonrpc": "2.0", "id": 1, ' + SECRET.encode(), **auth
            ),
            await refused_with(
                port, mcp, "POST", call("echo", {"text": SECRET}), mcp_session_id=unknown, **auth
            ),
            await refused_with(
                port, mcp, "POST", call("echo", {"text": SECRET}), accept="text/html", **auth
            ),
            await refused_with(
                port, mcp, "POST", call("echo", {"text": SECRET}), content_type="text/plain", **auth
            ),
            await refused_with(
                port,
                mcp,
                "POST",
                call("echo", {"text": SECRET}),
                authorization="Bearer wrong-" + TOKEN,
            ),
            await refused_with(port, mcp, "POST", call("echo", {"text": SECRET * 500}), **auth),
            await refused_with(port, f"{served.prefix}/elsewhere?token={TOKEN}", "GET", **auth),
        ]
    assert got == [400, 404, 406, 415, 401, 413, 404]
    lines = [r for r in access if getattr(r, "status", None) == "refused"]
    assert [r.http_status for r in lines] == got  # type: ignore[attr-defined]
    assert [r.path for r in lines] == [mcp] * 6 + [f"{served.prefix}/elsewhere"]  # type: ignore[attr-defined]
    assert {r.http_method for r in lines} == {"POST", "GET"}  # type: ignore[attr-defined]
    assert lines[1].session == tag(unknown)  # type: ignore[attr-defined]
    assert lines[0].principal == tag(PRINCIPAL)  # type: ignore[attr-defined]
    assert lines[4].principal == "-"  # type: ignore[attr-defined]
    assert "POST /mcp refused 400" in lines[0].getMessage().replace(served.prefix, "")
    said = rendered(access)
    for hidden in (SECRET, TOKEN, PRINCIPAL, unknown, "Bearer"):
        assert hidden not in said


@pytest.mark.parametrize("anyio_backend", ["asyncio", "trio"])
async def test_asgi_refusals_on_both_backends(
    anyio_backend: str, access: list[logging.LogRecord]
) -> None:
    # The ASGI app driven by hand (no trio ASGI server is installed): before
    # its lifespan a request is refused 503; then as under uvicorn.
    app = asgi_app(make_server(), config=HttpServerConfig(max_body_bytes=4096), authenticate=bearer)
    auth = {"authorization": f"Bearer {TOKEN}"}
    echo = call("echo", {"text": SECRET})
    got = [(await asgi_request(app, "POST", "/mcp", echo, **auth)).status]
    async with app.running():
        for body, headers in [
            (b"{" + SECRET.encode(), auth),
            (echo, {"mcp_session_id": "no-such-session", **auth}),
            (echo, {}),
            (call("echo", {"text": SECRET * 500}), auth),
        ]:
            got.append((await asgi_request(app, "POST", "/mcp", body, **headers)).status)
    assert got == [503, 400, 404, 401, 413]
    lines = [r for r in access if getattr(r, "status", None) == "refused"]
    assert [(r.http_method, r.path, r.http_status) for r in lines] == [  # type: ignore[attr-defined]
        ("POST", "/mcp", status) for status in got
    ]
    said = rendered(access)
    for hidden in (SECRET, TOKEN, PRINCIPAL, "no-such-session", "Bearer"):
        assert hidden not in said


@pytest.mark.parametrize("anyio_backend", ["asyncio", "trio"])
async def test_an_unreadable_request_head_is_logged_without_one(
    anyio_backend: str, access: list[logging.LogRecord]
) -> None:
    async with running(make_server()) as port:
        sock = await anyio.connect_tcp("127.0.0.1", port)
        async with sock:
            await sock.send(b"NOT HTTP AT ALL\r\n\r\n")
            with anyio.fail_after(LIMIT):
                first = await sock.receive()
    assert first.startswith(b"HTTP/1.1 400 ")
    (line,) = [r for r in access if getattr(r, "status", None) == "refused"]
    assert (line.http_method, line.path, line.http_status) == (None, None, 400)  # type: ignore[attr-defined]
    assert line.getMessage() == "- - refused 400 session=- principal=-"
