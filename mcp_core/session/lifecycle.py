# The legacy-era lifecycle, as a table.
#
# Theory of operation. A session of the handshake era (2024-11-05 .. 2025-11-25)
# moves through NEW -> INITIALIZING -> READY and ends CLOSED, or ERROR when its
# channel breaks (2025-11-25 basic/lifecycle.mdx). What may happen in each state
# is one table, TABLE, keyed by (our role, our state, kind of what happened):
#
#   - the kinds of message we *receive* ("initialize request", "ping request",
#     "other request", "initialized notification", "other notification", and the
#     answers: "initialize response", "discover response", "other response");
#   - the kinds of message our caller asks us to *send* ("send ping request",
#     "send other request", ...);
#   - what happens to the channel ("send failed", "receive failed", "close").
#
# An entry names the side effect (an action: a method ``_<action>`` of the
# session) and the state after it. The table sees kinds, never payloads: a method
# name picks the kind, and anything the payload decides (a version the client
# cannot speak, a request without its 2026-07-28 envelope) is up to the action.
# Actions whose outcome the payload decides list every state they may leave the
# session in; all other entries name one, which the machinery enters once the
# action has succeeded. An action that refuses a received message raises
# RemoteProtocolError: the message gets an error reply if it was a request, the
# caller gets a ProtocolViolation, and the state does not change. An action that
# refuses a send raises LocalProtocolError and changes nothing.
#
# Anything missing from the table is a protocol error too: a received message of
# that kind is refused with -32600 (and a ProtocolViolation; requests get the
# error reply), and a send raises LocalProtocolError. Some (role, state, kind)
# triples are missing because they cannot arise (UNREACHABLE says why).
#
# The sticky states. CLOSED (our caller closed the session) drops whatever
# arrives and refuses every send. ERROR (the channel broke: a write failed, the
# framing was lost, the client refused the server's protocol version) raises
# RemoteProtocolError on every receive, queues nothing, refuses every send, and
# is never left: not even close() leaves it (h11's ERROR, python-hyper/h11
# docs "Error handling").
#
# The 2026-07-28 era has no lifecycle: a server serves each request on its own
# (the "serve_stateless" action of NEW, where a stateless server stays), and a
# client is READY once server/discover named a version it speaks.
#
# docs/lifecycle.md is generated from the table (render()): a diagram of the
# transitions and every row.
#
# The sessions consult the table only off the hot path: while READY the rows of
# ordinary requests, notifications and answers are called directly (and in NEW,
# for a stateless server, the row of ordinary requests);
# tests/core/session/test_lifecycle_table.py checks that those shortcuts are
# exactly the table's rows.

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import Any, Final, NamedTuple

__all__ = [
    "SessionState",
    "Rule",
    "TABLE",
    "UNREACHABLE",
    "RECEIVED_KINDS",
    "LOCAL_KINDS",
    "KINDS",
    "ROLES",
    "compile_rules",
    "render",
]


class SessionState(enum.Enum):
    """Lifecycle states of a session (2025-11-25 basic/lifecycle.mdx).

    A 2026-07-28 server has no handshake and serves from NEW; a 2026-07-28 client
    is READY once server/discover has named a version it speaks.
    """

    #: Nothing exchanged yet (or, server side, only stateless 2026-07-28 requests).
    NEW = "new"
    #: initialize sent (client) or answered (server); waiting for the other half.
    INITIALIZING = "initializing"
    #: The handshake is over (or the era discovered); normal operation.
    READY = "ready"
    #: Closed by our caller; nothing more is sent or accepted. Sticky.
    CLOSED = "closed"
    #: The channel broke; receiving raises, sending raises. Sticky.
    ERROR = "error"

    # Members are singletons, so identity is equality: the identity hash makes
    # them as cheap as strings as dict keys (Enum's own __hash__ is Python code).
    __hash__ = object.__hash__


