"""Arbitrary requests against the HTTP service: each gets an answer, never an
exception and never a 5xx, and a session opened before them still works after.

The requests are made from the parts a real one has (method, path, the MCP header
fields, a JSON-RPC body), each part either valid or mangled, so that the service
meets every mix of right and wrong: wrong media types, session ids and protocol
versions, 2026-07-28 metadata headers that disagree with the body, batches, bodies
that are no JSON or nest too deep. The service runs without sockets
(`HttpService.handle` with a responder that records), on asyncio and trio; every
call names the `echo` tool of the HTTP tests' server.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
from http_helpers import Gates, make_server
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks.http_service import Recorder
from mcp_core import HttpServerConfig
from mcp_core.http import HttpRequest, Reply
from transports.http.service import HttpService

BACKENDS = ("asyncio", "trio")

MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "fuzz", "version": "1"},
}


def body_of(message: dict[str, Any]) -> bytes:
    return json.dumps({"jsonrpc": "2.0", **message}).encode()


INITIALIZE = {
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "fuzz", "version": "1"},
    },
}


def call(text: str, id: Any = 1, modern: bool = False) -> dict[str, Any]:
    params: dict[str, Any] = {"name": "echo", "arguments": {"text": text}}
    if modern:
        params["_meta"] = MODERN_META
    return {"id": id, "method": "tools/call", "params": params}


junk_text = st.text(max_size=12)
PLAY = "<the session the noise may use>"
MODERN_HEADERS = {
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": "tools/call",
    "mcp-name": "echo",
}
LEGACY_HEADERS = {"mcp-session-id": PLAY, "mcp-protocol-version": "2025-11-25"}
TEMPLATES: list[tuple[str, dict[str, str], bytes]] = [
    ("POST", MODERN_HEADERS, body_of(call("x", modern=True))),
    (
        "POST",
        {"mcp-protocol-version": "2026-07-28", "mcp-method": "server/discover"},
        body_of({"id": 2, "method": "server/discover", "params": {"_meta": MODERN_META}}),
    ),
    ("POST", LEGACY_HEADERS, body_of(call("x"))),
    ("POST", LEGACY_HEADERS, body_of({"id": 3, "method": "ping"})),
    (
        "POST",
        LEGACY_HEADERS,
        body_of({"method": "notifications/cancelled", "params": {"requestId": 1}}),
    ),
    ("POST", LEGACY_HEADERS, body_of({"id": 1, "result": {}})),
    ("POST", {}, body_of(INITIALIZE)),
    ("DELETE", LEGACY_HEADERS, b""),
]
bodies = st.one_of(
    st.sampled_from(
        [
            body_of({"id": 5, "method": "nope", "params": {"_meta": MODERN_META}}),
            b"[" + body_of(call("a")) + b"," + body_of(call("b", id=2)) + b"]",
            b"[]",
            b"",
            b"{",
            b"[" * 5000 + b"]" * 5000,
            b'{"jsonrpc":"2.0","id":true,"method":"ping"}',
            b'{"jsonrpc":"1.0","id":1,"method":"ping"}',
            b"\xff\xfe",
        ]
    ),
    st.builds(lambda t, i: body_of(call(t, id=i, modern=True)), junk_text, st.integers()),
    st.binary(max_size=64),
)
header_values = {
    "content-type": ["application/json", "text/plain", "application/json; charset=utf-8", ""],
    "accept": [
        "application/json, text/event-stream",
        "application/json",
        "text/event-stream",
        "*/*",
        "text/html",
    ],
    "mcp-protocol-version": ["2026-07-28", "2025-11-25", "2025-03-26", "1999-01-01", ""],
    "mcp-session-id": ["nope", "", "\u00e9t\u00e9", PLAY],
    "mcp-method": ["tools/call", "ping", "initialize", ""],
    "mcp-name": ["echo", "other", ""],
    "origin": ["http://127.0.0.1:8000", "http://evil.example", "null"],
    "host": ["127.0.0.1:8000", "evil.example", ""],
    "last-event-id": ["0", "x/y", ""],
}
Request_ = tuple[str, str, dict[str, str], bytes]


@st.composite
def requests(draw: st.DrawFn) -> Request_:
    """A valid request, then none to three of its parts changed."""
    method, fields, body = draw(st.sampled_from(TEMPLATES))
    fields = dict(fields)
    target = "/mcp"
    for _ in range(draw(st.integers(0, 3))):
        part = draw(st.sampled_from(["method", "target", "drop", "header", "body"]))
        if part == "method":
            method = draw(st.sampled_from(["POST", "GET", "DELETE", "PUT", "OPTIONS"]))
        elif part == "target":
            target = draw(st.sampled_from(["/mcp?x=1", "/", "/mcp/", "/other"]))
        elif part == "drop" and fields:
            del fields[draw(st.sampled_from(sorted(fields)))]
        elif part == "header":
            name = draw(st.sampled_from(sorted(header_values)))
            fields[name] = draw(st.one_of(st.sampled_from(header_values[name]), junk_text))
        elif part == "body":
            body = draw(bodies)
    return method, target, fields, body


def head(method: str, target: str, fields: dict[str, str], body: bytes) -> HttpRequest:
    base = {
        "host": "127.0.0.1:8000",
        "accept": "application/json, text/event-stream",
        "content-type": "application/json",
        "content-length": str(len(body)),
    }
    base.update(fields)
    return HttpRequest.from_pairs(method, target, list(base.items()))


async def exchange(
    service: HttpService, request: HttpRequest, body: bytes, answer: Recorder | None = None
) -> Recorder:
    out = answer or Recorder()
    refusal = await service.admit(request)
    if isinstance(refusal, Reply):
        await out.reply(refusal)
        return out
    with anyio.fail_after(5):
        await service.handle(out, request, body, refusal.principal)
    return out


def result_text(out: Recorder) -> str:
    body = out.body
    if out.headers.get("content-type") == "text/event-stream":
        datas = [line[6:] for line in body.split(b"\n") if line.startswith(b"data: ")]
        body = [d for d in datas if d][-1]
    answer = json.loads(body)
    return str(answer["result"]["content"][0]["text"])


async def open_session(service: HttpService) -> dict[str, str]:
    body = body_of(INITIALIZE)
    opened = await exchange(service, head("POST", "/mcp", {}, body), body)
    ours = {"mcp-session-id": opened.headers["mcp-session-id"], **LEGACY_HEADERS}
    ours["mcp-session-id"] = opened.headers["mcp-session-id"]
    body = body_of({"method": "notifications/initialized"})
    assert (await exchange(service, head("POST", "/mcp", ours, body), body)).status == 202
    return ours


async def fuzz(batch: list[Request_], seen: dict[int, int]) -> None:
    service = HttpService(make_server(Gates()), HttpServerConfig(session_idle_timeout=600))
    async with service.running():
        # A legacy session the noise never names, and one it may use.
        ours = await open_session(service)
        play = (await open_session(service))["mcp-session-id"]
        for method, target, fields, body in batch:
            fields = {name: play if value == PLAY else value for name, value in fields.items()}
            accept = fields.get("accept", "text/event-stream")
            if method == "GET" and ("event-stream" in accept or "*/*" in accept):
                # A GET stream that is let in stays open: not for this test.
                fields = {**fields, "accept": "application/json"}
            out = await exchange(service, head(method, target, fields, body), body)
            assert out.status is not None and 200 <= out.status < 500, (out.status, out.body)
            seen[out.status] = seen.get(out.status, 0) + 1
            if (
                out.status >= 400
                and out.body
                and out.headers.get("content-type") == ("application/json")
            ):
                error = json.loads(out.body)["error"]
                assert isinstance(error["code"], int) and error["message"]

        # The session opened first still works, and so does a 2026-07-28 request.
        body = body_of(call("still here", id=99))
        out = await exchange(service, head("POST", "/mcp", ours, body), body)
        assert out.status == 200 and result_text(out) == "still here"
        body = body_of(call("modern", modern=True))
        modern = {"mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call"}
        out = await exchange(
            service, head("POST", "/mcp", {**modern, "mcp-name": "echo"}, body), body
        )
        assert out.status == 200 and result_text(out) == "modern"


@settings(max_examples=200)
@given(batch=st.lists(requests(), max_size=6), backend=st.sampled_from(BACKENDS))
def test_arbitrary_requests_get_answers_and_leave_sessions_alone(
    batch: list[Request_], backend: str
) -> None:
    anyio.run(fuzz, batch, {}, backend=backend)


def test_the_unchanged_templates_are_answered() -> None:
    # The requests the generation starts from are valid, so that the examples reach
    # the sessions and the handlers, not only the checks at the door.
    seen: dict[int, int] = {}
    anyio.run(fuzz, [(method, "/mcp", fields, body) for method, fields, body in TEMPLATES], seen)
    assert set(seen) <= {200, 202}, seen
