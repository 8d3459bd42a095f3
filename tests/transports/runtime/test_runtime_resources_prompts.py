"""Resources, resource templates, prompts and completion end to end over the
in-memory pipe, in both eras and backends."""

from __future__ import annotations

import base64
from typing import Any

import msgspec
import pytest
from runtime_helpers import BOTH_ERAS, connected, text

from mcp_core import LocalProtocolError, McpError, ResourceNotFoundError, Server
from mcp_core.types import (
    CompletionArgument,
    PromptMessage,
    PromptReference,
    ResourceTemplateReference,
    TextContent,
)
from mcp_core.wire import INTERNAL_ERROR, INVALID_PARAMS, RESOURCE_NOT_FOUND

pytestmark = [pytest.mark.anyio, BOTH_ERAS]

NOT_FOUND = {"legacy": RESOURCE_NOT_FOUND, "modern": INVALID_PARAMS}
"""resources/read of an unknown URI: -32002 up to 2025-11-25, -32602 in 2026-07-28
(server/resources.mdx "Error Handling")."""

USERS = {1: "Ada", 2: "Grace"}


def resource_server() -> Server:
    server = Server("resources", "1.0")

    @server.resource("config://app", mime_type="application/toml", description="Settings.")
    def config() -> str:
        return "debug = true"

    @server.resource("logo://small")
    def logo() -> bytes:
        return b"\x00\x01\x02"

    @server.resource("stats://now")
    def stats() -> dict[str, int]:
        return {"users": len(USERS)}

    @server.resource("users://{user_id}/profile", name="profile")
    def profile(user_id: int) -> dict[str, Any]:
        """A user's profile."""
        if user_id not in USERS:
            raise ResourceNotFoundError(f"no user {user_id}")
        return {"id": user_id, "name": USERS[user_id]}

    @server.resource("files://{+path}", mime_type="text/plain")
    def file(path: str) -> str:
        return f"contents of {path}"

    @server.resource("search://items{?q,limit}")
    def search(q: str, limit: int = 10) -> str:
        return f"{q}:{limit}"

    @server.resource("broken://thing")
    def broken() -> str:
        raise OSError("disk on fire")

    return server


@pytest.mark.parametrize("objects", [False, True])
async def test_static_resources(era: str, objects: bool) -> None:
    async with connected(resource_server(), era, objects=objects) as client:
        (config,) = (await client.read_resource("config://app")).contents
        assert (config.uri, config.mime_type, config.text) == (
            "config://app",
            "application/toml",
            "debug = true",
        )
        (logo,) = (await client.read_resource("logo://small")).contents
        assert logo.mime_type == "application/octet-stream"
        assert base64.b64decode(logo.blob) == b"\x00\x01\x02"  # type: ignore[arg-type]
        (stats,) = (await client.read_resource("stats://now")).contents
        assert stats.mime_type == "application/json"
        assert msgspec.json.decode(stats.text) == {"users": 2}  # type: ignore[arg-type]


@pytest.mark.parametrize("objects", [False, True])
async def test_templates_match_rfc6570(era: str, objects: bool) -> None:
    async with connected(resource_server(), era, objects=objects) as client:
        (ada,) = (await client.read_resource("users://1/profile")).contents
        assert ada.uri == "users://1/profile"
        assert msgspec.json.decode(ada.text) == {"id": 1, "name": "Ada"}  # type: ignore[arg-type]

        # {+path} keeps reserved characters: the whole path is one value.
        (deep,) = (await client.read_resource("files://docs/a%20b/c.txt")).contents
        assert (deep.text, deep.mime_type) == ("contents of docs/a b/c.txt", "text/plain")

        # Form-style query, in any order, with an optional variable.
        (found,) = (await client.read_resource("search://items?limit=3&q=cats")).contents
        assert found.text == "cats:3"
        (default,) = (await client.read_resource("search://items?q=dogs")).contents
        assert default.text == "dogs:10"


@pytest.mark.parametrize(
    "uri",
    [
        "nothing://here",  # matches nothing
        "users://ada/profile",  # matches the template, but "ada" is not an int
        "users://1/profile/extra",  # the whole URI must match
        "users://7/profile",  # the handler says there is no such user
    ],
)
async def test_resource_not_found_code_per_era(era: str, uri: str) -> None:
    async with connected(resource_server(), era) as client:
        with pytest.raises(McpError) as missing:
            await client.read_resource(uri)
        assert missing.value.code == NOT_FOUND[era]
        assert missing.value.data == {"uri": uri}
        # The connection goes on.
        assert (await client.read_resource("config://app")).contents[0].text == "debug = true"


async def test_a_failing_resource_is_an_internal_error(era: str) -> None:
    async with connected(resource_server(), era) as client:
        with pytest.raises(McpError) as broken:
            await client.read_resource("broken://thing")
        assert broken.value.code == INTERNAL_ERROR
        assert "disk on fire" in broken.value.message


async def test_resource_and_template_lists(era: str) -> None:
    async with connected(resource_server(), era) as client:
        resources = (await client.list_resources()).resources
        assert [(r.uri, r.name) for r in resources] == [
            ("config://app", "config"),
            ("logo://small", "logo"),
            ("stats://now", "stats"),
            ("broken://thing", "broken"),
        ]
        assert resources[0].description == "Settings."
        assert resources[0].mime_type == "application/toml"

        templates = [t async for t in client.iter_resource_templates()]
        assert [(t.uri_template, t.name) for t in templates] == [
            ("users://{user_id}/profile", "profile"),
            ("files://{+path}", "file"),
            ("search://items{?q,limit}", "search"),
        ]
        assert templates[0].description == "A user's profile."
        assert [r.uri async for r in client.iter_resources()] == [r.uri for r in resources]


