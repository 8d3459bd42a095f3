"""The client application layer: what a client asks and how it answers its server.

The mirror of `mcp_core.server`, for the other side of the connection:

- `requests`: `Call`, each client request as (method, params, result type), built
  by `call_tool`, `read_resource`, `list_tools`, `listen`...;
- `callbacks`: `Callbacks`, which of the application's callbacks answers a server
  request or input request, receives a notification, or settles a subscription;
- `mrtr`: `InputRounds`, the 2026-07-28 multi round-trip retry of one call;
- `pagination`: `Cursors`, walking list pages without looping on a repeated cursor;
- `tool_output`: `OutputSchemas`, a tool result checked against its ``outputSchema``
  (with the JSON Schema subset of `json_schema`).

Nothing here awaits: it returns decisions (what to send, which callback to run) and
the adapter (`transports.Client`) carries them out.
"""

from . import requests
from .callbacks import (
    Acknowledged,
    Callbacks,
    Delivery,
    ElicitationCallback,
    ElicitationCompleteCallback,
    LogCallback,
    NotificationCallback,
    Reply,
    RootsCallback,
    SamplingCallback,
)
from .mrtr import (
    MAX_INPUT_ROUNDS,
    InputRounds,
)
from .pagination import (
    Cursors,
)
from .requests import (
    Call,
)
from .tool_output import (
    OutputSchemas,
    ToolOutputError,
)

__all__ = [
    "requests",
    "Call",
    "Callbacks",
    "Reply",
    "Delivery",
    "Acknowledged",
    "SamplingCallback",
    "ElicitationCallback",
    "ElicitationCompleteCallback",
    "RootsCallback",
    "LogCallback",
    "NotificationCallback",
    "InputRounds",
    "MAX_INPUT_ROUNDS",
    "Cursors",
    "OutputSchemas",
    "ToolOutputError",
]
