"""The handler Context: progress, logging, and asking the client in both eras (MRTR)."""

from __future__ import annotations

from typing import Any

import anyio
import msgspec
import pytest
from server_app_helpers import KEY, LEGACY, MODERN, FakePeer, dispatch, wire

from mcp_core.server.app import Server
from mcp_core.server.context import Context, McpError
from mcp_core.types.client import (
    CreateMessageRequestParams,
    ElicitRequestParams,
    InputRequiredResult,
)
from mcp_core.types.server import CallToolResult
from mcp_core.wire.errors import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    MISSING_REQUIRED_CLIENT_CAPABILITY,
)

ELICIT: dict[str, Any] = {"elicitation": {}}
EVERYTHING: dict[str, Any] = {"elicitation": {}, "sampling": {}, "roots": {}}
SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def make_server() -> Server:
    return Server("test", "1.0", state_key=KEY)


# --- progress and logging ------------------------------------------------------------------------


@pytest.mark.anyio
async def test_progress_only_with_a_token() -> None:
    server = make_server()

    @server.tool
    async def work(ctx: Context) -> str:
        await ctx.report_progress(1, 2, "half")
        await ctx.report_progress(2)
        return "done"

    silent = FakePeer()
    await dispatch(server, "tools/call", {"name": "work"}, peer=silent)
    assert silent.progress == []
    peer = FakePeer()
    await dispatch(server, "tools/call", {"name": "work"}, peer=peer, progress_token="p")
    assert peer.progress == [(1, 2, "half"), (2, None, None)]


@pytest.mark.parametrize(
    ("revision", "level", "expected"),
    [
        (LEGACY, None, ["debug", "info", "warning", "error", "alert"]),
        (LEGACY, "warning", ["warning", "error", "alert"]),
        (MODERN, None, []),
        (MODERN, "error", ["error", "alert"]),
    ],
)
@pytest.mark.anyio
async def test_log_level_filtering(revision: str, level: str | None, expected: list[str]) -> None:
    server = make_server()

    @server.tool
    async def chatty(ctx: Context) -> None:
        await ctx.debug("d")
        await ctx.info("i", logger="app")
        await ctx.warning("w")
        await ctx.error({"e": 1})
        await ctx.log("alert", "a")

    peer = FakePeer()
    result = await dispatch(
        server, "tools/call", {"name": "chatty"}, peer=peer, revision=revision, log_level=level
    )
    assert result.is_error is msgspec.UNSET
    assert [entry[0] for entry in peer.logs] == expected
    if level is None and revision == LEGACY:
        assert peer.logs[1] == ("info", "i", "app")


@pytest.mark.anyio
async def test_unknown_log_level_is_a_tool_error() -> None:
    server = make_server()

    @server.tool
    async def bad(ctx: Context) -> None:
        await ctx.log("loud", "x")  # type: ignore[arg-type]

    result = await dispatch(server, "tools/call", {"name": "bad"})
    assert result.is_error is True


def test_context_accessors() -> None:
    from server_app_helpers import make_event

    event = make_event("tools/list", revision=MODERN, request_id=7)
    ctx = Context(event, FakePeer(), now=5.0)
    assert (ctx.request_id, ctx.method, ctx.revision, ctx.modern, ctx.now) == (
        7,
        "tools/list",
        MODERN,
        True,
        5.0,
    )
    assert ctx.client.log_level is None


# --- legacy: server-to-client requests through the Peer ------------------------------------------


@pytest.mark.anyio
async def test_legacy_sample_elicit_and_roots_use_the_peer() -> None:
    server = make_server()

    @server.tool
    async def ask(ctx: Context) -> str:
        sampled = await ctx.sample("What is 2+2?", 10, system_prompt="Be brief.")
        answer = await ctx.elicit("Your name?", SCHEMA)
        roots = await ctx.list_roots()
        return f"{sampled.content.text} {answer.content['name']} {roots.roots[0].uri}"  # type: ignore[union-attr,index]

    peer = FakePeer(
        {
            "sampling/createMessage": {
                "role": "assistant",
                "content": {"type": "text", "text": "4"},
                "model": "m",
            },
            "elicitation/create": {"action": "accept", "content": {"name": "Ada"}},
            "roots/list": {"roots": [{"uri": "file:///home"}]},
        }
    )
    result = await dispatch(
        server, "tools/call", {"name": "ask"}, peer=peer, capabilities=EVERYTHING
    )
    assert result.content[0].text == "4 Ada file:///home"
    methods = [method for method, _ in peer.requests]
    assert methods == ["sampling/createMessage", "elicitation/create", "roots/list"]
    sampling = peer.requests[0][1]
    assert isinstance(sampling, CreateMessageRequestParams)
    assert wire(sampling) == {
        "messages": [{"role": "user", "content": {"type": "text", "text": "What is 2+2?"}}],
        "maxTokens": 10,
        "systemPrompt": "Be brief.",
    }
    assert isinstance(peer.requests[1][1], ElicitRequestParams)
    assert peer.requests[2][1] is msgspec.UNSET


