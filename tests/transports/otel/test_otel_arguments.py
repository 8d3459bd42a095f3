"""A tool call's arguments on its spans only when asked for, cut to the size
asked (``gen_ai.tool.call.arguments``, Opt-In in the conventions), and never a
credential: our client to the h11 server with a bearer token, both eras,
asyncio and trio."""

from __future__ import annotations

import json
from typing import Final

import anyio
import pytest
from otel_helpers import recorded

from mcp_core import Server
from mcp_core.http import AuthRefusal, HttpRequest
from transports import Client
from transports.http.client import http_connector
from transports.http.server import serve_http
from transports.otel import instrument

pytestmark = pytest.mark.anyio

TOKEN: Final = "token-value-5e7b"
ARGUMENTS: Final = "gen_ai.tool.call.arguments"
LONG: Final = "é" * 100  # two bytes each: a cut may fall inside one


def bearer(head: HttpRequest) -> str | AuthRefusal:
    if head.headers.get("authorization") != f"Bearer {TOKEN}":
        return AuthRefusal(401, "a bearer token is required")
    return "alice"


async def spans_of_one_call(revision: str, record_arguments: int | None) -> list[dict[str, str]]:
    """The attributes of the client and server spans of one ``tools/call``."""
    server = Server("arguments", "1.0")

    @server.tool
    def echo(text: str, times: int) -> str:
        return text * times

    with recorded() as record, anyio.fail_after(30):
        if record_arguments is not None:  # again, with the option
            instrument(
                tracer_provider=record.tracer_provider,
                meter_provider=record.meter_provider,
                record_arguments=record_arguments,
            )
        async with anyio.create_task_group() as tg:
            port = await tg.start(
                lambda task_status: serve_http(
                    server, port=0, authenticate=bearer, task_status=task_status
                )
            )
            connector = http_connector(
                f"http://127.0.0.1:{port}/mcp", headers={"Authorization": f"Bearer {TOKEN}"}
            )
            async with Client(connector, revisions=(revision,)) as client:
                await client.call_tool("echo", {"text": LONG, "times": 2})
            tg.cancel_scope.cancel()
        spans = record.named("tools/call echo")
    assert sorted(span.kind.name for span in spans) == ["CLIENT", "SERVER"]
    every = [dict(span.attributes or {}) for span in record.spans()]
    assert TOKEN not in repr(every) and "Bearer" not in repr(every)
    return [dict(span.attributes or {}) for span in spans]  # type: ignore[misc]


@pytest.mark.parametrize("revision", ["2025-11-25", "2026-07-28"])
async def test_arguments_are_not_recorded_by_default(revision: str) -> None:
    for attributes in await spans_of_one_call(revision, None):
        assert ARGUMENTS not in attributes
        assert LONG not in repr(attributes)


@pytest.mark.parametrize("revision", ["2025-11-25", "2026-07-28"])
async def test_arguments_on_request_cut_to_the_cap(revision: str) -> None:
    whole = json.dumps({"text": LONG, "times": 2}, ensure_ascii=False, separators=(",", ":"))
    for attributes in await spans_of_one_call(revision, 1024):
        assert json.loads(attributes[ARGUMENTS]) == {"text": LONG, "times": 2}
    for attributes in await spans_of_one_call(revision, 50):
        cut = attributes[ARGUMENTS]
        # 50 bytes: '{"text":"' (9), 20 two-byte characters and half of one, dropped.
        assert cut == whole.encode()[:49].decode()


async def test_a_negative_cap_is_refused() -> None:
    with pytest.raises(ValueError, match="bytes"):
        instrument(record_arguments=-1)
