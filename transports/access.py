# The access log: one line per MCP request a server answers, on the logger
# ``mcp_core.access``, at INFO.
#
# It is off unless asked for: this module gives the logger the level WARNING
# unless the application set one first, so an application that logs at INFO does
# not get it by accident. Turn it on with ``mcp-core serve --access-log`` (or
# ``gateway``), or in code with
# ``logging.getLogger("mcp_core.access").setLevel(logging.INFO)`` before serving.
#
# The facts come from the core (mcp_core/session/access.py: `AccessSession` notes
# each request as it arrives and as its answer leaves the session, whichever way
# it was served); this module only chooses that session when the log is on,
# measures the time, and writes the line. A session is chosen when it is made,
# so turning the log on affects the sessions made after.
#
# A request the HTTP server refuses before any session reads it (a 4xx or 5xx
# answer: malformed, unauthorized, unknown session, too large...) gets a line of
# its own from `refused`, with the HTTP method, the path and the status: the HTTP
# service and the two adapters call it where they decide such an answer.

from __future__ import annotations

import logging
import time
from typing import Any, Final

from mcp_core import Limits, ServerSession
from mcp_core.http.decisions import HttpRequest
from mcp_core.session import ServerConfig
from mcp_core.session.access import AccessSession, Answered, tag
from mcp_core.wire import DEFAULT_LIMITS, Message

__all__ = ["access_log", "refused", "server_session"]

access_log: Final = logging.getLogger("mcp_core.access")
if access_log.level == logging.NOTSET:
    access_log.setLevel(logging.WARNING)

_now = time.monotonic  # the clock the runtime gives sessions (driver.py, one_request.py)
_INFO: Final = logging.INFO
_MAX_SUBJECT: Final = 200
"""Characters of a tool name or URI written; the rest is cut (a peer chooses them)."""


def server_session(
    config: ServerConfig,
    limits: Limits = DEFAULT_LIMITS,
    *,
    session_id: str | None = None,
    principal: str | None = None,
) -> ServerSession:
    """A ServerSession for ``config``: one whose answers are logged when the
    access log is on, a plain one (that costs nothing more) when it is off.

    Args:
        session_id: the transport's session id (``Mcp-Session-Id``), if any;
            logged as a `tag`, since it would let a reader act as the session.
        principal: who the transport authenticated the client as; logged as a
            `tag`.
    """
    if not access_log.isEnabledFor(_INFO):
        return ServerSession(config, limits)
    return _LoggedSession(
        config,
        limits,
        session="-" if session_id is None else tag(session_id),
        principal="-" if principal is None else tag(principal),
    )


class _LoggedSession(AccessSession):
    """An AccessSession that writes the access log as its answers leave."""

    def __init__(
        self, config: ServerConfig, limits: Limits, *, session: str, principal: str
    ) -> None:
        super().__init__(config, limits)
        self._tags = (session, principal)

    def messages_to_send(self) -> list[Message]:
        out = super().messages_to_send()
        answered = self.take_answered()
        if answered:
            now = _now()
            for entry in answered:
                _write(entry, now, *self._tags)
        return out


def _write(entry: Answered, now: float, session: str, principal: str) -> None:
    duration = None if entry.received is None else round((now - entry.received) * 1000, 3)
    subject = entry.subject
    if subject is not None and len(subject) > _MAX_SUBJECT:
        subject = subject[:_MAX_SUBJECT] + "..."
    parts = [entry.method or "-"]
    if entry.target is not None:
        parts.append(f"{entry.target}={_quoted(subject or '')}")
    parts.append(entry.revision or "-")
    parts.append(entry.status if entry.code is None else f"{entry.status} {entry.code}")
    parts.append("-" if duration is None else f"{duration}ms")
    parts.append(f"session={session} principal={principal}")
    extra: dict[str, Any] = {
        "method": entry.method,
        "revision": entry.revision,
        "status": entry.status,
        "code": entry.code,
        "duration_ms": duration,
        "session": session,
        "principal": principal,
    }
    if entry.target is not None:
        extra[entry.target] = subject
    access_log.info("%s", " ".join(parts), extra=extra)


REFUSED: Final = "refused"
"""Status of a request the HTTP server refused before MCP read it."""


def refused(head: HttpRequest | None, status: int, principal: str | None = None) -> None:
    """Log a request the HTTP server answered with ``status`` (400 or more)
    before any MCP session read it; nothing when the log is off.

    Args:
        head: the request's head, or None when it could not be read.
        status: the HTTP status it was answered with.
        principal: who the authentication hook said it comes from, if it ran.
    """
    if status < 400 or not access_log.isEnabledFor(_INFO):
        return
    method = path = None
    session = "-"
    if head is not None:
        method = head.method[:16]
        # The path alone: a query may carry a session id (HTTP+SSE) or an argument.
        path = (head.prefix + head.target.partition("?")[0])[:_MAX_SUBJECT]
        session_id = head.headers.get("mcp-session-id")
        if session_id is not None:
            session = tag(session_id)
    tagged = "-" if principal is None else tag(principal)
    line = f"{method or '-'} {_quoted(path or '-')} {REFUSED} {status}"
    extra = {
        "method": None,
        "http_method": method,
        "path": path,
        "status": REFUSED,
        "http_status": status,
        "session": session,
        "principal": tagged,
    }
    access_log.info("%s session=%s principal=%s", line, session, tagged, extra=extra)


def _quoted(text: str) -> str:
    # A name or URI is the peer's text: quoted (as JSON) when it holds what could
    # pass for another field or another line.
    if text and text.isprintable() and not any(c in text for c in ' "=\\'):
        return text
    import json

    return json.dumps(text)
