"""``mcp-core call``, ``list``, ``read`` and ``prompt``: talk to a server from the shell.

SERVER is a URL, a TARGET or a command line (see `transports.cli.connect`, which
also shuts a spawned server down on every way out, signals included).

Output is for people by default and JSON with ``--json``. While a tool runs,
``call`` shows its progress and log messages on stderr (`transports.cli.feedback`).
Exit statuses: 0 done; 1 the tool failed (``isError``), the server answered with an
error, or it could not be started or reached; 2 the command line was wrong; 128 + N
signal N arrived (130 for Ctrl-C, 143 for SIGTERM).
"""

from __future__ import annotations

import argparse
import base64
import binascii
import json
import sys
from collections.abc import Sequence
from typing import Any, TextIO

import anyio
import msgspec
from msgspec import UnsetType

from mcp_core.apps import tool_ui
from mcp_core.types import (
    AudioContent,
    CallToolResult,
    ContentBlock,
    GetPromptResult,
    ImageContent,
    ReadResourceResult,
    Resource,
    ResourceContents,
    ResourceLink,
    TextContent,
    Tool,
)

from ..client import Client
from ..client_tasks import TaskHandle
from .connect import UsageError, error, run_session
from .feedback import Feedback

__all__ = [
    "describe_block",
    "describe_contents",
    "fetch_listing",
    "list_lines",
    "parse_arguments",
    "parse_prompt_arguments",
    "pretty",
    "render_call",
    "render_prompt",
    "render_read",
    "run_call",
    "run_list",
    "run_prompt",
    "run_read",
]


# --- reading the command line -------------------------------------------------------------


