"""The extension API (mcp_core/extensions.py, SEP-2133) from the wire, with an
extension written outside the package (examples/notes_extension.py): declared in
the ``initialize`` answer and in ``server/discover``, its methods served only where
declared, the client's declaration read per request in 2026-07-28 and from the
handshake before, its notification routed. Over HTTP (h11), both eras, asyncio and
trio."""

from __future__ import annotations

import importlib.util
from types import ModuleType

import paths
import pytest
from extension_helpers import wire

from mcp_core import Server

pytestmark = pytest.mark.anyio

NOTES = "com.example/notes"


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
    # The handshake era: 2026-07-28 streamable HTTP carries no client
    # notification (transports/http/service.py accepts and drops them).
    async with wire(notes_server(), "legacy", DECLARING) as peer:
        await peer.open()
        await peer.request("notes/add", {"text": "a"})
        await peer.notify("notifications/notes/cleared")
        # The notification is taken before its POST is answered: the list comes after.
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