NEW: Final = SessionState.NEW
INITIALIZING: Final = SessionState.INITIALIZING
READY: Final = SessionState.READY
CLOSED: Final = SessionState.CLOSED
ERROR: Final = SessionState.ERROR

ROLES: Final = ("client", "server")

# --- kinds ------------------------------------------------------------------------------

# Received from the peer. "response" covers results and error responses alike.
INITIALIZE_REQUEST: Final = "initialize request"
PING_REQUEST: Final = "ping request"
OTHER_REQUEST: Final = "other request"
INITIALIZED_NOTIFICATION: Final = "initialized notification"
OTHER_NOTIFICATION: Final = "other notification"
INITIALIZE_RESPONSE: Final = "initialize response"
"""The answer to our initialize request (client only)."""
DISCOVER_RESPONSE: Final = "discover response"
"""The answer to a server/discover sent while the era is unknown (client only)."""
OTHER_RESPONSE: Final = "other response"

# Asked of us by our caller.
SEND_INITIALIZE: Final = "send initialize request"
SEND_DISCOVER: Final = "send discover request"
SEND_PING: Final = "send ping request"
SEND_REQUEST: Final = "send other request"
SEND_NOTIFICATION: Final = "send notification"
SEND_RESPONSE: Final = "send response"
SEND_KINDS: Final = frozenset(
    {SEND_INITIALIZE, SEND_DISCOVER, SEND_PING, SEND_REQUEST, SEND_NOTIFICATION, SEND_RESPONSE}
)

# What happens to the channel (the transport tells us, or our caller closes).
SEND_FAILED: Final = "send failed"
RECEIVE_FAILED: Final = "receive failed"
CLOSE: Final = "close"

RECEIVED_KINDS: Final[dict[str, tuple[str, ...]]] = {
    "server": (
        INITIALIZE_REQUEST,
        PING_REQUEST,
        OTHER_REQUEST,
        INITIALIZED_NOTIFICATION,
        OTHER_NOTIFICATION,
        OTHER_RESPONSE,
    ),
    "client": (
        INITIALIZE_REQUEST,
        PING_REQUEST,
        OTHER_REQUEST,
        INITIALIZED_NOTIFICATION,
        OTHER_NOTIFICATION,
        INITIALIZE_RESPONSE,
        DISCOVER_RESPONSE,
        OTHER_RESPONSE,
    ),
}
"""What each role can receive. A server sends neither initialize nor server/discover,
so no answer it receives is of those kinds."""

LOCAL_KINDS: Final[dict[str, tuple[str, ...]]] = {
    "server": (
        SEND_PING,
        SEND_REQUEST,
        SEND_NOTIFICATION,
        SEND_RESPONSE,
        SEND_FAILED,
        RECEIVE_FAILED,
        CLOSE,
    ),
    "client": (
        SEND_INITIALIZE,
        SEND_DISCOVER,
        SEND_PING,
        SEND_REQUEST,
        SEND_NOTIFICATION,
        SEND_RESPONSE,
        SEND_FAILED,
        RECEIVE_FAILED,
        CLOSE,
    ),
}
"""What each role's caller can ask of it, and what can happen to its channel."""

KINDS: Final = {role: RECEIVED_KINDS[role] + LOCAL_KINDS[role] for role in ROLES}


class Rule(NamedTuple):
    """One entry: the action taken and the state after it.

    ``next`` is one state, entered once the action succeeded, or a tuple of the
    states the action itself may choose among (decided by the payload).
    """

    action: str
    next: SessionState | tuple[SessionState, ...]


# --- the table ----------------------------------------------------------------------------
#
# Spec references: "lifecycle" is 2025-11-25 basic/lifecycle.mdx, "ping" its
# basic/utilities/ping.mdx, "versioning" 2026-07-28 basic/versioning.mdx, "stdio"
# 2026-07-28 basic/transports/stdio.mdx.

_S: Final = "server"
_C: Final = "client"

