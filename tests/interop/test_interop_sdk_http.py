"""Interop with the official MCP Python SDK's HTTP clients against our HTTP servers.

Our interop server (``servers/interop_server.py``) is served in-process by the h11
server (``serve_http``, on asyncio and trio) and by the ASGI app mounted in a
Starlette app under uvicorn (asyncio only). The SDK's clients talk to it over
loopback TCP:

* ``mcp.Client(url)``, its streamable-HTTP client, in both eras it speaks:
  ``mode="legacy"`` (the 2025-11-25 handshake and session) and ``mode="auto"``
  (it probes ``server/discover`` and speaks 2026-07-28, stateless, with multi
  round-trip requests for sampling and elicitation);
* ``mcp.client.sse.sse_client``, its client of the deprecated HTTP+SSE transport of
  2024-11-05, under ``mcp.ClientSession``.

The checks are those of the stdio interop tests (test_interop_sdk.py): every
content type, structured output, progress, logging, sampling and elicitation
callbacks, resources, templates, prompts and completion.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, Final

import anyio
import mcp_types as sdk_types
import paths
import pytest
from asgi_helpers import uvicorn_serving
from mcp import Client as SdkClient
from mcp import ClientSession
from mcp.client.sse import sse_client
from test_interop_sdk import (
    SdkSide,
    check_sdk_answers_our_questions,
    check_sdk_handshake,
    check_sdk_progress_and_logs,
    check_sdk_resources_and_prompts,
    check_sdk_tools,
)

from mcp_core import Server
from transports.http.asgi import asgi_app
from transports.http.server import serve_http

sys.path.insert(0, str(paths.SERVERS))
import interop_server
from adapter_flavours import by_flavour, flavour_fixture  # noqa: F401
from limits import HANG

pytestmark = pytest.mark.anyio

LIMIT: Final = HANG
"""Seconds one whole conversation may take."""


@asynccontextmanager
async def serving(flavour: tuple[str, str], server: Server) -> AsyncIterator[str]:
    """Serve ``server``; yields the base URL (the endpoints are below it)."""
    if flavour[1] == "asgi":
        from starlette.applications import Starlette
        from starlette.routing import Mount

        mcp = asgi_app(server)
        app = Starlette(routes=[Mount("/api", app=mcp)], lifespan=lambda _: mcp.running())
        async with uvicorn_serving(app) as port:
            yield f"http://127.0.0.1:{port}/api"
        return
    async with anyio.create_task_group() as tg:
        port = await tg.start(
            lambda task_status: serve_http(server, port=0, task_status=task_status)
        )
        try:
            yield f"http://127.0.0.1:{port}"
        finally:
            tg.cancel_scope.cancel()


def callbacks(side: SdkSide) -> dict[str, Any]:
    return {
        "sampling_callback": side.sampling,
        "elicitation_callback": side.elicitation,
        "logging_callback": side.on_log,
    }


async def check_everything(client: SdkClient, era: str, side: SdkSide) -> None:
    await check_sdk_handshake(client, era)
    await check_sdk_tools(client)
    await check_sdk_progress_and_logs(client, era, side)
    await check_sdk_answers_our_questions(client, side)
    await check_sdk_resources_and_prompts(client, era)


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_sdk_streamable_http_client(flavour: tuple[str, str], era: str) -> None:
    side = SdkSide()
    with anyio.fail_after(LIMIT):
        async with (
            serving(flavour, interop_server.server) as base,
            SdkClient(
                f"{base}/mcp",
                mode="legacy" if era == "legacy" else "auto",
                log_level="info" if era == "modern" else None,
                **callbacks(side),
            ) as client,
        ):
            await check_everything(client, era, side)


async def test_sdk_sse_client_through_mcp_client(flavour: tuple[str, str]) -> None:
    # The deprecated HTTP+SSE transport carries the handshake era only.
    side = SdkSide()
    with anyio.fail_after(LIMIT):
        async with serving(flavour, interop_server.server) as base:
            transport = sse_client(f"{base}/sse")
            async with SdkClient(transport, mode="legacy", **callbacks(side)) as client:
                await check_everything(client, "legacy", side)


async def test_sdk_sse_client_with_client_session(flavour: tuple[str, str]) -> None:
    side = SdkSide()
    with anyio.fail_after(LIMIT):
        async with (
            serving(flavour, interop_server.server) as base,
            sse_client(f"{base}/sse") as (read, write),
            ClientSession(read, write, **callbacks(side)) as session,
        ):
            initialized = await session.initialize()
            assert initialized.server_info.name == "interop-server"
            tools = {tool.name for tool in (await session.list_tools()).tools}
            assert {"text", "image", "ask_model", "ask_user"} <= tools
            result = await session.call_tool("text", {"value": "over SSE"})
            assert result.content == [sdk_types.TextContent(type="text", text="over SSE")]
            asked = await session.call_tool("ask_model", {"question": "why?"})
            assert asked.content[0].text == "test-model: forty-two"  # type: ignore[union-attr]
            prompt = await session.get_prompt("greet", {"name": "Ada"})
            assert prompt.messages[0].content.text == "Hello, Ada!"  # type: ignore[union-attr]
