"""Raw HTTP requests of either era, for the extension tests (extensions, skills):
a handshake-era session opened with given client capabilities, or 2026-07-28
requests carrying them in ``_meta``. Every wait is bounded (http_helpers.LIMIT)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, Final

from http_helpers import MODERN, RawClient, reply_of, running

from mcp_core import Server

LEGACY: Final = "2025-11-25"
# The params member an Mcp-Name header mirrors (2026-07-28 "Standard Request Headers").
NAME_MEMBER: Final = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}


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

    def _headers(self, method: str, params: dict[str, Any] | None = None) -> dict[str, str]:
        if self.era == "modern":
            headers = {"mcp_protocol_version": MODERN, "mcp_method": method}
            name = NAME_MEMBER.get(method)
            if name is not None and params and name in params:
                headers["mcp_name"] = params[name]  # 2026-07-28 Mcp-Name
            return headers
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
        await self.raw.send("POST", body, **self._headers(method, params))
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
