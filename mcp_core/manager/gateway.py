"""A server that offers what other servers offer: the gateway's application side.

`Gateway` is a `mcp_core.Server` that declares tools, resources and prompts and
whose lists belong to someone else (a client manager's union): its runtime answers
``tools/list`` and the rest with advanced handlers, and calls `Gateway.lists_changed`
whenever an upstream server's list changes or it reconnects, which sends the
gateway's own clients ``notifications/tools/list_changed`` (and resources, prompts)
as a Server does when its registry changes (2025-11-25 server/tools.mdx "List
Changed Notification"; in 2026-07-28 on the clients' ``subscriptions/listen``
streams).

An upstream's own requests during a call (sampling, elicitation, roots) are
relayed by `Gateway.ask_client` to the gateway client whose call caused them, when
that client speaks a handshake-era revision: the request goes to it as a request
of the gateway's, and its answer back to the upstream. A 2026-07-28 client cannot
be asked in the middle of a call: it would answer by calling the tool again with
``inputResponses`` (2026-07-28 basic/patterns/mrtr.mdx: the server "MUST NOT rely
on the client retrying", and the retry is a new, independent request), which would
run the upstream's tool a second time, and tools may not be idempotent. The
upstream's request is refused instead, with a message that says why.
"""

from __future__ import annotations

from typing import Any, Final

from msgspec import UNSET

from ..server.app import Server
from ..server.context import Context, McpError
from ..wire import INVALID_REQUEST
from .catalog import KINDS, Kind

__all__ = ["RELAYED", "Gateway"]

RELAYED: Final = {
    "sampling": "sampling/createMessage",
    "elicitation": "elicitation/create",
    "roots": "roots/list",
}
"""The client callbacks of a manager, and the requests of an upstream they answer."""


class Gateway(Server):
    """A Server whose tools, resources and prompts are a union of other servers'.

    Args:
        name: its ``serverInfo.name``.
        version: its ``serverInfo.version``.
        instructions: for the model.
    """

    def __init__(self, name: str, version: str, *, instructions: str | None = None) -> None:
        super().__init__(name, version, instructions=instructions, threaded=False)
        self.declare(*KINDS)

    def lists_changed(self, kind: Kind | None = None) -> None:
        """The union's list of ``kind`` (None: every kind) changed: tell the clients."""
        for each in KINDS if kind is None else (kind,):
            self._changed(each)

    async def ask_client(self, ctx: Context | None, kind: str, params: Any = UNSET) -> Any:
        """Relay an upstream's request of ``kind`` (a key of `RELAYED`) to the gateway
        client served by ``ctx``; its answer.

        Raises:
            McpError: -32600 when there is no such call (``ctx`` None), or its
                client speaks 2026-07-28 (see the module doc); the client's own
                error when it refuses.
        """
        method = RELAYED[kind]
        if ctx is None:
            raise McpError(
                INVALID_REQUEST,
                f"the gateway cannot tell which of its clients {method} is for: no call "
                "of exactly one client is in flight on this server",
            )
        if ctx.modern:
            # 2026-07-28 basic/patterns/mrtr.mdx: the answer would come with a new
            # tools/call, running the upstream's tool again.
            raise McpError(
                INVALID_REQUEST,
                f"the gateway's client speaks {ctx.revision}, where {method} cannot be "
                "asked in the middle of a call (its answer would come with the call "
                "made again, and the tool run twice)",
            )
        return await ctx.peer.request(method, params)
