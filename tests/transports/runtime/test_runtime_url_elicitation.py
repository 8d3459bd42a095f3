"""URL-mode elicitation end to end (2025-11-25 client/elicitation.mdx "URL Mode"):
``ctx.elicit_url``, the -32042 URLElicitationRequiredError, and
``notifications/elicitation/complete``; in 2026-07-28 the same handlers through
multi round-trip requests (no -32042 and no completion notice there)."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from runtime_helpers import BOTH_ERAS, Inbox, connected, only_text

from mcp_core import Context, McpError, Server, UrlElicitationRequiredError
from mcp_core.server import url_elicitation
from mcp_core.types import ElicitRequestParams, ElicitResult
from mcp_core.wire import (
    INVALID_REQUEST,
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    URL_ELICITATION_REQUIRED,
)

pytestmark = [pytest.mark.anyio, BOTH_ERAS]

SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}}}


def url_server(connected_users: set[str]) -> Server:
    server = Server("urls", "1.0")

    @server.tool
    async def pay(ctx: Context) -> str:
        answer = await ctx.elicit_url(
            "https://pay.example.com/checkout?order=7", "Pay for order 7", elicitation_id="order-7"
        )
        if answer.action != "accept":
            return answer.action
        # The out-of-band part is done (a real server learns it from its callback
        # page); tell the client, up to 2025-11-25.
        # First a notice for an id this client never saw: it must be ignored
        # (notices reach the callback in the order they came).
        await ctx.complete_elicitation("someone-else")
        sent = await ctx.complete_elicitation("order-7")
        return f"paid (notice sent: {sent})"

    @server.tool
    async def files(ctx: Context) -> str:
        if "ada" not in connected_users:
            # The first call: connect first. The retry finds the user connected.
            connected_users.add("ada")
            raise UrlElicitationRequiredError(
                [
                    url_elicitation(
                        "https://example.com/connect", "Connect your account", elicitation_id="c1"
                    )
                ]
            )
        return "your files"

    @server.tool
    async def form(ctx: Context) -> str:
        answer = await ctx.elicit("Name?", SCHEMA)
        return str(answer.action)

    return server


class Browser:
    """A URL-mode elicitation callback: records the URL and "opens" it."""

    def __init__(self) -> None:
        self.opened: list[ElicitRequestParams] = []

    def __call__(self, params: ElicitRequestParams) -> ElicitResult:
        self.opened.append(params)
        return ElicitResult(action="accept")


async def test_elicit_url_and_the_completion_notice(era: str) -> None:
    browser = Browser()
    done = Inbox()
    async with connected(
        url_server(set()), era, elicitation_url=browser, on_elicitation_complete=done
    ) as client:
        assert only_text(await client.call_tool("pay")) == (
            "paid (notice sent: True)" if era == "legacy" else "paid (notice sent: False)"
        )
        if era == "legacy":
            # Only the id this client was asked about; the unknown one, sent
            # first, is ignored.
            assert await done.wait_for(1) == ["order-7"]
    opened = browser.opened[-1]
    assert (opened.mode, opened.url) == ("url", "https://pay.example.com/checkout?order=7")
    # elicitationId exists in 2025-11-25 only (2026-07-28 schema has none).
    assert opened.elicitation_id == ("order-7" if era == "legacy" else msgspec.UNSET)
    assert done.items == (["order-7"] if era == "legacy" else [])


async def test_url_elicitation_required(era: str) -> None:
    browser = Browser()
    async with connected(url_server(set()), era, elicitation_url=browser) as client:
        if era == "legacy":
            # -32042, surfaced as its own error with the elicitations to show.
            with pytest.raises(UrlElicitationRequiredError) as required:
                await client.call_tool("files")
            assert required.value.code == URL_ELICITATION_REQUIRED
            (elicitation,) = required.value.elicitations
            assert (elicitation.url, elicitation.elicitation_id) == (
                "https://example.com/connect",
                "c1",
            )
            assert browser.opened == []
            # The user connects out of band; the retry goes through.
            assert only_text(await client.call_tool("files")) == "your files"
        else:
            # 2026-07-28: an InputRequiredResult with the URL elicitation; the
            # client opens it and retries within the one call.
            assert only_text(await client.call_tool("files")) == "your files"
            (opened,) = browser.opened
            assert (opened.mode, opened.url) == ("url", "https://example.com/connect")


async def test_a_url_elicitation_still_asked_after_it_was_opened_ends_the_call(
    era: str,
) -> None:
    # Issue 30 item 6: a handler that keeps raising (the user has not finished out
    # of band) made a 2026-07-28 client open the URL 32 times in a few ms. The
    # client opens it once and retries once (2026-07-28 client/elicitation.mdx
    # "URL Mode Flow"); asked again, the call ends with the -32042 error of
    # 2025-11-25, for the application to retry when the user is done.
    server = Server("urls", "1.0")
    calls: list[int] = []

    @server.tool
    def files(ctx: Context) -> str:
        calls.append(1)
        raise UrlElicitationRequiredError(
            [url_elicitation("https://example.com/connect", "Connect", elicitation_id="c1")]
        )

    browser = Browser()
    async with connected(server, era, elicitation_url=browser) as client:
        with pytest.raises(UrlElicitationRequiredError) as required:
            await client.call_tool("files")
    assert required.value.code == URL_ELICITATION_REQUIRED
    (elicitation,) = required.value.elicitations
    assert elicitation.url == "https://example.com/connect"
    # 2025-11-25: the error at once, the application opens the URL; 2026-07-28: the
    # client opened it once, the retry asked again.
    assert [p.url for p in browser.opened] == (
        [] if era == "legacy" else ["https://example.com/connect"]
    )
    assert len(calls) == (1 if era == "legacy" else 2)


async def test_a_client_without_url_mode_is_not_sent_one(era: str) -> None:
    async def form_only(params: ElicitRequestParams) -> ElicitResult:
        return ElicitResult(action="decline")

    async with connected(url_server(set()), era, elicitation=form_only) as client:
        with pytest.raises(McpError) as refused:
            await client.call_tool("pay")
        code = INVALID_REQUEST if era == "legacy" else MISSING_REQUIRED_CLIENT_CAPABILITY
        assert refused.value.code == code
        assert refused.value.data == {"requiredCapabilities": {"elicitation": {"url": {}}}}
        assert only_text(await client.call_tool("form")) == "decline"


async def test_a_url_only_client_declares_no_form_mode(era: str) -> None:
    seen: list[Any] = []
    server = url_server(set())

    @server.tool
    def caps(ctx: Context) -> dict[str, Any]:
        seen.append(msgspec.to_builtins(ctx.client.capabilities.elicitation))
        return {}

    async with connected(server, era, elicitation_url=Browser()) as client:
        await client.call_tool("caps")
        with pytest.raises(McpError) as refused:
            await client.call_tool("form")
        assert refused.value.data == {"requiredCapabilities": {"elicitation": {"form": {}}}}
    assert seen == [{"url": {}}]
