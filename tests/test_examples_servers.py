"""The example servers in examples/, through a real Client over the in-memory pipe,
in both protocol eras and on both backends.

Each test loads a fresh copy of its example, so state (the counter of everything.py)
does not leak between tests. What the examples do as programs (stdio, the command
line) is tested in test_cli_commands.py.
"""

from __future__ import annotations

import base64
import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from runtime_helpers import BOTH_ERAS, Inbox, anyio_backend, connected, only_text, text  # noqa: F401

from mcp_core import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    RESOURCE_NOT_FOUND,
    McpError,
    Server,
)
from mcp_core.types import (
    AudioContent,
    CallToolResult,
    CreateMessageRequestParams,
    CreateMessageResult,
    ElicitRequestParams,
    ElicitResult,
    EmbeddedResource,
    ImageContent,
    PromptReference,
    ResourceLink,
    ResourceTemplateReference,
    Root,
    TextContent,
)

pytestmark = [pytest.mark.anyio, BOTH_ERAS]

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def load(name: str) -> ModuleType:
    """A fresh copy of examples/<name>.py (its ``__main__`` block does not run)."""
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def server_of(name: str) -> Server:
    server = load(name).server
    assert isinstance(server, Server)
    return server


def structured(result: CallToolResult) -> Any:
    assert result.is_error is not True, result.content
    # The same data as text, for clients that only read content.
    assert json.loads(only_text(result)) == result.structured_content or (
        result.structured_content == {"result": json.loads(only_text(result))}
    )
    return result.structured_content


def failed(result: CallToolResult) -> str:
    assert result.is_error is True
    return only_text(result)


# --- hello --------------------------------------------------------------------------------


async def test_hello(era: str) -> None:
    async with connected(server_of("hello"), era) as client:
        (tool,) = (await client.list_tools()).tools
        assert tool.name == "HelloTool"
        assert tool.input_schema["required"] == ["value"]
        assert tool.input_schema["properties"]["value"]["type"] == "string"
        assert only_text(await client.call_tool("HelloTool", {"value": "Yann"})) == (
            "Hello-bonjour Yann!"
        )
        assert "value" in failed(await client.call_tool("HelloTool", {}))


# --- weather ------------------------------------------------------------------------------


async def test_current_weather_is_structured_and_deterministic(era: str) -> None:
    async with connected(server_of("weather"), era) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert set(tools) == {"getCurrentWeather", "getWeatherForecast"}
        current = tools["getCurrentWeather"]
        assert current.input_schema["required"] == ["city"]
        assert set(current.input_schema["properties"]) == {"city", "country"}
        schema = current.output_schema
        assert isinstance(schema, dict) and schema["type"] == "object"
        assert "windSpeed" in schema["required"]

        weather = structured(await client.call_tool("getCurrentWeather", {"city": "Colombo"}))
        assert set(weather) == set(schema["required"])
        assert weather["city"] == "Colombo"
        assert weather["country"] == "Sri Lanka"
        assert isinstance(weather["temperature"], float)
        assert 0 <= weather["humidity"] <= 100
        again = await client.call_tool("getCurrentWeather", {"city": " colombo "})
        assert {**structured(again), "city": "Colombo"} == weather

        given = await client.call_tool("getCurrentWeather", {"city": "Paris", "country": "US"})
        assert structured(given)["country"] == "US"
        unknown = await client.call_tool("getCurrentWeather", {"city": "Atlantis"})
        assert structured(unknown)["country"] is None
        assert "empty" in failed(await client.call_tool("getCurrentWeather", {"city": " "}))


async def test_forecast(era: str) -> None:
    async with connected(server_of("weather"), era) as client:
        result = await client.call_tool("getWeatherForecast", {"city": "Tokyo", "days": 2})
        days = structured(result)["result"]
        assert [day["day"] for day in days] == [1, 2]
        assert all(day["low"] < day["high"] for day in days)
        assert len(structured(await client.call_tool("getWeatherForecast", {"city": "x"}))) == 1
        assert "days" in failed(
            await client.call_tool("getWeatherForecast", {"city": "Tokyo", "days": 8})
        )


