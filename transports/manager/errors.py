"""What a call through the manager raises when it is the connection, not the server,
that failed. Each error names the server."""

from __future__ import annotations

from ..http.client import HttpError, OutcomeUnknownError

__all__ = ["CallInterrupted", "ManagerError", "ServerUnavailable", "UnknownName", "sent"]


class ManagerError(Exception):
    """A manager operation failed; ``server`` names the server, when there is one."""

    def __init__(self, message: str, server: str | None = None) -> None:
        super().__init__(message)
        self.server = server


class ServerUnavailable(ManagerError):
    """The server is not connected (still connecting, lost, given up on), or could
    not be reached (the connection refused): the call was not sent."""


class CallInterrupted(ManagerError):
    """The connection broke while the request was in flight. It is not repeated:
    a tool may not be idempotent, and it may or may not have run."""


class UnknownName(ManagerError, LookupError):
    """No server, or no tool or prompt of that name in the union."""


def sent(exc: BaseException) -> bool:
    """Whether a request that failed with ``exc`` may have reached its server: not
    when HTTP could not carry it (no connection: refused, unresolved, a TLS
    failure), whose error is neither an unknown outcome nor a refusal."""
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    return not isinstance(exc, HttpError) or isinstance(exc, OutcomeUnknownError)
