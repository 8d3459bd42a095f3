"""Where the application layer reports a handler, a middleware or a task that raised.

The records go to the standard ``logging`` module, logger ``"mcp_core"``, and the
application's logging configuration decides where they end. ``logging`` is imported
on the first failure, not with the package: importing it loads ``threading``, and
``import mcp_core`` loads no threading, socket or event loop (docs/architecture.md,
tests/core/test_imports.py). A program that has a handler fail is already running on
some loop, which loaded both long before.
"""

from __future__ import annotations

__all__ = ["LOGGER", "log_failure"]

LOGGER = "mcp_core"
"""The name of the logger handler failures are reported on."""


def log_failure(message: str, *args: object, exc: BaseException) -> None:
    """Log ``message % args`` at ERROR on `LOGGER`, with ``exc``'s traceback."""
    import logging

    logging.getLogger(LOGGER).error(message, *args, exc_info=exc)
