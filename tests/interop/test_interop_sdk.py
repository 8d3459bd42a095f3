"""Interop with the official MCP Python SDK over real stdio subprocesses, both ways.

* The SDK's ``mcp.Client`` runs ``servers/interop_server.py`` (ours): ``mode="legacy"``
  forces the 2025-11-25 handshake, ``mode="auto"`` probes server/discover and speaks
  2026-07-28 with us.
* Our ``connect_stdio`` runs ``servers/sdk_server.py`` (the SDK's ``MCPServer``), whose
  stdio loop serves both eras: the legacy revisions open with initialize, the
  modern one with server/discover.

Each spawn takes up to a second, so one test per (direction, era, backend) checks
everything on one connection. The SDK client runs on the test's backend too (it is
anyio code, and works on trio); the SDK server always runs on asyncio.

Where the SDK departs from the spec, the test accepts what it does and says so:

* Its ``MCPServer`` never declares the ``logging`` capability yet sends
  ``notifications/message`` (2025-11-25 server/utilities/logging.mdx: servers that
  emit log messages MUST declare it). Our client therefore (rightly) refuses to send
  ``logging/setLevel`` to it, and receives every level.
* It answers an unknown resource with -32602 in the legacy era too, where
  2025-11-25 server/resources.mdx "Error Handling" says -32002 (a SHOULD).
"""

from __future__ import annotations

import base64
import sys
import warnings
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, Final

import anyio
import mcp_types as sdk_types
import msgspec
import paths
import pytest
from limits import HANG
from mcp import Client as SdkClient
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError
from runtime_helpers import ERAS, Inbox

from mcp_core import McpError
from mcp_core.types import (
    AudioContent,
    CallToolResult,
    CreateMessageRequestParams,
    CreateMessageResult,
    ElicitRequestParams,
    ElicitResult,
    EmbeddedResource,
    ImageContent,
    LoggingMessageNotificationParams,
    PromptReference,
    ResourceLink,
    TextContent,
)
from mcp_core.wire import INVALID_PARAMS, RESOURCE_NOT_FOUND
from transports import Client
from transports.stdio import connect_stdio

HERE = paths.TESTS
ROOT = str(HERE.parent)
OUR_SERVER = str(HERE / "servers" / "interop_server.py")
SDK_SERVER = str(HERE / "servers" / "sdk_server.py")
ENV: Final = {"PYTHONPATH": ROOT}

LIMIT: Final = HANG
"""Seconds one connection's whole conversation may take, spawn included (the SDK
server takes most of a second to import on a busy two-core machine)."""

PNG: Final = b"\x89PNG\r\n\x1a\n" + b"\x00" * 8
WAV: Final = b"RIFF\x24\x00\x00\x00WAVEfmt " + b"\x00" * 8
REVISION: Final = {"legacy": "2025-11-25", "modern": "2026-07-28"}


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


# --- the SDK's client, our server -----------------------------------------------------------


class SdkSide:
    """The SDK client's callbacks, recording what our server asked of it."""

    def __init__(self) -> None:
        self.logs = Inbox()
        self.sampled: list[sdk_types.CreateMessageRequestParams] = []
        self.elicited: list[sdk_types.ElicitRequestParams] = []

    async def sampling(
        self, context: Any, params: sdk_types.CreateMessageRequestParams
    ) -> sdk_types.CreateMessageResult:
        self.sampled.append(params)
        return sdk_types.CreateMessageResult(
            role="assistant",
            content=sdk_types.TextContent(type="text", text="forty-two"),
            model="test-model",
        )

    async def elicitation(
        self, context: Any, params: sdk_types.ElicitRequestParams
    ) -> sdk_types.ElicitResult:
        self.elicited.append(params)
        return sdk_types.ElicitResult(action="accept", content={"name": "Ada", "age": 36})

    async def on_log(self, params: sdk_types.LoggingMessageNotificationParams) -> None:
        self.logs(params)


@asynccontextmanager
async def sdk_client(era: str, backend: str, side: SdkSide) -> AsyncIterator[SdkClient]:
    params = StdioServerParameters(command=sys.executable, args=[OUR_SERVER, backend], env=ENV)
    async with SdkClient(
        params,
        mode="legacy" if era == "legacy" else "auto",
        sampling_callback=side.sampling,
        elicitation_callback=side.elicitation,
        logging_callback=side.on_log,
        # 2026-07-28: the level rides in every request's _meta; legacy uses setLevel.
        log_level="info" if era == "modern" else None,
    ) as client:
        yield client


async def sdk_text(client: SdkClient, tool: str, arguments: dict[str, Any]) -> str:
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, result
    (block,) = result.content
    assert isinstance(block, sdk_types.TextContent), block
    return block.text


