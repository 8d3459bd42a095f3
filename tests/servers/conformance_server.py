"""The fixtures of the official conformance suite's server scenarios, on HTTP.

Exactly what ../shared/conformance/SCENARIOS.md section 5 lists (harness 0.1.16):
tools, resources, prompts, completion and logging with the reference values.
Run as ``python tests/servers/conformance_server.py --port N [--backend trio]``;
it serves ``http://127.0.0.1:N/mcp`` until interrupted.
"""

from __future__ import annotations

import argparse
import base64
import json
from typing import Any

import anyio

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
from transports.http_server import run_http

PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAAB"
    "JRU5ErkJggg=="
)
WAV = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA="

JSON_SCHEMA_2020_12: dict[str, Any] = {
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

server = Server("mcp-core-conformance", "0.1.0", subscribe=True)


def _image() -> ImageContent:
    return ImageContent(data=PNG, mime_type="image/png")


# --- tools -----------------------------------------------------------------------------------


@server.tool
def test_simple_text() -> str:
    """Returns a simple text response."""
    return "This is a simple text response for testing."


@server.tool
def test_image_content() -> ImageContent:
    """Returns a small PNG image."""
    return _image()


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
        _image(),
        EmbeddedResource(
            resource=TextResourceContents(
                uri="test://mixed-content-resource",
                mime_type="application/json",
                text=json.dumps({"test": "data", "value": 123}, separators=(",", ":")),
            )
        ),
    ]


@server.tool
async def test_tool_with_logging(ctx: Context) -> str:
    """Sends three log messages while it runs."""
    for text in ("Tool execution started", "Tool processing data", "Tool execution completed"):
        await ctx.info(text)
        await anyio.sleep(0.05)
    return "Logging test completed"


@server.tool
async def test_tool_with_progress(ctx: Context) -> str:
    """Reports progress 0, 50 and 100 of 100."""
    for step in (0, 50, 100):
        await ctx.report_progress(step, 100)
        await anyio.sleep(0.05)
    return "Progress test completed"


@server.tool
def test_error_handling() -> str:
    """Always fails, as a tool error (isError)."""
    raise RuntimeError("This tool intentionally returns an error for testing")


@server.tool
async def test_sampling(prompt: str, ctx: Context) -> str:
    """Asks the client's model (sampling/createMessage)."""
    result = await ctx.sample(prompt, max_tokens=100)
    content = result.content
    text = content.text if isinstance(content, TextContent) else str(content)
    return f"LLM response: {text}"


@server.tool
async def test_elicitation(message: str, ctx: Context) -> str:
    """Asks the user for a username and an email (elicitation/create)."""
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


@server.tool
async def test_reconnection(ctx: Context) -> str:
    """Takes a moment, for the SSE polling scenario (the stream has a priming event)."""
    await ctx.info("Reconnection test started")
    await anyio.sleep(0.1)
    return "Reconnection test completed successfully"


def json_schema_2020_12_tool(name: str = "") -> str:
    """Listed with a JSON Schema 2020-12 input schema kept verbatim."""
    return f"Hello, {name}"


_schema_tool = server.add_tool(json_schema_2020_12_tool)


@server.on_list_tools
def list_tools(params: PaginatedRequestParams, ctx: Context) -> ListToolsResult:
    # The registry derives schemas from type hints; this one must stay verbatim.
    verbatim = Tool(
        name=_schema_tool.name,
        description=_schema_tool.description,
        input_schema=JSON_SCHEMA_2020_12,
    )
    return ListToolsResult(tools=[verbatim if t.name == verbatim.name else t for t in server.tools])


# --- resources -------------------------------------------------------------------------------


@server.resource("test://static-text", name="static-text", mime_type="text/plain")
def static_text() -> str:
    """A static text resource."""
    return "This is the content of the static text resource."


@server.resource("test://static-binary", name="static-binary", mime_type="image/png")
def static_binary() -> bytes:
    """A static binary resource (a PNG)."""
    return base64.b64decode(PNG)


@server.resource("test://template/{id}/data", name="template", mime_type="application/json")
def template(id: str) -> str:
    """Data for an id."""
    return json.dumps({"id": id, "templateTest": True, "data": f"Data for ID: {id}"})


@server.resource("test://watched-resource", name="watched-resource", mime_type="text/plain")
def watched() -> str:
    """A resource to subscribe to."""
    return "Watched resource content"


# --- prompts ---------------------------------------------------------------------------------


@server.prompt
def test_simple_prompt() -> str:
    """A simple prompt without arguments."""
    return "This is a simple prompt for testing."


@server.prompt
def test_prompt_with_arguments(arg1: str, arg2: str) -> str:
    """A prompt with two required arguments."""
    return f"Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"


@server.prompt
def test_prompt_with_embedded_resource(resourceUri: str) -> list[PromptMessage]:
    """A prompt that embeds a resource."""
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
        PromptMessage(role="user", content=_image()),
        PromptMessage(role="user", content=TextContent(text="Please analyze the image above.")),
    ]


@server.completion
def complete(ref: Any, argument: Any, context: dict[str, str]) -> list[str]:
    """No suggestions: the scenario checks the shape only."""
    return []


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, default=3001)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--backend", default="asyncio", choices=["asyncio", "trio"])
    args = parser.parse_args()
    run_http(server, host=args.host, port=args.port, backend=args.backend)


if __name__ == "__main__":
    main()
