"""Everything: one server that uses every feature of MCP, for trying out clients.

Tools
    echo, add                   text in and out; a number as structured output
    get_image, get_audio        image and audio content (bytes, media type sniffed)
    get_resource                an embedded resource in a tool result
    get_resource_link           a link to a resource, for the client to read later
    stats                       a record as structuredContent, with an outputSchema
    long_task                   progress notifications (when the caller asks for them)
    write_log                   log messages (at the level the client chose)
    ask_llm                     sampling: the client's model answers a question
    ask_user                    elicitation: the client asks its user for a name
    list_roots                  the client's roots
    increment                   changes a resource, so subscribers hear about it
    fail                        a tool that fails: an ``isError`` result
Resources
    everything://readme         static text (Markdown)
    everything://logo.png       static binary (a blob)
    everything://counter        JSON that ``increment`` changes (subscribe to it)
    everything://greetings/{name}   a URI template
    everything://numbers/{n}        a URI template whose variable is an int
Prompts
    greeting(name), code_review(code, language)
Completion
    values for the ``name`` and ``language`` arguments, and for ``{name}`` above

Sampling, elicitation and roots work in both protocol eras. Up to 2025-11-25 they
are requests from the server to the client. From 2026-07-28 they are multi
round-trip requests: the handler runs again once the client has answered, so it
must ask the same questions in the same order every time.

Run it:

    python examples/everything.py
    mcp-core list "python examples/everything.py"
    mcp-core call "python examples/everything.py" stats --json '{"numbers": [1, 2, 3.5]}'
"""

from __future__ import annotations

import base64
import io
import math
import wave
from typing import Annotated, Any, Final

import anyio
import msgspec

from mcp_core import Context, Server
from mcp_core.types import (
    CompletionArgument,
    EmbeddedResource,
    LoggingLevel,
    PromptMessage,
    PromptReference,
    ResourceLink,
    ResourceTemplateReference,
    TextContent,
    TextResourceContents,
    ToolAnnotations,
)
from transports.stdio_connect import run_stdio

README: Final = """# Everything

A demonstration server: every tool, resource and prompt feature of MCP in one place.
"""

LOGO_PNG: Final = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAIAAABLbSncAAAAEUlEQVR42mPQztmAFTEMLQkA0FlRwRk0+foAAAAASUVORK5CYII="
)
"""An 8x8 blue square."""

NAMES: Final = ("Ada", "Alan", "Barbara", "Grace", "Linus", "Margaret")
LANGUAGES: Final = ("c", "go", "javascript", "python", "rust", "typescript")

NAME_SCHEMA: Final = {
    "type": "object",
    "properties": {"name": {"type": "string", "description": "What should I call you?"}},
    "required": ["name"],
}


def _tone(seconds: float = 0.25, hertz: float = 440.0, rate: int = 8000) -> bytes:
    """A sine tone as a WAV file: 8-bit mono."""
    samples = bytes(
        128 + round(100 * math.sin(2 * math.pi * hertz * i / rate))
        for i in range(round(seconds * rate))
    )
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(1)
        out.setframerate(rate)
        out.writeframes(samples)
    return buffer.getvalue()


class Stats(msgspec.Struct, kw_only=True):
    """Summary statistics of some numbers."""

    count: int
    mean: float
    minimum: float
    maximum: float


server = Server(
    "everything",
    "1.0.0",
    title="Everything",
    instructions="A demonstration server: try any tool, resource or prompt.",
    subscribe=True,
)
counter = {"value": 0}


# --- tools -----------------------------------------------------------------------------


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def echo(text: str) -> str:
    """Say it back.

    Args:
        text: What to say.
    """
    return text


@server.tool
def add(a: float, b: float) -> float:
    """Add two numbers; the sum comes as structured output."""
    return a + b


@server.tool
def get_image() -> bytes:
    """A small PNG image."""
    return LOGO_PNG


@server.tool
def get_audio() -> bytes:
    """A quarter of a second of A440, as WAV."""
    return _tone()


@server.tool
def get_resource() -> EmbeddedResource:
    """The readme, embedded in the result."""
    contents = TextResourceContents(
        uri="everything://readme", text=README, mime_type="text/markdown"
    )
    return EmbeddedResource(resource=contents)


@server.tool
def get_resource_link() -> ResourceLink:
    """A link to the readme, for the client to read when it wants."""
    return ResourceLink(
        uri="everything://readme",
        name="readme",
        description="What this server is.",
        mime_type="text/markdown",
    )


