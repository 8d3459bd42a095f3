"""The manager against real servers in other processes: our examples on stdio and
HTTP, the official SDK's server, servers that die, hang or write garbage.
asyncio and trio."""

from __future__ import annotations

import os
import re
import signal
from typing import Any

import anyio
import paths
import pytest
from manager_helpers import FAST, LIMIT, MANAGER_SERVER, http_server, stdio
from runtime_helpers import only_text

from mcp_core.manager import ServerConfig, TraceEntry
from mcp_core.types import (
    CreateMessageResult,
    ElicitResult,
    ListRootsResult,
    Root,
    TextContent,
)
from transports.manager import CallInterrupted, Manager, ServerUnavailable, UnknownName

pytestmark = pytest.mark.anyio

HELLO = str(paths.EXAMPLES / "hello.py")
WEATHER = str(paths.EXAMPLES / "weather.py")
SDK_SERVER = str(paths.SERVERS / "sdk_server.py")
SILENT = str(paths.SERVERS / "silent_server.py")
GARBAGE = str(paths.SERVERS / "garbage_server.py")


async def test_examples_on_stdio_and_http_and_the_sdk_server_as_one() -> None:
    with anyio.fail_after(LIMIT):
        async with http_server(WEATHER) as weather:
            servers = [
                stdio("hello", HELLO),
                ServerConfig(name="weather", url=weather.url),
                stdio("sdk", SDK_SERVER),
                # The HTTP+SSE endpoint of 2024-11-05: "auto" falls back to it.
                ServerConfig(name="old", url=weather.url.rsplit("/", 1)[0] + "/sse"),
            ]
            async with Manager(servers) as manager:
                await manager.wait_ready()
                names = [tool.name for tool in await manager.tools()]
                assert "hello.HelloTool" in names
                assert "weather.getCurrentWeather" in names
                assert "sdk.text" in names
                assert names.index("hello.HelloTool") < names.index("weather.getCurrentWeather")
                (weather_only,) = {t.name for t in await manager.tools("weather")} - {
                    "weather.getWeatherForecast"
                }
                assert weather_only == "weather.getCurrentWeather"

                hello = await manager.call_tool("hello.HelloTool", {"value": "all"})
                assert only_text(hello) == "Hello-bonjour all!"
                forecast = await manager.call_tool(
                    "getCurrentWeather", {"city": "Paris"}, server="weather"
                )
                assert forecast.structured_content["city"] == "Paris"  # type: ignore[index]
                echoed = await manager.call_tool("sdk.text", {"value": "from the SDK"})
                assert only_text(echoed) == "from the SDK"

                old = await manager.call_tool("old.getCurrentWeather", {"city": "Paris"})
                assert old.structured_content == forecast.structured_content

                statuses = {status.name: status for status in manager.status()}
                assert [s.state for s in statuses.values()] == ["connected"] * 4
                assert statuses["old"].transport == "sse"
                assert statuses["hello"].transport == "stdio"
                assert statuses["weather"].transport == "streamable-http"
                assert statuses["sdk"].server_info.name == "sdk-server"  # type: ignore[union-attr]
                assert statuses["hello"].capabilities.tools is not None  # type: ignore[union-attr]
                assert statuses["hello"].last_connected is not None
                assert statuses["hello"].pid is not None and statuses["weather"].pid is None


async def test_resources_and_prompts_across_servers() -> None:
    with anyio.fail_after(LIMIT):
        async with Manager([stdio("sdk", SDK_SERVER), stdio("hello", HELLO)]) as manager:
            await manager.wait_ready()
            prompts = await manager.prompts()
            assert prompts and all(p.name.startswith("sdk.") for p in prompts)
            resources = await manager.resource_entries()
            assert resources and {entry.server for entry in resources} == {"sdk"}
            plain = next(e for e in resources if getattr(e.item, "uri", None))
            read = await manager.read_resource(plain.name)
            assert read.contents
            prompt = prompts[0]
            arguments = {a.name: "x" for a in (prompt.arguments or []) if a.required}
            got = await manager.get_prompt(prompt.name, arguments)
            assert got.messages
            with pytest.raises(UnknownName):
                await manager.read_resource("nothing://here")


