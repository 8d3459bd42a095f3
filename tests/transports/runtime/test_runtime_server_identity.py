"""``Server(icons=, website_url=, description=, extensions=)``: what the client learns
in each revision. Each field goes only to revisions whose schema has it (title
2025-06-18+, description/icons/websiteUrl 2025-11-25+, capabilities.extensions
2026-07-28)."""

from __future__ import annotations

import anyio
import msgspec
import pytest
from runtime_helpers import LIMIT

from mcp_core import REVISIONS, Server
from mcp_core.types import Icon
from transports import connect_in_memory

pytestmark = pytest.mark.anyio

EXTENSIONS = {"io.example/widgets": {"version": "1"}}


def branded() -> Server:
    server = Server(
        "branded",
        "2.0",
        title="Branded",
        description="A server with a face",
        icons=[Icon(src="https://example.com/a.png", mime_type="image/png"), {"src": "data:,x"}],
        website_url="https://example.com",
        extensions=EXTENSIONS,
    )

    @server.tool
    def hello() -> str:
        return "hi"

    return server


@pytest.mark.parametrize("revision", REVISIONS)
async def test_server_info_and_extensions_per_revision(revision: str) -> None:
    with anyio.fail_after(LIMIT):
        async with connect_in_memory(branded(), revisions=(revision,)) as client:
            assert client.revision == revision
            info = msgspec.to_builtins(client.server_info)
            extensions = client.server_capabilities.extensions
    expected = {"name": "branded", "version": "2.0"}
    if revision >= "2025-06-18":
        expected["title"] = "Branded"
    if revision >= "2025-11-25":
        expected["description"] = "A server with a face"
        expected["websiteUrl"] = "https://example.com"
        expected["icons"] = [  # type: ignore[assignment]
            {"src": "https://example.com/a.png", "mimeType": "image/png"},
            {"src": "data:,x"},
        ]
    assert info == expected
    assert extensions == (EXTENSIONS if revision == "2026-07-28" else msgspec.UNSET)


def test_icons_are_checked_when_the_server_is_made() -> None:
    with pytest.raises(msgspec.ValidationError):
        Server("x", "1", icons=[{"mimeType": "image/png"}])