@server.tool
def stats(numbers: Annotated[list[float], msgspec.Meta(min_length=1)]) -> Stats:
    """Count, mean, minimum and maximum of some numbers.

    Args:
        numbers: At least one number.
    """
    return Stats(
        count=len(numbers),
        mean=sum(numbers) / len(numbers),
        minimum=min(numbers),
        maximum=max(numbers),
    )


@server.tool
async def long_task(
    ctx: Context,
    steps: Annotated[int, msgspec.Meta(ge=1, le=100)] = 5,
    step_seconds: Annotated[float, msgspec.Meta(ge=0, le=10)] = 0.0,
) -> str:
    """Work in steps, reporting progress after each.

    Args:
        steps: How many steps.
        step_seconds: How long each step takes.
    """
    for step in range(1, steps + 1):
        await anyio.sleep(step_seconds)
        await ctx.report_progress(step, steps, f"step {step} of {steps}")
    return f"done in {steps} steps"


@server.tool
async def write_log(ctx: Context, message: str, level: LoggingLevel = "info") -> str:
    """Send a log message to the client.

    Args:
        message: The message.
        level: Its severity, from "debug" to "emergency".
    """
    await ctx.log(level, message, logger="everything")
    return f"logged at {level}"


@server.tool
async def ask_llm(ctx: Context, question: str, max_tokens: int = 200) -> str:
    """Ask the client's language model a question (sampling).

    Args:
        question: The question.
        max_tokens: The longest answer wanted.
    """
    answer = await ctx.sample(question, max_tokens, system_prompt="Answer briefly.")
    if isinstance(answer.content, TextContent):
        return answer.content.text
    return f"the model answered with {type(answer.content).__name__}"


@server.tool
async def ask_user(ctx: Context) -> str:
    """Ask the user for their name (elicitation) and greet them."""
    answer = await ctx.elicit("What should I call you?", NAME_SCHEMA)
    if answer.action != "accept" or not isinstance(answer.content, dict):
        return f"No name given ({answer.action})."
    return f"Nice to meet you, {answer.content.get('name')}!"


@server.tool
async def list_roots(ctx: Context) -> str:
    """The client's roots, one URI a line."""
    roots = (await ctx.list_roots()).roots
    return "\n".join(root.uri for root in roots) or "(no roots)"


@server.tool
def increment() -> int:
    """Add one to everything://counter; subscribers are told it changed."""
    counter["value"] += 1
    server.resource_updated("everything://counter")
    return counter["value"]


@server.tool
def fail(message: str = "something went wrong") -> str:
    """Always fails, to show how a tool reports an error.

    Args:
        message: The error message.
    """
    raise RuntimeError(message)


# --- resources -------------------------------------------------------------------------


@server.resource("everything://readme", name="readme", mime_type="text/markdown")
def readme() -> str:
    """What this server is."""
    return README


@server.resource("everything://logo.png", name="logo", mime_type="image/png")
def logo() -> bytes:
    """The server's logo, an 8x8 PNG."""
    return LOGO_PNG


@server.resource("everything://counter", name="counter")
def read_counter() -> dict[str, int]:
    """How many times the increment tool ran."""
    return dict(counter)


@server.resource("everything://greetings/{name}", name="greetings", mime_type="text/plain")
def greeting_for(name: str) -> str:
    """A greeting for anyone."""
    return f"Hello, {name}!"


@server.resource("everything://numbers/{n}", name="numbers")
def number(n: int) -> dict[str, Any]:
    """Facts about a whole number."""
    return {"n": n, "square": n * n, "even": n % 2 == 0}


# --- prompts and completion ------------------------------------------------------------


@server.prompt
def greeting(name: str) -> str:
    """Greet someone.

    Args:
        name: Who to greet.
    """
    return f"Write a short, warm greeting for {name}."


@server.prompt
def code_review(code: str, language: str = "python") -> list[PromptMessage]:
    """Review some code.

    Args:
        code: The code to review.
        language: Its programming language.
    """
    return [
        PromptMessage(
            role="user",
            content=TextContent(text=f"Review this {language} code:\n\n{code}"),
        ),
        PromptMessage(
            role="assistant",
            content=TextContent(text="I will look at correctness first, then style."),
        ),
    ]


@server.completion
def complete(
    ref: PromptReference | ResourceTemplateReference,
    argument: CompletionArgument,
    context: dict[str, str],
) -> list[str]:
    """Suggest names and languages that start with what was typed."""
    pools = {"name": NAMES, "language": LANGUAGES}
    typed = argument.value.lower()
    return [value for value in pools.get(argument.name, ()) if value.lower().startswith(typed)]


if __name__ == "__main__":
    run_stdio(server)