@pytest.mark.parametrize(
    ("revision", "code"), [(LEGACY, INVALID_REQUEST), (MODERN, MISSING_REQUIRED_CLIENT_CAPABILITY)]
)
@pytest.mark.anyio
async def test_missing_client_capability(revision: str, code: int) -> None:
    server = make_server()

    @server.tool
    async def ask(ctx: Context) -> str:
        try:
            await ctx.elicit("Name?", SCHEMA)
        except Exception:
            raise
        return "unreachable"

    @server.tool
    async def sample(ctx: Context) -> None:
        await ctx.sample("x", 1)

    @server.tool
    async def roots(ctx: Context) -> None:
        await ctx.list_roots()

    # A client with URL-mode elicitation only lacks the form sub-capability.
    cases: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
        ("ask", {}, {"elicitation": {}}),
        ("ask", {"elicitation": {"url": {}}}, {"elicitation": {"form": {}}}),
        ("sample", ELICIT, {"sampling": {}}),
        ("roots", ELICIT, {"roots": {}}),
    ]
    for name, capabilities, missing in cases:
        with pytest.raises(McpError) as caught:
            await dispatch(
                server,
                "tools/call",
                {"name": name},
                revision=revision,
                capabilities=capabilities,
            )
        assert caught.value.code == code
        assert caught.value.data == {"requiredCapabilities": missing}


# --- modern: multi round-trip requests -----------------------------------------------------------


def _retry(first: InputRequiredResult, name: str, responses: dict[str, Any]) -> dict[str, Any]:
    return {
        "name": name,
        "inputResponses": responses,
        "requestState": first.request_state,
    }


@pytest.mark.parametrize("anyio_backend", ["asyncio", "trio"])
@pytest.mark.anyio
async def test_mrtr_first_call_asks_and_retry_completes() -> None:
    server = make_server()
    runs: list[int] = []

    @server.tool
    async def greet(greeting: str, ctx: Context) -> str:
        runs.append(1)
        await anyio.sleep(0)
        answer = await ctx.elicit("Your name?", SCHEMA)
        return f"{greeting}, {answer.content['name']}"  # type: ignore[index]

    params = {"name": "greet", "arguments": {"greeting": "Hello"}}
    first = await dispatch(server, "tools/call", params, revision=MODERN, capabilities=ELICIT)
    assert isinstance(first, InputRequiredResult)
    body = wire(first)
    assert body["resultType"] == "input_required"
    assert body["inputRequests"] == {
        "1": {
            "method": "elicitation/create",
            "params": {"message": "Your name?", "requestedSchema": SCHEMA},
        }
    }
    retry = {
        **params,
        **_retry(first, "greet", {"1": {"action": "accept", "content": {"name": "Ada"}}}),
    }
    final = await dispatch(server, "tools/call", retry, revision=MODERN, capabilities=ELICIT)
    assert isinstance(final, CallToolResult)
    assert final.content[0].text == "Hello, Ada"  # type: ignore[union-attr]
    assert len(runs) == 2