_LIVE: Final[dict[tuple[str, SessionState, str], Rule]] = {
    # --- server, receiving --------------------------------------------------------------
    # lifecycle "Initialization": initialize MUST be the first interaction; the
    # server answers with the version it picked ("Version Negotiation").
    (_S, NEW, INITIALIZE_REQUEST): Rule("answer_initialize", INITIALIZING),
    # lifecycle: before initialize is answered the client SHOULD NOT send requests
    # other than pings; ping.mdx: the receiver MUST answer promptly.
    (_S, NEW, PING_REQUEST): Rule("answer_early_ping", NEW),
    # versioning "Backward Compatibility": a request carrying the 2026-07-28 _meta
    # is served statelessly; one without it is refused -32600 ("send initialize
    # first"), the lifecycle's "initialization MUST be the first interaction".
    (_S, NEW, OTHER_REQUEST): Rule("serve_stateless", NEW),
    # A stray initialized (no initialize came) changes nothing; notifications are
    # never answered (JSON-RPC 2.0 section 4.1).
    (_S, NEW, INITIALIZED_NOTIFICATION): Rule("ignore", NEW),
    (_S, NEW, OTHER_NOTIFICATION): Rule("take_notification", NEW),
    (_S, NEW, OTHER_RESPONSE): Rule("take_answer", NEW),
    # lifecycle: initialize is sent once; a second one is an invalid request.
    (_S, INITIALIZING, INITIALIZE_REQUEST): Rule("refuse_second_initialize", INITIALIZING),
    # The server has answered initialize, so the client may send requests (lifecycle:
    # only *before that answer* must it keep to pings); over HTTP they can overtake
    # the initialized notification.
    (_S, INITIALIZING, PING_REQUEST): Rule("serve_legacy", INITIALIZING),
    (_S, INITIALIZING, OTHER_REQUEST): Rule("serve_legacy", INITIALIZING),
    # lifecycle: the client MUST send initialized after a successful initialize.
    (_S, INITIALIZING, INITIALIZED_NOTIFICATION): Rule("complete_handshake", READY),
    (_S, INITIALIZING, OTHER_NOTIFICATION): Rule("take_notification", INITIALIZING),
    (_S, INITIALIZING, OTHER_RESPONSE): Rule("take_answer", INITIALIZING),
    (_S, READY, INITIALIZE_REQUEST): Rule("refuse_second_initialize", READY),
    (_S, READY, PING_REQUEST): Rule("serve_legacy", READY),
    (_S, READY, OTHER_REQUEST): Rule("serve_legacy", READY),
    (_S, READY, INITIALIZED_NOTIFICATION): Rule("ignore", READY),
    (_S, READY, OTHER_NOTIFICATION): Rule("take_notification", READY),
    (_S, READY, OTHER_RESPONSE): Rule("take_answer", READY),
    # --- server, sending ----------------------------------------------------------------
    # Servers send requests only in a legacy session (2026-07-28 has multi
    # round-trip results instead: basic/patterns/mrtr.mdx).
    (_S, NEW, SEND_PING): Rule("refuse_send_stateless", NEW),
    (_S, NEW, SEND_REQUEST): Rule("refuse_send_stateless", NEW),
    (_S, NEW, SEND_NOTIFICATION): Rule("allow", NEW),
    (_S, NEW, SEND_RESPONSE): Rule("allow", NEW),
    # lifecycle: the server SHOULD NOT send requests other than pings and logging
    # (a notification) before receiving the initialized notification.
    (_S, INITIALIZING, SEND_PING): Rule("allow", INITIALIZING),
    (_S, INITIALIZING, SEND_REQUEST): Rule("refuse_send_before_initialized", INITIALIZING),
    (_S, INITIALIZING, SEND_NOTIFICATION): Rule("allow", INITIALIZING),
    (_S, INITIALIZING, SEND_RESPONSE): Rule("allow", INITIALIZING),
    (_S, READY, SEND_PING): Rule("allow", READY),
    (_S, READY, SEND_REQUEST): Rule("allow", READY),
    (_S, READY, SEND_NOTIFICATION): Rule("allow", READY),
    (_S, READY, SEND_RESPONSE): Rule("allow", READY),
    # --- client, receiving --------------------------------------------------------------
    # Before the handshake there is no session to serve requests in; server
    # requests exist only in a legacy session (versioning: 2026-07-28 has none).
    (_C, NEW, INITIALIZE_REQUEST): Rule("refuse_server_request", NEW),
    (_C, NEW, PING_REQUEST): Rule("refuse_server_request", NEW),
    (_C, NEW, OTHER_REQUEST): Rule("refuse_server_request", NEW),
    (_C, NEW, INITIALIZED_NOTIFICATION): Rule("ignore", NEW),
    (_C, NEW, OTHER_NOTIFICATION): Rule("take_notification", NEW),
    # stdio "Backward Compatibility" and versioning: a DiscoverResult, or an
    # UnsupportedProtocolVersionError naming a modern version we share, means a
    # modern server (READY, or NEW while we ask again under the shared version);
    # any other error means a legacy one (INITIALIZING: initialize sent); no
    # version in common breaks the channel.
    (_C, NEW, DISCOVER_RESPONSE): Rule("detect_era", (NEW, INITIALIZING, READY, ERROR)),
    (_C, NEW, OTHER_RESPONSE): Rule("take_answer", NEW),
    (_C, INITIALIZING, INITIALIZE_REQUEST): Rule("refuse_server_request", INITIALIZING),
    # lifecycle: the server may ping before it receives initialized, and over HTTP
    # that ping can reach us before the initialize result does; ping.mdx: the
    # receiver MUST answer promptly.
    (_C, INITIALIZING, PING_REQUEST): Rule("answer_ping", INITIALIZING),
    (_C, INITIALIZING, OTHER_REQUEST): Rule("refuse_server_request", INITIALIZING),
    (_C, INITIALIZING, INITIALIZED_NOTIFICATION): Rule("ignore", INITIALIZING),
    (_C, INITIALIZING, OTHER_NOTIFICATION): Rule("take_notification", INITIALIZING),
    # lifecycle "Version Negotiation": if the client does not support the version
    # in the server's response, it SHOULD disconnect: ERROR. An error response or
    # an unreadable result breaks the channel as well; otherwise we send
    # initialized and are READY.
    (_C, INITIALIZING, INITIALIZE_RESPONSE): Rule("finish_handshake", (READY, ERROR)),
    # Only when our caller sent initialize while the probe was out: the probe's
    # answer is then an ordinary answer, and the handshake decides the era.
    (_C, INITIALIZING, DISCOVER_RESPONSE): Rule("take_answer", INITIALIZING),
    (_C, INITIALIZING, OTHER_RESPONSE): Rule("take_answer", INITIALIZING),
    # The legacy revision in use decides which server requests exist (-32601 for
    # the rest, initialize included) and the capabilities we declared gate them.
    (_C, READY, INITIALIZE_REQUEST): Rule("serve_server_request", READY),
    (_C, READY, PING_REQUEST): Rule("serve_server_request", READY),
    (_C, READY, OTHER_REQUEST): Rule("serve_server_request", READY),
    (_C, READY, INITIALIZED_NOTIFICATION): Rule("ignore", READY),
    (_C, READY, OTHER_NOTIFICATION): Rule("take_notification", READY),
    (_C, READY, OTHER_RESPONSE): Rule("take_answer", READY),
    # --- client, sending ----------------------------------------------------------------
    # lifecycle: the client MUST initiate the session with initialize, once.
    (_C, NEW, SEND_INITIALIZE): Rule("allow", INITIALIZING),
    (_C, NEW, SEND_DISCOVER): Rule("allow", NEW),
    (_C, NEW, SEND_PING): Rule("refuse_send_not_ready", NEW),
    (_C, NEW, SEND_REQUEST): Rule("refuse_send_not_ready", NEW),
    (_C, NEW, SEND_NOTIFICATION): Rule("allow", NEW),
    (_C, NEW, SEND_RESPONSE): Rule("allow", NEW),
    (_C, INITIALIZING, SEND_INITIALIZE): Rule("refuse_send_initialize_again", INITIALIZING),
    # The handshake decides the era now; a discover would only muddle it.
    (_C, INITIALIZING, SEND_DISCOVER): Rule("refuse_send_not_ready", INITIALIZING),
    # lifecycle: the client SHOULD NOT send requests other than pings before the
    # server has responded to initialize.
    (_C, INITIALIZING, SEND_PING): Rule("allow", INITIALIZING),
    (_C, INITIALIZING, SEND_REQUEST): Rule("refuse_send_not_ready", INITIALIZING),
    (_C, INITIALIZING, SEND_NOTIFICATION): Rule("allow", INITIALIZING),
    (_C, INITIALIZING, SEND_RESPONSE): Rule("allow", INITIALIZING),
    (_C, READY, SEND_INITIALIZE): Rule("refuse_send_initialize_again", READY),
    (_C, READY, SEND_DISCOVER): Rule("allow", READY),
    (_C, READY, SEND_PING): Rule("allow", READY),
    (_C, READY, SEND_REQUEST): Rule("allow", READY),
    (_C, READY, SEND_NOTIFICATION): Rule("allow", READY),
    (_C, READY, SEND_RESPONSE): Rule("allow", READY),
}


