# The per-request checks of a 2026-07-28 server, as a table.
#
# Theory of operation. A 2026-07-28 request stands alone: no handshake came
# before it, so the server checks each one on its way in against what its
# params._meta says (2026-07-28 basic/index.mdx "_meta", "Per-request protocol
# fields"; basic/versioning.mdx). CHECKS lists those checks in the order they run;
# the first that fails decides the answer, and a request that passes them all is
# served. A row names the check, says what it checks, the JSON-RPC codes it
# answers with (the first is the usual one), the HTTP status of each (from the one
# code -> status table, wire/errors.py http_status_for) and the spec page.
#
# Most rows run in the session (the "serve_stateless" action of the lifecycle
# table, ServerSession._serve_stateless). Two run elsewhere and are listed so the
# page shows the whole path of a request: the HTTP layer compares headers with
# the body before the session sees it, and the application refuses a handler
# that needs a client capability the request did not declare.
#
# check_request() is the reference: it walks the session's rows in order, one
# plain function each, and caches nothing. ServerSession._serve_stateless is the
# fast path: the same checks, fused and cached (decoders per method, the client of
# the last request), building its refusals with the same functions
# (session/per_request.py). tests/core/session/test_request_checks.py feeds random
# requests through both and requires the same verdict: accepted, or the same code,
# message, data, id and HTTP status.
#
# docs/per_request.md is generated from the table (render()).

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, NamedTuple

from ..types.methods import LATEST_REVISION, LEGACY_REVISIONS, method_spec, params_decoder
from ..wire.errors import (
    HEADER_MISMATCH,
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    PARSE_ERROR,
    UNSUPPORTED_PROTOCOL_VERSION,
    RemoteProtocolError,
    http_status_for,
)
from ..wire.jsonrpc import Request, decode_params
from .base import CLIENT_CAPABILITIES_KEY, PROTOCOL_VERSION_KEY
from .config import NEEDS_SERVER_CAPABILITY, has_capability
from .per_request import (
    capability_refusal,
    client_from_meta,
    missing_capabilities_refusal,
    missing_version_refusal,
    request_meta,
    unknown_method_refusal,
    unsupported_version_refusal,
)
from .requests import duplicate_id_refusal, over_limit_refusal

__all__ = ["Check", "CHECKS", "SESSION", "check_request", "render"]

SESSION: Final = "session"
"""Where a check runs: ServerSession (the rows check_request walks)."""


class Check(NamedTuple):
    """One per-request check: its name, what it checks, the JSON-RPC codes it
    answers with (the usual one first), the spec page, and where it runs."""

    name: str
    checks: str
    codes: tuple[int, ...]
    spec: str
    where: str = SESSION

    @property
    def http_statuses(self) -> tuple[int, ...]:
        """The HTTP status of each code (wire/errors.py, the one table)."""
        return tuple(http_status_for(code) for code in self.codes)


_INDEX: Final = "2026-07-28 basic/index.mdx"