@pytest.mark.anyio
async def test_mrtr_two_step_and_missing_answer() -> None:
    server = make_server()
    runs: list[int] = []

    @server.tool
    async def plan(ctx: Context) -> str:
        runs.append(1)
        try:  # a broad except in the handler cannot swallow the input request
            name = await ctx.elicit("Name?", SCHEMA)
        except Exception:  # pragma: no cover - must not happen
            return "swallowed"
        sampled = await ctx.sample(f"Plan for {name.content['name']}", 50)  # type: ignore[index]
        return sampled.content.text  # type: ignore[union-attr]

    options: dict[str, Any] = {"revision": MODERN, "capabilities": EVERYTHING}
    first = await dispatch(server, "tools/call", {"name": "plan"}, **options)
    assert list(first.input_requests) == ["1"]
    again = await dispatch(server, "tools/call", _retry(first, "plan", {}), **options)
    assert list(again.input_requests) == ["1"], "an unanswered ask is asked again"
    second = await dispatch(
        server,
        "tools/call",
        _retry(again, "plan", {"1": {"action": "accept", "content": {"name": "Ada"}}}),
        **options,
    )
    assert list(second.input_requests) == ["2"]
    assert wire(second)["inputRequests"]["2"]["method"] == "sampling/createMessage"
    reply = {"role": "assistant", "content": {"type": "text", "text": "step 1"}, "model": "m"}
    final = await dispatch(
        server, "tools/call", _retry(second, "plan", {"2": reply, "9": {"x": 1}}), **options
    )
    assert final.content[0].text == "step 1"
    assert len(runs) == 4


@pytest.mark.anyio
async def test_mrtr_rejects_tampered_and_foreign_state() -> None:
    server = make_server()

    @server.tool
    async def one(x: int, ctx: Context) -> str:
        await ctx.list_roots()
        return "one"

    @server.tool
    async def two(x: int, ctx: Context) -> str:
        return "two"

    options: dict[str, Any] = {"revision": MODERN, "capabilities": {"roots": {}}}
    first = await dispatch(server, "tools/call", {"name": "one", "arguments": {"x": 1}}, **options)
    state = first.request_state
    tampered = state[:30] + ("A" if state[30] != "A" else "B") + state[31:]
    responses: dict[str, Any] = {"1": {"roots": []}}
    cases = [
        ({"name": "one", "arguments": {"x": 1}}, tampered, "bad signature"),
        ({"name": "two", "arguments": {"x": 1}}, state, "wrong request"),
        ({"name": "one", "arguments": {"x": 2}}, state, "wrong request"),
        ({"name": "one", "arguments": {"x": 1}}, "not a token", "malformed"),
    ]
    for params, token, reason in cases:
        retry = {**params, "inputResponses": responses, "requestState": token}
        with pytest.raises(McpError) as caught:
            await dispatch(server, "tools/call", retry, **options)
        assert caught.value.code == INVALID_PARAMS
        assert caught.value.message == "invalid requestState"
        assert caught.value.data == {"reason": reason}
    late = {
        "name": "one",
        "arguments": {"x": 1},
        "inputResponses": responses,
        "requestState": state,
    }
    with pytest.raises(McpError) as caught:
        await dispatch(server, "tools/call", late, now=10_000.0, **options)
    assert caught.value.data == {"reason": "expired"}
    other = Server("test", "1.0", state_key=b"o" * 32)
    other.add_tool(one)
    with pytest.raises(McpError) as caught:
        await dispatch(other, "tools/call", late, **options)
    assert caught.value.data == {"reason": "bad signature"}
    done = await dispatch(server, "tools/call", late, **options)
    assert done.content[0].text == "one"


@pytest.mark.anyio
async def test_mrtr_state_is_single_use_and_bound_to_the_principal() -> None:
    def build(**options: Any) -> Server:
        server = Server("test", "1.0", state_key=KEY, **options)

        @server.tool
        async def rooted(ctx: Context) -> str:
            return (await ctx.list_roots()).roots[0].uri

        return server

    options: dict[str, Any] = {"revision": MODERN, "capabilities": {"roots": {}}}
    answer = {"1": {"roots": [{"uri": "file:///r"}]}}
    server = build()
    first = await dispatch(server, "tools/call", {"name": "rooted"}, principal="ada", **options)
    retry = _retry(first, "rooted", answer)
    with pytest.raises(McpError) as caught:
        await dispatch(server, "tools/call", retry, principal="bob", **options)
    assert caught.value.data == {"reason": "wrong principal"}
    done = await dispatch(server, "tools/call", retry, principal="ada", **options)
    assert done.content[0].text == "file:///r"
    with pytest.raises(McpError) as caught:
        await dispatch(server, "tools/call", retry, principal="ada", **options)
    assert caught.value.code == INVALID_PARAMS
    assert caught.value.data == {"reason": "replayed"}

    reusable = build(replay_guard=None)
    first = await dispatch(reusable, "tools/call", {"name": "rooted"}, **options)
    for _ in range(2):
        again = await dispatch(reusable, "tools/call", _retry(first, "rooted", answer), **options)
        assert again.content[0].text == "file:///r"