def _channel_rows() -> dict[tuple[str, SessionState, str], Rule]:
    # The same for both roles in every state, so written once per state:
    #   - a failed write or lost framing breaks a live session (a broken
    #     channel is sticky), and changes nothing once it is over;
    #   - close ends a live session; ERROR stays ERROR (sticky), CLOSED stays CLOSED;
    #   - a closed session drops what arrives and refuses to send; a broken one
    #     raises on both.
    rows: dict[tuple[str, SessionState, str], Rule] = {}
    for role in ROLES:
        for state in (NEW, INITIALIZING, READY):
            rows[role, state, SEND_FAILED] = Rule("break_channel", ERROR)
            rows[role, state, RECEIVE_FAILED] = Rule("break_channel", ERROR)
            rows[role, state, CLOSE] = Rule("abandon_requests", CLOSED)
        rows[role, CLOSED, SEND_FAILED] = Rule("ignore_channel", CLOSED)
        rows[role, CLOSED, RECEIVE_FAILED] = Rule("ignore_channel", CLOSED)
        rows[role, CLOSED, CLOSE] = Rule("abandon_requests", CLOSED)
        rows[role, ERROR, SEND_FAILED] = Rule("ignore_channel", ERROR)
        rows[role, ERROR, RECEIVE_FAILED] = Rule("ignore_channel", ERROR)
        rows[role, ERROR, CLOSE] = Rule("abandon_requests", ERROR)
        for kind in RECEIVED_KINDS[role]:
            rows[role, CLOSED, kind] = Rule("drop", CLOSED)
            rows[role, ERROR, kind] = Rule("raise_broken", ERROR)
        for kind in LOCAL_KINDS[role]:
            if kind in SEND_KINDS:
                rows[role, CLOSED, kind] = Rule("refuse_send_closed", CLOSED)
                rows[role, ERROR, kind] = Rule("refuse_send_broken", ERROR)
    return rows


