"""Our HTTP client against scripted servers that answer with raw bytes, on asyncio and
trio: a stream closed early and resumed after its `retry` (the conformance
`sse-retry` scenario's behaviour), error statuses, a kept connection the server
closed, a read timeout, the HTTP+SSE fallback, and the 2026-07-28 header rules on
the wire."""

from __future__ import annotations

import json
import logging
from typing import Any

import anyio
import pytest
from net_helpers import LIMIT, RawConnection, RawRequest, chunk, response, scripted
from runtime_helpers import ERAS, only_text

from mcp_core import McpError
from mcp_core.wire import HEADER_MISMATCH, METHOD_NOT_FOUND, encode_event
from transports import HttpClientTimeouts, HttpError, HttpStatusError, connect_http

pytestmark = pytest.mark.anyio

JSON = {"content-type": "application/json"}
SSE_HEAD = (
    b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
    b"transfer-encoding: chunked\r\nmcp-session-id: s\r\n\r\n"
)


def rpc(request: RawRequest) -> dict[str, Any]:
    message: dict[str, Any] = json.loads(request.body)
    return message


def answer(id: Any, result: Any) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": id, "result": result}).encode()


def initialize_result(version: str = "2025-11-25", **capabilities: Any) -> dict[str, Any]:
    return {
        "protocolVersion": version,
        "capabilities": capabilities or {"tools": {}},
        "serverInfo": {"name": "scripted", "version": "1"},
    }


TEXT = {"content": [{"type": "text", "text": "ok"}]}


class Legacy:
    """A legacy streamable-HTTP server in a few lines; subclasses change one answer."""

    version = "2025-03-26"

    def __init__(self) -> None:
        self.log: list[tuple[float, RawRequest]] = []

    async def __call__(self, conn: RawConnection) -> None:
        while (request := await conn.request()) is not None:
            self.log.append((anyio.current_time(), request))
            await self.handle(conn, request)

    async def handle(self, conn: RawConnection, request: RawRequest) -> None:
        if request.method == "DELETE":
            await conn.write(response(405))
            return
        if request.method == "GET":
            await self.get(conn, request)
            return
        message = rpc(request)
        if "id" not in message:
            await conn.write(response(202))
        elif message["method"] == "initialize":
            body = answer(message["id"], initialize_result(self.version))
            await conn.write(response(200, {**JSON, "mcp-session-id": "s"}, body))
        elif message["method"] == "tools/call":
            await self.call(conn, message)
        else:
            await conn.write(response(200, JSON, answer(message["id"], {})))

    async def get(self, conn: RawConnection, request: RawRequest) -> None:
        await conn.write(response(405))

    async def call(self, conn: RawConnection, message: dict[str, Any]) -> None:
        await conn.write(response(200, JSON, answer(message["id"], TEXT)))


class ClosesEarly(Legacy):
    """The sse-retry scenario: the call's stream sends a priming event with an id and
    `retry`, then closes; the answer comes on the GET that resumes it."""

    def __init__(self, retry_ms: int) -> None:
        super().__init__()
        self.retry_ms = retry_ms
        self.closed_at = 0.0
        self.call_id: Any = None

    async def call(self, conn: RawConnection, message: dict[str, Any]) -> None:
        self.call_id = message["id"]
        priming = encode_event(b"", id="event-1", retry=self.retry_ms)
        await conn.write(SSE_HEAD + chunk(priming) + chunk(b""))
        self.closed_at = anyio.current_time()

    async def get(self, conn: RawConnection, request: RawRequest) -> None:
        if "last-event-id" not in request.headers:
            await conn.write(response(405))
            return
        events = encode_event(b"", id="event-2") + encode_event(
            answer(self.call_id, TEXT), id="event-3"
        )
        await conn.write(SSE_HEAD + chunk(events))
        await anyio.sleep_forever()  # held open, as the conformance mock does


