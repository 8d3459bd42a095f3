"""``--log-level``, ``--log-format`` and ``--access-log`` of ``mcp-core serve`` and
``gateway``: Python logging to stderr, for our loggers (``mcp_core.*``) and the
application's own.

Given either option, the root logger gets one handler on stderr (never stdout:
on stdio that is the protocol's wire), replacing any, at the level asked
(default warning). Given neither, logging is left as it is: warnings and errors
on stderr through Python's last-resort handler, or whatever the application sets
up itself.

    text   2026-07-28T10:00:00.123Z INFO app: message
    json   {"time": "2026-07-28T10:00:00.123Z", "level": "INFO", "logger": "app",
            "message": "message", ...}   one object per line, with the record's
            extra fields (``log.info(..., extra={"server": "github"})``) and the
            traceback of an exception as "exception".

``--access-log`` adds one INFO record per MCP request answered, on the logger
``mcp_core.access``, whatever ``--log-level`` says: the method, the tool, prompt
or URI, the revision, the status (and JSON-RPC error code), the duration and the
tags of the session and principal, as text or as the json fields "method",
"tool" / "prompt" / "uri", "revision", "status", "code", "duration_ms",
"session" and "principal" (transports/access.py; docs/operations.md).
"""

from __future__ import annotations

import argparse
import datetime
import json
import logging
import sys
from typing import Any, Final

__all__ = ["JsonFormatter", "TextFormatter", "add_log_arguments", "configure_logging"]

LEVELS: Final = ("debug", "info", "warning", "error", "critical")
_STANDARD: Final = frozenset(
    {
        *logging.LogRecord("", 0, "", 0, "", None, None).__dict__,
        "message",
        "asctime",
        "taskName",
    }
)
"""Attributes every LogRecord has: what is not among them was passed as ``extra``."""


def _time(record: logging.LogRecord) -> str:
    moment = datetime.datetime.fromtimestamp(record.created, datetime.UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


class TextFormatter(logging.Formatter):
    """``TIME LEVEL LOGGER: MESSAGE``, the time in UTC (ISO 8601)."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s")

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:
        return _time(record)


class JsonFormatter(logging.Formatter):
    """One JSON object per record: time, level, logger, message, then the extra
    fields (values JSON cannot hold are given as text) and any exception."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": _time(record),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key, value in record.__dict__.items():
            if key not in _STANDARD and key not in entry:
                entry[key] = value
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        elif record.exc_text:
            entry["exception"] = record.exc_text
        if record.stack_info:
            entry["stack"] = self.formatStack(record.stack_info)
        return json.dumps(entry, ensure_ascii=False, default=str)


def add_log_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--log-level`` and ``--log-format`` to a subcommand."""
    parser.add_argument(
        "--log-level",
        choices=LEVELS,
        help="log records of this level and above to stderr, the application's own "
        "included (default warning)",
    )
    parser.add_argument(
        "--log-format",
        choices=("text", "json"),
        help="text (default): TIME LEVEL LOGGER: MESSAGE; json: one object per line "
        "with time, level, logger, message and the record's extra fields",
    )
    parser.add_argument(
        "--access-log",
        action="store_true",
        help="log one line per MCP request answered (method, tool or URI, revision, "
        "status or error code, duration, tags of the session and principal) on the "
        "logger mcp_core.access",
    )


def configure_logging(args: argparse.Namespace) -> None:
    """Set up logging as ``args`` (from `add_log_arguments`) ask, if they do."""
    if args.access_log:
        from ..access import access_log

        access_log.setLevel(logging.INFO)
    elif args.log_level is None and args.log_format is None:
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter() if args.log_format == "json" else TextFormatter())
    root = logging.getLogger()
    for old in root.handlers[:]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel((args.log_level or "warning").upper())