TABLE: Final[dict[tuple[str, SessionState, str], Rule]] = {**_LIVE, **_channel_rows()}
"""Every legal (role, state, kind): the action and the state after it."""

UNREACHABLE: Final[dict[tuple[str, SessionState, str], str]] = {
    (_C, NEW, INITIALIZE_RESPONSE): "sending initialize leaves NEW",
    (_C, READY, INITIALIZE_RESPONSE): "initialize is answered before READY",
    (_C, READY, DISCOVER_RESPONSE): (
        "the era is known in READY, so a server/discover answer is an ordinary answer"
    ),
}
"""(role, state, kind) triples missing from TABLE because they cannot arise, and why.
Should one arise anyway, it gets the missing-entry treatment."""

Action = Callable[..., Any]
Compiled = dict[SessionState, dict[str, tuple[Action, SessionState | None]]]


def compile_rules(cls: type, role: str) -> tuple[Compiled, Compiled]:
    """Resolve ``role``'s rows into ``{state: {kind: (function, next or None)}}``.

    Each action is the method ``_<action>`` of ``cls``; ``next`` is None where the
    action chooses the state. Returns the received-kind and the local-kind tables.

    Raises:
        TypeError: ``cls`` lacks an action the table names.
    """
    received: Compiled = {state: {} for state in SessionState}
    local: Compiled = {state: {} for state in SessionState}
    for (row_role, state, kind), rule in TABLE.items():
        if row_role != role:
            continue
        function = getattr(cls, "_" + rule.action, None)
        if function is None:
            raise TypeError(f"{cls.__name__} lacks the lifecycle action _{rule.action}")
        target = received if kind in RECEIVED_KINDS[role] else local
        next_state = rule.next if isinstance(rule.next, SessionState) else None
        target[state][kind] = (function, next_state)
    return received, local


