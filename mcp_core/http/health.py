# Health probes for a load balancer and a container orchestrator, sans I/O.
#
# Two paths beside the MCP endpoint, below the same mount point (the request's
# path is the one `HttpEndpoint` routes on): ``/healthz`` says the process is
# alive and serving (a liveness probe: 200 whenever it is answered at all), and
# ``/readyz`` whether it should be sent traffic (a readiness probe, HAProxy's
# ``option httpchk``): 200 when the application's lifespan has started, the
# server is not draining (shutting down), and the shared state store answers
# when there is one; 503 otherwise, the body naming the checks that failed.
#
# The adapter asks `HealthRules.probe` about a request the endpoint's head check
# refused as not its path; for a probe it gathers the readiness inputs (its own
# state, one round trip to the shared store: that is I/O) and `answer` turns
# them into the reply. Probes carry nothing of a session or a principal, so they
# pass no authentication, and are answered whatever the Host: an orchestrator's
# probe names the pod's address, which no allowed_hosts list holds (the DNS-
# rebinding check guards MCP data, none of which a probe reveals). They open no
# session. GET and HEAD only (RFC 9110 section 9.3.2: HEAD is GET without the
# content); anything else gets 405 with Allow.

from __future__ import annotations

from typing import Final

from msgspec import Struct

from .config import HttpServerConfig
from .decisions import HttpRequest, Reply

__all__ = ["HealthRules", "Probe", "Readiness"]

_TEXT: Final = ("content-type", "text/plain; charset=utf-8")
_NO_STORE: Final = ("cache-control", "no-store")
_ALLOW: Final = ("allow", "GET, HEAD")


class Probe(Struct, frozen=True):
    """A health probe to answer (`HealthRules.answer`).

    Attributes:
        ready: a readiness probe (``/readyz``); else a liveness one (``/healthz``).
        head: a HEAD request: the answer has no body.
    """

    ready: bool
    head: bool = False


class Readiness(Struct, frozen=True, kw_only=True):
    """What a readiness probe is answered from; the adapter knows each.

    Attributes:
        started: the application's lifespan has started (ASGI: the lifespan
            startup is complete; the h11 server starts it before it listens).
        draining: the server is shutting down (it finishes what it serves and
            takes nothing new).
        shared_state: the shared state store answered (None: the server
            shares no state).
    """

    started: bool = True
    draining: bool = False
    shared_state: bool | None = None

    def failures(self) -> list[str]:
        """The checks that failed, as short phrases (none: ready)."""
        failed = []
        if not self.started and not self.draining:
            failed.append("not started")
        if self.draining:
            failed.append("draining")
        if self.shared_state is False:
            failed.append("shared state store unreachable")
        return failed


class HealthRules:
    """Which requests are health probes, and their answers.

    Args:
        config: the endpoint's config: ``health_path`` and ``ready_path`` (None
            turns a probe off), which must differ from the MCP paths.

    Raises:
        ValueError: a probe's path is one of the MCP endpoint's.
    """

    def __init__(self, config: HttpServerConfig) -> None:
        taken = {config.path, config.sse_path, config.sse_messages_path}
        for path in (config.health_path, config.ready_path):
            if path is not None and path in taken:
                raise ValueError(f"the health probe path {path!r} is an MCP endpoint's path")
        self.paths: dict[str, bool] = {}
        if config.health_path is not None:
            self.paths[config.health_path] = False
        if config.ready_path is not None:
            self.paths[config.ready_path] = True

    def probe(self, request: HttpRequest) -> Probe | Reply | None:
        """The probe ``request`` is, a 405 for a probe path asked with another
        method than GET or HEAD, or None: not a probe's path."""
        ready = self.paths.get(request.path)
        if ready is None:
            return None
        method = request.method
        if method != "GET" and method != "HEAD":
            body = f"{method} is not served here".encode()
            return Reply(405, (_TEXT, _ALLOW), body)
        return Probe(ready, method == "HEAD")

    def answer(self, probe: Probe, readiness: Readiness) -> Reply:
        """The answer to ``probe``: liveness is 200 whenever it is asked;
        readiness 200, or 503 naming the checks that failed (``readiness`` is
        ignored for liveness)."""
        if not probe.ready:
            status, text = 200, "alive"
        else:
            failed = readiness.failures()
            status, text = (503, f"not ready: {', '.join(failed)}") if failed else (200, "ready")
        body = b"" if probe.head else f"{text}\n".encode()
        return Reply(status, (_TEXT, _NO_STORE), body)
