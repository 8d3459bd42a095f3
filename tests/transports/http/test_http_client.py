"""Our HTTP client against our HTTP server, over loopback sockets, on asyncio and trio,
in both eras.

The client's rules are tested sans I/O in test_http_client_rules; these tests check
that the adapter carries them out against a real server: JSON and SSE answers,
progress and logs on a request's stream, questions from the server (server-to-client
requests in the legacy era, multi round-trip requests in 2026-07-28), the standalone
GET stream, a session the server ends, DELETE on close, a stream resumed after its
connection broke (cut by a proxy), cancellation, keep-alive and TLS.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from http_helpers import Gates, RawClient, make_server
from net_helpers import LIMIT, Proxy, certificate_authority, port_of, serving
from runtime_helpers import ERAS, Inbox, only_text

from mcp_core import Context, McpError, Server
from mcp_core.types import (
    CreateMessageRequestParams,
    CreateMessageResult,
    ElicitRequestParams,
    ElicitResult,
    TextContent,
)
from transports import Client, ConnectionClosed, HttpError, connect_http

pytestmark = pytest.mark.anyio

ERA_REVISIONS = {**ERAS, "2025-06-18": ("2025-06-18",), "dual": None}
"""Client revisions by case: "dual" is the default (both eras, probing first)."""


def asking_server(gates: Gates) -> Server:
    server = make_server(gates)

    @server.tool
    async def ask(ctx: Context) -> str:
        """Ask the client's model, then its user."""
        sampled = await ctx.sample("A word?", max_tokens=5)
        assert isinstance(sampled.content, TextContent)
        answer = await ctx.elicit(
            "Name?", {"type": "object", "properties": {"n": {"type": "string"}}}
        )
        return f"{sampled.content.text} {answer.content}"

    return server


@asynccontextmanager
async def client_of(url: str, era: str, **options: Any) -> AsyncIterator[Client]:
    revisions = ERA_REVISIONS[era]
    if revisions is not None:
        options["revisions"] = revisions
    async with connect_http(url, **options) as client:
        yield client


@pytest.mark.parametrize(
    ("era", "mode"),
    [
        ("legacy", "auto"),  # 2025-11-25: SSE with a priming event
        ("2025-06-18", "auto"),  # JSON unless something comes first
        ("legacy", "json"),
        ("legacy", "sse"),
        ("modern", "auto"),
        ("modern", "sse"),
        ("dual", "auto"),
    ],
)
async def test_calls_progress_and_logs(era: str, mode: str) -> None:
    logs = Inbox()
    with anyio.fail_after(LIMIT):
        async with (
            serving(make_server(Gates()), response_mode=mode) as (_, url),
            client_of(url, era, on_log=logs) as client,
        ):
            assert client.era == (
                "modern" if era == "dual" else era.replace("2025-06-18", "legacy")
            )
            await client.set_logging_level("info")
            assert [t.name async for t in client.iter_tools()] == ["echo", "slow", "hang"]
            assert only_text(await client.call_tool("echo", {"text": "hi"})) == "hi"
            progress = Inbox()
            assert only_text(await client.call_tool("slow", on_progress=progress)) == "done"
            if mode != "json":
                # A JSON-only server sends progress on the GET stream, where it may
                # come after the response (and is then dropped).
                (step,) = await progress.wait_for(1)
                assert (step.progress, step.total) == (1, 2)
            (log,) = await logs.wait_for(1)
            assert (log.level, log.data) == ("info", "halfway")
            with pytest.raises(McpError):
                await client.call_tool("nope")


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_the_server_asks_the_client(era: str) -> None:
    # Legacy: sampling/createMessage and elicitation/create come on the call's
    # stream and are answered with POSTs; 2026-07-28: multi round-trip requests.
    asked: list[str] = []

    def sampling(params: CreateMessageRequestParams) -> CreateMessageResult:
        asked.append("sampling")
        return CreateMessageResult(role="assistant", content=TextContent(text="yes"), model="m")

    async def elicitation(params: ElicitRequestParams) -> ElicitResult:
        asked.append(params.message)
        return ElicitResult(action="accept", content={"n": "Ada"})

    with anyio.fail_after(LIMIT):
        async with (
            serving(asking_server(Gates())) as (_, url),
            client_of(url, era, sampling=sampling, elicitation=elicitation) as client,
        ):
            assert only_text(await client.call_tool("ask")) == "yes {'n': 'Ada'}"
    assert asked == ["sampling", "Name?"]