# --- files --------------------------------------------------------------------------------


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A root directory, with a secret next to it and links inside pointing both ways."""
    base = tmp_path / "root"
    (base / "sub").mkdir(parents=True)
    (base / "notes.txt").write_text("hello\nworld\n", encoding="utf-8")
    (base / "sub" / "inner.txt").write_text("été", encoding="utf-8")
    (base / "latin1.txt").write_bytes("été".encode("latin-1"))
    (tmp_path / "secret.txt").write_text("secret", encoding="utf-8")
    (base / "escape.txt").symlink_to(tmp_path / "secret.txt")
    (base / "alias.txt").symlink_to(base / "notes.txt")
    return base


def files_server(root: Path) -> Server:
    server = load("files").make_server(root)
    assert isinstance(server, Server)
    return server


READS = [
    ("notes.txt", "hello\nworld\n"),
    ("sub/inner.txt", "été"),
    ("sub/../notes.txt", "hello\nworld\n"),
    ("alias.txt", "hello\nworld\n"),
]

BAD_READS = [
    ("missing.txt", "no such file"),
    ("sub", "not a regular file"),
    ("../secret.txt", "outside the root"),
    ("escape.txt", "outside the root"),
    ("latin1.txt", "not a UTF-8 text file"),
    ("bad\0name", "not a usable path"),
]


async def test_files_reads_under_the_root_only(era: str, root: Path) -> None:
    async with connected(files_server(root), era) as client:
        (tool,) = (await client.list_tools()).tools
        assert tool.name == "readFile"
        assert tool.annotations.read_only_hint is True  # type: ignore[union-attr]
        for path, expected in READS:
            assert only_text(await client.call_tool("readFile", {"path": path})) == expected
        for path, reason in [*BAD_READS, (str(root.parent / "secret.txt"), "outside the root")]:
            message = failed(await client.call_tool("readFile", {"path": path}))
            assert reason in message, (path, message)
        for arguments in ({}, {"path": 3}, {"path": ""}):
            assert "path" in failed(await client.call_tool("readFile", arguments))
        with pytest.raises(McpError) as caught:
            await client.call_tool("writeFile", {"path": "notes.txt"})
        assert caught.value.code == INVALID_PARAMS
        assert "writeFile" in caught.value.message


async def test_files_root_from_the_environment_and_size_cap(
    era: str, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MCP_FILES_ROOT", str(root))
    module = load("files")
    monkeypatch.setattr(module, "MAX_FILE_BYTES", 5)
    async with connected(module.make_server(), era) as client:
        assert only_text(await client.call_tool("readFile", {"path": "sub/inner.txt"})) == "été"
        assert "larger than 5 bytes" in failed(
            await client.call_tool("readFile", {"path": "notes.txt"})
        )


# --- everything ---------------------------------------------------------------------------

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


async def test_everything_content_kinds(era: str) -> None:
    async with connected(server_of("everything"), era) as client:
        capabilities = client.server_capabilities
        assert capabilities.resources.subscribe is True
        assert capabilities.completions == {}
        names = {tool.name async for tool in client.iter_tools()}
        assert {"echo", "get_image", "ask_user", "fail"} <= names

        assert only_text(await client.call_tool("echo", {"text": "hi"})) == "hi"
        assert structured(await client.call_tool("add", {"a": 1, "b": 2.5})) == {"result": 3.5}

        (image,) = (await client.call_tool("get_image")).content
        assert isinstance(image, ImageContent) and image.mime_type == "image/png"
        assert base64.b64decode(image.data).startswith(PNG_SIGNATURE)
        (audio,) = (await client.call_tool("get_audio")).content
        assert isinstance(audio, AudioContent) and audio.mime_type == "audio/wav"
        assert base64.b64decode(audio.data)[:4] == b"RIFF"
        (embedded,) = (await client.call_tool("get_resource")).content
        assert isinstance(embedded, EmbeddedResource)
        assert embedded.resource.uri == "everything://readme"
        assert str(embedded.resource.text).startswith("# Everything")
        (link,) = (await client.call_tool("get_resource_link")).content
        assert isinstance(link, ResourceLink) and link.uri == "everything://readme"

        stats = await client.call_tool("stats", {"numbers": [1, 2, 4.5]})
        assert structured(stats) == {"count": 3, "mean": 2.5, "minimum": 1.0, "maximum": 4.5}
        assert "numbers" in failed(await client.call_tool("stats", {"numbers": []}))
        assert failed(await client.call_tool("fail", {"message": "boom"})) == "boom"


async def test_everything_progress_and_logging(era: str) -> None:
    logs = Inbox()
    progress = Inbox()
    async with connected(server_of("everything"), era, on_log=logs) as client:
        await client.set_logging_level("info")
        result = await client.call_tool("long_task", {"steps": 3}, on_progress=progress)
        assert only_text(result) == "done in 3 steps"
        assert [(p.progress, p.total) for p in progress.items] == [(1, 3), (2, 3), (3, 3)]
        await client.call_tool("write_log", {"message": "quiet", "level": "debug"})
        await client.call_tool("write_log", {"message": "loud", "level": "warning"})
        (log,) = await logs.wait_for(1)
    assert (log.level, log.data, log.logger) == ("warning", "loud", "everything")


class Answers:
    """The client side of sampling, elicitation and roots."""

    def __init__(self, action: str = "accept") -> None:
        self.action = action

    def sampling(self, params: CreateMessageRequestParams) -> CreateMessageResult:
        (message,) = params.messages
        assert isinstance(message.content, TextContent)
        answer = f"you asked: {message.content.text} ({params.max_tokens} tokens)"
        return CreateMessageResult(
            role="assistant", content=TextContent(text=answer), model="fake-model"
        )

    def elicitation(self, params: ElicitRequestParams) -> ElicitResult:
        if self.action != "accept":
            return ElicitResult(action=self.action)  # type: ignore[arg-type]
        return ElicitResult(action="accept", content={"name": "Ada"})

    def roots(self) -> list[Root]:
        return [Root(uri="file:///work", name="work"), Root(uri="file:///tmp")]


async def test_everything_asks_the_client(era: str) -> None:
    answers = Answers()
    options: dict[str, Any] = {
        "sampling": answers.sampling,
        "elicitation": answers.elicitation,
        "roots": answers.roots,
    }
    async with connected(server_of("everything"), era, **options) as client:
        result = await client.call_tool("ask_llm", {"question": "why?", "max_tokens": 9})
        assert only_text(result) == "you asked: why? (9 tokens)"
        assert only_text(await client.call_tool("ask_user")) == "Nice to meet you, Ada!"
        answers.action = "decline"
        assert only_text(await client.call_tool("ask_user")) == "No name given (decline)."
        roots = only_text(await client.call_tool("list_roots"))
        assert roots == "file:///work\nfile:///tmp"


async def test_everything_asking_needs_the_capability(era: str) -> None:
    async with connected(server_of("everything"), era) as client:
        with pytest.raises(McpError) as caught:
            await client.call_tool("ask_llm", {"question": "why?"})
    expected = MISSING_REQUIRED_CLIENT_CAPABILITY if era == "modern" else INVALID_REQUEST
    assert caught.value.code == expected


async def test_everything_resources(era: str) -> None:
    async with connected(server_of("everything"), era) as client:
        uris = [resource.uri async for resource in client.iter_resources()]
        assert uris == ["everything://readme", "everything://logo.png", "everything://counter"]
        templates = [t.uri_template async for t in client.iter_resource_templates()]
        assert templates == ["everything://greetings/{name}", "everything://numbers/{n}"]

        (readme,) = (await client.read_resource("everything://readme")).contents
        assert readme.mime_type == "text/markdown" and str(readme.text).startswith("# Every")
        (logo,) = (await client.read_resource("everything://logo.png")).contents
        assert logo.mime_type == "image/png"
        assert base64.b64decode(str(logo.blob)).startswith(PNG_SIGNATURE)
        (hello,) = (await client.read_resource("everything://greetings/Ada")).contents
        assert hello.text == "Hello, Ada!"
        (number,) = (await client.read_resource("everything://numbers/12")).contents
        assert json.loads(str(number.text)) == {"n": 12, "square": 144, "even": True}
        with pytest.raises(McpError) as caught:
            await client.read_resource("everything://numbers/twelve")
    assert caught.value.code == (RESOURCE_NOT_FOUND if era == "legacy" else INVALID_PARAMS)


async def test_everything_counter_updates_reach_subscribers(era: str) -> None:
    notes = Inbox()
    counter = "everything://counter"
    async with connected(server_of("everything"), era, on_notification=notes) as client:
        if era == "legacy":
            await client.subscribe(counter)
            assert structured(await client.call_tool("increment")) == {"result": 1}
            ((method, params),) = await notes.wait_for(1)
        else:
            async with client.listen(resource_uris=[counter]):
                assert structured(await client.call_tool("increment")) == {"result": 1}
                ((method, params),) = await notes.wait_for(1)
        assert (method, params.uri) == ("notifications/resources/updated", counter)
        (contents,) = (await client.read_resource(counter)).contents
        assert json.loads(str(contents.text)) == {"value": 1}


async def test_everything_prompts_and_completion(era: str) -> None:
    async with connected(server_of("everything"), era) as client:
        prompts = {prompt.name: prompt async for prompt in client.iter_prompts()}
        assert set(prompts) == {"greeting", "code_review"}
        arguments = prompts["code_review"].arguments
        assert isinstance(arguments, list)
        assert [(a.name, a.required) for a in arguments] == [("code", True), ("language", False)]

        greeting = await client.get_prompt("greeting", {"name": "Ada"})
        (message,) = greeting.messages
        assert "Ada" in text(message.content)
        review = await client.get_prompt("code_review", {"code": "x = 1", "language": "rust"})
        assert [m.role for m in review.messages] == ["user", "assistant"]
        assert "rust code:\n\nx = 1" in text(review.messages[0].content)

        language = await client.complete(PromptReference(name="code_review"), "language", "Ty")
        assert language.completion.values == ["typescript"]
        template = ResourceTemplateReference(uri="everything://greetings/{name}")
        names = await client.complete(template, "name", "a")
        assert names.completion.values == ["Ada", "Alan"]
        nothing = await client.complete(PromptReference(name="greeting"), "other", "")
        assert nothing.completion.values == []
