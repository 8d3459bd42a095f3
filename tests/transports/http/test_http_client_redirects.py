"""Redirects of the MCP endpoint, as the client follows them.

RFC 9110 sections 15.4.8 (307) and 15.4.9 (308): the same request, same method and
body, goes to the Location. The client follows them within the server's origin,
moves its endpoint there for later requests, and refuses anything else with a
clear failure. The last tests are from the wire: an MCP app mounted in Starlette
at /mcp under uvicorn, whose router answers /mcp with a 307 to /mcp/.
"""

from __future__ import annotations

import json

import anyio
import pytest
from asgi_helpers import uvicorn_serving
from http_client_helpers import INITIALIZED, JSON, URL, Wire, call, header, initialize, result
from http_helpers import Gates, make_server
from net_helpers import LIMIT
from runtime_helpers import only_text
from starlette.applications import Starlette
from starlette.requests import Request as StarletteRequest
from starlette.responses import RedirectResponse
from starlette.routing import Mount, Route
from test_http_client import client_of

from mcp_core.wire import Notification
from transports import HttpError
from transports.http.asgi import asgi_app

NEW: str = "http://127.0.0.1:8000/mcp/"


def test_a_307_sends_the_same_request_to_the_location_and_moves_the_endpoint() -> None:
    wire = Wire(headers=(("authorization", "Bearer t"),))
    (post,) = wire.send(call(modern=True, text="hi"))
    wire.answer(post, 307, (("location", "/mcp/"), ("content-length", "0")))
    again = wire.last()
    assert again is not post and again.exchange != post.exchange
    assert (again.method, again.url, again.origin, again.target) == (
        "POST",
        NEW,
        post.origin,
        "/mcp/",
    )
    # Same method, headers (credentials and the 2026-07-28 metadata) and body.
    assert again.headers == post.headers and again.body == post.body
    assert header(again, "mcp-method") == "tools/call"
    assert wire.notes == [f"the MCP endpoint {URL} redirects to {NEW}: using that"]
    wire.answer(again, 200, JSON, result(1, {"content": []}))
    assert [json.loads(m) if isinstance(m, bytes) else m.id for m in wire.delivered] == [1]
    assert wire.failed == {}
    # Later requests go to the new URL at once.
    (later,) = wire.send(call(id=2, modern=True))
    assert (later.url, later.target) == (NEW, "/mcp/")


def test_a_308_of_initialize_keeps_the_session_on_the_new_url() -> None:
    wire = Wire()
    (post,) = wire.send(initialize())
    wire.answer(post, 308, (("location", NEW),))
    again = wire.last()
    assert again.target == "/mcp/" and json.loads(again.body)["method"] == "initialize"
    headers = (*JSON, ("mcp-session-id", "s1"))
    wire.answer(again, 200, headers, result(0, {"protocolVersion": "2025-11-25"}))
    assert wire.ep.session_id == "s1"
    (posted,) = wire.send(INITIALIZED)
    assert posted.target == "/mcp/" and header(posted, "mcp-session-id") == "s1"
    wire.answer(posted, 202, ())
    listen = wire.last()
    assert (listen.method, listen.target) == ("GET", "/mcp/")
    # The standalone stream redirected again: followed, and still the listen stream.
    wire.answer(listen, 307, (("location", "/mcp/events"),), end=False)
    moved = wire.last()
    assert (moved.method, moved.target) == ("GET", "/mcp/events")
    assert header(moved, "mcp-session-id") == "s1"


def test_a_legacy_request_keeps_its_session_headers() -> None:
    wire = Wire()
    wire.open_session()
    (post,) = wire.send(call(id=5))
    wire.answer(post, 307, (("location", "/other"),))
    again = wire.last()
    assert again.target == "/other"
    assert header(again, "mcp-session-id") == "s1"
    assert header(again, "mcp-protocol-version") == "2025-11-25"
    wire.answer(again, 200, JSON, result(5, {"content": []}))
    assert wire.failed == {}


