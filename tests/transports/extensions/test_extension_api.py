"""The extension API (mcp_core/extensions.py, SEP-2133) from the wire, with an
extension written outside the package (examples/notes_extension.py): declared in
the ``initialize`` answer and in ``server/discover``, its methods served only where
declared, the client's declaration read per request in 2026-07-28 and from the
handshake before, its notification routed. Over HTTP (h11), both eras, asyncio and
trio."""

from __future__ import annotations

import importlib.util
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from types import ModuleType
from typing import Any

import paths
import pytest
from http_helpers import MODERN, RawClient, reply_of, running

from mcp_core import Server

pytestmark = pytest.mark.anyio

NOTES = "com.example/notes"
LEGACY = "2025-11-25"


def load_example() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "notes_extension", paths.ROOT / "examples" / "notes_extension.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def notes_server() -> Server:
    example = load_example()
    return Server("notes", "1", extensions=[example.NotesExtension(max_notes=2)])


class Wire:
    """One era's requests as bytes: a legacy session opened with ``capabilities``,
    or 2026-07-28 requests carrying them in ``_meta``."""

    def __init__(self, raw: RawClient, era: str, capabilities: dict[str, Any]) -> None:
        self.raw, self.era, self.capabilities = raw, era, capabilities
        self.session: str | None = None
        self.ids = 0

    async def open(self) -> dict[str, Any]:
        """The initialize answer (legacy) or the server/discover answer (modern)."""
        if self.era == "modern":
            return await self.request("server/discover")
        reply = await self.request(
            "initialize",
            {
                "protocolVersion": LEGACY,
                "capabilities": self.capabilities,
                "clientInfo": {"name": "raw", "version": "1"},
            },
        )
        await self.notify("notifications/initialized")
        return reply

    def _headers(self, method: str) -> dict[str, str]:
        if self.era == "modern":
            return {"mcp_protocol_version": MODERN, "mcp_method": method}
        return {} if self.session is None else {"mcp_session_id": self.session}

    def _params(self, params: dict[str, Any] | None) -> dict[str, Any]:
        params = dict(params or {})
        if self.era == "modern":
            params["_meta"] = {
                "io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientCapabilities": self.capabilities,
            }
        return params

    async def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        self.ids += 1
        body = {"jsonrpc": "2.0", "id": self.ids, "method": method}
        body["params"] = params if method == "initialize" else self._params(params)
        await self.raw.send("POST", body, **self._headers(method))
        if method == "initialize":
            answer = await self.raw.answer()
            self.session = answer.headers["mcp-session-id"]
            return dict(answer.json())
        return await reply_of(self.raw)

    async def notify(self, method: str) -> None:
        body = {"jsonrpc": "2.0", "method": method}
        if self.era == "modern":
            body["params"] = self._params(None)
        await self.raw.send("POST", body, **self._headers(method))
        assert (await self.raw.answer()).status == 202


@asynccontextmanager
async def wire(server: Server, era: str, capabilities: dict[str, Any]) -> AsyncIterator[Wire]:
    async with running(server) as port, RawClient(port) as raw:
        peer = Wire(raw, era, capabilities)
        yield peer


DECLARING = {"extensions": {NOTES: {}}}


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_declared_in_both_eras_and_served(era: str) -> None:
    async with wire(notes_server(), era, DECLARING) as peer:
        opened = await peer.open()
        assert opened["result"]["capabilities"]["extensions"] == {NOTES: {"maxNotes": 2}}
        for text, count in (("a", 1), ("b", 2), ("c", 2)):
            added = await peer.request("notes/add", {"text": text})
            assert added["result"]["count"] == count
        listed = await peer.request("notes/list")
        assert listed["result"]["notes"] == ["b", "c"]


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_a_client_that_did_not_declare_it_is_refused(era: str) -> None:
    async with wire(notes_server(), era, {}) as peer:
        await peer.open()
        refused = await peer.request("notes/add", {"text": "a"})
        assert refused["error"]["code"] == -32021
        assert refused["error"]["data"] == {"requiredCapabilities": {"extensions": {NOTES: {}}}}
        # notes/list asks nothing of the client.
        assert (await peer.request("notes/list"))["result"]["notes"] == []


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_its_methods_do_not_exist_where_it_is_not_declared(era: str) -> None:
    load_example()  # its methods are in the table, but this server does not offer them
    async with wire(Server("plain", "1"), era, DECLARING) as peer:
        opened = await peer.open()
        assert "extensions" not in opened["result"]["capabilities"]
        refused = await peer.request("notes/list")
        assert refused["error"]["code"] == -32601


async def test_its_notification_reaches_its_handler() -> None:
    async with wire(notes_server(), "legacy", DECLARING) as peer:
        await peer.open()
        await peer.request("notes/add", {"text": "a"})
        await peer.notify("notifications/notes/cleared")
        # The session handles a connection's messages in order: the list comes after.
        assert (await peer.request("notes/list"))["result"]["notes"] == []


def test_one_extension_per_identifier_and_method() -> None:
    example = load_example()
    server = Server("twice", "1", extensions=[example.NotesExtension()])
    with pytest.raises(ValueError, match="offered already"):
        server.extend(example.NotesExtension())

    class Rival(example.NotesExtension):  # type: ignore[name-defined,misc]
        id = "com.example/rival"

    with pytest.raises(ValueError, match=r"already registered by com\.example/notes"):
        server.extend(Rival())
