"""What every HTTP adapter must do, run against each: the h11 server (asyncio and
trio) and the ASGI app mounted in Starlette under uvicorn (asyncio only). Raw
HTTP/1.1 from `http_helpers.RawClient`; every wait bounded by LIMIT. What only one
adapter does is in test_http_server.py and test_asgi.py."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager

import anyio
import pytest
from asgi_helpers import mounted
from http_helpers import (
    LIMIT,
    META,
    Gates,
    RawClient,
    call,
    data,
    initialize,
    make_server,
    modern_headers,
    open_session,
    running,
)

from mcp_core import Server

pytestmark = pytest.mark.anyio

Served = Callable[[Server], AbstractAsyncContextManager[Callable[[], RawClient]]]


@pytest.fixture(
    params=[("h11", "asyncio"), ("h11", "trio"), ("asgi", "asyncio")],
    ids=["h11-asyncio", "h11-trio", "asgi-uvicorn"],
)
def adapter(request: pytest.FixtureRequest) -> tuple[str, str]:
    return request.param  # type: ignore[no-any-return]


@pytest.fixture
def anyio_backend(adapter: tuple[str, str]) -> str:
    return adapter[1]


@pytest.fixture
def served(adapter: tuple[str, str]) -> Served:
    """Serves a Server with the adapter; yields a maker of raw clients of it."""

    @asynccontextmanager
    async def serve(server: Server) -> AsyncIterator[Callable[[], RawClient]]:
        if adapter[0] == "h11":
            async with running(server) as port:
                yield lambda: RawClient(port)
        else:
            async with mounted(server) as port:  # the MCP app at /api, beside /health
                yield lambda: RawClient(port, target="/api/mcp")

    return serve


async def test_initialize_and_a_json_tools_call(served: Served) -> None:
    async with served(make_server(Gates())) as client, client() as raw:
        session_id = await open_session(raw, "2025-06-18")
        await raw.send("POST", call("echo", {"text": "hi"}), mcp_session_id=session_id)
        answer = await raw.answer()
        assert answer.status == 200 and answer.headers["content-type"] == "application/json"
        assert answer.headers["mcp-session-id"] == session_id
        assert answer.json()["result"]["content"] == [{"type": "text", "text": "hi"}]


async def test_a_tools_call_answered_on_sse(served: Served) -> None:
    async with served(make_server(Gates())) as client, client() as raw:
        session_id = await open_session(raw)  # 2025-11-25: SSE with a priming event
        request = call("slow", {}, id=4, _meta={"progressToken": "p"})
        await raw.send("POST", request, mcp_session_id=session_id)
        head = await raw.head()
        assert head.status == 200 and head.headers["content-type"] == "text/event-stream"
        assert head.headers["mcp-session-id"] == session_id
        assert head.headers["cache-control"] == "no-cache"
        assert head.headers["x-accel-buffering"] == "no"
        events = await raw.events()  # to the end of the stream
        assert events[0].data == "" and events[0].id and events[0].retry is not None
        assert len({e.id for e in events}) == len(events)
        methods = [m.get("method", m.get("id")) for m in data(events)]
        assert methods == ["notifications/progress", "notifications/message", 4]


async def test_the_get_stream_and_delete(served: Served) -> None:
    server = make_server(Gates())
    async with served(server) as client, client() as raw, client() as get:
        session_id = await open_session(raw)
        await get.send("GET", mcp_session_id=session_id)
        assert (await get.head()).headers["content-type"] == "text/event-stream"
        (priming,) = await get.events(lambda events: bool(events))
        assert priming.data == ""
        server.add_tool(lambda: "new", name="added")
        events = await get.events(lambda events: bool(events))
        assert data(events) == [{"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}]

        await raw.send("DELETE", mcp_session_id=session_id)
        assert (await raw.answer()).status == 200
        assert await get.events() == []  # the session's end ends its GET stream
        await raw.send("POST", call("echo", {"text": "x"}), mcp_session_id=session_id)
        assert (await raw.answer()).status == 404


async def test_a_modern_request(served: Served) -> None:
    async with served(make_server(Gates())) as client, client() as raw:
        request = call("echo", {"text": "now"}, id=3, _meta=META)
        await raw.send("POST", request, **modern_headers("tools/call", "echo"))
        answer = await raw.answer()
        assert answer.status == 200 and "mcp-session-id" not in answer.headers
        assert answer.json()["result"]["content"][0]["text"] == "now"
        unknown = {"jsonrpc": "2.0", "id": 4, "method": "nothing/here", "params": {"_meta": META}}
        await raw.send("POST", unknown, **modern_headers("nothing/here"))
        assert (await raw.answer()).status == 404


async def test_a_disconnect_cancels_a_modern_request(served: Served) -> None:
    gates = Gates()
    async with served(make_server(gates)) as client:
        async with client() as raw:
            request = call("hang", {}, id=5, _meta=META)
            await raw.send("POST", request, **modern_headers("tools/call", "hang"))
            with anyio.fail_after(LIMIT):
                await gates.started.wait()
        with anyio.fail_after(LIMIT):
            await gates.cancelled.wait()


async def test_a_dropped_legacy_stream_is_resumed_with_last_event_id(served: Served) -> None:
    # A disconnection is not a cancellation before 2026-07-28: the response comes
    # on the GET that resumes the stream.
    gates = Gates()
    async with served(make_server(gates)) as client:
        async with client() as raw:
            session_id = await open_session(raw)
            await raw.send("POST", call("hang", {}, id=8), mcp_session_id=session_id)
            await raw.head()
            (priming,) = await raw.events(lambda events: bool(events))
            with anyio.fail_after(LIMIT):
                await gates.started.wait()
        gates.release.set()
        async with client() as again:
            await again.send("GET", mcp_session_id=session_id, last_event_id=priming.id or "")
            assert (await again.head()).status == 200
            (response,) = data(await again.events())
            assert response["id"] == 8
            assert response["result"]["content"] == [{"type": "text", "text": "released"}]
        assert not gates.cancelled.is_set()


async def test_refusals(served: Served) -> None:
    async with served(make_server(Gates())) as client, client() as raw:
        await raw.send("POST", initialize(), origin="http://evil.example.com")
        assert (await raw.answer()).status == 403
        await raw.send("POST", initialize(), host="evil.example.com")
        assert (await raw.answer()).status == 421
        raw.target = raw.target.replace("/mcp", "/other")
        await raw.send("POST", initialize())
        assert (await raw.answer()).status == 404


@pytest.mark.parametrize(
    ("body", "code", "says"),
    [
        (b'"arguments":{"text":"\xff"}', -32700, "invalid UTF-8 (byte 0xff at offset "),
        (b'"arguments":{"text":"\\ud800"}', -32700, "lone UTF-16 surrogate \\ud800"),
        (b"", -32600, "Number out of range - at `$.id`"),
    ],
    ids=["bad-utf8-in-params", "lone-surrogate", "id-1e999"],
)
@pytest.mark.parametrize("era", ["2025-11-25", "2026-07-28"])
async def test_a_malformed_body_gets_400_with_words_for_it(
    served: Served, era: str, body: bytes, code: int, says: str
) -> None:
    # Issue 30 item 8: invalid UTF-8 inside a string got 200 and an error event on
    # a legacy session's stream, where every other parse error gets 400; "\ud800"
    # got "Input data was truncated"; "id": 1e999 "must be a JSON object".
    async with served(make_server(Gates())) as client, client() as raw:
        if era == "2026-07-28":
            meta = json.dumps(META).encode()
            headers = modern_headers("tools/call", "echo")
        else:
            meta = b"{}"
            headers = {"mcp_session_id": await open_session(raw)}
        # No body: an id past a float's range.
        whole = b'{"jsonrpc":"2.0","id":' + (b"1" if body else b"1e999")
        whole += b',"method":"tools/call","params":{"name":"echo",'
        whole += (body or b'"arguments":{"text":"a"}') + b',"_meta":' + meta + b"}}"
        await raw.send("POST", whole, **headers)
        answer = await raw.answer()
        assert answer.status == 400, answer.body
        error = answer.json()["error"]
        assert error["code"] == code and says in error["message"], error


# --- JSON-RPC batches: 2025-03-26 only (its basic/transports.mdx "Sending Messages to
# the Server" items 3-5) ---------------------------------------------------------------


def note(method: str, **params: object) -> dict[str, object]:
    return {"jsonrpc": "2.0", "method": method, "params": params}


async def test_a_2025_03_26_batch_gets_an_array_of_its_responses(served: Served) -> None:
    gates = Gates()
    async with served(make_server(gates)) as client, client() as raw:
        session_id = await open_session(raw, "2025-03-26")
        batch = [
            call("hang", {}, id=1),
            note("notifications/roots/list_changed"),
            call("echo", {"text": "b"}, id="two"),
            {"jsonrpc": "2.0", "id": 3, "method": "ping"},
        ]
        await raw.send("POST", batch, mcp_session_id=session_id)
        await gates.started.wait()  # the batch's handlers run side by side
        gates.release.set()
        answer = await raw.answer()
        assert answer.status == 200 and answer.headers["content-type"] == "application/json"
        assert answer.headers["mcp-session-id"] == session_id
        by_id = {member["id"]: member for member in answer.json()}
        assert sorted(by_id, key=str) == [1, 3, "two"]
        assert by_id[1]["result"]["content"][0]["text"] == "released"
        assert by_id["two"]["result"]["content"][0]["text"] == "b"
        assert by_id[3]["result"] == {}

        # Item 4: only notifications and responses: 202, no body.
        notes = [note("notifications/roots/list_changed")] * 2
        await raw.send("POST", notes, mcp_session_id=session_id)
        accepted = await raw.answer()
        assert accepted.status == 202 and accepted.body == b""
        # The session goes on.
        await raw.send("POST", call("echo", {"text": "after"}, id=9), mcp_session_id=session_id)
        assert (await raw.answer()).json()["result"]["content"][0]["text"] == "after"


@pytest.mark.parametrize(
    "batch",
    [
        # 2025-03-26 basic/lifecycle.mdx: never in a batch.
        [initialize("2025-03-26"), call("hang", {}, id=7)],
        [call("hang", {}, id=1), call("echo", {"text": "b"}, id=1)],
        [call("hang", {}, id=1), {"jsonrpc": "1.0", "id": 2, "method": "ping"}],
        [],
    ],
    ids=["initialize", "repeated-id", "bad-member", "empty"],
)
async def test_a_2025_03_26_batch_is_refused_whole(served: Served, batch: list[object]) -> None:
    gates = Gates()
    async with served(make_server(gates)) as client, client() as raw:
        session_id = await open_session(raw, "2025-03-26")
        await raw.send("POST", batch, mcp_session_id=session_id)
        refused = await raw.answer()
        assert refused.status == 400 and refused.json()["error"]["code"] == -32600
        assert not gates.started.is_set()  # nothing of it was served


@pytest.mark.parametrize("version", ["2025-06-18", "2025-11-25"])
async def test_batches_are_refused_in_other_revisions(served: Served, version: str) -> None:
    async with served(make_server(Gates())) as client, client() as raw:
        session_id = await open_session(raw, version)
        batch = [call("echo", {"text": "a"}, id=1), call("echo", {"text": "b"}, id=2)]
        await raw.send("POST", batch, mcp_session_id=session_id, mcp_protocol_version=version)
        refused = await raw.answer()
        assert refused.status == 400 and refused.json()["error"]["code"] == -32600
        # ... and with no session, or in a 2026-07-28 request.
        await raw.send("POST", batch)
        assert (await raw.answer()).json()["error"]["code"] == -32600
        await raw.send("POST", batch, **modern_headers("tools/call", "echo"))
        assert (await raw.answer()).json()["error"]["code"] == -32600