async def check_sdk_handshake(client: SdkClient, era: str) -> None:
    assert client.protocol_version == REVISION[era]
    assert client.server_info is not None
    assert (client.server_info.name, client.server_info.version) == ("interop-server", "1.2.3")
    assert client.instructions == "Used by the interop tests."
    caps = client.server_capabilities
    assert caps.tools is not None and caps.resources is not None and caps.prompts is not None
    assert caps.completions is not None and caps.logging is not None


async def check_sdk_tools(client: SdkClient) -> None:
    listed = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert set(listed) >= {"text", "image", "audio", "everything", "add", "count", "chatty"}
    assert listed["text"].input_schema["required"] == ["value"]
    assert listed["add"].output_schema is not None
    assert set(listed["add"].output_schema["properties"]) == {"total", "terms"}

    assert await sdk_text(client, "text", {"value": "hi"}) == "hi"

    (image,) = (await client.call_tool("image", {})).content
    assert isinstance(image, sdk_types.ImageContent)
    assert (image.mime_type, image.data) == ("image/png", b64(PNG))

    (audio,) = (await client.call_tool("audio", {})).content
    assert isinstance(audio, sdk_types.AudioContent)
    assert (audio.mime_type, audio.data) == ("audio/wav", b64(WAV))

    blocks = (await client.call_tool("everything", {})).content
    kinds = [type(block) for block in blocks]
    assert kinds == [
        sdk_types.TextContent,
        sdk_types.ImageContent,
        sdk_types.AudioContent,
        sdk_types.ResourceLink,
        sdk_types.EmbeddedResource,
        sdk_types.EmbeddedResource,
    ]
    link, text_resource, blob_resource = blocks[3], blocks[4], blocks[5]
    assert isinstance(link, sdk_types.ResourceLink)
    assert (str(link.uri), link.name, link.mime_type) == (
        "file:///tmp/report.txt",
        "report",
        "text/plain",
    )
    assert isinstance(text_resource, sdk_types.EmbeddedResource)
    assert isinstance(text_resource.resource, sdk_types.TextResourceContents)
    assert text_resource.resource.text == "a memo"
    assert isinstance(blob_resource, sdk_types.EmbeddedResource)
    assert isinstance(blob_resource.resource, sdk_types.BlobResourceContents)
    assert blob_resource.resource.blob == b64(b"\x00\x01")

    added = await client.call_tool("add", {"a": 1, "b": 2})
    assert added.structured_content == {"total": 3, "terms": [1, 2]}

    failed = await client.call_tool("fail", {})
    assert failed.is_error
    assert "it broke" in str(failed.content)


async def check_sdk_progress_and_logs(client: SdkClient, era: str, side: SdkSide) -> None:
    progress = Inbox()

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress(value, total, message)

    result = await client.call_tool("count", {"steps": 3}, progress_callback=on_progress)
    assert result.content[0] == sdk_types.TextContent(type="text", text="counted 3")
    assert await progress.wait_for(3) == [(1, 3, "step 1"), (2, 3, "step 2"), (3, 3, "step 3")]

    if era == "legacy":
        with warnings.catch_warnings():  # deprecated from 2026-07-28, fine in 2025-11-25
            warnings.simplefilter("ignore")
            await client.set_logging_level("info")
    assert await sdk_text(client, "chatty", {}) == "logged"
    info, error = await side.logs.wait_for(2)
    assert (info.level, info.logger, info.data) == ("info", "interop", {"event": "info", "n": 1})
    assert (error.level, error.data) == ("error", "an error line")


async def check_sdk_answers_our_questions(client: SdkClient, side: SdkSide) -> None:
    # Legacy: server-to-client requests; 2026-07-28: an InputRequiredResult that the
    # SDK client answers and retries with (basic/patterns/mrtr.mdx).
    assert await sdk_text(client, "ask_model", {"question": "meaning?"}) == "test-model: forty-two"
    (asked,) = side.sampled
    assert asked.max_tokens == 50 and asked.system_prompt == "Be brief."
    assert asked.messages[0].content == sdk_types.TextContent(type="text", text="meaning?")

    assert await sdk_text(client, "ask_user", {}) == "accepted: {'name': 'Ada', 'age': 36}"
    (form,) = side.elicited
    assert isinstance(form, sdk_types.ElicitRequestFormParams)
    assert form.message == "Who are you?"
    assert form.requested_schema["required"] == ["name"]


