"""Task statuses and the moves between them, as a table.

2025-11-25 basic/utilities/tasks.mdx "Task Status Lifecycle" and the 2026-07-28 tasks
extension (io.modelcontextprotocol/tasks, tasks.mdx "Task Status") draw the same
diagram: a task starts ``working``, goes to ``input_required`` and back, and ends in
one of three terminal statuses it never leaves.
"""

from __future__ import annotations

from typing import Final, Literal, TypeAlias

__all__ = ["TaskStatus", "TERMINAL", "TRANSITIONS", "can_move"]

TaskStatus: TypeAlias = Literal["working", "input_required", "completed", "failed", "cancelled"]

TERMINAL: Final = frozenset({"completed", "failed", "cancelled"})
"""Statuses a task never leaves."""

TRANSITIONS: Final[dict[str, frozenset[str]]] = {
    "working": frozenset({"input_required", "completed", "failed", "cancelled"}),
    "input_required": frozenset({"working", "completed", "failed", "cancelled"}),
    "completed": frozenset(),
    "failed": frozenset(),
    "cancelled": frozenset(),
}
"""status -> the statuses it may move to."""


def can_move(old: str, new: str) -> bool:
    """Whether a task may go from ``old`` to ``new`` (staying put is no move)."""
    return new in TRANSITIONS.get(old, frozenset())