async def test_the_get_stream_brings_list_changed() -> None:
    server = make_server(Gates())
    notes = Inbox()
    with anyio.fail_after(LIMIT):
        async with (
            serving(server) as (http, url),
            client_of(url, "legacy", on_notification=notes) as client,
        ):
            await client.call_tool("echo", {"text": "x"})
            (session,) = http.sessions.values()
            assert session.standalone.attached  # the GET stream is open
            server.add_tool(lambda: "new", name="added")
            (method, _) = (await notes.wait_for(1))[0]
            assert method == "notifications/tools/list_changed"


async def test_a_modern_subscription_brings_list_changed() -> None:
    server = make_server(Gates())
    notes = Inbox()
    with anyio.fail_after(LIMIT):
        async with (
            serving(server) as (_, url),
            client_of(url, "modern", on_notification=notes) as client,
            client.listen(tools=True),
        ):
            server.add_tool(lambda: "new", name="added")
            (method, _) = (await notes.wait_for(1))[0]
            assert method == "notifications/tools/list_changed"


async def test_a_session_the_server_ended_is_replaced() -> None:
    # 2025-11-25 "Session Management" items 3-4: 404, then a new initialize.
    with anyio.fail_after(LIMIT):
        async with serving(make_server(Gates())) as (http, url), client_of(url, "legacy") as client:
            await client.call_tool("echo", {"text": "before"})
            (old,) = http.sessions
            async with RawClient(port_of(url)) as raw:
                await raw.send("DELETE", mcp_session_id=old)
                assert (await raw.answer()).status == 200
            assert only_text(await client.call_tool("echo", {"text": "after"})) == "after"
            (new,) = http.sessions
            assert new != old


async def test_close_deletes_the_session() -> None:
    # 2025-11-25 "Session Management" item 5.
    with anyio.fail_after(LIMIT):
        async with serving(make_server(Gates())) as (http, url):
            async with client_of(url, "legacy") as client:
                await client.call_tool("echo", {"text": "x"})
                assert len(http.sessions) == 1
            assert http.sessions == {}


async def test_a_refused_delete_is_fine() -> None:
    with anyio.fail_after(LIMIT):
        async with serving(make_server(Gates()), allow_delete=False) as (http, url):
            async with client_of(url, "legacy") as client:
                await client.call_tool("echo", {"text": "x"})
            assert len(http.sessions) == 1


async def test_a_broken_stream_is_resumed_with_last_event_id() -> None:
    # 2025-11-25 "Resumability and Redelivery": the POST's connection breaks after
    # the priming event; the client comes back with GET and Last-Event-ID after
    # the server's retry, and the response comes on that stream.
    gates = Gates()
    with anyio.fail_after(LIMIT):
        async with serving(make_server(gates), sse_retry_ms=20) as (_, url):
            port = port_of(url)
            async with (
                Proxy(port).running() as proxy,
                client_of(
                    f"http://127.0.0.1:{proxy.port}/mcp", "legacy", standalone_stream=False
                ) as client,
            ):
                result: list[str] = []

                async def call() -> None:
                    result.append(only_text(await client.call_tool("hang")))

                async with anyio.create_task_group() as tg:
                    tg.start_soon(call)
                    await gates.started.wait()
                    await proxy.wait_for(b"retry: 20")
                    proxy.cut()
                    gates.release.set()
                assert result == ["released"]
                assert not gates.cancelled.is_set()


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_cancelling_a_call_cancels_it_at_the_server(era: str) -> None:
    # Legacy: notifications/cancelled; 2026-07-28 "Cancellation": the stream closes.
    gates = Gates()
    with anyio.fail_after(LIMIT):
        async with serving(make_server(gates)) as (_, url), client_of(url, era) as client:
            with anyio.move_on_after(LIMIT / 2) as scope:
                async with anyio.create_task_group() as tg:
                    tg.start_soon(client.call_tool, "hang")
                    await gates.started.wait()
                    tg.cancel_scope.cancel()
            assert not scope.cancelled_caught
            await gates.cancelled.wait()
            assert only_text(await client.call_tool("echo", {"text": "still here"})) == "still here"


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_a_call_that_times_out_is_cancelled_at_the_server(era: str) -> None:
    # The call's POST runs in the calling task: the timeout still ends it.
    gates = Gates()
    with anyio.fail_after(LIMIT):
        async with serving(make_server(gates)) as (_, url), client_of(url, era) as client:
            with pytest.raises(TimeoutError):
                await client.call_tool("hang", timeout=0.2)
            await gates.cancelled.wait()
            assert only_text(await client.call_tool("echo", {"text": "still here"})) == "still here"