async def test_a_stdio_server_that_dies_is_restarted_and_the_trace_shows_it() -> None:
    with anyio.fail_after(LIMIT):
        config = stdio("m", MANAGER_SERVER, max_reconnect_attempts=10)
        sent = anyio.Event()

        def on_trace(entry: TraceEntry) -> None:
            if entry.type == "request" and entry.message["params"].get("name") == "block":
                sent.set()

        servers = [config, stdio("hello", HELLO)]
        async with Manager(servers, backoff=FAST, trace=True, on_trace=on_trace) as manager:
            await manager.wait_for("m", "connected", LIMIT)
            await manager.wait_for("hello", "connected", LIMIT)
            first = int(only_text(await manager.call_tool("m.pid")))
            outcome: dict[str, BaseException] = {}

            async def blocked() -> None:
                try:
                    await manager.call_tool("m.block")
                except CallInterrupted as exc:
                    outcome["error"] = exc

            async with anyio.create_task_group() as tg:
                tg.start_soon(blocked)
                await sent.wait()
                os.kill(first, signal.SIGKILL)
            interrupted = outcome["error"]
            assert "'m'" in str(interrupted) and "not repeated" in str(interrupted)
            # During the outage: at once, naming the server.
            with pytest.raises(ServerUnavailable, match="'m'"):
                await manager.call_tool("m.pid")
            # The other server never noticed.
            assert only_text(await manager.call_tool("hello.HelloTool", {"value": "b"}))
            await manager.wait_for("m", "connected", LIMIT)
            second = int(only_text(await manager.call_tool("m.pid")))
            assert second != first
            events = [e.method for e in manager.trace("m") if e.direction == "event"]
            assert events[:2] == ["connecting", "connected"]
            assert events[2:][:3] == ["lost", "retrying", "connecting"]
            assert events[-1] == "connected"
            assert manager.status_of("m").attempts == 0


async def test_an_http_server_killed_and_restarted() -> None:
    with anyio.fail_after(LIMIT):
        async with http_server(MANAGER_SERVER) as upstream:
            config = ServerConfig(name="web", url=upstream.url, max_reconnect_attempts=100)
            async with Manager([config], backoff=FAST, trace=True) as manager:
                await manager.wait_for("web", "connected", LIMIT)
                first = int(only_text(await manager.call_tool("web.pid")))
                await upstream.kill()
                with pytest.raises((CallInterrupted, ServerUnavailable), match="'web'"):
                    await manager.call_tool("web.pid")
                with pytest.raises(ServerUnavailable, match="'web'"):
                    await manager.call_tool("web.pid")
                await upstream.start()
                await manager.wait_for("web", "connected", LIMIT)
                second = int(only_text(await manager.call_tool("web.pid")))
                assert second != first
                events = [e.method for e in manager.trace("web") if e.direction == "event"]
                assert events.count("connected") == 2 and "lost" in events
                status = manager.status_of("web")
                assert status.transport == "streamable-http" and status.attempts == 0


async def test_a_call_to_a_server_that_refuses_the_connection_was_not_sent() -> None:
    # Issue 30 item 8: it said "may or may not have run", of a request never sent.
    with anyio.fail_after(LIMIT):
        async with http_server(MANAGER_SERVER) as upstream:
            config = ServerConfig(name="web", url=upstream.url, max_reconnect_attempts=100)
            options = {"revisions": ("2026-07-28",)}
            async with Manager([config], backoff=FAST, client_options=options) as manager:
                await manager.wait_for("web", "connected", LIMIT)
                await upstream.kill()
                # Whether the listen stream or the call finds the server gone
                # first, the call was not sent, and the error says so.
                with pytest.raises(ServerUnavailable) as refused:
                    await manager.call_tool("web.pid")
                said = str(refused.value)
                assert "server 'web' " in said and "the call of tool 'pid' was not sent" in said
                assert "may or may not" not in said and "acted on it" not in said


