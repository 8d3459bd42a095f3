"""The 2026-07-28 fixtures of the everything server (examples/everything.py adds
them; this module is a part of that example, not an example of its own).

These are the tools and the prompt that the 2026-07-28 scenarios of the official
conformance suite (``@modelcontextprotocol/conformance`` 0.2.0-alpha.12) call by
name. Most of them show multi round-trip requests (basic/patterns/mrtr.mdx): in
2026-07-28 a handler's questions to the client come back to it as an
InputRequiredResult and the client retries with the answers; up to 2025-11-25 the
same handler code sends server-to-client requests instead. The input request keys
are the ones the scenarios name.

Tools
    test_x_mcp_header(region, priority)     arguments mirrored into Mcp-Param-* headers
    test_missing_capability                 needs sampling: -32021 without it
    test_streaming_elicitation              elicitation, answered on the request's stream
    test_logging_tool                       logs only for a request that set a logLevel
    test_trigger_tool_change                adds or removes ``test_dynamic_tool``
    test_trigger_prompt_change              adds or removes ``test_dynamic_prompt``
    test_input_required_result_elicitation  asks "user_name"
    test_input_required_result_sampling     asks "capital_question"
    test_input_required_result_list_roots   asks "client_roots"
    test_input_required_result_request_state    asks "confirm"; answers "state-ok"
    test_input_required_result_multiple_inputs  asks three questions at once
    test_input_required_result_multi_round  asks "step1", then "step2"
    test_input_required_result_tampered_state   asks "confirm" (the state is sealed)
    test_input_required_result_capabilities     asks only what the client can answer
Prompts
    test_input_required_result_prompt       asks "user_context" before it is built
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Final

import msgspec

from mcp_core import Context, Server
from mcp_core.types import TextContent

__all__ = ["register"]


def _header(name: str) -> msgspec.Meta:
    # 2026-07-28 streamable-http.mdx "Custom Headers": the client mirrors the
    # argument into Mcp-Param-<name>, and the server checks the two agree.
    return msgspec.Meta(extra_json_schema={"x-mcp-header": name})


def _form(**fields: str) -> dict[str, Any]:
    """An elicitation schema of required fields of the given JSON types."""
    return {
        "type": "object",
        "properties": {name: {"type": kind} for name, kind in fields.items()},
        "required": list(fields),
    }


NAME_FORM: Final = _form(name="string")


def _said(result: Any) -> str:
    content = result.content
    return content.text if isinstance(content, TextContent) else json.dumps(str(content))


# --- headers, capabilities, logging --------------------------------------------------------


def test_x_mcp_header(
    region: Annotated[str, _header("Region")],
    priority: Annotated[int, _header("Priority")] = 0,
    query: str = "",
) -> str:
    """Echoes its arguments; region and priority travel in Mcp-Param headers too.

    Args:
        region: a region name (header Mcp-Param-Region).
        priority: a priority (header Mcp-Param-Priority).
        query: not mirrored into a header.
    """
    return f"region={region} priority={priority} query={query}"


async def test_missing_capability(ctx: Context) -> str:
    """Needs the client's sampling capability: without it the call fails with -32021."""
    result = await ctx.sample("Say hello", max_tokens=10)
    return f"LLM response: {_said(result)}"


async def test_streaming_elicitation(ctx: Context) -> str:
    """Asks the user a question; 2026-07-28 answers with an InputRequiredResult on
    the request's own stream, never with a request of the server's."""
    answer = await ctx.elicit("What is your name?", NAME_FORM, key="user_name")
    return f"User response: action={answer.action}, content={json.dumps(answer.content)}"


async def test_logging_tool(ctx: Context) -> str:
    """Logs three messages; a 2026-07-28 request without ``logLevel`` gets none."""
    for text in ("Logging tool started", "Logging tool working", "Logging tool done"):
        await ctx.info(text)
    return "Logging tool completed"


# --- multi round-trip requests -------------------------------------------------------------


async def test_input_required_result_elicitation(ctx: Context) -> str:
    """Asks the user's name (key "user_name")."""
    answer = await ctx.elicit("What is your name?", NAME_FORM, key="user_name")
    name = (answer.content or {}).get("name", "stranger")
    return f"Hello, {name}!"


async def test_input_required_result_sampling(ctx: Context) -> str:
    """Asks the client's model a question (key "capital_question")."""
    result = await ctx.sample("What is the capital of France?", 100, key="capital_question")
    return f"The model said: {_said(result)}"


async def test_input_required_result_list_roots(ctx: Context) -> str:
    """Asks for the client's roots (key "client_roots")."""
    result = await ctx.list_roots(key="client_roots")
    return "Roots: " + ", ".join(root.uri for root in result.roots)