async def test_a_closed_stream_is_resumed_after_retry_with_last_event_id() -> None:
    # 2025-11-25 "Sending Messages to the Server" item 6: "The client MUST respect
    # the retry field, waiting the given number of milliseconds".
    server = ClosesEarly(retry_ms=300)
    with anyio.fail_after(LIMIT):
        async with scripted(server) as port:
            url = f"http://127.0.0.1:{port}"
            async with connect_http(url, revisions=ERAS["legacy"]) as client:
                assert client.revision == "2025-03-26"
                assert only_text(await client.call_tool("test_reconnection")) == "ok"
    (when, resume) = next((t, r) for t, r in server.log if "last-event-id" in r.headers)
    assert resume.headers["last-event-id"] == "event-1"
    assert resume.headers["mcp-session-id"] == "s"
    assert "mcp-protocol-version" not in resume.headers  # not defined in 2025-03-26
    assert when - server.closed_at >= 0.29


class Refuses(Legacy):
    def __init__(self, status: int, headers: dict[str, str], body: bytes) -> None:
        super().__init__()
        self.answer = response(status, headers, body)

    async def call(self, conn: RawConnection, message: dict[str, Any]) -> None:
        await conn.write(self.answer)


@pytest.mark.parametrize(
    ("status", "headers", "body", "error", "text"),
    [
        (500, {"content-type": "text/plain"}, b"it broke", HttpStatusError, "HTTP 500: it broke"),
        (429, {}, b"", HttpStatusError, "HTTP 429"),
        (
            503,
            JSON,
            json.dumps(
                {"jsonrpc": "2.0", "id": None, "error": {"code": -32000, "message": "busy"}}
            ).encode(),
            McpError,
            "busy",
        ),
        (200, {"content-type": "text/html"}, b"<p>", HttpError, "unexpected Content-Type"),
    ],
)
async def test_a_refused_call_fails_with_the_right_error(
    status: int, headers: dict[str, str], body: bytes, error: type[Exception], text: str
) -> None:
    with anyio.fail_after(LIMIT):
        async with (
            scripted(Refuses(status, headers, body)) as port,
            connect_http(f"http://127.0.0.1:{port}/", revisions=ERAS["legacy"]) as client,
        ):
            with pytest.raises(error, match=text) as failure:
                await client.call_tool("x")
            if error is HttpStatusError:
                assert isinstance(failure.value, HttpStatusError)
                assert (failure.value.status, failure.value.body) == (status, body)
            # The connection goes on.
            await client.ping()


async def test_a_refused_opening_fails_the_client() -> None:
    async def unauthorized(conn: RawConnection) -> None:
        while await conn.request() is not None:
            await conn.write(response(401, {"www-authenticate": "Bearer"}, b"who are you?"))

    with anyio.fail_after(LIMIT):
        async with scripted(unauthorized) as port:
            with pytest.raises(HttpStatusError, match="HTTP 401: who are you") as failure:
                async with connect_http(f"http://127.0.0.1:{port}/mcp", revisions=ERAS["legacy"]):
                    pass
    assert failure.value.status == 401


class OneRequestPerConnection(Legacy):
    """Closes every connection after one answer without saying so (no
    `Connection: close`), as a server whose idle timeout is zero would."""

    def __init__(self) -> None:
        super().__init__()
        self.closes = 0
        self.closed = anyio.Event()

    async def all_closed(self) -> None:
        """Wait until every connection that brought a request is closed."""
        while self.closes < len(self.log):
            self.closed = anyio.Event()
            await self.closed.wait()

    async def __call__(self, conn: RawConnection) -> None:
        request = await conn.request()
        if request is not None:
            self.log.append((anyio.current_time(), request))
            await self.handle(conn, request)
        await conn.stream.aclose()
        self.closes += 1
        self.closed.set()


async def test_a_kept_connection_the_server_closed_is_replaced() -> None:
    # The handshake's requests race the server's closes (they may go again: they
    # change nothing); each call waits until its kept connection was closed, which
    # the pool sees: a tools/call is never sent twice (RFC 9112 section 9.3.1).
    server = OneRequestPerConnection()
    with anyio.fail_after(LIMIT):
        async with (
            scripted(server) as port,
            connect_http(f"http://127.0.0.1:{port}/", revisions=ERAS["legacy"]) as client,
        ):
            for _ in range(3):
                await server.all_closed()
                assert only_text(await client.call_tool("x")) == "ok"
    calls = [r for _, r in server.log if r.method == "POST" and b"tools/call" in r.body]
    assert len(calls) == 3