async def test_connections_are_kept_alive() -> None:
    with anyio.fail_after(LIMIT):
        async with serving(make_server(Gates())) as (_, url):
            port = port_of(url)
            async with Proxy(port).running() as proxy:
                async with client_of(f"http://127.0.0.1:{proxy.port}/mcp", "2025-06-18") as client:
                    for n in range(10):
                        assert only_text(await client.call_tool("echo", {"text": str(n)})) == str(n)
                # One connection for the POSTs, one for the GET stream (and perhaps
                # one more while the DELETE and the stream overlap).
                assert proxy.connections <= 3


async def test_tls(tmp_path: Path) -> None:
    server_context, client_context = certificate_authority(tmp_path)
    with anyio.fail_after(LIMIT):
        async with serving(make_server(Gates())) as (_, url):
            port = port_of(url)
            async with Proxy(port, server_context).running() as proxy:
                secure = f"https://127.0.0.1:{proxy.port}/mcp"
                async with client_of(secure, "legacy", verify=client_context) as client:
                    assert only_text(await client.call_tool("echo", {"text": "tls"})) == "tls"
                # The default context does not trust our CA.
                with pytest.raises(HttpError, match="certificate"):
                    async with client_of(secure, "legacy"):
                        pass
                async with client_of(secure, "modern", verify=False) as client:
                    assert only_text(await client.call_tool("echo", {"text": "any"})) == "any"
                    # Kept alive over TLS too: the pool's check that an idle
                    # connection is still open does not take TLS records for a close.
                    before = proxy.connections
                    for n in range(5):
                        assert only_text(await client.call_tool("echo", {"text": str(n)})) == str(n)
                    assert proxy.connections == before


async def test_no_server_fails_the_opening_with_http_error() -> None:
    async with serving(make_server(Gates())) as (_, url):
        pass  # the port is free again
    with anyio.fail_after(LIMIT), pytest.raises(HttpError, match="refused") as failure:
        async with client_of(url, "dual"):
            pass
    assert isinstance(failure.value, ConnectionClosed)


async def test_a_dual_era_client_of_a_legacy_only_server() -> None:
    # The probe is refused (400, UnsupportedProtocolVersion naming legacy revisions),
    # then the legacy session works in full: its notifications carry no trace of
    # the probe's era.
    def elicitation(params: ElicitRequestParams) -> ElicitResult:
        return ElicitResult(action="accept", content={"n": "Ada"})

    def sampling(params: CreateMessageRequestParams) -> CreateMessageResult:
        return CreateMessageResult(role="assistant", content=TextContent(text="yes"), model="m")

    with anyio.fail_after(LIMIT):
        async with (
            serving(asking_server(Gates()), revisions=ERAS["legacy"]) as (_, url),
            client_of(url, "dual", sampling=sampling, elicitation=elicitation) as client,
        ):
            assert (client.era, client.revision) == ("legacy", "2025-11-25")
            assert only_text(await client.call_tool("ask")) == "yes {'n': 'Ada'}"


async def test_a_client_takes_a_url() -> None:
    # Client(url) is Client(http_connector(url)); a string that is no http(s) URL
    # is refused when the Client is made, not at its first request.
    with anyio.fail_after(LIMIT):
        async with serving(make_server(Gates())) as (_, url), Client(url) as client:
            assert client.era == "modern"
            assert only_text(await client.call_tool("echo", {"text": "by url"})) == "by url"
    with pytest.raises(ValueError):
        Client("ftp://127.0.0.1/mcp")