async def test_input_required_result_request_state(ctx: Context) -> str:
    """Asks for a confirmation (key "confirm"); the retry's requestState is checked
    (sealed, bound to this call) before the answer counts."""
    answer = await ctx.elicit("Please confirm", _form(ok="boolean"), key="confirm")
    return f"state-ok: confirmed={(answer.content or {}).get('ok')}"


async def test_input_required_result_multiple_inputs(ctx: Context) -> str:
    """Asks three questions in one round trip: a name, a greeting, the roots."""
    name, greeting, roots = await ctx.gather(
        ctx.elicit("What is your name?", NAME_FORM, key="user_name"),
        ctx.sample("Generate a greeting", 50, key="greeting"),
        ctx.list_roots(key="client_roots"),
    )
    who = (name.content or {}).get("name")
    return f"{_said(greeting)} {who} ({len(roots.roots)} roots)"


async def test_input_required_result_multi_round(ctx: Context) -> str:
    """Asks a name (key "step1"), then a colour (key "step2"): two round trips."""
    name = await ctx.elicit("Step 1: What is your name?", NAME_FORM, key="step1")
    color = await ctx.elicit(
        "Step 2: What is your favorite color?", _form(color="string"), key="step2"
    )
    return f"{(name.content or {}).get('name')} likes {(color.content or {}).get('color')}"


async def test_input_required_result_tampered_state(ctx: Context) -> str:
    """Asks for a confirmation; a retry whose requestState was altered is refused
    (-32602), since the state is sealed."""
    answer = await ctx.elicit("Please confirm", _form(ok="boolean"), key="confirm")
    return f"confirmed={(answer.content or {}).get('ok')}"


async def test_input_required_result_capabilities(ctx: Context) -> str:
    """Asks only what the client declared it can answer (mrtr.mdx: never an input
    request of an undeclared capability)."""
    capabilities = ctx.client.capabilities
    asks: list[Any] = []
    if capabilities.sampling is not msgspec.UNSET:
        asks.append(ctx.sample("Pick a number", 10, key="number"))
    if capabilities.elicitation is not msgspec.UNSET:
        asks.append(ctx.elicit("What is your name?", NAME_FORM, key="user_name"))
    if capabilities.roots is not msgspec.UNSET:
        asks.append(ctx.list_roots(key="client_roots"))
    answers = await ctx.gather(*asks)
    return f"{len(answers)} answers"


async def test_input_required_result_prompt(ctx: Context) -> str:
    """A prompt that asks what context to use (key "user_context") before it is built."""
    answer = await ctx.elicit(
        "What context should the prompt use?", _form(context="string"), key="user_context"
    )
    return f"Use this context: {(answer.content or {}).get('context')}"


# --- list changes --------------------------------------------------------------------------


def test_dynamic_tool() -> str:
    """A tool that comes and goes."""
    return "dynamic"


def test_dynamic_prompt() -> str:
    """A prompt that comes and goes."""
    return "A dynamic prompt."


TOOLS: Final = (
    test_x_mcp_header,
    test_missing_capability,
    test_streaming_elicitation,
    test_logging_tool,
    test_input_required_result_elicitation,
    test_input_required_result_sampling,
    test_input_required_result_list_roots,
    test_input_required_result_request_state,
    test_input_required_result_multiple_inputs,
    test_input_required_result_multi_round,
    test_input_required_result_tampered_state,
    test_input_required_result_capabilities,
)


def register(server: Server) -> None:
    """Add the fixtures to ``server``."""
    for tool in TOOLS:
        server.add_tool(tool)
    server.add_prompt(test_input_required_result_prompt)

    def test_trigger_tool_change() -> str:
        """Adds test_dynamic_tool, or removes it when present: the tool list changes."""
        if any(tool.name == "test_dynamic_tool" for tool in server.tools):
            server.remove_tool("test_dynamic_tool")
            return "removed test_dynamic_tool"
        server.add_tool(test_dynamic_tool)
        return "added test_dynamic_tool"

    def test_trigger_prompt_change() -> str:
        """Adds test_dynamic_prompt, or removes it when present: the prompt list changes."""
        if any(prompt.name == "test_dynamic_prompt" for prompt in server.prompts):
            server.remove_prompt("test_dynamic_prompt")
            return "removed test_dynamic_prompt"
        server.add_prompt(test_dynamic_prompt)
        return "added test_dynamic_prompt"

    server.add_tool(test_trigger_tool_change)
    server.add_tool(test_trigger_prompt_change)