async def test_a_server_that_never_answers_times_out() -> None:
    async def silent(conn: RawConnection) -> None:
        while await conn.request() is not None:
            await anyio.sleep_forever()

    timeouts = HttpClientTimeouts(read=0.1)
    with anyio.fail_after(LIMIT):
        async with scripted(silent) as port:
            with pytest.raises(HttpError, match="timed out"):
                async with connect_http(f"http://127.0.0.1:{port}/", timeouts=timeouts):
                    pass


class HttpSse:
    """A 2024-11-05 HTTP+SSE server: GET /sse opens the stream, whose first event
    names the POST endpoint; answers go on the stream; POST /sse gets 405."""

    def __init__(self) -> None:
        self.send, self.receive = anyio.create_memory_object_stream[bytes](100)
        self.posted: list[RawRequest] = []

    async def __call__(self, conn: RawConnection) -> None:
        while (request := await conn.request()) is not None:
            if request.method == "GET" and request.target == "/sse":
                head = SSE_HEAD.replace(b"mcp-session-id: s\r\n", b"")
                await conn.write(
                    head + chunk(encode_event("/messages/?session_id=42", event="endpoint"))
                )
                async for data in self.receive:
                    await conn.write(chunk(encode_event(data, event="message")))
            elif request.method == "POST" and request.target.startswith("/messages/"):
                self.posted.append(request)
                message = rpc(request)
                await conn.write(response(202, {}, b"Accepted"))
                if message.get("method") == "initialize":
                    await self.send.send(answer(message["id"], initialize_result("2024-11-05")))
                elif message.get("method") == "tools/call":
                    await self.send.send(answer(message["id"], TEXT))
                elif "id" in message:
                    error = {"code": METHOD_NOT_FOUND, "message": "unknown"}
                    await self.send.send(
                        json.dumps({"jsonrpc": "2.0", "id": message["id"], "error": error}).encode()
                    )
            else:
                await conn.write(response(405, {}, b"Method Not Allowed"))


@pytest.mark.parametrize("era", ["legacy", "dual"])
async def test_an_http_sse_server_is_found_from_its_sse_url(era: str) -> None:
    # 2025-11-25 "Backwards Compatibility"; 2024-11-05 "HTTP with SSE".
    server = HttpSse()
    options = {"revisions": ERAS["legacy"]} if era == "legacy" else {}
    with anyio.fail_after(LIMIT):
        async with (
            scripted(server) as port,
            connect_http(f"http://127.0.0.1:{port}/sse", **options) as client,
        ):
            assert (client.era, client.revision) == ("legacy", "2024-11-05")
            assert only_text(await client.call_tool("x")) == "ok"
    methods = [rpc(r).get("method") for r in server.posted]
    assert methods[:2] == ["initialize", "notifications/initialized"]
    assert all("mcp-session-id" not in r.headers for r in server.posted)


class Modern:
    """A 2026-07-28 server: server/discover, tools/list with one tool whose
    annotation is invalid, tools/call recording its headers."""

    def __init__(self) -> None:
        self.calls: list[RawRequest] = []

    async def __call__(self, conn: RawConnection) -> None:
        while (request := await conn.request()) is not None:
            message = rpc(request)
            method = message["method"]
            if method == "server/discover":
                result = {
                    "supportedVersions": ["2026-07-28"],
                    "capabilities": {"tools": {}},
                    "ttlMs": 0,
                    "cacheScope": "private",
                    "resultType": "complete",
                }
            elif method == "tools/list":
                good = {"type": "string", "x-mcp-header": "Region"}
                bad = {
                    "type": "object",
                    "properties": {"v": {"type": "number", "x-mcp-header": "V"}},
                }
                tools = [
                    {
                        "name": "sql",
                        "inputSchema": {"type": "object", "properties": {"region": good}},
                    },
                    {"name": "bad", "inputSchema": bad},
                ]
                result = {"tools": tools, "resultType": "complete"}
            elif method == "tools/call" and message["params"]["name"] == "sql":
                self.calls.append(request)
                if "mcp-param-region" not in request.headers:
                    # 2026-07-28 "Server Behavior for Custom Headers".
                    error = {"code": HEADER_MISMATCH, "message": "Mcp-Param-Region is required"}
                    body = json.dumps({"jsonrpc": "2.0", "id": message["id"], "error": error})
                    await conn.write(response(400, JSON, body.encode()))
                    continue
                result = {**TEXT, "resultType": "complete"}
            else:
                error = {"code": METHOD_NOT_FOUND, "message": f"no {method}"}
                body = json.dumps({"jsonrpc": "2.0", "id": message["id"], "error": error}).encode()
                await conn.write(response(404, JSON, body))
                continue
            await conn.write(response(200, JSON, answer(message["id"], result)))


