"""Multi round-trip requests with named input keys and several questions at once
(Context.gather), in both eras."""

from __future__ import annotations

import inspect
from typing import Any

import pytest
from server_app_helpers import KEY, LEGACY, MODERN, FakePeer, dispatch, wire

from mcp_core.server.app import Server
from mcp_core.server.context import Context, McpError
from mcp_core.types.client import InputRequiredResult
from mcp_core.types.server import CallToolResult, GetPromptResult
from mcp_core.wire.errors import INVALID_PARAMS, MISSING_REQUIRED_CLIENT_CAPABILITY

EVERYTHING: dict[str, Any] = {"elicitation": {}, "sampling": {}, "roots": {}}
SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
NAME = {"action": "accept", "content": {"name": "Ada"}}
SAMPLED = {"role": "assistant", "content": {"type": "text", "text": "Hi"}, "model": "m"}
ROOTS = {"roots": [{"uri": "file:///r"}]}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def make_server() -> Server:
    server = Server("test", "1.0", state_key=KEY)

    @server.tool
    async def three(ctx: Context) -> str:
        name, said, roots = await ctx.gather(
            ctx.elicit("Name?", SCHEMA, key="user_name"),
            ctx.sample("Greet", 5, key="greeting"),
            ctx.list_roots(key="client_roots"),
        )
        text = said.content.text  # type: ignore[union-attr]
        return f"{text} {name.content['name']} {len(roots.roots)}"  # type: ignore[index]

    @server.tool
    async def rounds(ctx: Context) -> str:
        first = await ctx.elicit("Name?", SCHEMA, key="step1")
        second = await ctx.elicit("Again?", SCHEMA, key="step2")
        return f"{first.content['name']}+{second.content['name']}"  # type: ignore[index]

    @server.prompt
    async def asking(ctx: Context) -> str:
        answer = await ctx.elicit("Context?", SCHEMA, key="user_context")
        return f"about {answer.content['name']}"  # type: ignore[index]

    return server


def retry(first: InputRequiredResult, responses: Any, name: str = "three") -> dict[str, Any]:
    return {"name": name, "inputResponses": responses, "requestState": first.request_state}


async def call(server: Server, params: dict[str, Any], **options: Any) -> Any:
    options.setdefault("revision", MODERN)
    options.setdefault("capabilities", EVERYTHING)
    return await dispatch(server, "tools/call", params, **options)


@pytest.mark.anyio
async def test_gather_asks_every_question_in_one_round_trip() -> None:
    server = make_server()
    first = await call(server, {"name": "three"})
    assert isinstance(first, InputRequiredResult)
    requests = wire(first)["inputRequests"]
    assert list(requests) == ["user_name", "greeting", "client_roots"]
    assert [r["method"] for r in requests.values()] == [
        "elicitation/create",
        "sampling/createMessage",
        "roots/list",
    ]
    answers = {"user_name": NAME, "greeting": SAMPLED, "client_roots": ROOTS, "extra": {"x": 1}}
    final = await call(server, retry(first, answers))
    assert isinstance(final, CallToolResult)
    assert final.content[0].text == "Hi Ada 1"  # type: ignore[union-attr]


@pytest.mark.anyio
async def test_gather_asks_again_only_what_is_missing() -> None:
    server = make_server()
    first = await call(server, {"name": "three"})
    partial = await call(server, retry(first, {"greeting": SAMPLED}))
    assert list(partial.input_requests) == ["user_name", "client_roots"]
    final = await call(server, retry(partial, {"user_name": NAME, "client_roots": ROOTS}))
    assert final.content[0].text == "Hi Ada 1"


@pytest.mark.anyio
async def test_named_keys_over_several_rounds_get_new_states() -> None:
    server = make_server()
    one = await call(server, {"name": "rounds"})
    assert list(one.input_requests) == ["step1"]
    two = await call(server, retry(one, {"step1": NAME}, "rounds"))
    assert list(two.input_requests) == ["step2"] and two.request_state != one.request_state
    done = await call(server, retry(two, {"step2": NAME, "step1": {"x": 1}}, "rounds"))
    assert done.content[0].text == "Ada+Ada"


@pytest.mark.anyio
async def test_answers_without_the_request_state_answer_nothing() -> None:
    # This server sends a requestState with every question, and the client MUST
    # echo it (mrtr.mdx "Client Requirements"); answers without it would bypass
    # the single-use check, so they are ignored and the question is asked again
    # ("Error Handling": re-request rather than fail).
    server = make_server()
    ran: list[str] = []

    @server.tool
    async def confirm(ctx: Context) -> str:
        answer = await ctx.elicit("Delete?", SCHEMA, key="ok")
        ran.append(answer.content["name"])  # type: ignore[index]
        return "deleted"

    first = await call(server, {"name": "confirm"})
    done = await call(server, retry(first, {"ok": NAME}, "confirm"))
    assert isinstance(done, CallToolResult) and ran == ["Ada"]
    for _ in range(2):  # the same answers again, without the (used) state
        again = await call(server, {"name": "confirm", "inputResponses": {"ok": NAME}})
        assert isinstance(again, InputRequiredResult)
        assert list(again.input_requests) == ["ok"] and again.request_state
    assert ran == ["Ada"]
    with pytest.raises(McpError) as caught:  # the used state itself is refused
        await call(server, retry(first, {"ok": NAME}, "confirm"))
    assert caught.value.code == INVALID_PARAMS
    assert ran == ["Ada"]


@pytest.mark.anyio
async def test_a_prompt_asks_with_its_own_key() -> None:
    server = make_server()
    params: dict[str, Any] = {"name": "asking"}
    first = await dispatch(server, "prompts/get", params, revision=MODERN, capabilities=EVERYTHING)
    assert list(first.input_requests) == ["user_context"]
    again = {**params, "inputResponses": {"user_context": NAME}}
    again["requestState"] = first.request_state
    final = await dispatch(server, "prompts/get", again, revision=MODERN, capabilities=EVERYTHING)
    assert isinstance(final, GetPromptResult)
    assert final.messages[0].content.text == "about Ada"  # type: ignore[union-attr]


@pytest.mark.anyio
async def test_gather_in_the_legacy_era_sends_the_requests_in_turn() -> None:
    server = make_server()
    peer = FakePeer(
        {"elicitation/create": NAME, "sampling/createMessage": SAMPLED, "roots/list": ROOTS}
    )
    result = await call(server, {"name": "three"}, revision=LEGACY, peer=peer)
    assert result.content[0].text == "Hi Ada 1"
    assert [method for method, _ in peer.requests] == [
        "elicitation/create",
        "sampling/createMessage",
        "roots/list",
    ]


@pytest.mark.anyio
async def test_gather_fails_on_a_missing_capability_and_closes_the_rest() -> None:
    server = make_server()
    left: list[Any] = []

    @server.tool
    async def needy(ctx: Context) -> str:
        left.append(ctx.list_roots(key="client_roots"))
        await ctx.gather(ctx.elicit("Name?", SCHEMA), left[0])
        return "unreachable"

    with pytest.raises(McpError) as caught:
        await call(server, {"name": "needy"}, capabilities={"roots": {}})
    assert caught.value.code == MISSING_REQUIRED_CLIENT_CAPABILITY
    assert caught.value.data == {"requiredCapabilities": {"elicitation": {}}}
    # The question after the failing one was never awaited: closed, not leaked.
    assert inspect.getcoroutinestate(left[0]) == inspect.CORO_CLOSED
