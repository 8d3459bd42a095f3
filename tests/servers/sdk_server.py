"""The official SDK's decorator server (``MCPServer``) on stdio, for the interop tests
of our client. Both eras: the SDK's stdio loop serves whichever the client opens.

The same features as interop_server.py: every content type, structured output,
progress, logging, sampling and elicitation (the SDK's ``Resolve`` markers, which
send a request in the legacy era and an InputRequiredResult in 2026-07-28),
resources with a template, prompts and completion.
"""

from __future__ import annotations

import base64
import warnings
from typing import Annotated

import mcp_types as types
from mcp.server.mcpserver import (
    Audio,
    Context,
    Elicit,
    ElicitationResult,
    Image,
    MCPServer,
    Resolve,
    Sample,
)
from mcp.server.mcpserver.prompts.base import AssistantMessage, Message, UserMessage
from mcp.shared.exceptions import MCPDeprecationWarning
from pydantic import BaseModel

# ctx.log and friends are deprecated from 2026-07-28 (SEP-2577) but still served.
warnings.simplefilter("ignore", MCPDeprecationWarning)

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 8
WAV = b"RIFF\x24\x00\x00\x00WAVEfmt " + b"\x00" * 8

server = MCPServer("sdk-server", instructions="The SDK side of the interop tests.")


class Sum(BaseModel):
    total: int
    terms: list[int]


class Person(BaseModel):
    name: str
    age: int | None = None


@server.tool()
def text(value: str) -> str:
    """Say the value back."""
    return value


@server.tool()
def image() -> Image:
    """A tiny PNG."""
    return Image(data=PNG, format="png")


@server.tool()
def audio() -> Audio:
    """A tiny WAV."""
    return Audio(data=WAV, format="wav")


@server.tool()
def everything() -> list[types.ContentBlock]:
    """One block of every content type."""
    return [
        types.TextContent(type="text", text="some text"),
        types.ImageContent(
            type="image", data=base64.b64encode(PNG).decode(), mime_type="image/png"
        ),
        types.AudioContent(
            type="audio", data=base64.b64encode(WAV).decode(), mime_type="audio/wav"
        ),
        types.ResourceLink(
            type="resource_link",
            uri="file:///tmp/report.txt",
            name="report",
            mime_type="text/plain",
        ),
        types.EmbeddedResource(
            type="resource",
            resource=types.TextResourceContents(
                uri="memo://1", text="a memo", mime_type="text/plain"
            ),
        ),
    ]


@server.tool()
def add(a: int, b: int) -> Sum:
    """Structured output: the sum and its terms."""
    return Sum(total=a + b, terms=[a, b])


@server.tool()
def fail() -> str:
    """A tool execution error."""
    raise RuntimeError("it broke")


@server.tool()
async def count(steps: int, ctx: Context) -> str:
    """Report progress at every step."""
    for step in range(1, steps + 1):
        await ctx.report_progress(step, steps, f"step {step}")
    return f"counted {steps}"


@server.tool()
async def chatty(ctx: Context) -> str:
    """Log at three levels."""
    await ctx.debug("a debug line")
    await ctx.info({"event": "info", "n": 1}, logger_name="sdk")
    await ctx.error("an error line")
    return "logged"


def _sample(question: str) -> Sample:
    message = types.SamplingMessage(
        role="user", content=types.TextContent(type="text", text=question)
    )
    return Sample([message], max_tokens=50, system_prompt="Be brief.")


@server.tool()
def ask_model(question: str, answer: Annotated[types.CreateMessageResult, Resolve(_sample)]) -> str:
    """Ask the client's model, through sampling."""
    content = answer.content
    assert isinstance(content, types.TextContent)
    return f"{answer.model}: {content.text}"


def _who() -> Elicit[Person]:
    return Elicit("Who are you?", Person)


@server.tool()
def ask_user(answer: Annotated[ElicitationResult[Person], Resolve(_who)]) -> str:
    """Ask the user who they are, through elicitation."""
    if answer.action != "accept":
        return answer.action
    return f"accepted: {answer.data.name} {answer.data.age}"


@server.resource("config://app", mime_type="application/json")
def app_config() -> str:
    """The app's settings."""
    return '{"debug": false, "level": 3}'


@server.resource("data://blob", mime_type="application/octet-stream")
def blob() -> bytes:
    """Some bytes."""
    return b"\x00\x01\x02"


@server.resource("users://{user_id}/profile", mime_type="text/plain")
def profile(user_id: str) -> str:
    """A user's profile."""
    return f"user {user_id}"


@server.prompt()
def greet(name: str) -> str:
    """Greet someone."""
    return f"Hello, {name}!"


@server.prompt()
def review(code: str) -> list[Message]:
    """A short conversation about some code."""
    return [UserMessage(f"Review this:\n{code}"), AssistantMessage("Looks fine.")]


@server.completion()
async def complete(
    ref: types.PromptReference | types.ResourceTemplateReference,
    argument: types.CompletionArgument,
    context: types.CompletionContext | None,
) -> types.Completion:
    """Names starting with what was typed."""
    names = [name for name in ("alice", "albert", "bob") if name.startswith(argument.value)]
    return types.Completion(values=names)


if __name__ == "__main__":
    server.run("stdio")
