"""The per-request checks table (session/request_checks.py): the reference walk of
CHECKS and ServerSession's fast path give the same verdict on any request, every
session row is reachable, and docs/per_request.md is generated from the table."""

from __future__ import annotations

import json
from typing import Any

import paths
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcp_core.session.request_checks import CHECKS, SESSION, Check, check_request, render
from mcp_core.session.server import ServerConfig, ServerSession
from mcp_core.types.base import Implementation, ResourcesCapability, ServerCapabilities
from mcp_core.wire import RemoteProtocolError, decode_message
from mcp_core.wire.errors import http_status_for
from mcp_core.wire.jsonrpc import DEFAULT_LIMITS, Limits, Request

MODERN = "2026-07-28"
VERSION = "io.modelcontextprotocol/protocolVersion"
CAPS = "io.modelcontextprotocol/clientCapabilities"
INFO = "io.modelcontextprotocol/clientInfo"
LEVEL = "io.modelcontextprotocol/logLevel"
META = {VERSION: MODERN, CAPS: {}, INFO: {"name": "c", "version": "0"}}

CONFIGS = {
    "dual": {},
    "modern": {"revisions": (MODERN,)},
    "legacy": {"revisions": ("2025-11-25",)},
}
CAPABILITIES = [
    ServerCapabilities(tools={}),
    ServerCapabilities(),
    ServerCapabilities(tools={}, resources=ResourcesCapability(subscribe=True)),
]


def server(config: str = "dual", caps: int = 0, limit: int | None = None) -> ServerSession:
    limits = DEFAULT_LIMITS if limit is None else Limits(max_requests_in_flight=limit)
    return ServerSession(
        ServerConfig(
            server_info=Implementation(name="s", version="1"),
            capabilities=CAPABILITIES[caps],
            **CONFIGS[config],
        ),
        limits,
    )


def message(method: str, params: Any, id: Any = 2, raw: bool = True) -> Request:
    body: dict[str, Any] = {"jsonrpc": "2.0", "id": id, "method": method}
    if params is not None:
        body["params"] = params
    if not raw:
        return Request(id=id, method=method, **({} if params is None else {"params": params}))
    decoded = decode_message(json.dumps(body).encode())
    assert isinstance(decoded, Request)
    return decoded


def verdicts(session: ServerSession, request: Request) -> tuple[Any, Any]:
    """(reference, fast path): None for accepted, else the error as a tuple."""
    reference = check_request(session, request)
    try:
        session._serve_stateless(request, 0.0)
    except RemoteProtocolError as exc:
        fast: Any = (exc.code, exc.message, exc.data, exc.request_id, exc.http_status)
    else:
        fast = None
    if reference is None:
        return None, fast
    check, error = reference
    assert error.code in check.codes, (check.name, error.code)
    assert error.http_status == http_status_for(error.code)
    return (error.code, error.message, error.data, error.request_id, error.http_status), fast


# --- random requests through both --------------------------------------------------------

_absent = st.just(None)
ABSENT = object()


def mostly(good: Any, *bad: Any) -> st.SearchStrategy[Any]:
    """``good`` three times in four, else one of ``bad`` or the key left out."""
    return st.one_of(st.just(good), st.just(good), st.just(good), st.sampled_from([*bad, ABSENT]))


metas = st.fixed_dictionaries(
    {
        VERSION: mostly(MODERN, "2025-11-25", "2025-06-18", "1999-01-01", None, 7),
        CAPS: mostly({}, {"roots": {}}, None, "x", {"sampling": 3}),
        INFO: mostly({"name": "c", "version": "0"}, {"name": 1}, None),
        LEVEL: mostly(ABSENT, "info", "debug", "loud", None),
        "progressToken": mostly(ABSENT, 1, "t", 1.5, None),
    },
).map(lambda meta: {key: value for key, value in meta.items() if value is not ABSENT})
params_dicts = st.fixed_dictionaries(
    {
        "_meta": st.one_of(metas, metas, metas, st.sampled_from([5, "x", [], None, ABSENT])),
        "name": mostly("echo", 3),
        "arguments": mostly(ABSENT, {}, "x"),
        "uri": mostly("file:///a", 5),
        "notifications": mostly({}, {"toolsListChanged": True}, "x"),
        "level": mostly(ABSENT, "info", "zzz"),
        "cursor": mostly(ABSENT, "c", 3),
        "ref": mostly(ABSENT, {"type": "ref/prompt", "name": "p"}, 1),
        "argument": mostly(ABSENT, {"name": "a", "value": "v"}),
    },
).map(lambda params: {key: value for key, value in params.items() if value is not ABSENT})
METHODS = [
    "tools/call",
    "tools/list",
    "resources/subscribe",
    "resources/read",
    "resources/list",
    "prompts/list",
    "server/discover",
    "subscriptions/listen",
    "completion/complete",
    "logging/setLevel",
    "initialize",
    "ping",
    "sampling/createMessage",
    "roots/list",
    "notifications/cancelled",
    "no/such",
]


