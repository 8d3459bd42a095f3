"""Answering health probes (``/healthz``, ``/readyz``) for an HTTP service.

The rules are `mcp_core.http.health`'s; this gathers what a readiness probe is
answered from: whether the service runs, whether it drains (the adapter says so
when it begins shutting down), and, when the server shares its state, one
lookup in the shared session registry (a Redis round trip, under the store's own
time limit). A change of readiness is logged, with the store's reason, which the
probe's body does not carry (it may name the store's address).
"""

from __future__ import annotations

import logging
from typing import Final

from mcp_core import Server
from mcp_core.http.decisions import HttpRequest, Reply
from mcp_core.http.health import HealthRules, Readiness
from mcp_core.wire.errors import SharedStateUnavailable

__all__ = ["Health"]

log = logging.getLogger("mcp_core.http")

_PROBE_SESSION: Final = "readyz-probe"
"""The session id a readiness probe looks up (no session has it: ids are random)."""


class Health:
    """The health probes of one service.

    Args:
        rules: the endpoint's probe rules.
        server: the application, whose shared session registry (if any) a
            readiness probe reaches.
    """

    def __init__(self, rules: HealthRules, server: Server) -> None:
        self.rules = rules
        self.server = server
        #: The server is shutting down: readiness fails from now on.
        self.draining = False
        self._failed: list[str] = []

    async def answer(self, head: HttpRequest, *, started: bool) -> Reply | None:
        """The answer to ``head`` if it is a health probe, else None.

        Args:
            head: the request's head.
            started: the service runs (its lifespan has started).
        """
        probe = self.rules.probe(head)
        if probe is None or isinstance(probe, Reply):
            return probe
        if not probe.ready:
            return self.rules.answer(probe, Readiness())
        shared, why = None, ""
        registry = self.server.session_registry
        if registry is not None and started and not self.draining:
            try:
                await registry.get(None, _PROBE_SESSION)
                shared = True
            except SharedStateUnavailable as exc:
                shared, why = False, f" ({exc})"
        readiness = Readiness(started=started, draining=self.draining, shared_state=shared)
        failed = readiness.failures()
        if failed != self._failed:
            self._failed = failed
            if failed:
                log.warning("not ready: %s%s", ", ".join(failed), why)
            else:
                log.info("ready again")
        return self.rules.answer(probe, readiness)
