"""A server that offers what other servers offer: the gateway's application side.

`Gateway` is a `mcp_core.Server` that declares tools, resources and prompts and
whose lists belong to someone else (a client manager's union): its runtime answers
``tools/list`` and the rest with advanced handlers, and calls `Gateway.lists_changed`
whenever an upstream server's list changes or it reconnects, which sends the
gateway's own clients ``notifications/tools/list_changed`` (and resources, prompts)
as a Server does when its registry changes (2025-11-25 server/tools.mdx "List
Changed Notification"; in 2026-07-28 on the clients' ``subscriptions/listen``
streams).
"""

from __future__ import annotations

from ..server.app import Server
from .catalog import KINDS, Kind

__all__ = ["Gateway"]


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
