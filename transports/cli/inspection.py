"""``mcp-core inspect SERVER``: everything a server says about itself, in one go.

Its name and version, the protocol revision and era the session settled on, its
capabilities and instructions, then every tool with its input schema, every
resource, resource template and prompt (all pages). ``--json`` prints the same as
one JSON object, the lists under their result field names.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

import msgspec
from msgspec import UnsetType

from mcp_core.types import Prompt

from ..client import Client
from .client import fetch_listing, list_lines, pretty
from .connect import run_session

__all__ = ["capability_names", "inspect_lines", "run_inspect"]


async def _survey(client: Client) -> dict[str, Any]:
    info = client.server_info
    instructions = client.instructions
    found: dict[str, Any] = {
        "serverInfo": None if info is None else msgspec.to_builtins(info),
        "protocolVersion": client.revision,
        "era": client.era,
        "capabilities": msgspec.to_builtins(client.server_capabilities),
    }
    if instructions:
        found["instructions"] = instructions
    for kind in ("tools", "resources", "prompts"):
        found.update(await fetch_listing(client, kind))
    return found


def capability_names(capabilities: dict[str, Any]) -> list[str]:
    """Capabilities as words: ``resources (subscribe, listChanged)``, ``tools``..."""
    names = []
    for name, value in sorted(capabilities.items()):
        flags = [key for key, on in value.items() if on is True] if isinstance(value, dict) else []
        names.append(f"{name} ({', '.join(flags)})" if flags else name)
    return names


def _prompt_arguments(prompt: Prompt) -> str:
    if isinstance(prompt.arguments, UnsetType) or not prompt.arguments:
        return ""
    return ", ".join(
        f"{argument.name} (required)" if argument.required is True else argument.name
        for argument in prompt.arguments
    )


def inspect_lines(found: dict[str, Any]) -> list[str]:
    """The report for people: a header, then one section per kind."""
    info = found["serverInfo"] or {}
    title = f" ({info['title']})" if info.get("title") else ""
    lines = [
        f"{info.get('name', '?')} {info.get('version', '?')}{title}",
        f"protocol: {found['protocolVersion']} ({found['era']} era)",
        f"capabilities: {', '.join(capability_names(found['capabilities'])) or 'none'}",
    ]
    if "instructions" in found:
        lines.append(f"instructions: {found['instructions']}")
    tools = found["tools"]
    lines += ["", f"tools ({len(tools)}):"]
    for tool, line in zip(tools, list_lines("tools", {"tools": tools}), strict=True):
        lines += [f"  {line}", f"    input: {json.dumps(tool.input_schema)}"]
    resources = {"resources": found["resources"], "resourceTemplates": []}
    lines += ["", f"resources ({len(found['resources'])}):"]
    lines += [f"  {line}" for line in list_lines("resources", resources)]
    templates = {"resources": [], "resourceTemplates": found["resourceTemplates"]}
    lines += ["", f"resource templates ({len(found['resourceTemplates'])}):"]
    lines += [f"  {line}" for line in list_lines("resources", templates)]
    prompts = found["prompts"]
    lines += ["", f"prompts ({len(prompts)}):"]
    for prompt, line in zip(prompts, list_lines("prompts", {"prompts": prompts}), strict=True):
        lines.append(f"  {line}")
        if arguments := _prompt_arguments(prompt):
            lines.append(f"    arguments: {arguments}")
    return lines


def run_inspect(args: argparse.Namespace) -> int:
    """``mcp-core inspect SERVER``: print what the server offers."""
    status, found = run_session(args, _survey)
    if found is None:
        return status
    if args.json:
        print(pretty(found))
    else:
        print("\n".join(inspect_lines(found)))
    return 0