@pytest.mark.parametrize(
    ("location", "why"),
    [
        ("http://evil.example/mcp", "to another origin, 'http://evil.example/mcp'"),
        ("https://127.0.0.1:8000/mcp", "to another origin"),
        ("http://127.0.0.1:9000/mcp", "to another origin"),
        ("ftp://127.0.0.1/mcp", "to an unusable URL"),
    ],
)
def test_a_redirect_elsewhere_is_not_followed(location: str, why: str) -> None:
    wire = Wire(headers=(("authorization", "Bearer t"),))
    (post,) = wire.send(call(modern=True))
    wire.answer(post, 307, (("location", location),), b"moved")
    assert wire.sends == [post]
    (note,) = wire.notes
    assert note.startswith(f"POST {URL} was redirected {why}")
    failure = wire.failed[1]
    assert failure.status == 307 and failure.body == b"moved"
    assert wire.ep.url == URL


def test_a_redirect_loop_ends() -> None:
    wire = Wire()
    (post,) = wire.send(call(modern=True))
    send = post
    for hop in range(6):
        wire.answer(send, 307, (("location", "/a" if hop % 2 == 0 else "/b"),))
        if wire.last() is send:
            break
        send = wire.last()
    assert len(wire.sends) == 6  # the request and five redirects followed
    assert wire.notes[-1].endswith("was redirected 5 times in a row: not followed again")
    assert wire.failed[1].status == 307


def test_a_307_without_location_is_an_error_status() -> None:
    wire = Wire()
    (post,) = wire.send(call(modern=True))
    wire.answer(post, 307, (), b"")
    assert wire.sends == [post] and wire.failed[1].status == 307


def test_cancelling_a_redirected_request_aborts_the_new_exchange() -> None:
    wire = Wire()
    (post,) = wire.send(call(id=3, modern=True))
    wire.answer(post, 307, (("location", "/mcp/"),))
    again = wire.last()
    cancel = Notification(
        method="notifications/cancelled", params={"requestId": 3, "reason": "enough"}
    )
    wire.apply(wire.ep.send(cancel))
    assert wire.aborted == [again.exchange]


def test_a_redirect_of_a_notification_sends_it_again() -> None:
    wire = Wire()
    wire.open_session()
    note = Notification(method="notifications/roots/list_changed")
    (posted,) = wire.send(note)
    wire.answer(posted, 308, (("location", "/v2/mcp"),))
    again = wire.last()
    assert again.target == "/v2/mcp" and again.body == posted.body
    wire.answer(again, 202, ())
    assert wire.failed == {} and wire.ep.url == "http://127.0.0.1:8000/v2/mcp"


# --- from the wire ------------------------------------------------------------------------


def slash_app() -> Starlette:
    """Our ASGI app mounted at /mcp: Starlette's router answers a request for /mcp
    (no trailing slash) with a 307 to /mcp/."""
    mcp = asgi_app(make_server(Gates()), path="/")
    return Starlette(routes=[Mount("/mcp", app=mcp)], lifespan=lambda app: mcp.running())


@pytest.fixture
def anyio_backend() -> str:
    """uvicorn runs on asyncio only."""
    return "asyncio"


@pytest.mark.anyio
@pytest.mark.parametrize("era", ["legacy", "modern", "dual"])
async def test_a_client_of_a_starlette_mount_follows_its_slash_redirect(era: str) -> None:
    with anyio.fail_after(LIMIT * 2):
        async with uvicorn_serving(slash_app()) as port:
            url = f"http://127.0.0.1:{port}/mcp"
            async with client_of(url, era) as client:
                for n in range(3):
                    text = await client.call_tool("echo", {"text": f"hi {n}"})
                    assert only_text(text) == f"hi {n}"


@pytest.mark.anyio
async def test_a_redirect_to_another_origin_fails_the_opening() -> None:
    async def elsewhere(request: StarletteRequest) -> RedirectResponse:
        return RedirectResponse("http://localhost:1/mcp", status_code=307)

    app = Starlette(routes=[Route("/mcp", elsewhere, methods=["GET", "POST"])])
    with anyio.fail_after(LIMIT * 2):
        async with uvicorn_serving(app) as port:
            with pytest.raises(HttpError) as caught:
                async with client_of(f"http://127.0.0.1:{port}/mcp", "modern"):
                    pass
    assert "307" in str(caught.value)
