"""`mcp-core gateway` forwards the client capabilities its clients declare:
sampling with tools, URL elicitation (and its completion, and -32042), roots,
tasks (a call its client asks to be a task is a task of the gateway's, whose
questions reach the client through the task). Clients of both eras, one upstream
of each era behind one gateway (a process, on the test's own event loop); a
client that did not declare what an upstream asks gets the error that names
the capability. asyncio and trio."""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

import anyio
import pytest
from manager_helpers import ENV, LIMIT, MANAGER_SERVER, gateway_client
from msgspec import UNSET
from runtime_helpers import only_text

from mcp_core import McpError, UrlElicitationRequiredError
from mcp_core.types import (
    CreateMessageResult,
    ElicitResult,
    Root,
    TextContent,
    ToolUseContent,
)
from mcp_core.wire import INVALID_REQUEST, METHOD_NOT_FOUND, MISSING_REQUIRED_CLIENT_CAPABILITY
from transports import Client

pytestmark = pytest.mark.anyio

ERAS = pytest.mark.parametrize("era", ["2026-07-28", "2025-11-25"])
UPSTREAMS = {"new": (), "old": ("--revision", "2025-11-25")}
"""The gateway's servers: ``new`` speaks 2026-07-28, ``old`` the handshake era."""


def _gateway(
    tmp_path: Path, backend: str, era: str, **callbacks: Any
) -> AbstractAsyncContextManager[Client]:
    """A client of ``era`` of ``mcp-core gateway`` (on ``backend``) over both upstreams."""
    servers = {
        name: {"command": "python", "args": [MANAGER_SERVER, *args], "env": ENV}
        for name, args in UPSTREAMS.items()
    }
    return gateway_client(tmp_path, backend, era, servers, **callbacks)


def _sampling(params: Any) -> CreateMessageResult:
    if params.tools is UNSET:
        return CreateMessageResult(role="assistant", content=TextContent(text="said"), model="m")
    use = ToolUseContent(id="u1", name=params.tools[0].name, input={})
    return CreateMessageResult(role="assistant", content=[use], model="m", stop_reason="toolUse")


def _form(params: Any) -> ElicitResult:
    return ElicitResult(action="accept", content={"who": "me"})


@ERAS
async def test_declared_capabilities_reach_every_upstream(
    tmp_path: Path, anyio_backend: str, era: str
) -> None:
    with anyio.fail_after(LIMIT):
        opened: list[str] = []
        completed = anyio.Event()

        def url(params: Any) -> ElicitResult:
            opened.append(params.url)
            return ElicitResult(action="accept")

        def complete(elicitation_id: str) -> None:
            assert elicitation_id == "sign-in-1"
            completed.set()

        callbacks = {
            "sampling": _sampling,
            "sampling_tools": True,
            "elicitation": _form,
            "elicitation_url": url,
            "on_elicitation_complete": complete,
            "roots": [Root(uri="file:///work")],
        }
        async with _gateway(tmp_path, anyio_backend, era, **callbacks) as client:
            for upstream in UPSTREAMS:
                plan = await client.call_tool(f"{upstream}.plan", {"goal": "find"})
                assert only_text(plan) == "toolUse ['lookup']"
                shout = await client.call_tool(f"{upstream}.shout", {"text": "hi"})
                assert only_text(shout) == "said ['file:///work'] me"
                signed = await client.call_tool(f"{upstream}.sign_in", {"url": "https://a.example"})
                assert only_text(signed) == "accept"
            assert opened == ["https://a.example"] * 2
            if era == "2025-11-25":
                # The handshake-era upstream's completion notice, relayed to the
                # one client that was asked (2026-07-28 has no such notification).
                await completed.wait()
            assert completed.is_set() is (era == "2025-11-25")


@ERAS
async def test_an_undeclared_capability_is_refused_by_name(
    tmp_path: Path, anyio_backend: str, era: str
) -> None:
    with anyio.fail_after(LIMIT):
        # Sampling without tools, form elicitation only, no roots.
        callbacks = {"sampling": _sampling, "elicitation": _form}
        async with _gateway(tmp_path, anyio_backend, era, **callbacks) as client:
            for upstream in UPSTREAMS:
                # A 2026-07-28 upstream sees the client's own capabilities and
                # refuses (-32021); a handshake-era one asks, and the gateway
                # answers it with the error this client's server would get.
                modern = era == "2026-07-28" or upstream == "new"
                code = MISSING_REQUIRED_CLIENT_CAPABILITY if modern else INVALID_REQUEST
                calls = [
                    ("plan", {"goal": "find"}, "sampling.tools"),
                    ("sign_in", {"url": "https://a.example"}, "elicitation.url"),
                    ("shout", {"text": "hi"}, "roots"),
                ]
                for tool, arguments, capability in calls:
                    with pytest.raises(McpError) as refused:
                        await client.call_tool(f"{upstream}.{tool}", arguments)
                    assert f"requires the {capability} capability" in refused.value.message
                    assert refused.value.code == code, (upstream, tool, refused.value)


