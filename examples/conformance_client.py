"""A client for the official MCP conformance harness (client scenarios).

The harness starts a mock server per scenario and runs this file with the server's URL
as the last argument and the scenario's name in ``MCP_CONFORMANCE_SCENARIO``.

Run it:

    scripts/conformance client 'python examples/conformance_client.py'
    MCP_CONFORMANCE_SCENARIO=initialize python examples/conformance_client.py URL

Scenarios: ``initialize`` (handshake, then list tools), ``tools_call`` (call
``add_numbers``), ``elicitation-sep1034-client-defaults`` (answer a form with the
defaults its schema gives), ``sse-retry`` (a tool whose SSE stream the server closes
early; the client resumes it with GET and Last-Event-ID after the ``retry`` delay).
Exit status 0 on success, 1 when the scenario failed, 2 for an unknown scenario.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
from msgspec import UNSET

from mcp_core.types import ElicitRequestParams, ElicitResult
from transports import Client, connect_http


def accept_defaults(params: ElicitRequestParams) -> ElicitResult:
    """Accept a form with every field at the default its schema gives."""
    schema = params.requested_schema
    properties = {} if schema is UNSET else schema.properties  # type: ignore[union-attr]
    content = {name: prop.default for name, prop in properties.items() if prop.default is not UNSET}
    return ElicitResult(action="accept", content=content)


async def initialize(client: Client) -> None:
    # The mock declares no capabilities; the handshake is what is checked.
    if client.server_capabilities.tools is not UNSET:
        await client.list_tools()


async def tools_call(client: Client) -> None:
    result = await client.call_tool("add_numbers", {"a": 5, "b": 3})
    print(result.content)


async def elicitation_defaults(client: Client) -> None:
    result = await client.call_tool("test_client_elicitation_defaults", {})
    print(result.content)


async def sse_retry(client: Client) -> None:
    result = await client.call_tool("test_reconnection", {})
    print(result.content)


SCENARIOS: dict[str, tuple[Callable[[Client], Awaitable[None]], dict[str, Any]]] = {
    "initialize": (initialize, {}),
    "tools_call": (tools_call, {}),
    "elicitation-sep1034-client-defaults": (
        elicitation_defaults,
        {"elicitation": accept_defaults},
    ),
    "sse-retry": (sse_retry, {}),
}


async def run(scenario: str, url: str) -> None:
    work, options = SCENARIOS[scenario]
    with anyio.fail_after(25):
        async with connect_http(url, name="mcp-core-conformance", **options) as client:
            await work(client)


def main() -> int:
    logging.basicConfig(level=logging.WARNING)
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    if scenario.startswith("auth/") and len(sys.argv) >= 2:
        from conformance_auth import main as auth_main

        return auth_main(scenario, sys.argv[-1])
    if scenario not in SCENARIOS or len(sys.argv) < 2:
        print(f"unknown scenario {scenario!r}", file=sys.stderr)
        return 2
    anyio.run(run, scenario, sys.argv[-1])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