def _value(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


def _split_pair(pair: str, positional: bool) -> tuple[str, str]:
    key, equals, value = pair.partition("=")
    if equals and key:
        return key, value
    if positional:
        raise UsageError(f"arguments after the name are NAME=VALUE (as in a=1), not {pair!r}")
    raise UsageError(f"--arg takes key=value, not {pair!r}")


def parse_prompt_arguments(pairs: Sequence[str], words: Sequence[str] = ()) -> dict[str, str]:
    """A prompt's arguments from ``--arg key=value`` pairs, then the ``key=value``
    words after its name; prompt arguments are strings, so every value is the text
    as typed.

    Raises:
        UsageError: a pair without ``=``.
    """
    arguments: dict[str, str] = {}
    for pair in pairs:
        key, value = _split_pair(pair, False)
        arguments[key] = value
    for word in words:
        key, value = _split_pair(word, True)
        arguments[key] = value
    return arguments


def parse_arguments(
    json_objects: Sequence[str], pairs: Sequence[str], words: Sequence[str] = ()
) -> dict[str, Any]:
    """The tool arguments from ``--json`` objects, then ``--arg key=value`` pairs,
    then the ``key=value`` words after the tool's name (``call app.py add a=1 b=2``,
    as FastMCP's command line takes them).

    A value that parses as JSON (``3``, ``true``, ``null``, ``[1, 2]``, ``{"a": 1}``,
    ``"quoted"``) is that value; anything else is the string as typed.

    Raises:
        UsageError: a ``--json`` that is not a JSON object, or a pair without ``=``.
    """
    arguments: dict[str, Any] = {}
    for text in json_objects:
        try:
            value = json.loads(text)
        except ValueError as exc:
            raise UsageError(f"--json {text!r} is not valid JSON: {exc}") from None
        if not isinstance(value, dict):
            raise UsageError(f"--json takes a JSON object of arguments, not {text!r}")
        arguments.update(value)
    for pair in pairs:
        key, value = _split_pair(pair, False)
        arguments[key] = _value(value)
    for word in words:
        key, value = _split_pair(word, True)
        arguments[key] = _value(value)
    return arguments


# --- showing results ----------------------------------------------------------------------


def _size(data: str) -> int:
    try:
        return len(base64.b64decode(data))
    except (binascii.Error, ValueError):
        return len(data) * 3 // 4


def _mime(value: str | UnsetType, default: str) -> str:
    return default if isinstance(value, UnsetType) else value


def describe_contents(contents: ResourceContents) -> str:
    """Resource contents as text: the text as is, binary contents as a one-line summary."""
    if not isinstance(contents.text, UnsetType):
        return contents.text
    assert not isinstance(contents.blob, UnsetType)
    kind = _mime(contents.mime_type, "binary")
    return f"[binary {contents.uri}, {kind}, {_size(contents.blob)} bytes]"


def describe_block(block: ContentBlock) -> str:
    """One content block as text: text as is, anything else as a one-line summary."""
    if isinstance(block, TextContent):
        return block.text
    if isinstance(block, ImageContent):
        return f"[image {block.mime_type}, {_size(block.data)} bytes]"
    if isinstance(block, AudioContent):
        return f"[audio {block.mime_type}, {_size(block.data)} bytes]"
    if isinstance(block, ResourceLink):
        mime = "" if isinstance(block.mime_type, UnsetType) else f", {block.mime_type}"
        return f"[resource link {block.uri}{mime}]"
    contents = block.resource
    if not isinstance(contents.text, UnsetType):
        kind, size = _mime(contents.mime_type, "text"), len(contents.text.encode())
    else:
        assert not isinstance(contents.blob, UnsetType)
        kind, size = _mime(contents.mime_type, "binary"), _size(contents.blob)
    return f"[resource {contents.uri}, {kind}, {size} bytes]"


def pretty(value: Any) -> str:
    return msgspec.json.format(msgspec.json.encode(value), indent=2).decode()


def render_call(result: CallToolResult) -> str:
    """A tool result for people: each block on its own line; the structured content,
    pretty-printed, when no block is text.

    A text that ends with a newline keeps only that one, so a file's contents print
    as they are.
    """
    lines = [describe_block(block).removesuffix("\n") for block in result.content]
    has_text = any(isinstance(block, TextContent) for block in result.content)
    if not has_text and not isinstance(result.structured_content, UnsetType):
        lines.append(pretty(result.structured_content))
    return "\n".join(lines)


def render_read(result: ReadResourceResult) -> str:
    """Read resource contents for people: each one's text, or a summary of binary data."""
    return "\n".join(describe_contents(c).removesuffix("\n") for c in result.contents)


def render_prompt(result: GetPromptResult) -> str:
    """A prompt for people: each message as ``role: content``."""
    lines = []
    for message in result.messages:
        text = describe_block(message.content).removesuffix("\n")
        lines.append(f"{message.role}: {text}")
    return "\n".join(lines)


def _first_line(text: str | UnsetType) -> str:
    if isinstance(text, UnsetType):
        return ""
    lines = text.strip().splitlines()
    return lines[0] if lines else ""


def _columns(rows: list[tuple[str, str]]) -> list[str]:
    width = max((len(left) for left, _ in rows), default=0)
    return [f"{left:<{width}}  {right}".rstrip() for left, right in rows]


def list_lines(kind: str, listing: dict[str, list[Any]]) -> list[str]:
    """The lines ``mcp-core list`` prints: ``name  description`` for tools and
    prompts (a tool with an MCP Apps view ends with ``[view ui://...]``),
    ``uri  name: description`` for resources and resource templates.

    Args:
        kind: "tools", "resources" or "prompts".
        listing: the items by result field (``{"tools": [...]}``; for resources,
            ``"resources"`` and ``"resourceTemplates"``).
    """
    if kind == "resources":
        rows = []
        for item in [*listing["resources"], *listing["resourceTemplates"]]:
            uri = item.uri if isinstance(item, Resource) else item.uri_template
            description = _first_line(item.description)
            rows.append((uri, f"{item.name}: {description}" if description else item.name))
        return _columns(rows)
    if kind == "tools":
        return _columns([(tool.name, _tool_text(tool)) for tool in listing[kind]])
    return _columns([(item.name, _first_line(item.description)) for item in listing[kind]])


def _tool_text(tool: Tool) -> str:
    # A tool with an MCP Apps view says so, and who may call it when that is
    # not everyone (tests/spec/extensions/apps-2026-01-26.md "Visibility").
    text = _first_line(tool.description)
    ui = tool_ui(tool)
    if ui is None or isinstance(ui.resource_uri, UnsetType):
        return text
    who = "" if set(ui.who) == {"model", "app"} else f", {' and '.join(ui.who)} only"
    return f"{text} [view {ui.resource_uri}{who}]".strip()


# --- the commands -------------------------------------------------------------------------


def task_line(handle: TaskHandle) -> str:
    """``task ID: STATUS (message)``, what ``call --task`` shows of a task."""
    message = handle.status_message
    line = f"task {handle.task_id}: {handle.status}"
    return f"{line} ({message})" if message else line


async def follow_task(handle: TaskHandle, out: TextIO | None = None) -> CallToolResult:
    """Wait for the task's result, writing each new status line to ``out``
    (stderr) as the handle sees it."""
    out = sys.stderr if out is None else out
    if handle.task_id is None:
        return await handle.result()
    shown = ""

    def show() -> None:
        nonlocal shown
        line = task_line(handle)
        if line != shown:
            print(line, file=out, flush=True)
            shown = line

    async def watch() -> None:
        while True:
            show()
            await anyio.sleep(0.05)

    async with anyio.create_task_group() as tg:
        tg.start_soon(watch)
        try:
            result = await handle.result()
        finally:
            tg.cancel_scope.cancel()
    show()
    return result


def run_call(args: argparse.Namespace) -> int:
    """``mcp-core call SERVER TOOL``: call one tool and print what it returns."""
    try:
        arguments = parse_arguments(args.json_args or [], args.arg or [], args.pairs)
    except UsageError as exc:
        error(str(exc))
        return 2
    feedback = Feedback(sys.stderr)

    async def call(client: Client) -> CallToolResult:
        if args.log_level != "off" and not isinstance(
            client.server_capabilities.logging, UnsetType
        ):
            await client.set_logging_level(args.log_level)
        try:
            if getattr(args, "task", False):
                handle = await client.call_tool(
                    args.tool, arguments, on_progress=feedback.progress, task=True
                )
                return await follow_task(handle)
            return await client.call_tool(args.tool, arguments, on_progress=feedback.progress)
        finally:
            feedback.close()

    status, result = run_session(args, call, on_log=feedback.log)
    if result is None:
        return status
    failed = result.is_error is True
    if args.json:
        print(pretty(result))
    else:
        text = render_call(result)
        if text:
            print(text, file=sys.stderr if failed else sys.stdout)
    return 1 if failed else 0


async def fetch_listing(client: Client, kind: str) -> dict[str, list[Any]]:
    """Every item of ``kind`` ("tools", "resources", "prompts") the server offers, by
    result field (resources come with ``resourceTemplates``); none if it does not
    declare the capability."""
    capabilities = client.server_capabilities
    if kind == "tools":
        offered = not isinstance(capabilities.tools, UnsetType)
        return {"tools": [tool async for tool in client.iter_tools()] if offered else []}
    if kind == "prompts":
        offered = not isinstance(capabilities.prompts, UnsetType)
        return {"prompts": [prompt async for prompt in client.iter_prompts()] if offered else []}
    if isinstance(capabilities.resources, UnsetType):
        return {"resources": [], "resourceTemplates": []}
    return {
        "resources": [resource async for resource in client.iter_resources()],
        "resourceTemplates": [t async for t in client.iter_resource_templates()],
    }


def run_list(args: argparse.Namespace) -> int:
    """``mcp-core list SERVER [KIND]``: list a server's tools, resources or prompts."""

    async def fetch(client: Client) -> dict[str, list[Any]]:
        return await fetch_listing(client, args.kind)

    status, listing = run_session(args, fetch)
    if listing is None:
        return status
    if args.json:
        print(pretty(listing))
        return 0
    lines = list_lines(args.kind, listing)
    if lines:
        print("\n".join(lines))
    else:
        print(f"(the server offers no {args.kind})", file=sys.stderr)
    return 0


def run_read(args: argparse.Namespace) -> int:
    """``mcp-core read SERVER URI``: read one resource and print its contents."""

    async def read(client: Client) -> ReadResourceResult:
        return await client.read_resource(args.uri)

    status, result = run_session(args, read)
    if result is None:
        return status
    if args.json:
        print(pretty(result))
    elif text := render_read(result):
        print(text)
    return 0


def run_prompt(args: argparse.Namespace) -> int:
    """``mcp-core prompt SERVER NAME``: get a prompt, its arguments filled in, and print it."""
    try:
        arguments = parse_prompt_arguments(args.arg or [], args.pairs)
    except UsageError as exc:
        error(str(exc))
        return 2

    async def get(client: Client) -> GetPromptResult:
        return await client.get_prompt(args.name, arguments)

    status, result = run_session(args, get)
    if result is None:
        return status
    if args.json:
        print(pretty(result))
    elif text := render_prompt(result):
        print(text)
    return 0
