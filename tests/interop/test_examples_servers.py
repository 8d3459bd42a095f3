"""The example servers in examples/, through a real Client over the in-memory pipe,
in both protocol eras and on both backends.

Each test loads a fresh copy of its example, so state does not leak between tests.
What the examples do as programs (stdio, HTTP, the command line) is tested in
test_cli_commands.py; examples/everything.py on HTTP is also what the official
conformance suite runs against (tests/servers/conformance_server.py).
"""

from __future__ import annotations

import base64
import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import msgspec
import paths
import pytest
from runtime_helpers import BOTH_ERAS, Inbox, connected, only_text, text

from mcp_core import McpError, Server
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
    ResourceTemplateReference,
    TextContent,
)
from mcp_core.wire import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    RESOURCE_NOT_FOUND,
)

pytestmark = [pytest.mark.anyio, BOTH_ERAS]

EXAMPLES = paths.EXAMPLES


def load(name: str) -> ModuleType:
    """A fresh copy of examples/<name>.py (its ``__main__`` block does not run)."""
    if str(EXAMPLES) not in sys.path:  # as when run as a script: neighbours import
        sys.path.insert(0, str(EXAMPLES))
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


# --- everything: the conformance suite's fixtures (SCENARIOS.md section 5) ------------------

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

TOOLS = {
    "test_simple_text",
    "test_image_content",
    "test_audio_content",
    "test_embedded_resource",
    "test_multiple_content_types",
    "test_tool_with_logging",
    "test_tool_with_progress",
    "test_error_handling",
    "test_sampling",
    "test_elicitation",
    "test_elicitation_sep1034_defaults",
    "test_elicitation_sep1330_enums",
    "json_schema_2020_12_tool",
    "test_reconnection",
    # _everything_2026.py (tests in test_examples_everything_2026.py)
    "test_x_mcp_header",
    "test_missing_capability",
    "test_streaming_elicitation",
    "test_logging_tool",
    "test_trigger_tool_change",
    "test_trigger_prompt_change",
    "test_input_required_result_elicitation",
    "test_input_required_result_sampling",
    "test_input_required_result_list_roots",
    "test_input_required_result_request_state",
    "test_input_required_result_multiple_inputs",
    "test_input_required_result_multi_round",
    "test_input_required_result_tampered_state",
    "test_input_required_result_capabilities",
}
PROMPTS = [
    "test_simple_prompt",
    "test_prompt_with_arguments",
    "test_prompt_with_embedded_resource",
    "test_prompt_with_image",
    "test_input_required_result_prompt",
]


def everything() -> Server:
    """A fresh everything server whose tools do not pause between steps."""
    module = load("everything")
    module.STEP_SECONDS = 0
    server = module.server
    assert isinstance(server, Server)
    return server


async def test_everything_lists_exactly_the_fixtures(era: str) -> None:
    async with connected(everything(), era) as client:
        capabilities = client.server_capabilities
        assert capabilities.resources.subscribe is True
        assert capabilities.logging == {} and capabilities.completions == {}
        tools = {tool.name: tool async for tool in client.iter_tools()}
        assert set(tools) == TOOLS
        assert all(tool.description for tool in tools.values())
        schema = tools["json_schema_2020_12_tool"].input_schema
        assert schema == load("everything").JSON_SCHEMA_2020_12
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        assert tools["test_sampling"].input_schema["required"] == ["prompt"]
        assert tools["test_elicitation"].input_schema["required"] == ["message"]

        uris = [resource.uri async for resource in client.iter_resources()]
        assert uris == ["test://static-text", "test://static-binary", "test://watched-resource"]
        templates = [t.uri_template async for t in client.iter_resource_templates()]
        assert templates == ["test://template/{id}/data"]
        prompts = [prompt async for prompt in client.iter_prompts()]
        assert [prompt.name for prompt in prompts] == PROMPTS
        assert all(prompt.description for prompt in prompts)