CHECKS: Final[tuple[Check, ...]] = (
    Check(
        "headers_match_body",
        "the Mcp-* HTTP headers agree with the body (HTTP only)",
        (HEADER_MISMATCH,),
        '2026-07-28 basic/transports/streamable-http.mdx "Server Validation"',
        "mcp_core/http",
    ),
    Check(
        "params_typed",
        "params read as the method's params type in the newest revision, if the"
        " method is in it (the types are one superset, read before the version is"
        " known); -32600 if params is no object, -32700 if not UTF-8",
        (INVALID_PARAMS, INVALID_REQUEST, PARSE_ERROR),
        f'{_INDEX} "Requests"; JSON-RPC 2.0 sections 4.2, 5.1',
    ),
    Check(
        "initialize_first",
        "a server that serves no 2026-07-28 revision refuses a request without"
        " _meta protocolVersion: initialize must come first",
        (INVALID_REQUEST,),
        '2025-11-25 basic/lifecycle.mdx "Initialization"',
    ),
    Check(
        "protocol_version_required",
        "_meta carries io.modelcontextprotocol/protocolVersion (not null)",
        (INVALID_PARAMS,),
        f'{_INDEX} "_meta", per-request protocol fields',
    ),
    Check(
        "protocol_version_supported",
        "that version is a 2026-07-28-era revision this server serves (data: supported, requested)",
        (UNSUPPORTED_PROTOCOL_VERSION,),
        "2026-07-28 basic/versioning.mdx",
    ),
    Check(
        "client_capabilities_required",
        "_meta carries io.modelcontextprotocol/clientCapabilities",
        (INVALID_PARAMS,),
        f'{_INDEX} "_meta", per-request protocol fields',
    ),
    Check(
        "client_fields_valid",
        "clientCapabilities, clientInfo and logLevel have their schema types",
        (INVALID_PARAMS,),
        f'{_INDEX} "_meta"; 2026-07-28 schema.mdx',
    ),
    Check(
        "method_exists",
        "the method is a client request of that revision",
        (METHOD_NOT_FOUND,),
        "2026-07-28 schema.mdx MethodNotFoundError",
    ),
    Check(
        "server_capability_offered",
        "the server declared the capability the method belongs to",
        (METHOD_NOT_FOUND,),
        "2026-07-28 schema.mdx MethodNotFoundError",
    ),
    Check(
        "params_valid",
        "params fit the method's params type of that revision (when params_typed"
        " could not read them: the method is not in the newest revision)",
        (INVALID_PARAMS, INVALID_REQUEST, PARSE_ERROR),
        f'{_INDEX} "Requests"; JSON-RPC 2.0 sections 4.2, 5.1',
    ),
    Check(
        "request_id_unused",
        "no request of theirs with this id is in flight (the reply names no id)",
        (INVALID_REQUEST,),
        f'{_INDEX} "Requests"',
    ),
    Check(
        "in_flight_limit",
        "fewer than Limits.max_requests_in_flight requests are in flight"
        " (data: maxRequestsInFlight)",
        (INTERNAL_ERROR,),
        "JSON-RPC 2.0 section 5.1 (our limit, not the spec's)",
    ),
    Check(
        "client_capability_declared",
        "the handler needs no client capability the request did not declare"
        " (data: requiredCapabilities)",
        (MISSING_REQUIRED_CLIENT_CAPABILITY,),
        f'{_INDEX} "_meta", per-request protocol fields',
        "mcp_core/server/context.py",
    ),
)
"""The checks a 2026-07-28 request meets on its way in, in order."""


class _Reading:
    """What the rows learn of a request as they go (each reads, none writes the
    session)."""

    def __init__(self, session: Any, message: Request) -> None:
        self.session = session
        self.message = message
        self.params: Any = None
        self.meta: dict[str, Any] | None = None
        self.version: Any = None


_Row = Callable[[_Reading], RemoteProtocolError | None]


def _modern(session: Any) -> tuple[str, ...]:
    return tuple(r for r in session.config.revisions if r not in LEGACY_REVISIONS)


def _params_typed(r: _Reading) -> RemoteProtocolError | None:
    spec = method_spec(r.message.method, LATEST_REVISION)
    if spec is None:
        r.meta = request_meta(r.message)
        return None
    try:
        r.params = decode_params(r.message, params_decoder(spec))
    except RemoteProtocolError as exc:
        return exc
    meta = r.params.meta
    r.meta = meta if isinstance(meta, dict) else None
    return None


def _initialize_first(r: _Reading) -> RemoteProtocolError | None:
    r.version = r.meta.get(PROTOCOL_VERSION_KEY) if r.meta else None
    if r.version is None and not _modern(r.session):
        return missing_version_refusal(False, True, r.message.id)
    return None


def _protocol_version_required(r: _Reading) -> RemoteProtocolError | None:
    if r.version is None:
        legacy = any(v in LEGACY_REVISIONS for v in r.session.config.revisions)
        return missing_version_refusal(True, legacy, r.message.id)
    return None


def _protocol_version_supported(r: _Reading) -> RemoteProtocolError | None:
    if r.version not in _modern(r.session):
        return unsupported_version_refusal(r.session.config.revisions, r.version, r.message.id)
    return None