async def test_modern_headers_on_the_wire(caplog: pytest.LogCaptureFixture) -> None:
    # 2026-07-28 "Request Metadata" and "Custom Headers from Tool Parameters".
    server = Modern()
    caplog.set_level(logging.WARNING, "mcp_core.http")
    with anyio.fail_after(LIMIT):
        async with (
            scripted(server) as port,
            connect_http(f"http://127.0.0.1:{port}/mcp") as client,
        ):
            assert client.era == "modern"
            assert [tool.name for tool in (await client.list_tools()).tools] == ["sql"]
            assert only_text(await client.call_tool("sql", {"region": "eu-west 1"})) == "ok"
            with pytest.raises(McpError) as unknown:
                await client.call_tool("nope")
            assert unknown.value.code == METHOD_NOT_FOUND
    (call,) = server.calls  # listed first: the headers were right at once
    headers = call.headers
    assert (headers["mcp-method"], headers["mcp-name"]) == ("tools/call", "sql")
    assert headers["mcp-protocol-version"] == "2026-07-28"
    assert headers["mcp-param-region"] == "eu-west 1"
    assert "mcp-session-id" not in headers
    assert "tool 'bad' dropped from tools/list" in caplog.text


async def test_a_call_refused_for_its_headers_goes_again_after_a_listing() -> None:
    # 2026-07-28 "Client Behavior": HeaderMismatch, tools/list, the call again.
    server = Modern()
    with anyio.fail_after(LIMIT):
        async with (
            scripted(server) as port,
            connect_http(f"http://127.0.0.1:{port}/mcp") as client,
        ):
            assert only_text(await client.call_tool("sql", {"region": "eu"})) == "ok"
    refused, accepted = server.calls
    assert "mcp-param-region" not in refused.headers
    assert accepted.headers["mcp-param-region"] == "eu"


class EndsMidHandshake(Legacy):
    """A server at its session cap: the first session ends between initialize
    and notifications/initialized (404), the second lives."""

    version = "2025-11-25"

    def __init__(self) -> None:
        super().__init__()
        self.opened = 0

    async def handle(self, conn: RawConnection, request: RawRequest) -> None:
        if request.method == "POST" and "mcp-session-id" not in request.headers:
            message = rpc(request)
            self.opened += 1
            body = answer(message["id"], initialize_result(self.version))
            await conn.write(response(200, {**JSON, "mcp-session-id": f"s{self.opened}"}, body))
        elif request.headers.get("mcp-session-id") == "s1":
            await conn.write(response(404))
        else:
            await super().handle(conn, request)


async def test_a_session_ended_mid_handshake_is_opened_again() -> None:
    # 2025-11-25 basic/transports.mdx "Session Management" item 4: on 404 the
    # client MUST start a new session; during its own handshake it does so at
    # once, so that no request goes to the ended session.
    server = EndsMidHandshake()
    with anyio.fail_after(LIMIT):
        async with scripted(server) as port:
            url = f"http://127.0.0.1:{port}"
            async with connect_http(url, revisions=("2025-11-25",)) as client:
                assert only_text(await client.call_tool("t")) == "ok"
    sent = [(r.headers.get("mcp-session-id"), json.loads(r.body)) for _, r in server.log if r.body]
    assert [(sid, m.get("method")) for sid, m in sent] == [
        (None, "initialize"),
        ("s1", "notifications/initialized"),
        (None, "initialize"),
        ("s2", "notifications/initialized"),
        ("s2", "tools/call"),
    ]
