"""Interop over HTTP with the official MCP Python SDK: our HTTP client against the SDK's
streamable-HTTP app (both eras it serves, stateful and stateless, SSE and JSON
answers) and, through the automatic fallback, against its deprecated HTTP+SSE app.

The SDK's ``MCPServer`` of servers/sdk_server.py (the same server the stdio interop
tests use) runs in a Starlette app under uvicorn, in the test's own event loop:
uvicorn runs on asyncio only, so these tests do too. The checks are the stdio
interop's, which list what the SDK does differently from the spec and why the
checks accept it.
"""

from __future__ import annotations

import importlib.util
import itertools
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from types import ModuleType
from typing import Any, Final

import anyio
import paths
import pytest
from asgi_helpers import uvicorn_serving
from limits import HANG
from runtime_helpers import ERAS
from test_interop_sdk import (
    OurSide,
    check_our_answers,
    check_our_handshake,
    check_our_progress_and_logs,
    check_our_resources_and_prompts,
    check_our_tools,
    only_text,
)

from transports import connect_http

pytestmark = pytest.mark.anyio

SDK_SERVER: Final = paths.SERVERS / "sdk_server.py"
LIMIT: Final = HANG
_loaded = itertools.count()


@pytest.fixture
def anyio_backend() -> str:
    """uvicorn runs on asyncio only."""
    return "asyncio"


def sdk_server() -> Any:
    """A fresh ``MCPServer`` from servers/sdk_server.py (an app owns its server's
    session manager, so each test loads its own)."""
    spec = importlib.util.spec_from_file_location(f"sdk_server_{next(_loaded)}", SDK_SERVER)
    assert spec is not None and spec.loader is not None
    module: ModuleType = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # pydantic resolves the hints through it
    spec.loader.exec_module(module)
    return module.server


@asynccontextmanager
async def sdk_app(kind: str, **options: Any) -> AsyncIterator[str]:
    """The SDK's streamable-HTTP ("mcp") or HTTP+SSE ("sse") app under uvicorn: its URL."""
    server = sdk_server()
    if kind == "sse":
        app, path = server.sse_app(), "/sse"
    else:
        app, path = server.streamable_http_app(**options), "/mcp"
    async with uvicorn_serving(app) as port:
        yield f"http://127.0.0.1:{port}{path}"


@pytest.mark.parametrize("era", ["legacy", "modern"])
@pytest.mark.parametrize("json_response", [False, True], ids=["sse", "json"])
async def test_our_client_with_the_sdk_streamable_http_server(
    era: str, json_response: bool
) -> None:
    side = OurSide()
    with anyio.fail_after(LIMIT):
        async with (
            sdk_app("mcp", json_response=json_response) as url,
            connect_http(
                url,
                revisions=ERAS[era],
                sampling=side.sampling,
                elicitation=side.elicitation,
                on_log=side.on_log,
            ) as client,
        ):
            await check_our_handshake(client, era)
            await check_our_tools(client)
            if not json_response:
                # With JSON answers the SDK has no stream to put progress and logs
                # on before the result, nor (legacy era) its questions to us: it
                # answers "no back-channel for server-initiated requests".
                await check_our_progress_and_logs(client, era, side)
            if not json_response or era == "modern":
                await check_our_answers(client, side)
            await check_our_resources_and_prompts(client)


async def test_our_dual_era_client_picks_2026_07_28() -> None:
    with anyio.fail_after(LIMIT):
        async with sdk_app("mcp") as url, connect_http(url) as client:
            assert (client.era, client.revision) == ("modern", "2026-07-28")
            assert only_text(await client.call_tool("text", {"value": "hi"})) == "hi"


async def test_our_client_with_a_stateless_sdk_server() -> None:
    # No session id: nothing to send back, nothing to DELETE.
    with anyio.fail_after(LIMIT):
        async with (
            sdk_app("mcp", stateless_http=True) as url,
            connect_http(url, revisions=ERAS["legacy"]) as client,
        ):
            assert client.revision == "2025-11-25"
            assert only_text(await client.call_tool("text", {"value": "hi"})) == "hi"
            added = await client.call_tool("add", {"a": 1, "b": 2})
            assert added.structured_content == {"total": 3, "terms": [1, 2]}


async def test_our_client_falls_back_to_the_sdk_http_sse_server() -> None:
    # 2025-11-25 basic/transports.mdx "Backwards Compatibility": the POSTs to the SSE
    # URL get 405, the GET opens the stream and names the POST endpoint.
    side = OurSide()
    with anyio.fail_after(LIMIT):
        async with (
            sdk_app("sse") as url,
            connect_http(
                url, sampling=side.sampling, elicitation=side.elicitation, on_log=side.on_log
            ) as client,
        ):
            await check_our_handshake(client, "legacy")
            await check_our_tools(client)
            await check_our_progress_and_logs(client, "legacy", side)
            await check_our_answers(client, side)
            await check_our_resources_and_prompts(client)
