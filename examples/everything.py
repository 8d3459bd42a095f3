"""Everything: one server with every feature of MCP, for trying out clients.

Its tools, resources and prompts are exactly the fixtures the official conformance
suite (``@modelcontextprotocol/conformance`` 0.1.16) expects of an "everything"
server, with the reference values, so this file is also what that suite runs
against (see scripts/README.md). The fixtures of the
suite's 2026-07-28 scenarios (0.2.0-alpha.12: multi round-trip requests, header
mirroring, list changes) are in _everything_2026.py beside this file, added here.

Tools
    test_simple_text                text
    test_image_content              an image (a 1x1 PNG)
    test_audio_content              audio (a tiny WAV)
    test_embedded_resource          a resource embedded in the result
    test_multiple_content_types     text, an image and a resource in one result
    test_tool_with_logging          three log messages while it runs
    test_tool_with_progress         progress 0, 50, 100 (when the caller asks for it)
    test_error_handling             a tool that fails: an ``isError`` result
    test_sampling(prompt)           sampling: the client's model answers
    test_elicitation(message)       elicitation: the client asks its user
    test_elicitation_sep1034_defaults   elicitation with default values
    test_elicitation_sep1330_enums      elicitation with every kind of enum
    json_schema_2020_12_tool        an input schema in JSON Schema 2020-12, verbatim
    test_reconnection               a slower call, for SSE resumption
Resources
    test://static-text              static text
    test://static-binary            static binary (a blob)
    test://watched-resource         one to subscribe to
    test://template/{id}/data       a URI template
Prompts
    test_simple_prompt, test_prompt_with_arguments(arg1, arg2),
    test_prompt_with_embedded_resource(resourceUri), test_prompt_with_image
Completion, logging levels and resource subscriptions are on too. See
_everything_2026.py for the tools and the prompt it adds.

Sampling and elicitation work in both protocol eras. Up to 2025-11-25 they are
requests from the server to the client. From 2026-07-28 they are multi round-trip
requests: the handler runs again once the client has answered, so it must ask the
same questions in the same order every time.

Run it:

    python examples/everything.py                               # on stdio
    python examples/everything.py --transport http --port 3001  # http://127.0.0.1:3001/mcp
    mcp-core serve examples/everything.py --transport http --port 3001
    mcp-core call "python examples/everything.py" test_simple_text
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import json
import sys
from collections.abc import Sequence
from typing import Any, Final

import anyio
from _everything_2026 import register

from mcp_core import Context, Server
from mcp_core.types import (
    AudioContent,
    EmbeddedResource,
    ImageContent,
    ListToolsResult,
    PaginatedRequestParams,
    PromptMessage,
    TextContent,
    TextResourceContents,
    Tool,
)
from transports import run_http, run_stdio

PNG: Final = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAAB"
    "JRU5ErkJggg=="
)
"""A 1x1 PNG, base64."""

WAV: Final = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA="
"""A WAV file of one silent sample, base64."""

STEP_SECONDS = 0.05
"""The pause between the log messages, and the progress reports, of a tool."""

JSON_SCHEMA_2020_12: Final[dict[str, Any]] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {
        "address": {
            "type": "object",
            "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
        }
    },
    "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"}},
    "additionalProperties": False,
}

server = Server(
    "everything",
    "1.0.0",
    title="Everything",
    instructions="A demonstration server: try any tool, resource or prompt.",
    subscribe=True,
)


def image() -> ImageContent:
    return ImageContent(data=PNG, mime_type="image/png")


# --- tools: content -----------------------------------------------------------------------


@server.tool
def test_simple_text() -> str:
    """Returns a simple text response."""
    return "This is a simple text response for testing."


@server.tool
def test_image_content() -> ImageContent:
    """Returns a small PNG image."""
    return image()


@server.tool
def test_audio_content() -> AudioContent:
    """Returns a small WAV clip."""
    return AudioContent(data=WAV, mime_type="audio/wav")


@server.tool
def test_embedded_resource() -> EmbeddedResource:
    """Returns an embedded text resource."""
    return EmbeddedResource(
        resource=TextResourceContents(
            uri="test://embedded-resource",
            mime_type="text/plain",
            text="This is an embedded resource content.",
        )
    )


@server.tool
def test_multiple_content_types() -> list[object]:
    """Returns text, an image and an embedded resource."""
    return [
        TextContent(text="Multiple content types test:"),
        image(),
        EmbeddedResource(
            resource=TextResourceContents(
                uri="test://mixed-content-resource",
                mime_type="application/json",
                text=json.dumps({"test": "data", "value": 123}, separators=(",", ":")),
            )
        ),
    ]


@server.tool
def test_error_handling() -> str:
    """Always fails, as a tool error (isError)."""
    raise RuntimeError("This tool intentionally returns an error for testing")


# --- tools: while they run ----------------------------------------------------------------


@server.tool
async def test_tool_with_logging(ctx: Context) -> str:
    """Sends three log messages while it runs."""
    for text in ("Tool execution started", "Tool processing data", "Tool execution completed"):
        await ctx.info(text)
        await anyio.sleep(STEP_SECONDS)
    return "Logging test completed"


@server.tool
async def test_tool_with_progress(ctx: Context) -> str:
    """Reports progress 0, 50 and 100 of 100."""
    for step in (0, 50, 100):
        await ctx.report_progress(step, 100)
        await anyio.sleep(STEP_SECONDS)
    return "Progress test completed"


@server.tool
async def test_reconnection(ctx: Context) -> str:
    """Takes a moment, so that a client can lose its stream and resume it."""
    await ctx.info("Reconnection test started")
    await anyio.sleep(2 * STEP_SECONDS)
    return "Reconnection test completed successfully"


# --- tools: asking the client -------------------------------------------------------------


@server.tool
async def test_sampling(prompt: str, ctx: Context) -> str:
    """Asks the client's model (sampling/createMessage).

    Args:
        prompt: What to ask the model.
    """
    result = await ctx.sample(prompt, max_tokens=100)
    content = result.content
    text = content.text if isinstance(content, TextContent) else str(content)
    return f"LLM response: {text}"


@server.tool
async def test_elicitation(message: str, ctx: Context) -> str:
    """Asks the user for a username and an email (elicitation/create).

    Args:
        message: What to tell the user.
    """
    answer = await ctx.elicit(
        message,
        {
            "type": "object",
            "properties": {
                "username": {"type": "string", "description": "Your username"},
                "email": {"type": "string", "description": "Your email address"},
            },
            "required": ["username", "email"],
        },
    )
    return f"User response: action={answer.action}, content={json.dumps(answer.content)}"


@server.tool
async def test_elicitation_sep1034_defaults(ctx: Context) -> str:
    """Elicits fields that carry default values (SEP-1034)."""
    answer = await ctx.elicit(
        "Please review and update the form fields with defaults",
        {
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "User name", "default": "John Doe"},
                "age": {"type": "integer", "description": "User age", "default": 30},
                "score": {"type": "number", "description": "User score", "default": 95.5},
                "status": {
                    "type": "string",
                    "description": "User status",
                    "enum": ["active", "inactive", "pending"],
                    "default": "active",
                },
                "verified": {"type": "boolean", "description": "Verified", "default": True},
            },
        },
    )
    return f"Elicitation completed: action={answer.action}, content={json.dumps(answer.content)}"


@server.tool
async def test_elicitation_sep1330_enums(ctx: Context) -> str:
    """Elicits every enum shape of SEP-1330."""
    options = ["option1", "option2", "option3"]
    titled = [{"const": value, "title": value.title()} for value in options]
    answer = await ctx.elicit(
        "Please select options from the enum fields",
        {
            "type": "object",
            "properties": {
                "untitledSingle": {"type": "string", "enum": options},
                "titledSingle": {"type": "string", "oneOf": titled},
                "legacyEnum": {
                    "type": "string",
                    "enum": options,
                    "enumNames": ["Option One", "Option Two", "Option Three"],
                },
                "untitledMulti": {"type": "array", "items": {"type": "string", "enum": options}},
                "titledMulti": {"type": "array", "items": {"anyOf": titled}},
            },
        },
    )
    return f"Elicitation completed: action={answer.action}, content={json.dumps(answer.content)}"


# --- tools: a schema written by hand ------------------------------------------------------


def json_schema_2020_12_tool(name: str = "") -> str:
    """Listed with a JSON Schema 2020-12 input schema kept verbatim."""
    return f"Hello, {name}"


schema_tool = server.add_tool(json_schema_2020_12_tool)


@server.on_list_tools
def list_tools(params: PaginatedRequestParams, ctx: Context) -> ListToolsResult:
    """The registry's tools, with one schema replaced by the hand-written one.

    Schemas usually come from type hints; this one must reach the client as written.
    """
    verbatim = Tool(
        name=schema_tool.name,
        description=schema_tool.description,
        input_schema=JSON_SCHEMA_2020_12,
    )
    return ListToolsResult(tools=[verbatim if t.name == verbatim.name else t for t in server.tools])


# --- resources ----------------------------------------------------------------------------


@server.resource("test://static-text", name="static-text", mime_type="text/plain")
def static_text() -> str:
    """A static text resource."""
    return "This is the content of the static text resource."


@server.resource("test://static-binary", name="static-binary", mime_type="image/png")
def static_binary() -> bytes:
    """A static binary resource (a PNG)."""
    return base64.b64decode(PNG)


@server.resource("test://watched-resource", name="watched-resource", mime_type="text/plain")
def watched() -> str:
    """A resource to subscribe to."""
    return "Watched resource content"


@server.resource("test://template/{id}/data", name="template", mime_type="application/json")
def template(id: str) -> str:
    """Data for any id."""
    return json.dumps({"id": id, "templateTest": True, "data": f"Data for ID: {id}"})


# --- prompts and completion ---------------------------------------------------------------


@server.prompt
def test_simple_prompt() -> str:
    """A simple prompt without arguments."""
    return "This is a simple prompt for testing."


@server.prompt
def test_prompt_with_arguments(arg1: str, arg2: str) -> str:
    """A prompt with two required arguments.

    Args:
        arg1: The first argument.
        arg2: The second argument.
    """
    return f"Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"


@server.prompt
def test_prompt_with_embedded_resource(resourceUri: str) -> list[PromptMessage]:
    """A prompt that embeds a resource.

    Args:
        resourceUri: The URI of the resource to embed.
    """
    resource = TextResourceContents(
        uri=resourceUri, mime_type="text/plain", text="Embedded resource content for testing."
    )
    return [
        PromptMessage(role="user", content=EmbeddedResource(resource=resource)),
        PromptMessage(
            role="user", content=TextContent(text="Please process the embedded resource above.")
        ),
    ]


@server.prompt
def test_prompt_with_image() -> list[PromptMessage]:
    """A prompt with an image."""
    return [
        PromptMessage(role="user", content=image()),
        PromptMessage(role="user", content=TextContent(text="Please analyze the image above.")),
    ]


@server.completion
def complete(ref: Any, argument: Any, context: dict[str, str]) -> list[str]:
    """No suggestions: completion is offered, and answers with an empty list."""
    return []


register(server)


# --- running it ---------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> None:
    """Serve on stdio, or on HTTP with ``--transport http``."""
    parser = argparse.ArgumentParser(description="The everything example server.")
    parser.add_argument("--transport", choices=("stdio", "http"), default="stdio")
    parser.add_argument("--host", default="127.0.0.1", help="HTTP: the address to listen on")
    parser.add_argument("--port", type=int, default=8000, help="HTTP: the port")
    parser.add_argument("--path", default="/mcp", help="HTTP: the endpoint's path")
    parser.add_argument("--backend", choices=("asyncio", "trio"), default="asyncio")
    args = parser.parse_args(argv)
    with contextlib.suppress(KeyboardInterrupt):
        if args.transport == "stdio":
            run_stdio(server, backend=args.backend)
        else:
            run_http(
                server,
                backend=args.backend,
                host=args.host,
                port=args.port,
                path=args.path,
                on_listening=lambda url: print(f"serving on {url}", file=sys.stderr, flush=True),
            )


if __name__ == "__main__":
    main()
