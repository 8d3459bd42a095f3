"""What the runtime lends the task engine: background work, wake-ups, a clock.

mcp_core starts no task and waits on nothing itself. A runtime that can run a
task in the background of the serving process implements `TaskHost` on the Peer
it gives each request's Context; without one, a task-capable tool simply runs in
the request (and a tool that requires a task cannot be called).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol, runtime_checkable

__all__ = ["Signal", "TaskHost"]


class Signal(Protocol):
    """A wake-up: `wait` returns once `set` was called since the last `wait`
    returned (or at once, if it was)."""

    def set(self) -> None: ...

    async def wait(self) -> None: ...


@runtime_checkable
class TaskHost(Protocol):
    """The runtime's side of tasks."""

    def start_task(self, job: Callable[[], Awaitable[None]]) -> Callable[[], None]:
        """Run ``job`` in the background of the serving process, beyond the
        request and the connection that started it; return what cancels it."""
        ...

    def signal(self) -> Signal:
        """A new `Signal`."""
        ...

    def clock(self) -> float:
        """Wall-clock seconds now (``time.time()``)."""
        ...

    def notify(self, method: str, params: Any) -> None:
        """Send a notification on the connection the request came from, if it
        is still open (else drop it)."""
        ...