@pytest.mark.parametrize("era", ["2026-07-28", "2025-11-25"])
async def test_an_idle_http_server_killed_is_noticed_without_a_request(era: str) -> None:
    # 2026-07-28: the listen stream fails once the HTTP client gives up on it;
    # 2025-11-25: a ping fails. Either way the server is marked disconnected
    # and reconnected, with no request of ours to find out.
    with anyio.fail_after(LIMIT):
        async with http_server(MANAGER_SERVER) as upstream:
            config = ServerConfig(
                name="web", url=upstream.url, max_reconnect_attempts=100, ping_interval=0.2
            )
            options = {"revisions": (era,)}
            async with Manager([config], backoff=FAST, client_options=options) as manager:
                await manager.wait_for("web", "connected", LIMIT)
                assert manager.status_of("web").revision == era
                await upstream.kill()
                await manager.wait_until(lambda: manager.status_of("web").state != "connected")
                assert manager.status_of("web").last_error is not None
                await upstream.start()
                await manager.wait_for("web", "connected", LIMIT)
                assert only_text(await manager.call_tool("web.pid")).isdigit()


async def test_a_server_shutting_down_ends_the_listen_stream_cleanly() -> None:
    # Issue 30 item 7: SIGTERM with a listen stream open took the whole grace period
    # (10 s) and broke the stream, so the link saw OutcomeUnknownError. The server
    # now answers the listen request and exits; the link listens again, finds the
    # server gone, and reconnects as for any loss.
    with anyio.fail_after(LIMIT):
        async with http_server(MANAGER_SERVER) as upstream:
            config = ServerConfig(name="web", url=upstream.url, max_reconnect_attempts=100)
            options = {"revisions": ("2026-07-28",)}
            async with Manager(
                [config], backoff=FAST, client_options=options, trace=True
            ) as manager:
                await manager.wait_for("web", "connected", LIMIT)

                def events() -> list[str]:
                    return [e.method for e in manager.trace("web") if e.direction == "event"]

                while "notifications/subscriptions/acknowledged" not in {
                    e.method for e in manager.trace("web")
                }:
                    await anyio.sleep(0.01)  # polled: the trace wakes nobody
                with anyio.fail_after(LIMIT / 6):  # far less than the grace period
                    assert await upstream.stop() == 0
                await manager.wait_until(lambda: "listening ended" in events())
                assert "listening failed" not in events()
                await upstream.start()
                await manager.wait_for("web", "connected", LIMIT)
                assert only_text(await manager.call_tool("web.pid")).isdigit()


async def test_colliding_names_keep_every_tool_and_are_reported() -> None:
    with anyio.fail_after(LIMIT):
        servers = [
            stdio("a.b", MANAGER_SERVER, "--name", "first", "--tool", "c"),
            stdio("a", MANAGER_SERVER, "--name", "second", "--tool", "b.c"),
        ]
        async with Manager(servers) as manager:
            await manager.wait_ready()
            entries = {(e.server, e.original): e.name for e in await manager.tool_entries()}
            first, second = entries[("a.b", "c")], entries[("a", "b.c")]
            assert first != second
            (collision,) = manager.collisions()
            assert collision.name == "a.b.c" and set(collision.given) == {first, second}
            assert only_text(await manager.call_tool(first)) == "first:c"
            assert only_text(await manager.call_tool(second)) == "second:b.c"


async def test_safe_names_are_what_model_apis_take() -> None:
    with anyio.fail_after(LIMIT):
        servers = [stdio("my server", MANAGER_SERVER, "--tool", "get/the.weather" + "x" * 70)]
        async with Manager(servers, safe_names=True) as manager:
            await manager.wait_ready()
            names = [tool.name for tool in await manager.tools()]
            assert all(re.fullmatch(r"[A-Za-z0-9_-]{1,64}", name) for name in names)
            assert "my_server_whoami" in names
            long = next(name for name in names if "weather" in name)
            assert len(long) == 64
            assert only_text(await manager.call_tool(long)).endswith("x" * 70)


@pytest.mark.parametrize("era", ["2026-07-28", "2025-11-25"])
async def test_a_list_change_refreshes_the_tools(era: str) -> None:
    with anyio.fail_after(LIMIT):
        changed = anyio.Event()

        def on_list_changed(server: str, kind: str | None) -> None:
            if (server, kind) == ("m", "tools"):
                changed.set()

        options = {"revisions": (era,)}
        async with Manager(
            [stdio("m", MANAGER_SERVER)], on_list_changed=on_list_changed, client_options=options
        ) as manager:
            await manager.wait_ready()
            assert manager.status_of("m").revision == era
            before = {tool.name for tool in await manager.tools()}
            assert "m.sprout" not in before
            await manager.call_tool("m.grow", {"name": "sprout"})
            await changed.wait()
            after = {tool.name for tool in await manager.tools()}
            assert after == before | {"m.sprout"}
            assert only_text(await manager.call_tool("m.sprout")) == "sprout"


