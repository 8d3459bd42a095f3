# The connections that serve one application, watching its registry once for all.
#
# Every connection must hear of registry changes (tools added at run time,
# resource_updated) and task status notifications, to hand them to its session's
# `publish`. Watching per connection costs each one two watcher entries, two unwatch
# closures and their keys: about 800 bytes of an idle HTTP session's ~4.7 KiB, and a
# copy of a list of all the watchers at every change. An `Audience` watches once
# per (application, thread) and keeps its connections in one dict; a connection
# costs one entry there, and joining and leaving ~0.4 us (watching and unwatching
# twice cost ~1.2 us).

from __future__ import annotations

import threading
import weakref
from typing import Any, Protocol

import anyio

from mcp_core import Server

__all__ = ["Audience", "Listener", "join"]


class Listener(Protocol):
    """What the audience calls: a connection's delivery of one notification."""

    principal: str | None

    def deliver(self, method: str, params: Any) -> bool:
        """Hand a notification to the connection's session; False once it is
        closed (the audience then forgets it)."""
        ...


class Audience:
    """The listeners of one application in one thread (see the module's notes).

    It stays, watching, when its last listener leaves: a 2026-07-28 HTTP request
    is a connection of its own, and watching anew for each would cost more than
    the request's share of an idle audience (nothing: a change finds nobody).
    It holds no reference to the application, which it cannot keep alive.
    """

    __slots__ = ("_listeners", "_thread")

    def __init__(self, server: Server) -> None:
        self._listeners: dict[Listener, None] = {}
        # Registry changes may come from a handler in a worker thread.
        self._thread = threading.get_ident()
        server.watch(self._publish)
        server.tasks.watch(self._publish_task)

    def add(self, listener: Listener) -> None:
        self._listeners[listener] = None

    def discard(self, listener: Listener) -> None:
        self._listeners.pop(listener, None)

    def _publish(self, method: str, params: Any) -> None:
        if not self._listeners:
            return  # nobody listens (perhaps in a thread whose event loop ended)
        if threading.get_ident() != self._thread:
            # A plain-function handler (run in anyio's worker threads) changed the
            # registry: publish from the event loop's thread, as everything else.
            anyio.from_thread.run_sync(self._publish, method, params)
            return
        self._deliver(list(self._listeners), method, params)

    def _publish_task(self, principal: str, method: str, params: Any) -> None:
        # Task notifications go only to connections of the task's principal.
        if not self._listeners:
            return
        if threading.get_ident() != self._thread:
            anyio.from_thread.run_sync(self._publish_task, principal, method, params)
            return
        chosen = [one for one in self._listeners if (one.principal or "") == principal]
        self._deliver(chosen, method, params)

    def _deliver(self, listeners: list[Listener], method: str, params: Any) -> None:
        for listener in listeners:
            if not listener.deliver(method, params):
                self.discard(listener)


_audiences: weakref.WeakKeyDictionary[Server, dict[int, Audience]] = weakref.WeakKeyDictionary()


def join(server: Server, listener: Listener) -> Audience:
    """Make ``listener`` hear ``server``'s change and task notifications, in this
    thread; returns the audience it joined (``discard`` it to stop)."""
    by_thread = _audiences.setdefault(server, {})
    thread = threading.get_ident()
    audience = by_thread.get(thread)
    if audience is None:
        audience = by_thread[thread] = Audience(server)
    audience.add(listener)
    return audience
