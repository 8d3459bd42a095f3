"""The connection as a whole: opening in either era, many calls at once, and ending
from either side with calls in flight. Also over a pair of object streams, where
`pump` and `serve_stream` carry the messages as a byte transport would."""

from __future__ import annotations

from contextlib import suppress
from typing import Any

import anyio
import pytest
from runtime_helpers import (
    BOTH_ERAS,
    ERAS,
    LIMIT,
    Hang,
    Inbox,
    Tap,
    connected,
    only_text,
    over_streams,
)

from mcp_core import (
    REVISIONS,
    ClientConfig,
    ClientSession,
    Context,
    McpError,
    Server,
    ServerSession,
)
from mcp_core.types import LEGACY_REVISIONS, CallToolResult, ElicitRequestParams, Implementation
from mcp_core.wire import INTERNAL_ERROR, UNSUPPORTED_PROTOCOL_VERSION, Request, encode_message
from transports import Client, ConnectionClosed, connect_in_memory, pipe

pytestmark = pytest.mark.anyio


def make_server(hangs: list[Hang] | None = None) -> Server:
    server = Server("connection", "2.0", instructions="Be nice.")

    @server.tool
    async def add(a: int, b: int) -> int:
        await anyio.lowlevel.checkpoint()  # let the calls interleave
        return a + b

    @server.tool
    async def stall(n: int) -> str:
        assert hangs is not None
        await hangs[n]()
        return "never"

    @server.tool
    async def chatty(ctx: Context) -> str:
        await ctx.report_progress(1, 2)
        await ctx.warning("careful")
        await ctx.report_progress(2, 2)
        answer = await ctx.elicit("Go on?", {"type": "object", "properties": {}})
        return answer.action

    return server


# --- opening ---------------------------------------------------------------------------


@BOTH_ERAS
async def test_opening_in_each_era(era: str) -> None:
    async with connected(make_server(), era) as client:
        assert client.revision == ERAS[era][-1]
        assert client.server_info is not None
        assert (client.server_info.name, client.server_info.version) == ("connection", "2.0")
        assert client.instructions == "Be nice."
        assert client.server_capabilities.tools is not None
        if era == "legacy":
            await client.ping()


@pytest.mark.parametrize(
    ("server_revisions", "expected"),
    [(REVISIONS, "modern"), (LEGACY_REVISIONS, "legacy"), (("2026-07-28",), "modern")],
)
async def test_a_client_of_both_eras_takes_what_the_server_speaks(
    server_revisions: tuple[str, ...], expected: str
) -> None:
    with anyio.fail_after(LIMIT):
        async with connect_in_memory(make_server(), server_revisions=server_revisions) as client:
            assert client.era == expected
            assert only_text(await client.call_tool("add", {"a": 1, "b": 2})) == "3"


@pytest.mark.parametrize(
    ("client_revisions", "server_revisions"),
    [(("2026-07-28",), LEGACY_REVISIONS), (LEGACY_REVISIONS, ("2026-07-28",))],
    ids=["modern-client", "legacy-client"],
)
async def test_no_common_era_fails_the_opening(
    client_revisions: tuple[str, ...], server_revisions: tuple[str, ...]
) -> None:
    with anyio.fail_after(LIMIT), pytest.raises(McpError) as failed:
        async with connect_in_memory(
            make_server(), revisions=client_revisions, server_revisions=server_revisions
        ):
            pass  # pragma: no cover - the opening fails
    assert failed.value.message.startswith("handshake failed")
    if client_revisions == ("2026-07-28",):
        assert failed.value.code == UNSUPPORTED_PROTOCOL_VERSION


