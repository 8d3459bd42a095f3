"""Our stdio server for the interop tests with the official SDK's client.

Every content type a tool can return, structured output, progress, logging,
sampling and elicitation, resources with a template, prompts and completion.
Run as ``python interop_server.py [asyncio|trio]``.
"""

from __future__ import annotations

import base64
import sys
from typing import TypedDict

from mcp_core import Context, Server, UrlElicitationRequiredError
from mcp_core.server import url_elicitation
from mcp_core.types import (
    AudioContent,
    BlobResourceContents,
    CompletionArgument,
    EmbeddedResource,
    ImageContent,
    PromptMessage,
    PromptReference,
    ResourceLink,
    ResourceTemplateReference,
    SamplingMessage,
    TextContent,
    TextResourceContents,
    ToolResultContent,
    ToolUseContent,
)
from transports.stdio import run_stdio

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 8
WAV = b"RIFF\x24\x00\x00\x00WAVEfmt " + b"\x00" * 8

server = Server("interop-server", "1.2.3", instructions="Used by the interop tests.")


class Sum(TypedDict):
    total: int
    terms: list[int]


@server.tool
def text(value: str) -> str:
    """Say the value back."""
    return value


@server.tool
def image() -> bytes:
    """A tiny PNG."""
    return PNG


@server.tool
def audio() -> AudioContent:
    """A tiny WAV."""
    return AudioContent(data=base64.b64encode(WAV).decode(), mime_type="audio/wav")


@server.tool
def everything() -> list[object]:
    """One block of every content type, in the schema's order."""
    return [
        TextContent(text="some text"),
        ImageContent(data=base64.b64encode(PNG).decode(), mime_type="image/png"),
        AudioContent(data=base64.b64encode(WAV).decode(), mime_type="audio/wav"),
        ResourceLink(uri="file:///tmp/report.txt", name="report", mime_type="text/plain"),
        EmbeddedResource(
            resource=TextResourceContents(uri="memo://1", text="a memo", mime_type="text/plain")
        ),
        EmbeddedResource(
            resource=BlobResourceContents(
                uri="memo://2", blob=base64.b64encode(b"\x00\x01").decode(), mime_type="x/y"
            )
        ),
    ]


@server.tool
def add(a: int, b: int) -> Sum:
    """Structured output: the sum and its terms."""
    return {"total": a + b, "terms": [a, b]}


@server.tool
def fail() -> str:
    """A tool execution error (isError), not a protocol error."""
    raise RuntimeError("it broke")


@server.tool
async def count(steps: int, ctx: Context) -> str:
    """Report progress at every step."""
    for step in range(1, steps + 1):
        await ctx.report_progress(step, steps, f"step {step}")
    return f"counted {steps}"


@server.tool
async def chatty(ctx: Context) -> str:
    """Log at three levels; the client's level decides what it gets."""
    await ctx.debug("a debug line")
    await ctx.info({"event": "info", "n": 1}, logger="interop")
    await ctx.error("an error line")
    return "logged"


@server.tool
async def ask_model(question: str, ctx: Context) -> str:
    """Ask the client's model, through sampling."""
    result = await ctx.sample(question, max_tokens=50, system_prompt="Be brief.")
    content = result.content
    assert isinstance(content, TextContent)
    return f"{result.model}: {content.text}"


WEATHER = {
    "name": "get_weather",
    "description": "Current weather for a city",
    "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}},
}


@server.tool
async def ask_model_with_tools(city: str, ctx: Context) -> str:
    """Sampling with tools (2025-11-25+): one tool round, then the answer."""
    history: list[SamplingMessage | str] = [f"Weather in {city}?"]
    sampled = await ctx.sample(history, max_tokens=50, tools=[WEATHER], tool_choice="auto")
    uses = sampled.content if isinstance(sampled.content, list) else [sampled.content]
    history.append(SamplingMessage(role="assistant", content=uses))
    history.append(
        SamplingMessage(
            role="user",
            content=[
                ToolResultContent(tool_use_id=use.id, content=[TextContent(text="18C")])
                for use in uses
                if isinstance(use, ToolUseContent)
            ],
        )
    )
    final = await ctx.sample(history, max_tokens=50, tools=[WEATHER], tool_choice="none")
    assert isinstance(final.content, TextContent)
    return f"{sampled.stop_reason} then {final.content.text}"


@server.tool
async def open_page(ctx: Context) -> str:
    """URL-mode elicitation (2025-11-25+)."""
    answer = await ctx.elicit_url("https://example.com/pay", "Pay here", elicitation_id="pay-1")
    return answer.action


CONNECTED: set[str] = set()


@server.tool
async def needs_connect(ctx: Context) -> str:
    """-32042 in 2025-11-25 (an InputRequiredResult in 2026-07-28) until connected."""
    if not CONNECTED:
        CONNECTED.add("yes")
        raise UrlElicitationRequiredError(
            [url_elicitation("https://example.com/connect", "Connect", elicitation_id="c-1")]
        )
    return "connected"


@server.tool
async def ask_user(ctx: Context) -> str:
    """Ask the user for a name and an age, through elicitation."""
    answer = await ctx.elicit(
        "Who are you?",
        {
            "type": "object",
            "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
            "required": ["name"],
        },
    )
    if answer.action != "accept":
        return answer.action
    return f"accepted: {answer.content}"


@server.resource("config://app", mime_type="application/json")
def app_config() -> dict[str, object]:
    """The app's settings."""
    return {"debug": False, "level": 3}


@server.resource("data://blob")
def blob() -> bytes:
    """Some bytes."""
    return b"\x00\x01\x02"


@server.resource("users://{user_id}/profile", mime_type="text/plain")
def profile(user_id: int) -> str:
    """A user's profile."""
    return f"user {user_id}"


@server.prompt
def greet(name: str) -> str:
    """Greet someone."""
    return f"Hello, {name}!"


@server.prompt
def review(code: str) -> list[PromptMessage]:
    """A short conversation about some code."""
    return [
        PromptMessage(role="user", content=TextContent(text=f"Review this:\n{code}")),
        PromptMessage(role="assistant", content=TextContent(text="Looks fine.")),
    ]


@server.completion
def complete(
    ref: PromptReference | ResourceTemplateReference,
    argument: CompletionArgument,
    context: dict[str, str],
) -> list[str]:
    """Names starting with what was typed."""
    return [name for name in ("alice", "albert", "bob") if name.startswith(argument.value)]


if __name__ == "__main__":
    run_stdio(server, backend=sys.argv[1] if len(sys.argv) > 1 else "asyncio")
