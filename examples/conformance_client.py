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
The 2026-07-28 ones (harness 0.2.0-alpha.12, suite ``all``): ``request-metadata``
(``_meta`` and MCP-Protocol-Version on every request, a retry after -32022),
``sep-2322-client-request-state`` (multi round-trip retries), ``http-standard-headers``,
``http-custom-headers`` and ``http-invalid-tool-headers`` (Mcp-Method, Mcp-Name and
Mcp-Param-* headers; tools with bad ``x-mcp-header`` annotations are dropped),
``json-schema-ref-no-deref`` (a network ``$ref`` is never fetched),
``json-schema-2020-12-preservation`` (a tool's schema is kept as received) and
``sep-2640-client-no-prefetch`` (skills are listed, and no file is read ahead of
need), ``sep-2640-client-verify-digest``, ``-verify-size`` and
``-verify-frontmatter`` (a skill is loaded: a SKILL.md whose digest, size or
frontmatter is not its entry's is refused, and nothing more of it read). The calls
``http-custom-headers`` makes come from ``MCP_CONFORMANCE_CONTEXT``.
Exit status 0 on success, 1 when the scenario failed, 2 for an unknown scenario.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
from msgspec import UNSET

from mcp_core.client.skills import SkillVerificationError
from mcp_core.types import (
    CreateMessageRequestParams,
    CreateMessageResult,
    ElicitRequestParams,
    ElicitResult,
    Root,
    TextContent,
)
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


def confirm(params: ElicitRequestParams) -> ElicitResult:
    """Accept any form with ``confirmed: true``."""
    return ElicitResult(action="accept", content={"confirmed": True})


def decline_sampling(params: CreateMessageRequestParams) -> CreateMessageResult:
    """A sampling answer with no model behind it (the callback declares the capability)."""
    return CreateMessageResult(
        role="assistant", content=TextContent(text="no model here"), model="none"
    )


def no_roots() -> list[Root]:
    return []


async def request_metadata(client: Client) -> None:
    # The mock refuses the first request with -32022 and the versions it supports,
    # and declares no capabilities; what is checked is each request's `_meta` and
    # MCP-Protocol-Version header, from server/discover on.
    await initialize(client)


async def request_state(client: Client) -> None:
    # Each tool asks for input (with or without requestState) or answers at once;
    # the client's retries are what is checked.
    async for tool in client.iter_tools():
        print(tool.name, (await client.call_tool(tool.name, {})).content)


async def standard_headers(client: Client) -> None:
    # Mcp-Method on every POST, Mcp-Name on tools/call, resources/read, prompts/get.
    async for tool in client.iter_tools():
        await client.call_tool(tool.name, {})
    async for resource in client.iter_resources():
        await client.read_resource(resource.uri)
    async for prompt in client.iter_prompts():
        await client.get_prompt(prompt.name)


async def custom_headers(client: Client) -> None:
    # The calls to make come in the scenario's context; the client mirrors the
    # x-mcp-header arguments into Mcp-Param-* headers from the tools/list schemas.
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT", "{}"))
    await client.list_tools()
    for call in context.get("toolCalls", []):
        await client.call_tool(call["name"], call.get("arguments", {}))


async def invalid_tool_headers(client: Client) -> None:
    # The client drops the tools whose x-mcp-header annotations are invalid from
    # tools/list; every tool it keeps is called.
    async for tool in client.iter_tools():
        names = tool.input_schema.get("properties", {})
        await client.call_tool(tool.name, {name: "us-west1" for name in names})


async def list_only(client: Client) -> None:
    # A network $ref in a schema is never fetched: the client keeps schemas as data.
    tools = [tool.name async for tool in client.iter_tools()]
    print(tools)


async def schema_preservation(client: Client) -> None:
    # The focal tool's inputSchema goes back verbatim, as the client received it.
    tools = {tool.name: tool async for tool in client.iter_tools()}
    schema = tools["json_schema_2020_12_tool"].input_schema
    await client.call_tool("json_schema_echo", {"schema": schema})


async def no_prefetch(client: Client) -> None:
    # The skills extension (SEP-2640): listing reads no skill file; a file is read
    # when its skill is loaded, and nothing here loads one.
    entries = await client.skills.list()
    print([entry.uri for entry in entries])


async def load_verified(client: Client) -> None:
    # Load the first skill listed (its SKILL.md checked for size, digest and
    # frontmatter), then read its other files, each checked too. A tampered
    # SKILL.md is refused, and nothing more of that skill is read.
    entries = await client.skills.list()
    try:
        skill = await client.skills.load(entries[0])
    except SkillVerificationError as exc:
        print(f"refused {exc.uri}: {exc.reason}: {exc}")
        return
    files = skill.entry.resources
    for file in [] if files == "dynamic" else files:
        await skill.read(file.uri)


SCENARIOS: dict[str, tuple[Callable[[Client], Awaitable[None]], dict[str, Any]]] = {
    "initialize": (initialize, {}),
    "tools_call": (tools_call, {}),
    "elicitation-sep1034-client-defaults": (
        elicitation_defaults,
        {"elicitation": accept_defaults},
    ),
    "sse-retry": (sse_retry, {}),
    "request-metadata": (
        request_metadata,
        {"elicitation": accept_defaults, "sampling": decline_sampling, "roots": no_roots},
    ),
    "sep-2322-client-request-state": (request_state, {"elicitation": confirm}),
    "http-standard-headers": (standard_headers, {}),
    "http-custom-headers": (custom_headers, {}),
    "http-invalid-tool-headers": (invalid_tool_headers, {}),
    "json-schema-ref-no-deref": (list_only, {}),
    "json-schema-2020-12-preservation": (schema_preservation, {}),
    "sep-2640-client-no-prefetch": (no_prefetch, {"skills": True}),
    "sep-2640-client-verify-digest": (load_verified, {"skills": True}),
    "sep-2640-client-verify-size": (load_verified, {"skills": True}),
    "sep-2640-client-verify-frontmatter": (load_verified, {"skills": True}),
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
