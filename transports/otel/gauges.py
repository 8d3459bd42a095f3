"""Gauges read when the metrics are collected: the state of live objects.

- ``mcp_core.threads.queued``: jobs handed to the worker threads that no worker
  has taken yet (the thread hand-off queue, `transports.threads.queued`);
- ``mcp_core.manager.links``: the links of the running managers (and gateways),
  by ``state`` (connecting, connected, failed, ...);
- ``mcp_core.tasks``: the tasks of every server of this process, by ``status``
  (`mcp_core.tasks.engine.TaskEngine.counts`): working and input_required now,
  and how many ended completed, failed or cancelled.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from mcp_core.tasks.engine import ENGINES, TaskEngine
from mcp_core.tasks.status import TRANSITIONS

from .. import threads
from ..manager.manager import RUNNING
from .meters import OwnMeters

__all__ = ["watch_gauges"]


def _queued() -> Iterable[tuple[int, dict[str, str]]]:
    return [(threads.queued(), {})]


def _links() -> Iterable[tuple[int, dict[str, str]]]:
    states = Counter(link.state for manager in list(RUNNING) for link in manager.links())
    return [(count, {"state": state}) for state, count in sorted(states.items())]


def _engines() -> list[TaskEngine]:
    # Read from the scrape's thread: a server made meanwhile changes the set.
    for _ in range(8):
        try:
            return list(ENGINES)
        except RuntimeError:  # changed size during iteration
            continue
    return []


def _tasks() -> Iterable[tuple[int, dict[str, str]]]:
    # Every status, 0 included: a series that exists from the start.
    counts: Counter[str] = Counter(dict.fromkeys(TRANSITIONS, 0))
    for engine in _engines():
        counts.update(engine.counts)
    return [(count, {"status": status}) for status, count in counts.items()]


def watch_gauges(meters: OwnMeters) -> None:
    """Register the gauges on ``meters``."""
    meters.watch("mcp_core.threads.queued", "{job}", "Jobs waiting for a worker thread.", _queued)
    meters.watch("mcp_core.manager.links", "{link}", "Manager links, by state.", _links)
    meters.watch(
        "mcp_core.tasks",
        "{task}",
        "Tasks by status: working and input_required now; completed, failed and "
        "cancelled in total.",
        _tasks,
    )