@pytest.mark.anyio
async def test_mrtr_invalid_response_and_divergent_handler() -> None:
    server = make_server()
    asks = ["elicit"]

    @server.tool
    async def fickle(ctx: Context) -> str:
        if asks.pop(0) == "elicit":
            await ctx.elicit("Name?", SCHEMA)
        else:
            await ctx.list_roots()
        return "ok"

    options: dict[str, Any] = {"revision": MODERN, "capabilities": EVERYTHING}
    first = await dispatch(server, "tools/call", {"name": "fickle"}, **options)
    asks.append("elicit")
    with pytest.raises(McpError) as caught:
        await dispatch(
            server, "tools/call", _retry(first, "fickle", {"1": {"action": "maybe"}}), **options
        )
    assert caught.value.code == INVALID_PARAMS
    asks.append("elicit")
    first = await dispatch(server, "tools/call", {"name": "fickle"}, **options)
    asks.append("roots")
    with pytest.raises(McpError) as caught:
        await dispatch(
            server, "tools/call", _retry(first, "fickle", {"1": {"action": "cancel"}}), **options
        )
    assert caught.value.code == INTERNAL_ERROR
    assert "same questions" in caught.value.message


@pytest.mark.anyio
async def test_mrtr_in_prompts_and_resources() -> None:
    server = make_server()

    @server.prompt
    async def named(topic: str, ctx: Context) -> str:
        answer = await ctx.elicit("Name?", SCHEMA)
        return f"{topic} for {answer.content['name']}"  # type: ignore[index]

    @server.resource("roots://first")
    async def first_root(ctx: Context) -> str:
        return (await ctx.list_roots()).roots[0].uri

    options: dict[str, Any] = {"revision": MODERN, "capabilities": EVERYTHING}
    params = {"name": "named", "arguments": {"topic": "poem"}}
    asked = await dispatch(server, "prompts/get", params, **options)
    assert isinstance(asked, InputRequiredResult)
    answer = {"1": {"action": "accept", "content": {"name": "Ada"}}}
    retry = {**params, "inputResponses": answer, "requestState": asked.request_state}
    result = await dispatch(server, "prompts/get", retry, **options)
    assert result.messages[0].content.text == "poem for Ada"

    asked = await dispatch(server, "resources/read", {"uri": "roots://first"}, **options)
    assert wire(asked)["inputRequests"] == {"1": {"method": "roots/list"}}
    retry = {
        "uri": "roots://first",
        "inputResponses": {"1": {"roots": [{"uri": "file:///r"}]}},
        "requestState": asked.request_state,
    }
    result = await dispatch(server, "resources/read", retry, **options)
    assert result.contents[0].text == "file:///r"


@pytest.mark.anyio
async def test_modern_asks_outside_mrtr_methods_fail() -> None:
    server = make_server()

    @server.completion
    async def complete(ref: Any, argument: Any, context: Any, ctx: Context) -> list[str]:
        await ctx.list_roots()
        return []

    params = {
        "ref": {"type": "ref/prompt", "name": "p"},
        "argument": {"name": "a", "value": ""},
    }
    with pytest.raises(McpError) as caught:
        await dispatch(
            server, "completion/complete", params, revision=MODERN, capabilities=EVERYTHING
        )
    assert caught.value.code == INTERNAL_ERROR
    assert "roots/list" in caught.value.message


@pytest.mark.anyio
async def test_advanced_call_tool_handler_can_ask_too() -> None:
    server = make_server()

    @server.on_call_tool
    async def call(params: Any, ctx: Context) -> CallToolResult:
        roots = await ctx.list_roots()
        return CallToolResult(content=[], structured_content={"n": len(roots.roots)})

    options: dict[str, Any] = {"revision": MODERN, "capabilities": {"roots": {}}}
    asked = await dispatch(server, "tools/call", {"name": "any"}, **options)
    retry = _retry(asked, "any", {"1": {"roots": [{"uri": "file:///a"}]}})
    assert (await dispatch(server, "tools/call", retry, **options)).structured_content == {"n": 1}
