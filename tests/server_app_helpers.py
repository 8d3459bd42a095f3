"""Helpers for driving Server.dispatch directly: events, a fake Peer, a runner."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from mcp_core.server.app import Server
from mcp_core.server.context import Context
from mcp_core.session.events import RequestReceived
from mcp_core.session.server import ClientInfo
from mcp_core.types.base import ClientCapabilities
from mcp_core.types.methods import method_spec

LEGACY = "2025-11-25"
MODERN = "2026-07-28"
KEY = b"k" * 32


def make_event(
    method: str,
    params: dict[str, Any] | None = None,
    *,
    revision: str = LEGACY,
    capabilities: dict[str, Any] | None = None,
    log_level: str | None = None,
    progress_token: str | int | None = None,
    request_id: int = 1,
) -> RequestReceived:
    """A RequestReceived as the session would report it, params typed for the method."""
    spec = method_spec(method, revision)
    assert spec is not None, (method, revision)
    typed = msgspec.convert(params or {}, spec.params_type)
    client = ClientInfo(
        capabilities=msgspec.convert(capabilities or {}, ClientCapabilities),
        log_level=log_level,
    )
    return RequestReceived(
        id=request_id,
        method=method,
        params=typed,
        revision=revision,
        client=client,
        progress_token=progress_token,
    )


class FakePeer:
    """Records what a Context sends and answers legacy requests from a table."""

    def __init__(self, answers: dict[str, Any] | None = None) -> None:
        self.answers = answers or {}
        self.progress: list[tuple[float, float | None, str | None]] = []
        self.logs: list[tuple[str, Any, str | None]] = []
        self.requests: list[tuple[str, Any]] = []
        self.notifications: list[tuple[str, Any]] = []
        self.threaded = 0

    async def send_progress(
        self, progress: float, total: float | None, message: str | None
    ) -> None:
        self.progress.append((progress, total, message))

    async def send_log(self, level: str, data: Any, logger: str | None) -> None:
        self.logs.append((level, data, logger))

    async def request(self, method: str, params: Any) -> Any:
        self.requests.append((method, params))
        return self.answers[method]

    async def run_sync(self, fn: Callable[[], Any]) -> Any:
        self.threaded += 1
        return fn()

    async def send_notification(self, method: str, params: Any) -> None:
        self.notifications.append((method, params))


async def dispatch(
    server: Server,
    method: str,
    params: dict[str, Any] | None = None,
    *,
    peer: FakePeer | None = None,
    now: float = 1000.0,
    principal: str | None = None,
    **options: Any,
) -> Any:
    """Build the event and Context, dispatch, and return the result."""
    event = make_event(method, params, **options)
    ctx = Context(event, peer or FakePeer(), now=now, principal=principal)
    return await server.dispatch(event, ctx)


def wire(value: Any) -> Any:
    """The JSON form of a result, as the client would see it."""
    return msgspec.json.decode(msgspec.json.encode(value))
