"""What ``mcp-core call`` shows on stderr while a tool runs: its progress
notifications (basic/utilities/progress) and its log messages (``notifications/message``,
server/utilities/logging).

On a terminal, progress is one bar redrawn in place, and a log line is printed above
it; anywhere else (a pipe, a file, a CI log) every report is a line of its own, so
nothing is full of carriage returns. stdout keeps only the result.
"""

from __future__ import annotations

import json
from typing import Final, TextIO

from msgspec import UnsetType

from mcp_core.session import ProgressReceived
from mcp_core.types import LoggingMessageNotificationParams

__all__ = ["BAR_WIDTH", "Feedback", "log_line", "progress_bar", "progress_line"]

BAR_WIDTH: Final = 24
"""Cells in the progress bar."""

_CLEAR_LINE: Final = "\r\x1b[K"


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def progress_line(progress: float, total: float | None, message: str | None) -> str:
    """A progress report as a plain line: ``progress 50/100 message``."""
    amount = _number(progress) if total is None else f"{_number(progress)}/{_number(total)}"
    return f"progress {amount}" + (f" {message}" if message else "")


def progress_bar(progress: float, total: float | None, message: str | None) -> str:
    """A progress report as a bar: ``[############............]  50% message``.

    Without a total (the spec allows it) there is nothing to fill: the plain line.
    """
    if total is None or total <= 0:
        return progress_line(progress, total, message)
    fraction = min(max(progress / total, 0.0), 1.0)
    filled = round(fraction * BAR_WIDTH)
    bar = f"[{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {fraction:4.0%}"
    return bar + (f" {message}" if message else "")


def log_line(params: LoggingMessageNotificationParams) -> str:
    """A log message as a line: ``[level] logger: data`` (data as JSON unless a string)."""
    data = params.data if isinstance(params.data, str) else json.dumps(params.data)
    logger = "" if isinstance(params.logger, UnsetType) else f"{params.logger}: "
    return f"[{params.level}] {logger}{data}"


class Feedback:
    """Shows progress and log messages on ``stream`` (stderr); `close` clears the bar."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._terminal = stream.isatty()
        self._bar = ""

    def progress(self, event: ProgressReceived) -> None:
        """A progress notification for the running call."""
        if self._terminal:
            self._bar = progress_bar(event.progress, event.total, event.message)
            self._stream.write(_CLEAR_LINE + self._bar)
        else:
            self._stream.write(progress_line(event.progress, event.total, event.message) + "\n")
        self._stream.flush()

    def log(self, params: LoggingMessageNotificationParams) -> None:
        """A log message from the server."""
        line = log_line(params) + "\n"
        if self._bar:
            line = _CLEAR_LINE + line + self._bar
        self._stream.write(line)
        self._stream.flush()

    def close(self) -> None:
        """Take the bar away, leaving the line empty for what comes next."""
        if self._bar:
            self._stream.write(_CLEAR_LINE)
            self._stream.flush()
            self._bar = ""