async def check_sdk_resources_and_prompts(client: SdkClient, era: str) -> None:
    resources = (await client.list_resources()).resources
    assert [str(r.uri) for r in resources] == ["config://app", "data://blob"]
    templates = (await client.list_resource_templates()).resource_templates
    assert [t.uri_template for t in templates] == ["users://{user_id}/profile"]

    (config,) = (await client.read_resource("config://app")).contents
    assert isinstance(config, sdk_types.TextResourceContents)
    assert (config.mime_type, config.text) == ("application/json", '{"debug":false,"level":3}')
    (blob,) = (await client.read_resource("data://blob")).contents
    assert isinstance(blob, sdk_types.BlobResourceContents)
    assert blob.blob == b64(b"\x00\x01\x02")
    (profile,) = (await client.read_resource("users://7/profile")).contents
    assert isinstance(profile, sdk_types.TextResourceContents)
    assert profile.text == "user 7"
    with pytest.raises(MCPError) as missing:
        await client.read_resource("nope://x")
    # 2025-11-25 server/resources.mdx: -32002; 2026-07-28: -32602.
    assert missing.value.code == (RESOURCE_NOT_FOUND if era == "legacy" else INVALID_PARAMS)

    prompts = (await client.list_prompts()).prompts
    assert [p.name for p in prompts] == ["greet", "review"]
    greeting = await client.get_prompt("greet", {"name": "Ada"})
    assert greeting.messages[0].content == sdk_types.TextContent(type="text", text="Hello, Ada!")
    review = await client.get_prompt("review", {"code": "x=1"})
    assert [m.role for m in review.messages] == ["user", "assistant"]

    completed = await client.complete(
        sdk_types.PromptReference(type="ref/prompt", name="greet"), {"name": "name", "value": "al"}
    )
    assert completed.completion.values == ["alice", "albert"]


@pytest.mark.anyio
@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_sdk_client_with_our_server(anyio_backend: str, era: str) -> None:
    side = SdkSide()
    with anyio.fail_after(LIMIT):
        async with sdk_client(era, anyio_backend, side) as client:
            await check_sdk_handshake(client, era)
            await check_sdk_tools(client)
            await check_sdk_progress_and_logs(client, era, side)
            await check_sdk_answers_our_questions(client, side)
            await check_sdk_resources_and_prompts(client, era)


# --- our client, the SDK's server -----------------------------------------------------------


class OurSide:
    """Our client's callbacks, recording what the SDK server asked of it."""

    def __init__(self) -> None:
        self.logs = Inbox()
        self.sampled: list[CreateMessageRequestParams] = []
        self.elicited: list[ElicitRequestParams] = []
        self.stderr: list[bytes] = []

    def sampling(self, params: CreateMessageRequestParams) -> CreateMessageResult:
        self.sampled.append(params)
        return CreateMessageResult(
            role="assistant", content=TextContent(text="forty-two"), model="test-model"
        )

    async def elicitation(self, params: ElicitRequestParams) -> ElicitResult:
        self.elicited.append(params)
        return ElicitResult(action="accept", content={"name": "Ada", "age": 36})

    def on_log(self, params: LoggingMessageNotificationParams) -> None:
        self.logs(params)


def only_text(result: CallToolResult) -> str:
    assert not result.is_error, result
    (block,) = result.content
    assert isinstance(block, TextContent), block
    return block.text


async def check_our_handshake(client: Client, era: str) -> None:
    assert client.era == era
    assert client.revision == REVISION[era]
    assert client.server_info is not None and client.server_info.name == "sdk-server"
    assert client.instructions == "The SDK side of the interop tests."
    caps = client.server_capabilities
    assert caps.tools is not None and caps.resources is not None and caps.prompts is not None


async def check_our_tools(client: Client) -> None:
    listed = {tool.name: tool async for tool in client.iter_tools()}
    assert set(listed) >= {"text", "image", "audio", "everything", "add", "count", "chatty"}
    assert listed["add"].output_schema is not None
    assert set(listed["add"].output_schema["properties"]) == {"total", "terms"}

    assert only_text(await client.call_tool("text", {"value": "hi"})) == "hi"

    (image,) = (await client.call_tool("image")).content
    assert image == ImageContent(data=b64(PNG), mime_type="image/png")
    (audio,) = (await client.call_tool("audio")).content
    assert audio == AudioContent(data=b64(WAV), mime_type="audio/wav")

    blocks = (await client.call_tool("everything")).content
    assert [type(block) for block in blocks] == [
        TextContent,
        ImageContent,
        AudioContent,
        ResourceLink,
        EmbeddedResource,
    ]
    link, embedded = blocks[3], blocks[4]
    assert isinstance(link, ResourceLink)
    assert (link.uri, link.name) == ("file:///tmp/report.txt", "report")
    assert isinstance(embedded, EmbeddedResource)
    assert (embedded.resource.uri, embedded.resource.text) == ("memo://1", "a memo")

    added = await client.call_tool("add", {"a": 1, "b": 2})
    assert added.structured_content == {"total": 3, "terms": [1, 2]}

    failed = await client.call_tool("fail")
    assert failed.is_error is True