async def test_a_server_that_never_answers_times_out_alone() -> None:
    with anyio.fail_after(LIMIT):
        silent = stdio("silent", SILENT, connect_timeout=4.0, max_reconnect_attempts=0)
        async with Manager([silent, stdio("hello", HELLO)]) as manager:
            await manager.wait_for("hello", "connected", LIMIT)
            assert only_text(await manager.call_tool("hello.HelloTool", {"value": "c"}))
            assert manager.status_of("silent").state == "connecting"
            with pytest.raises(ServerUnavailable, match=r"'silent'.*connecting"):
                await manager.call_tool("whatever", server="silent")
            await manager.wait_for("silent", "failed", LIMIT)
            status = manager.status_of("silent")
            assert "no answer in time" in (status.last_error or "")
            assert [t.name for t in await manager.tools()] == ["hello.HelloTool"]
            # A manual reconnect tries again, though the retries were used up.
            manager.reconnect("silent")
            await manager.wait_for("silent", "connecting", LIMIT)
            # Removing it while it opens abandons the attempt at once (the 4 s
            # connect timeout would outlast the 2 s).
            with anyio.fail_after(2):
                await manager.remove("silent")
            assert manager.servers == ["hello"]


async def test_a_server_that_writes_garbage_fails_alone() -> None:
    with anyio.fail_after(LIMIT):
        garbage = stdio("garbage", GARBAGE, connect_timeout=10.0, max_reconnect_attempts=0)
        async with Manager([garbage, stdio("hello", HELLO)]) as manager:
            await manager.wait_for("garbage", "failed", LIMIT)
            await manager.wait_for("hello", "connected", LIMIT)
            error = manager.status_of("garbage").last_error or ""
            assert "not JSON-RPC" in error
            assert only_text(await manager.call_tool("hello.HelloTool", {"value": "d"}))


@pytest.mark.parametrize("era", ["2026-07-28", "2025-11-25"])
async def test_callbacks_are_told_which_server_asked(era: str) -> None:
    with anyio.fail_after(LIMIT):
        logs: list[tuple[str, Any]] = []

        def sampling(server: str, params: Any) -> CreateMessageResult:
            return CreateMessageResult(
                role="assistant", content=TextContent(text=f"sampled-by-{server}"), model="m"
            )

        def roots(server: str) -> ListRootsResult:
            return ListRootsResult(roots=[Root(uri=f"file:///{server}")])

        def elicitation(server: str, params: Any) -> ElicitResult:
            return ElicitResult(action="accept", content={"who": f"user-of-{server}"})

        servers = [stdio("one", MANAGER_SERVER), stdio("two", MANAGER_SERVER)]
        async with Manager(
            servers,
            sampling=sampling,
            roots=roots,
            elicitation=elicitation,
            client_options={"revisions": (era,)},
            on_log=lambda server, params: logs.append((server, params.data)),
        ) as manager:
            await manager.wait_ready()
            for server in ("one", "two"):
                await manager.client(server).set_logging_level("info")
                result = await manager.call_tool(f"{server}.shout", {"text": f"hi {server}"})
                assert only_text(result) == (
                    f"sampled-by-{server} ['file:///{server}'] user-of-{server}"
                )
            await manager.wait_until(lambda: len({s for s, _ in logs}) == 2, LIMIT)
            assert ("one", "hi one") in logs and ("two", "hi two") in logs


async def test_add_remove_and_unknown_names() -> None:
    with anyio.fail_after(LIMIT):
        async with Manager() as manager:
            server_id = manager.add(stdio("hello", HELLO))
            assert server_id == "hello"
            with pytest.raises(ValueError):
                manager.add(stdio("hello", HELLO))
            await manager.wait_for("hello", "connected", LIMIT)
            with pytest.raises(UnknownName, match=r"hello\.nothing"):
                await manager.call_tool("hello.nothing")
            with pytest.raises(UnknownName):
                await manager.call_tool("x", server="nobody")
            assert [t.name for t in await manager.tools()] == ["hello.HelloTool"]
            await manager.remove("hello")
            assert manager.servers == [] and await manager.tools() == []