def paged_resource_server() -> Server:
    server = Server("paged", "1.0", page_size=2)
    for index in range(5):
        server.add_resource(lambda n=index: str(n), f"item://{index}", name=f"item{index}")
        server.add_resource(lambda n: n, f"tpl{index}://{{n}}", name=f"tpl{index}")
    return server


async def test_resource_lists_paginate(era: str) -> None:
    async with connected(paged_resource_server(), era) as client:
        first = await client.list_resources()
        assert [r.uri for r in first.resources] == ["item://0", "item://1"]
        assert isinstance(first.next_cursor, str)
        assert [r.name async for r in client.iter_resources()] == [f"item{i}" for i in range(5)]
        assert [t.name async for t in client.iter_resource_templates()] == [
            f"tpl{i}" for i in range(5)
        ]
        assert (await client.read_resource("tpl3://x")).contents[0].text == "x"


# --- prompts ---------------------------------------------------------------------------


def prompt_server() -> Server:
    server = Server("prompts", "1.0")

    @server.prompt
    def review(code: str, language: str = "python") -> str:
        """Review some code.

        Args:
            code: The code to review.
            language: What it is written in.
        """
        return f"Please review this {language}:\n{code}"

    @server.prompt(name="dialogue", description="A short exchange.")
    def conversation(topic: str, turns: int) -> list[Any]:
        messages: list[Any] = []
        for turn in range(turns):
            role = "user" if turn % 2 == 0 else "assistant"
            messages.append(PromptMessage(role=role, content=TextContent(text=f"{topic} {turn}")))
        return messages

    @server.prompt
    def fragile() -> str:
        raise KeyError("missing template")

    @server.completion
    def complete(ref: Any, argument: CompletionArgument, context: dict[str, str]) -> list[str]:
        if isinstance(ref, PromptReference):
            options = ["python", "pascal", "perl", "rust"]
        else:
            options = [f"{context.get('prefix', '')}{n}" for n in (1, 2, 3)]
        return [option for option in options if option.startswith(argument.value)]

    return server


@pytest.mark.parametrize("objects", [False, True])
async def test_prompts_with_arguments(era: str, objects: bool) -> None:
    async with connected(prompt_server(), era, objects=objects) as client:
        prompts = {p.name: p for p in (await client.list_prompts()).prompts}
        assert list(prompts) == ["review", "dialogue", "fragile"]
        review = prompts["review"]
        assert review.description == "Review some code."
        assert [(a.name, a.description, a.required) for a in review.arguments] == [  # type: ignore[union-attr]
            ("code", "The code to review.", True),
            ("language", "What it is written in.", False),
        ]

        got = await client.get_prompt("review", {"code": "x = 1"})
        assert got.description == "Review some code."
        (message,) = got.messages
        assert message.role == "user"
        assert text(message.content) == "Please review this python:\nx = 1"

        # Arguments are strings on the wire, converted to the parameter types.
        dialogue = await client.get_prompt("dialogue", {"topic": "rain", "turns": "3"})
        assert dialogue.description == "A short exchange."
        assert [(m.role, text(m.content)) for m in dialogue.messages] == [
            ("user", "rain 0"),
            ("assistant", "rain 1"),
            ("user", "rain 2"),
        ]


async def test_prompt_errors(era: str) -> None:
    async with connected(prompt_server(), era) as client:
        with pytest.raises(McpError) as unknown:
            await client.get_prompt("nope")
        assert unknown.value.code == INVALID_PARAMS
        with pytest.raises(McpError) as missing:
            await client.get_prompt("review", {"language": "c"})
        assert missing.value.code == INVALID_PARAMS
        with pytest.raises(McpError) as wrong:
            await client.get_prompt("dialogue", {"topic": "x", "turns": "many"})
        assert wrong.value.code == INVALID_PARAMS
        # A plain exception in a prompt is an internal error; the connection goes on.
        with pytest.raises(McpError) as fragile:
            await client.get_prompt("fragile")
        assert fragile.value.code == INTERNAL_ERROR
        assert "missing template" in fragile.value.message
        assert [p.name async for p in client.iter_prompts()] == ["review", "dialogue", "fragile"]


@pytest.mark.parametrize("objects", [False, True])
async def test_completion(era: str, objects: bool) -> None:
    async with connected(prompt_server(), era, objects=objects) as client:
        languages = await client.complete(PromptReference(name="review"), "language", "p")
        assert languages.completion.values == ["python", "pascal", "perl"]
        assert (languages.completion.total, languages.completion.has_more) == (3, False)

        ids = await client.complete(
            ResourceTemplateReference(uri="users://{user_id}/profile"),
            "user_id",
            "u",
            context={"prefix": "u"},
        )
        assert ids.completion.values == ["u1", "u2", "u3"]


async def test_completion_without_a_handler(era: str) -> None:
    async with connected(resource_server(), era) as client:
        # The server did not declare completions, so the client will not even ask.
        assert client.server_capabilities.completions is msgspec.UNSET
        with pytest.raises(LocalProtocolError, match="completions"):
            await client.complete(PromptReference(name="review"), "language", "p")
        # The connection goes on.
        assert (await client.read_resource("config://app")).contents[0].text == "debug = true"