@settings(max_examples=1000)
@given(
    config=st.sampled_from(sorted(CONFIGS)),
    caps=st.integers(0, len(CAPABILITIES) - 1),
    limit=st.sampled_from([None, 1]),
    warm=st.lists(st.sampled_from(["tools/list", "tools/call", "no/such"]), max_size=2),
    method=st.sampled_from(METHODS),
    params=st.one_of(
        params_dicts, params_dicts, params_dicts, _absent, st.sampled_from([[1], 5, "s"])
    ),
    id=st.sampled_from([1, 2, "a"]),
    raw=st.booleans(),
)
def test_the_fast_path_gives_the_tables_verdict(
    config: str,
    caps: int,
    limit: int | None,
    warm: list[str],
    method: str,
    params: Any,
    id: Any,
    raw: bool,
) -> None:
    session = server(config, caps, limit)
    # Warm the fast path's caches (gate decisions, the last client) and the
    # in-flight table with earlier requests, ids 1, 11, ...
    for n, earlier in enumerate(warm):
        session.receive_message(message(earlier, {"_meta": META, "name": "e"}, id=1 + 10 * n))
        session.messages_to_send()
    if not raw and not isinstance(params, dict | None):
        params = {"x": params}  # an in-memory Request holds an object or nothing
    reference, fast = verdicts(session, message(method, params, id=id, raw=raw))
    assert reference == fast


# --- every session row, by example -------------------------------------------------------

EXAMPLES: dict[str, tuple[dict[str, Any], str, Any]] = {
    "params_typed": ({}, "tools/call", {"_meta": META, "name": 3}),
    "initialize_first": ({"config": "legacy"}, "tools/list", {}),
    "protocol_version_required": ({}, "tools/list", {"_meta": {CAPS: {}}}),
    "protocol_version_supported": ({}, "tools/list", {"_meta": dict(META, **{VERSION: "1"})}),
    "client_capabilities_required": ({}, "tools/list", {"_meta": {VERSION: MODERN}}),
    "client_fields_valid": ({}, "tools/list", {"_meta": dict(META, **{LEVEL: "loud"})}),
    "method_exists": ({}, "no/such", {"_meta": META}),
    "server_capability_offered": ({"caps": 1}, "tools/list", {"_meta": META}),
    "request_id_unused": ({}, "tools/list", {"_meta": META}),
    "in_flight_limit": ({"limit": 1}, "tools/list", {"_meta": META}),
}


@pytest.mark.parametrize("check", [c for c in CHECKS if c.where == SESSION], ids=str)
def test_every_session_row_is_reachable(check: Check) -> None:
    if check.name == "params_valid":
        # Only a method missing from the newest revision is read late; none is
        # missing today, so the row is the reference's alone (it agrees: see above).
        assert check.codes == CHECKS[1].codes
        return
    kwargs, method, params = EXAMPLES[check.name]
    session = server(**kwargs)
    if check.name in ("request_id_unused", "in_flight_limit"):
        session.receive_message(message("tools/list", {"_meta": META}, id=1))
    verdict = check_request(session, message(method, params, id=1 if "unused" in check.name else 2))
    assert verdict is not None and verdict[0] is check
    assert verdict[1].code == check.codes[0]
    reference, fast = verdicts(
        session, message(method, params, id=1 if "unused" in check.name else 2)
    )
    assert reference == fast


def test_rows_are_named_once_and_ordered_as_documented() -> None:
    names = [c.name for c in CHECKS]
    assert len(set(names)) == len(names)
    # Headers are compared before the session sees the request; client
    # capabilities are known to be missing only when a handler asks for one.
    assert names[0] == "headers_match_body" and names[-1] == "client_capability_declared"
    assert all(c.spec.startswith(("2026-07-28", "2025-11-25", "JSON-RPC")) for c in CHECKS)


def test_a_good_request_is_accepted_by_both() -> None:
    session = server()
    assert check_request(session, message("tools/call", {"_meta": META, "name": "e"})) is None
    assert verdicts(session, message("tools/call", {"_meta": META, "name": "e"})) == (None, None)


def test_the_docs_page_is_generated_from_the_table() -> None:
    page = paths.ROOT / "docs" / "per_request.md"
    assert page.read_text() == render(), "regenerate docs/per_request.md from render()"