async def test_a_silent_legacy_server_is_found_after_the_probe_times_out() -> None:
    # Old servers may ignore server/discover entirely: the client must give up on
    # the probe and send initialize.
    tap = Tap(
        make_server(),
        revisions=LEGACY_REVISIONS,
        drop=lambda message: type(message) is Request and message.method == "server/discover",
    )
    with anyio.fail_after(LIMIT):
        async with Client(tap, probe_timeout=0.05, handshake_timeout=LIMIT) as client:
            assert client.era == "legacy"
            assert only_text(await client.call_tool("add", {"a": 2, "b": 2})) == "4"
    # The probe is given up on the way any timed-out request is.
    assert [m.method for m in tap.sent[:3]] == [  # type: ignore[union-attr]
        "server/discover",
        "notifications/cancelled",
        "initialize",
    ]


async def test_the_initialize_after_a_refused_probe_gets_the_probe_timeout() -> None:
    # Shown on the sessions the runtime drives, where it is deterministic: a
    # legacy-only server refuses the probe with -32004 listing its revisions, and
    # the client falls back to initialize at 1000.5 with a 10 s probe timeout.
    client = ClientSession(ClientConfig(client_info=Implementation(name="c", version="1")))
    server = ServerSession(make_server().config(revisions=LEGACY_REVISIONS))
    client.start(now=1000.0, timeout=10.0)
    for message in client.messages_to_send():
        server.receive_bytes(encode_message(message), now=1000.0)
    (refusal,) = server.messages_to_send()
    assert client.receive_bytes(encode_message(refusal), now=1000.5) == []
    (initialize,) = client.messages_to_send()
    assert isinstance(initialize, Request) and initialize.method == "initialize"
    assert client.next_deadline() == 1010.5
    assert client.handle_timeouts(now=1001.0) == []


@BOTH_ERAS
async def test_an_error_in_the_block_comes_out_as_itself(era: str) -> None:
    with pytest.raises(McpError) as unknown:
        async with connected(make_server(), era) as client:
            await client.call_tool("nope")
    assert unknown.value.message == "Unknown tool: nope"
    with pytest.raises(KeyError):
        async with connected(make_server(), era):
            raise KeyError("mine")


# --- many calls ------------------------------------------------------------------------


@BOTH_ERAS
@pytest.mark.parametrize("objects", [False, True])
async def test_a_thousand_concurrent_calls(era: str, objects: bool) -> None:
    results: dict[int, str] = {}

    async def call(client: Client, n: int) -> None:
        results[n] = only_text(await client.call_tool("add", {"a": n, "b": 1000}))

    async with (
        connected(make_server(), era, objects=objects) as client,
        anyio.create_task_group() as tg,
    ):
        for n in range(1000):
            tg.start_soon(call, client, n)
    assert results == {n: str(n + 1000) for n in range(1000)}


@BOTH_ERAS
@pytest.mark.parametrize("streams", [False, True], ids=["pipe", "streams"])
async def test_a_result_json_cannot_carry_fails_only_its_request(era: str, streams: bool) -> None:
    server = make_server()

    @server.tool
    def opaque() -> CallToolResult:
        # Passed through as returned, so nothing checks it before it is encoded.
        return CallToolResult(content=[], structured_content={"handle": object()})

    connector = over_streams(server)[0] if streams else pipe(server)
    with anyio.fail_after(LIMIT):
        async with Client(connector, revisions=ERAS[era]) as client:
            with pytest.raises(McpError) as failed:
                await client.call_tool("opaque")
            assert failed.value.code == INTERNAL_ERROR
            assert "cannot be encoded" in failed.value.message
            assert only_text(await client.call_tool("add", {"a": 1, "b": 1})) == "2"


# --- over object streams (pump and serve_stream) ---------------------------------------


