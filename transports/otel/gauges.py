"""Gauges read when the metrics are collected: the state of live objects.

- ``mcp_core.threads.queued``: jobs handed to the worker threads that no worker
  has taken yet (the thread hand-off queue, `transports.threads.queued`);
- ``mcp_core.manager.links``: the links of the running managers (and gateways),
  by ``state`` (connecting, connected, failed, ...).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from .. import threads
from ..manager.manager import RUNNING
from .meters import OwnMeters

__all__ = ["watch_gauges"]


def _queued() -> Iterable[tuple[int, dict[str, str]]]:
    return [(threads.queued(), {})]


def _links() -> Iterable[tuple[int, dict[str, str]]]:
    states = Counter(link.state for manager in list(RUNNING) for link in manager.links())
    return [(count, {"state": state}) for state, count in sorted(states.items())]


def watch_gauges(meters: OwnMeters) -> None:
    """Register the gauges on ``meters``."""
    meters.watch("mcp_core.threads.queued", "{job}", "Jobs waiting for a worker thread.", _queued)
    meters.watch("mcp_core.manager.links", "{link}", "Manager links, by state.", _links)