async def test_everything_content_tools(era: str) -> None:
    async with connected(everything(), era) as client:
        simple = await client.call_tool("test_simple_text")
        assert only_text(simple) == "This is a simple text response for testing."
        (image,) = (await client.call_tool("test_image_content")).content
        assert isinstance(image, ImageContent) and image.mime_type == "image/png"
        assert base64.b64decode(image.data).startswith(PNG_SIGNATURE)
        (audio,) = (await client.call_tool("test_audio_content")).content
        assert isinstance(audio, AudioContent) and audio.mime_type == "audio/wav"
        assert base64.b64decode(audio.data)[:4] == b"RIFF"
        (embedded,) = (await client.call_tool("test_embedded_resource")).content
        assert isinstance(embedded, EmbeddedResource)
        assert (embedded.resource.uri, embedded.resource.mime_type) == (
            "test://embedded-resource",
            "text/plain",
        )
        assert embedded.resource.text == "This is an embedded resource content."

        mixed = (await client.call_tool("test_multiple_content_types")).content
        assert [type(block) for block in mixed] == [TextContent, ImageContent, EmbeddedResource]
        resource = mixed[2].resource  # type: ignore[union-attr]
        assert json.loads(str(resource.text)) == {"test": "data", "value": 123}

        error = await client.call_tool("test_error_handling")
        assert failed(error) == "This tool intentionally returns an error for testing"
        schema_tool = await client.call_tool("json_schema_2020_12_tool", {"name": "Ada"})
        assert only_text(schema_tool) == "Hello, Ada"
        reconnection = await client.call_tool("test_reconnection")
        assert only_text(reconnection) == "Reconnection test completed successfully"


async def test_everything_logs_and_progress(era: str) -> None:
    logs = Inbox()
    progress = Inbox()
    async with connected(everything(), era, on_log=logs) as client:
        await client.set_logging_level("debug")
        result = await client.call_tool("test_tool_with_logging")
        assert only_text(result) == "Logging test completed"
        messages = await logs.wait_for(3)
        assert [(m.level, m.data) for m in messages] == [
            ("info", "Tool execution started"),
            ("info", "Tool processing data"),
            ("info", "Tool execution completed"),
        ]
        result = await client.call_tool("test_tool_with_progress", on_progress=progress)
        assert only_text(result) == "Progress test completed"
        assert [(p.progress, p.total) for p in progress.items] == [(0, 100), (50, 100), (100, 100)]


class Answers:
    """The client side of sampling and elicitation; keeps what it was asked."""

    def __init__(self) -> None:
        self.schemas: list[Any] = []

    def sampling(self, params: CreateMessageRequestParams) -> CreateMessageResult:
        (message,) = params.messages
        assert isinstance(message.content, TextContent)
        answer = f"you asked: {message.content.text} ({params.max_tokens} tokens)"
        return CreateMessageResult(
            role="assistant", content=TextContent(text=answer), model="fake-model"
        )

    def elicitation(self, params: ElicitRequestParams) -> ElicitResult:
        self.schemas.append(msgspec.to_builtins(params.requested_schema))
        return ElicitResult(action="accept", content={"username": "ada", "email": "a@b.c"})