def _client_capabilities_required(r: _Reading) -> RemoteProtocolError | None:
    assert r.meta is not None
    if CLIENT_CAPABILITIES_KEY not in r.meta:
        return missing_capabilities_refusal(r.message.id)
    return None


def _client_fields_valid(r: _Reading) -> RemoteProtocolError | None:
    assert r.meta is not None
    try:
        client_from_meta(r.meta, r.message.id)
    except RemoteProtocolError as exc:
        return exc
    return None


def _method_exists(r: _Reading) -> RemoteProtocolError | None:
    spec = method_spec(r.message.method, r.version)
    if spec is None or spec.sender == "server" or spec.kind != "request":
        return unknown_method_refusal(r.message.method, r.version, r.message.id)
    return None


def _server_capability_offered(r: _Reading) -> RemoteProtocolError | None:
    needs = NEEDS_SERVER_CAPABILITY.get(r.message.method)
    if needs is not None and not has_capability(r.session.config.capabilities, *needs):
        return capability_refusal(r.message.method, needs, r.message.id)
    return None


def _params_valid(r: _Reading) -> RemoteProtocolError | None:
    if r.params is not None:
        return None
    spec = method_spec(r.message.method, r.version)
    assert spec is not None  # method_exists passed
    try:
        r.params = decode_params(r.message, params_decoder(spec))
    except RemoteProtocolError as exc:
        return exc
    return None


def _request_id_unused(r: _Reading) -> RemoteProtocolError | None:
    if r.message.id in r.session._requests.incoming:
        return duplicate_id_refusal(r.message.id)
    return None


def _in_flight_limit(r: _Reading) -> RemoteProtocolError | None:
    session = r.session
    limit = session._requests.max_in_flight
    if (
        len(session._requests.incoming) >= limit
        and r.message.method not in session._answered_at_once
    ):
        return over_limit_refusal(limit, r.message.id)
    return None


_ROWS: Final[dict[str, _Row]] = {
    "params_typed": _params_typed,
    "initialize_first": _initialize_first,
    "protocol_version_required": _protocol_version_required,
    "protocol_version_supported": _protocol_version_supported,
    "client_capabilities_required": _client_capabilities_required,
    "client_fields_valid": _client_fields_valid,
    "method_exists": _method_exists,
    "server_capability_offered": _server_capability_offered,
    "params_valid": _params_valid,
    "request_id_unused": _request_id_unused,
    "in_flight_limit": _in_flight_limit,
}


def check_request(session: Any, message: Request) -> tuple[Check, RemoteProtocolError] | None:
    """The reference verdict on a 2026-07-28 request to ``session`` (a
    ServerSession in NEW): None if every session row of CHECKS passes, else the
    first row that fails and its refusal. Reads the session, never changes it.
    """
    reading = _Reading(session, message)
    for check in CHECKS:
        if check.where != SESSION:
            continue
        refusal = _ROWS[check.name](reading)
        if refusal is not None:
            return check, refusal
    return None


def render() -> str:
    """The table as a Markdown page. docs/per_request.md is this text; a test keeps
    the two the same."""
    lines = [
        "# The per-request checks of a 2026-07-28 server",
        "",
        "Generated from `mcp_core/session/request_checks.py` (`CHECKS`) by",
        "`mcp_core.session.request_checks.render()`;",
        "tests/core/session/test_request_checks.py keeps it current.",
        "",
        "A 2026-07-28 request carries in `params._meta` what a handshake used to settle",
        '(2026-07-28 basic/index.mdx "_meta"). The checks run in this order; the first',
        "that fails answers the request with its error, and a request that passes them",
        "all is served. HTTP statuses come from `mcp_core.wire.errors.http_status_for`.",
        "",
        "| # | check | what it checks | JSON-RPC code | HTTP status | spec | runs in |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for number, check in enumerate(CHECKS, 1):
        codes = ", ".join(str(code) for code in check.codes)
        statuses = ", ".join(str(status) for status in check.http_statuses)
        lines.append(
            f"| {number} | {check.name} | {check.checks} | {codes} | {statuses} |"
            f" {check.spec} | {check.where} |"
        )
    return "\n".join(lines) + "\n"