@ERAS
async def test_a_url_elicitation_a_call_requires(
    tmp_path: Path, anyio_backend: str, era: str
) -> None:
    with anyio.fail_after(LIMIT):
        opened: list[str] = []
        completed: list[str] = []
        done = anyio.Event()

        def url(params: Any) -> ElicitResult:
            opened.append(params.url)
            return ElicitResult(action="accept")

        def complete(elicitation_id: str) -> None:
            completed.append(elicitation_id)
            done.set()

        callbacks = {"elicitation_url": url, "on_elicitation_complete": complete}
        async with _gateway(tmp_path, anyio_backend, era, **callbacks) as client:
            for upstream in UPSTREAMS:
                if era == "2025-11-25" and upstream == "old":
                    # -32042 as it came; the retry goes through, and the
                    # upstream's completion notice reaches this client.
                    with pytest.raises(UrlElicitationRequiredError) as required:
                        await client.call_tool(f"{upstream}.gated")
                    [elicitation] = required.value.elicitations
                    assert elicitation.url == "https://a.example/gate"
                    assert only_text(await client.call_tool(f"{upstream}.gated")) == "through"
                    await done.wait()
                    assert completed == ["gate-1"]
                else:
                    # An input request (the client opens the URL), then the retry.
                    before = len(opened)
                    assert only_text(await client.call_tool(f"{upstream}.gated")) == "through"
                    assert opened[before:] == ["https://a.example/gate"]


@ERAS
async def test_a_call_as_a_task_of_the_gateway(
    tmp_path: Path, anyio_backend: str, era: str
) -> None:
    with anyio.fail_after(LIMIT):
        async with _gateway(tmp_path, anyio_backend, era, sampling=_sampling) as client:
            assert client.server_capabilities.tasks is not UNSET or era == "2026-07-28"
            for upstream in UPSTREAMS:
                # The upstream asks during the gateway's task: the client answers
                # through the task (tasks/update, or a request naming the task).
                handle = await client.call_tool(f"{upstream}.survey", {"question": "q"}, task=True)
                assert handle.task_id is not None
                assert only_text(await handle.result()) == "answered said"
                # Listed as running only as a task: so it runs, whatever the
                # upstream's era.
                handle = await client.call_tool(f"{upstream}.report", {"topic": "x"}, task=True)
                assert handle.task_id is not None
                assert only_text(await handle.result()) == "report on x"
                if era == "2026-07-28":
                    # A plain call is refused (-32021), sent again as a task.
                    report = await client.call_tool(f"{upstream}.report", {"topic": "y"})
                    assert only_text(report) == "report on y"
                else:
                    # 2025-11-25 basic/utilities/tasks.mdx "Tool-Level Negotiation".
                    with pytest.raises(McpError) as refused:
                        await client.call_tool(f"{upstream}.report", {"topic": "y"})
                    assert refused.value.code == METHOD_NOT_FOUND
                # A call that asks for no task is answered inline, as before.
                plain = await client.call_tool(f"{upstream}.survey", {"question": "p"})
                assert only_text(plain) == "answered said"


@ERAS
async def test_a_clients_roots_change_reaches_the_upstreams(
    tmp_path: Path, anyio_backend: str, era: str
) -> None:
    # 2025-11-25 client/roots.mdx "List Changed Notification": a handshake-era
    # client's notice goes through the gateway to the handshake-era upstream,
    # which asks again and gets the new roots. A 2026-07-28 client sends no such
    # notice (its roots are asked within each request); both upstreams still get
    # the new roots on their next call.
    with anyio.fail_after(LIMIT):
        roots = [Root(uri="file:///before")]
        async with _gateway(tmp_path, anyio_backend, era, roots=roots) as client:
            for upstream in UPSTREAMS:
                seen = await client.call_tool(f"{upstream}.roots")
                assert only_text(seen) == "0 ['file:///before']"
            await client.set_roots([Root(uri="file:///after")])
            changes = 1 if era == "2025-11-25" else 0
            seen = await client.call_tool("old.roots", {"changes": changes})
            assert only_text(seen) == f"{changes} ['file:///after']"
            seen = await client.call_tool("new.roots")
            assert only_text(seen) == "0 ['file:///after']"