async def test_everything_asks_the_client(era: str) -> None:
    answers = Answers()
    options: dict[str, Any] = {"sampling": answers.sampling, "elicitation": answers.elicitation}
    async with connected(everything(), era, **options) as client:
        result = await client.call_tool("test_sampling", {"prompt": "why?"})
        assert only_text(result) == "LLM response: you asked: why? (100 tokens)"
        result = await client.call_tool("test_elicitation", {"message": "Who are you?"})
        assert only_text(result) == (
            'User response: action=accept, content={"username": "ada", "email": "a@b.c"}'
        )
        await client.call_tool("test_elicitation_sep1034_defaults")
        await client.call_tool("test_elicitation_sep1330_enums")
    # In 2026-07-28 a handler runs again after each answer: the last schemas asked.
    who, defaults, enums = answers.schemas[-3:]
    assert who["required"] == ["username", "email"]
    assert {name: field["default"] for name, field in defaults["properties"].items()} == {
        "name": "John Doe",
        "age": 30,
        "score": 95.5,
        "status": "active",
        "verified": True,
    }
    assert defaults["properties"]["age"]["type"] == "integer"
    fields = enums["properties"]
    assert set(fields) == {
        "untitledSingle",
        "titledSingle",
        "legacyEnum",
        "untitledMulti",
        "titledMulti",
    }
    assert "oneOf" not in fields["untitledSingle"] and "enum" not in fields["titledSingle"]
    assert len(fields["legacyEnum"]["enumNames"]) == len(fields["legacyEnum"]["enum"]) == 3
    assert len(fields["titledMulti"]["items"]["anyOf"]) == 3


async def test_everything_asking_needs_the_capability(era: str) -> None:
    async with connected(everything(), era) as client:
        with pytest.raises(McpError) as caught:
            await client.call_tool("test_sampling", {"prompt": "why?"})
    expected = MISSING_REQUIRED_CLIENT_CAPABILITY if era == "modern" else INVALID_REQUEST
    assert caught.value.code == expected


async def test_everything_resources(era: str) -> None:
    async with connected(everything(), era) as client:
        (text_resource,) = (await client.read_resource("test://static-text")).contents
        assert text_resource.mime_type == "text/plain"
        assert text_resource.text == "This is the content of the static text resource."
        (binary,) = (await client.read_resource("test://static-binary")).contents
        assert binary.mime_type == "image/png"
        assert base64.b64decode(str(binary.blob)).startswith(PNG_SIGNATURE)
        (data,) = (await client.read_resource("test://template/123/data")).contents
        assert data.mime_type == "application/json"
        assert json.loads(str(data.text)) == {
            "id": "123",
            "templateTest": True,
            "data": "Data for ID: 123",
        }
        (watched,) = (await client.read_resource("test://watched-resource")).contents
        assert watched.text == "Watched resource content"
        if era == "legacy":  # 2026-07-28 replaced subscribing with subscriptions/listen
            await client.subscribe("test://watched-resource")
            await client.unsubscribe("test://watched-resource")
        with pytest.raises(McpError) as caught:
            await client.read_resource("test://nothing-here")
    # 2026-07-28 reports an unknown resource as invalid params.
    assert caught.value.code == (RESOURCE_NOT_FOUND if era == "legacy" else INVALID_PARAMS)


async def test_everything_prompts_and_completion(era: str) -> None:
    async with connected(everything(), era) as client:
        simple = await client.get_prompt("test_simple_prompt")
        (message,) = simple.messages
        assert (message.role, text(message.content)) == (
            "user",
            "This is a simple prompt for testing.",
        )
        arguments = {"arg1": "testValue1", "arg2": "testValue2"}
        with_args = await client.get_prompt("test_prompt_with_arguments", arguments)
        assert text(with_args.messages[0].content) == (
            "Prompt with arguments: arg1='testValue1', arg2='testValue2'"
        )
        uri = {"resourceUri": "test://example-resource"}
        embedded = await client.get_prompt("test_prompt_with_embedded_resource", uri)
        first, second = (m.content for m in embedded.messages)
        assert isinstance(first, EmbeddedResource)
        assert first.resource.uri == "test://example-resource"
        assert text(second) == "Please process the embedded resource above."
        with_image = await client.get_prompt("test_prompt_with_image")
        picture, words = (m.content for m in with_image.messages)
        assert isinstance(picture, ImageContent) and picture.mime_type == "image/png"
        assert text(words) == "Please analyze the image above."

        ref = PromptReference(name="test_prompt_with_arguments")
        completion = await client.complete(ref, "arg1", "test")
        assert completion.completion.values == []
        template = ResourceTemplateReference(uri="test://template/{id}/data")
        assert (await client.complete(template, "id", "1")).completion.values == []
