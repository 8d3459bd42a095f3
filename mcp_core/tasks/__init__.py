"""Tasks: long-running requests, in both eras, from one engine.

- `status`: the statuses and the moves between them (a table).
- `record`: one task as stored, and the pure rules that change it.
- `store`: the `TaskStore` interface and the bounded `MemoryTaskStore`.
- `engine`: `TaskEngine`, the one place tasks are created, read and changed.
- `render`: a task as each era shows it.
"""

from .engine import TaskEngine, TaskNotFound
from .record import TaskConflict, TaskRecord
from .status import TERMINAL, TRANSITIONS, TaskStatus, can_move
from .store import MemoryTaskStore, StoreFull, TaskStore

__all__ = [
    "TERMINAL",
    "TRANSITIONS",
    "MemoryTaskStore",
    "StoreFull",
    "TaskConflict",
    "TaskEngine",
    "TaskNotFound",
    "TaskRecord",
    "TaskStatus",
    "TaskStore",
    "can_move",
]
