"""Notes: an MCP extension written outside mcp_core, on its extension API (SEP-2133).

The extension ``com.example/notes`` adds two methods, ``notes/add`` and
``notes/list``, and one client notification, ``notifications/notes/cleared``. Its
settings object tells clients how many notes the server keeps (``maxNotes``). A
client must declare the extension to add notes (``notes/add`` is refused with
-32021 otherwise: SEP-2133 "Graceful Degradation"); listing needs no declaration.

Nothing here is special to the package: the same `Extension` class serves the
tasks and Skills extensions. The server declares the extension in both eras (in
the ``initialize`` answer and in ``server/discover``), and a session answers -32601
to the extension's methods on a server that does not declare it.

Run it:

    python examples/notes_extension.py          # serve on stdio
    mcp-core serve examples/notes_extension.py --http 127.0.0.1:8000
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mcp_core import Context, Server
from mcp_core.extensions import (
    Extension,
    ExtensionMethod,
    NotificationRoute,
    Route,
    require_client,
)
from mcp_core.session import RequestReceived
from mcp_core.types import NotificationParams, PaginatedRequestParams, RequestParams, Result
from transports import run_stdio

NOTES = "com.example/notes"


class AddNoteParams(RequestParams, frozen=True, kw_only=True):
    """Params of ``notes/add``."""

    text: str


class AddNoteResult(Result, frozen=True, kw_only=True):
    """Result of ``notes/add``: how many notes there are now."""

    count: int


class ListNotesResult(Result, frozen=True, kw_only=True):
    """Result of ``notes/list``."""

    notes: list[str]


class NotesExtension(Extension):
    """Keeps up to ``max_notes`` notes for the clients of one server."""

    id = NOTES
    methods = (
        ExtensionMethod(method="notes/add", params_type=AddNoteParams, result_type=AddNoteResult),
        ExtensionMethod(
            method="notes/list",
            params_type=PaginatedRequestParams,
            result_type=ListNotesResult,
            params_required=False,
        ),
        ExtensionMethod(method="notifications/notes/cleared", params_type=NotificationParams),
    )

    def __init__(self, max_notes: int = 100) -> None:
        self.max_notes = max_notes
        self.notes: list[str] = []

    def settings(self) -> dict[str, Any]:
        return {"maxNotes": self.max_notes}

    def routes(self) -> Mapping[str, Route]:
        return {"notes/add": self.add_note, "notes/list": self.list_notes}

    def notification_routes(self) -> Mapping[str, NotificationRoute]:
        return {"notifications/notes/cleared": self.cleared}

    async def add_note(self, event: RequestReceived, ctx: Context) -> AddNoteResult:
        require_client(ctx, NOTES)  # -32021 for a client that did not declare it
        self.notes = [*self.notes, event.params.text][-self.max_notes :]
        return AddNoteResult(count=len(self.notes))

    async def list_notes(self, event: RequestReceived, ctx: Context) -> ListNotesResult:
        return ListNotesResult(notes=list(self.notes))

    def cleared(self, method: str, params: Any) -> None:
        self.notes = []


server = Server("notes", "1.0.0", extensions=[NotesExtension(max_notes=3)])


@server.tool
def hello(name: str) -> str:
    """Say hello (a core tool beside the extension)."""
    return f"Hello {name}"


if __name__ == "__main__":
    run_stdio(server)
