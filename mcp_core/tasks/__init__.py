"""Tasks: long-running requests, in both eras, from one engine.

- `status`: the statuses and the moves between them (a table).
- `record`: one task as stored, and the pure rules that change it.
- `store`: the `TaskStore` interface and the bounded `MemoryTaskStore`.
- `engine`: `TaskEngine`, the one place tasks are created, read and changed.
- `render`: a task as each era shows it.
- `host`: what the runtime lends (background work, wake-ups, a clock).
- `context`: the Context of a handler running as a task.
- `serving`: when a tool call becomes a task, and the ``tasks/*`` methods.
"""

from .context import TaskContext
from .engine import TaskEngine, TaskNotFound
from .host import Signal, TaskHost
from .record import TaskConflict, TaskRecord
from .serving import TASKS_EXTENSION, TaskService
from .status import TERMINAL, TRANSITIONS, TaskStatus, can_move
from .store import MemoryTaskStore, StoreFull, TaskStore

__all__ = [
    "TASKS_EXTENSION",
    "TERMINAL",
    "TRANSITIONS",
    "MemoryTaskStore",
    "Signal",
    "StoreFull",
    "TaskConflict",
    "TaskContext",
    "TaskEngine",
    "TaskHost",
    "TaskNotFound",
    "TaskRecord",
    "TaskService",
    "TaskStatus",
    "TaskStore",
    "can_move",
]