async def check_our_progress_and_logs(client: Client, era: str, side: OurSide) -> None:
    progress = Inbox()
    result = await client.call_tool("count", {"steps": 3}, on_progress=progress)
    assert result.content[0] == TextContent(text="counted 3")
    assert [(p.progress, p.total, p.message) for p in await progress.wait_for(3)] == [
        (1, 3, "step 1"),
        (2, 3, "step 2"),
        (3, 3, "step 3"),
    ]

    if era == "modern":
        # The level rides in the request's _meta (2026-07-28 server/utilities/logging.mdx).
        await client.set_logging_level("info")
        wanted = ["info", "error"]
    else:
        # The SDK server declares no logging capability, so we may not send
        # logging/setLevel; it sends every level anyway (see the module docstring).
        assert client.server_capabilities.logging is msgspec.UNSET
        wanted = ["debug", "info", "error"]
    assert only_text(await client.call_tool("chatty")) == "logged"
    logs = await side.logs.wait_for(len(wanted))
    assert [log.level for log in logs] == wanted
    info = logs[wanted.index("info")]
    assert (info.logger, info.data) == ("sdk", {"event": "info", "n": 1})


async def check_our_answers(client: Client, side: OurSide) -> None:
    # Legacy: the SDK server sends sampling/createMessage and elicitation/create;
    # 2026-07-28: it returns an InputRequiredResult and we retry with the answers.
    answer = await client.call_tool("ask_model", {"question": "meaning?"})
    assert answer.content[0] == TextContent(text="test-model: forty-two")
    (asked,) = side.sampled
    assert asked.max_tokens == 50 and asked.system_prompt == "Be brief."
    assert asked.messages[0].content == TextContent(text="meaning?")

    answer = await client.call_tool("ask_user")
    assert answer.content[0] == TextContent(text="accepted: Ada 36")
    (form,) = side.elicited
    assert form.message == "Who are you?"
    assert form.requested_schema.required == ["name"]
    assert set(form.requested_schema.properties) == {"name", "age"}


async def check_our_resources_and_prompts(client: Client) -> None:
    resources = [r.uri async for r in client.iter_resources()]
    assert resources == ["config://app", "data://blob"]
    templates = [t.uri_template async for t in client.iter_resource_templates()]
    assert templates == ["users://{user_id}/profile"]

    (config,) = (await client.read_resource("config://app")).contents
    assert (config.mime_type, config.text) == ("application/json", '{"debug": false, "level": 3}')
    (blob,) = (await client.read_resource("data://blob")).contents
    assert blob.blob == b64(b"\x00\x01\x02")
    (profile,) = (await client.read_resource("users://7/profile")).contents
    assert profile.text == "user 7"
    with pytest.raises(McpError) as missing:
        await client.read_resource("nope://x")
    # -32602 in both eras from the SDK (legacy SHOULD be -32002: module docstring).
    assert missing.value.code in (RESOURCE_NOT_FOUND, INVALID_PARAMS)
    assert missing.value.data == {"uri": "nope://x"}

    prompts = [p.name async for p in client.iter_prompts()]
    assert prompts == ["greet", "review"]
    greeting = await client.get_prompt("greet", {"name": "Ada"})
    assert greeting.messages[0].content == TextContent(text="Hello, Ada!")
    review = await client.get_prompt("review", {"code": "x=1"})
    assert [m.role for m in review.messages] == ["user", "assistant"]

    completed = await client.complete(PromptReference(name="greet"), "name", "al")
    assert completed.completion.values == ["alice", "albert"]


@pytest.mark.anyio
@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_our_client_with_the_sdk_server(anyio_backend: str, era: str) -> None:
    side = OurSide()
    with anyio.fail_after(LIMIT):
        async with connect_stdio(
            [sys.executable, SDK_SERVER],
            env=ENV,
            # The SDK logs tool failures with tracebacks on stderr; keep them.
            stderr=side.stderr.append,
            revisions=ERAS[era],
            sampling=side.sampling,
            elicitation=side.elicitation,
            on_log=side.on_log,
        ) as client:
            await check_our_handshake(client, era)
            await check_our_tools(client)
            await check_our_progress_and_logs(client, era, side)
            await check_our_answers(client, side)
            await check_our_resources_and_prompts(client)