def render() -> str:
    """The table as a Markdown page: a diagram of the transitions, then every row.

    docs/lifecycle.md is this text; a test keeps the two the same.
    """
    lines = [
        "# The session lifecycle",
        "",
        "Generated from `mcp_core/session/lifecycle.py` (`TABLE`) by",
        "`mcp_core.session.lifecycle.render()`;",
        "tests/core/session/test_lifecycle_table.py keeps it current.",
        "States: NEW, INITIALIZING, READY, CLOSED, ERROR (2025-11-25 basic/lifecycle.mdx).",
        "",
        "## Transitions",
        "",
        "Rows that change the state; `a | b` after an action: the payload decides.",
        "",
        "```",
    ]
    for role in ROLES:
        lines.append(role)
        groups: dict[tuple[str, str, str], list[str]] = {}
        for state in SessionState:
            for kind in KINDS[role]:
                rule = TABLE.get((role, state, kind))
                if rule is None:
                    continue
                targets = rule.next if isinstance(rule.next, tuple) else (rule.next,)
                if targets == (state,):
                    continue
                to = " | ".join(t.name for t in targets)
                froms = groups.setdefault((kind, rule.action, to), [])
                froms.append(state.name)
        merged: dict[tuple[str, str, str], list[str]] = {}
        for (kind, action, to), sources in groups.items():
            merged.setdefault(("|".join(sources), action, to), []).append(kind)
        for (source, action, to), kinds in merged.items():
            lines.append(f"  {source} --{', '.join(kinds)}--> {to}  [{action}]")
        lines.append("")
    lines[-1] = "```"
    lines += [
        "",
        "## Every row",
        "",
        "Missing (role, state, kind): a received message is refused with -32600 (a",
        "request gets the error reply), a send raises LocalProtocolError.",
        "",
        "| role | state | kind | action | next |",
        "| --- | --- | --- | --- | --- |",
    ]
    for role in ROLES:
        for state in SessionState:
            for kind in KINDS[role]:
                rule = TABLE.get((role, state, kind))
                if rule is None:
                    why = UNREACHABLE.get((role, state, kind), "")
                    lines.append(f"| {role} | {state.name} | {kind} | (missing: {why}) | |")
                    continue
                targets = rule.next if isinstance(rule.next, tuple) else (rule.next,)
                to = " \\| ".join(t.name for t in targets)
                lines.append(f"| {role} | {state.name} | {kind} | {rule.action} | {to} |")
    return "\n".join(lines) + "\n"
