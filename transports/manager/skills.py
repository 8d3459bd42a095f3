"""The gateway's skills: its upstreams' skills (SEP-2640), each under its server's name.

`GatewaySkills` is the skills extension of a gateway (`gateway_server` offers it):
``skills/list`` is the union (`Manager.skills`), ``skills/get`` of a
``skill://server/...`` URI goes to that server with its own URI, and so does
``resources/read`` of one that no upstream lists as it is (the gateway's
``resources/read`` handler asks `Manager.read_skill_file`;
`mcp_core.manager.skills` says how the names are made). The gateway passes the
bytes on unchanged, so the digests of the upstream's entry hold and the gateway's
client verifies them; it reads nothing ahead of its client's need.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from msgspec import UNSET

from mcp_core import McpError
from mcp_core.extensions import Extension, Route
from mcp_core.server.results import page
from mcp_core.types.skills import SKILLS_EXTENSION, GetSkillResult, ListSkillsResult
from mcp_core.wire import INVALID_PARAMS

from .errors import CallInterrupted, ServerUnavailable, UnknownName

if TYPE_CHECKING:
    from mcp_core.server import Context, Server
    from mcp_core.session import RequestReceived

    from .manager import Manager

__all__ = ["GatewaySkills"]

_UNREACHABLE = (UnknownName, ServerUnavailable, CallInterrupted)


class GatewaySkills(Extension):
    """The skills of a manager's servers, served by its gateway."""

    id = SKILLS_EXTENSION

    def __init__(self, manager: Manager) -> None:
        self.manager = manager
        self._server: Server | None = None

    def routes(self) -> Mapping[str, Route]:
        return {"skills/list": self.list_skills, "skills/get": self.get_skill}

    def attach(self, server: Server) -> None:
        # SEP-2640: a server declaring the extension declares resources too.
        self._server = server
        server.declare("resources")

    async def list_skills(self, event: RequestReceived, ctx: Context) -> ListSkillsResult:
        entries = await self.manager.skills()
        cursor = getattr(event.params, "cursor", UNSET)
        size = None if self._server is None else self._server.page_size
        found, next_cursor = page(entries, cursor, size)
        return ListSkillsResult(skills=found, next_cursor=next_cursor)

    async def get_skill(self, event: RequestReceived, ctx: Context) -> GetSkillResult:
        uri = event.params.uri
        try:
            return GetSkillResult(skill=await self.manager.get_skill(uri))
        except _UNREACHABLE as exc:
            # SEP-2640 "Retrieval via skills/get": an unknown skill is -32602.
            raise McpError(INVALID_PARAMS, str(exc), data={"uri": uri}) from None