@BOTH_ERAS
@pytest.mark.parametrize("objects", [False, True])
async def test_over_streams(era: str, objects: bool) -> None:
    connector, _ = over_streams(make_server(), objects=objects)
    progress = Inbox()
    logs = Inbox()

    def elicitation(params: ElicitRequestParams) -> dict[str, Any]:
        return {"action": "decline"}

    with anyio.fail_after(LIMIT):
        async with Client(
            connector, revisions=ERAS[era], elicitation=elicitation, on_log=logs
        ) as client:
            assert client.era == era
            await client.set_logging_level("info")
            result = await client.call_tool("chatty", on_progress=progress)
            assert only_text(result) == "decline"
            results = [only_text(await client.call_tool("add", {"a": n, "b": n})) for n in range(5)]
            assert results == ["0", "2", "4", "6", "8"]
            # 2026-07-28 replays the handler after the ask: what it does before
            # asking, it does again.
            rounds = 1 if era == "legacy" else 2
            assert [m.data for m in await logs.wait_for(rounds)] == ["careful"] * rounds
    assert [(p.progress, p.total) for p in progress.items] == [(1, 2), (2, 2)] * rounds


# --- the end, with calls in flight -----------------------------------------------------


@BOTH_ERAS
async def test_leaving_the_client_fails_calls_in_flight(era: str) -> None:
    hangs = [Hang() for _ in range(3)]
    failures: list[BaseException] = []

    async def call(client: Client, n: int) -> None:
        try:
            await client.call_tool("stall", {"n": n})
        except ConnectionClosed as exc:
            failures.append(exc)

    with anyio.fail_after(LIMIT):
        async with (
            anyio.create_task_group() as tg,
            connect_in_memory(make_server(hangs), revisions=ERAS[era]) as client,
        ):
            for n in range(3):
                tg.start_soon(call, client, n)
            for hang in hangs:
                await hang.started.wait()
        for hang in hangs:
            await hang.ended.wait()
        with pytest.raises(ConnectionClosed):
            await client.call_tool("add", {"a": 1, "b": 1})
    assert len(failures) == 3
    assert all(hang.cancelled for hang in hangs)


@BOTH_ERAS
@pytest.mark.parametrize("objects", [False, True])
async def test_the_server_going_away_fails_calls_in_flight(era: str, objects: bool) -> None:
    hangs = [Hang() for _ in range(3)]
    connector, serving = over_streams(make_server(hangs), objects=objects)
    failures: list[BaseException] = []

    async def call(client: Client, n: int) -> None:
        try:
            await client.call_tool("stall", {"n": n})
        except ConnectionClosed as exc:
            failures.append(exc)

    with anyio.fail_after(LIMIT):
        async with Client(connector, revisions=ERAS[era]) as client:
            async with anyio.create_task_group() as tg:
                for n in range(3):
                    tg.start_soon(call, client, n)
                for hang in hangs:
                    await hang.started.wait()
                serving.cancel()
            assert len(failures) == 3
            assert all(hang.cancelled for hang in hangs)
            with pytest.raises(ConnectionClosed):
                await client.call_tool("add", {"a": 1, "b": 1})


@BOTH_ERAS
async def test_the_client_going_away_cancels_the_handlers(era: str) -> None:
    # Over streams the server only learns it from the end of its input.
    hangs = [Hang()]
    connector, _ = over_streams(make_server(hangs))
    with anyio.fail_after(LIMIT):
        async with (
            anyio.create_task_group() as tg,
            Client(connector, revisions=ERAS[era]) as client,
        ):
            tg.start_soon(_call_quietly, client, "stall", {"n": 0})
            await hangs[0].started.wait()
        await hangs[0].ended.wait()
    assert hangs[0].cancelled


@BOTH_ERAS
async def test_an_outer_cancel_scope_ends_the_block_cleanly(era: str) -> None:
    hangs = [Hang()]

    async def cancel_once_started() -> None:
        await hangs[0].started.wait()
        outer.cancel()

    with anyio.fail_after(LIMIT):
        with anyio.CancelScope() as outer:
            async with (
                connected(make_server(hangs), era) as client,
                anyio.create_task_group() as tg,
            ):
                tg.start_soon(cancel_once_started)
                await client.call_tool("stall", {"n": 0})
        assert outer.cancelled_caught
        await hangs[0].ended.wait()
    assert hangs[0].cancelled


async def _call_quietly(client: Client, name: str, arguments: dict[str, Any]) -> None:
    with suppress(ConnectionClosed):
        await client.call_tool(name, arguments)
