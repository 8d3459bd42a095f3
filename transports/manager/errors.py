"""What a call through the manager raises when it is the connection, not the server,
that failed. Each error names the server."""

from __future__ import annotations

__all__ = ["CallInterrupted", "ManagerError", "ServerUnavailable", "UnknownName"]


class ManagerError(Exception):
    """A manager operation failed; ``server`` names the server, when there is one."""

    def __init__(self, message: str, server: str | None = None) -> None:
        super().__init__(message)
        self.server = server


class ServerUnavailable(ManagerError):
    """The server is not connected (still connecting, lost, given up on): the call
    was not sent."""


class CallInterrupted(ManagerError):
    """The connection broke while the request was in flight. It is not repeated:
    a tool may not be idempotent, and it may or may not have run."""


class UnknownName(ManagerError, LookupError):
    """No server, or no tool or prompt of that name in the union."""
