"""METHODS against the schemas, plus the decoders built from it."""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Any

import msgspec
import paths
import pytest

from mcp_core.types.client import InputRequiredResult
from mcp_core.types.definitions import SCHEMA_TYPES
from mcp_core.types.methods import (
    LATEST_REVISION,
    LEGACY_REVISIONS,
    METHODS,
    REVISIONS,
    MethodSpec,
    decode_method_result,
    method_spec,
    params_decoder,
    result_decoder,
)
from mcp_core.types.server import CallToolResult
from mcp_core.types.tasks import CreateTaskResult

SPEC = paths.SPEC

UNIONS = {
    "ClientRequest": ("client", "request"),
    "ServerRequest": ("server", "request"),
    "ClientNotification": ("client", "notification"),
    "ServerNotification": ("server", "notification"),
    "InputRequest": ("server", "input_request"),
}


def load_definitions(revision: str) -> dict[str, Any]:
    schema = json.loads((SPEC / revision / "schema.json").read_text())
    defs: dict[str, Any] = schema.get("definitions") or schema["$defs"]
    return defs


def ref_name(schema: dict[str, Any]) -> str:
    ref: str = schema["$ref"]
    return ref.rsplit("/", 1)[-1]


def schema_methods(revision: str) -> dict[str, dict[str, Any]]:
    """method -> {senders, kind, params_required, params schema} from the schema's unions."""
    defs = load_definitions(revision)
    found: dict[str, dict[str, Any]] = defaultdict(lambda: {"senders": set()})
    for union, (sender, kind) in UNIONS.items():
        if union not in defs:
            continue
        union_schema = defs[union]
        if "anyOf" in union_schema:
            members = [defs[ref_name(member)] for member in union_schema["anyOf"]]
        elif "$ref" in union_schema:
            members = [defs[ref_name(union_schema)]]
        else:  # 2026-07-28 ClientNotification is an inline copy of CancelledNotification
            members = [union_schema]
        for member in members:
            entry = found[member["properties"]["method"]["const"]]
            entry["senders"].add(sender)
            entry["kind"] = kind
            entry["params_required"] = "params" in member.get("required", ())
            entry["params"] = member["properties"].get("params")
    return dict(found)


def wire_fields(struct: type[msgspec.Struct]) -> set[str]:
    return {f.encode_name for f in msgspec.structs.fields(struct)}


# --- Table facts ---------------------------------------------------------------------------------


def test_revision_constants() -> None:
    assert REVISIONS == ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28")
    assert REVISIONS[-1] == LATEST_REVISION
    assert REVISIONS[:-1] == LEGACY_REVISIONS
    # tests/spec/extensions/ holds the extension texts, not a revision.
    folders = sorted(p.name for p in SPEC.iterdir() if p.is_dir() and p.name != "extensions")
    assert folders == list(REVISIONS)


@pytest.mark.parametrize("revision", REVISIONS)
def test_table_matches_schema(revision: str) -> None:
    expected = schema_methods(revision)
    actual = {method: spec for (method, rev), spec in METHODS.items() if rev == revision}
    assert sorted(actual) == sorted(expected)
    for method, facts in expected.items():
        spec = actual[method]
        senders = facts["senders"]
        assert spec.sender == ("both" if len(senders) == 2 else next(iter(senders))), method
        assert spec.kind == facts["kind"], method
        assert spec.params_required == facts["params_required"], method
        assert spec.method == method
        assert spec.revision == revision


@pytest.mark.parametrize("revision", REVISIONS)
def test_params_types_match_schema(revision: str) -> None:
    """A named params definition maps to the spec's type; inline params fit its fields."""
    defs = load_definitions(revision)
    for method, facts in schema_methods(revision).items():
        spec = METHODS[method, revision]
        params = facts["params"]
        if params is None:
            continue
        if "$ref" in params:
            assert SCHEMA_TYPES[revision][ref_name(params)] is spec.params_type, method
            params = defs[ref_name(params)]
        missing = set(params.get("properties", {})) - wire_fields(spec.params_type)
        assert missing == set(), method


def test_result_responses_match_input_required_flags() -> None:
    """2026-07-28 ``<X>ResultResponse`` says which results may be an InputRequiredResult."""
    defs = load_definitions(LATEST_REVISION)
    by_result = {
        spec.result_type: spec
        for (_, rev), spec in METHODS.items()
        if rev == LATEST_REVISION and spec.kind == "request"
    }
    checked = 0
    for name, definition in defs.items():
        if not name.endswith("ResultResponse") or name == "JSONRPCResultResponse":
            continue
        result = definition["properties"]["result"]
        refs = {ref_name(r) for r in result.get("anyOf", [result])}
        input_required = "InputRequiredResult" in refs
        (result_name,) = refs - {"InputRequiredResult"}
        spec = by_result[SCHEMA_TYPES[LATEST_REVISION][result_name]]
        assert spec.input_required == input_required, name
        checked += 1
    assert checked == 10


def test_lifecycle_methods_by_era() -> None:
    for revision in LEGACY_REVISIONS:
        assert method_spec("initialize", revision) is not None
        assert method_spec("notifications/initialized", revision) is not None
        assert method_spec("ping", revision) is not None
        assert method_spec("server/discover", revision) is None
        assert method_spec("subscriptions/listen", revision) is None
    assert method_spec("initialize", LATEST_REVISION) is None
    assert method_spec("ping", LATEST_REVISION) is None
    assert method_spec("logging/setLevel", LATEST_REVISION) is None
    assert method_spec("resources/subscribe", LATEST_REVISION) is None
    discover = method_spec("server/discover", LATEST_REVISION)
    assert discover is not None
    assert discover.sender == "client"
    assert method_spec("no/such/method", LATEST_REVISION) is None
    assert method_spec("initialize", "1999-01-01") is None


def test_tasks_only_in_2025_11_25() -> None:
    for method in ("tasks/get", "tasks/result", "tasks/cancel", "tasks/list"):
        assert [r for r in REVISIONS if (method, r) in METHODS] == ["2025-11-25"]
        assert METHODS[method, "2025-11-25"].sender == "both"


def test_client_features_become_input_requests() -> None:
    assert [r for r in REVISIONS if ("elicitation/create", r) in METHODS] == [
        "2025-06-18",
        "2025-11-25",
        "2026-07-28",
    ]
    for method in ("sampling/createMessage", "roots/list", "elicitation/create"):
        assert METHODS[method, "2025-11-25"].kind == "request"
        assert METHODS[method, LATEST_REVISION].kind == "input_request"
        assert METHODS[method, LATEST_REVISION].sender == "server"


# --- Decoders ----------------------------------------------------------------------------------

TASK = {
    "taskId": "t1",
    "status": "working",
    "ttl": None,
    "createdAt": "2025-11-25T00:00:00Z",
    "lastUpdatedAt": "2025-11-25T00:00:01Z",
}
TEXT = {"type": "text", "text": "hi"}
IMPLEMENTATION = {"name": "x", "version": "1"}
META_2026 = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}

# method -> (sample params, sample result or None for notifications)
SAMPLES: dict[str, tuple[dict[str, Any], dict[str, Any] | None]] = {
    "initialize": (
        {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": IMPLEMENTATION},
        {"protocolVersion": "2025-06-18", "capabilities": {}, "serverInfo": IMPLEMENTATION},
    ),
    "ping": ({}, {}),
    "server/discover": (
        {"_meta": META_2026},
        {"resultType": "complete", "supportedVersions": ["2026-07-28"], "capabilities": {},
         "ttlMs": 0, "cacheScope": "public"},
    ),
    "notifications/initialized": ({}, None),
    "notifications/cancelled": ({"requestId": 1, "reason": "stop"}, None),
    "notifications/progress": ({"progressToken": "p", "progress": 1, "total": 2}, None),
    "resources/list": ({"cursor": "c"}, {"resources": [{"uri": "file:///a", "name": "a"}]}),
    "resources/templates/list": (
        {}, {"resourceTemplates": [{"uriTemplate": "file:///{x}", "name": "x"}]},
    ),
    "resources/read": ({"uri": "file:///a"}, {"contents": [{"uri": "file:///a", "text": "hi"}]}),
    "resources/subscribe": ({"uri": "file:///a"}, {}),
    "resources/unsubscribe": ({"uri": "file:///a"}, {}),
    "notifications/resources/list_changed": ({}, None),
    "notifications/resources/updated": ({"uri": "file:///a"}, None),
    "subscriptions/listen": (
        {"_meta": META_2026, "notifications": {"toolsListChanged": True}},
        {"resultType": "complete", "_meta": {"io.modelcontextprotocol/subscriptionId": 7}},
    ),
    "notifications/subscriptions/acknowledged": ({"notifications": {}}, None),
    "prompts/list": ({}, {"prompts": [{"name": "p"}]}),
    "prompts/get": (
        {"name": "p", "arguments": {"a": "b"}},
        {"messages": [{"role": "user", "content": TEXT}]},
    ),
    "notifications/prompts/list_changed": ({}, None),
    "tools/list": ({}, {"tools": [{"name": "t", "inputSchema": {"type": "object"}}]}),
    "tools/call": ({"name": "t", "arguments": {"x": 1}}, {"content": [TEXT], "isError": False}),
    "notifications/tools/list_changed": ({}, None),
    "completion/complete": (
        {"ref": {"type": "ref/prompt", "name": "p"}, "argument": {"name": "a", "value": "b"}},
        {"completion": {"values": ["bb"], "hasMore": False}},
    ),
    "logging/setLevel": ({"level": "info"}, {}),
    "notifications/message": ({"level": "info", "data": {"k": 1}}, None),
    "sampling/createMessage": (
        {"messages": [{"role": "user", "content": TEXT}], "maxTokens": 10},
        {"role": "assistant", "content": TEXT, "model": "m"},
    ),
    "roots/list": ({}, {"roots": [{"uri": "file:///"}]}),
    "notifications/roots/list_changed": ({}, None),
    "elicitation/create": (
        {"message": "m",
         "requestedSchema": {"type": "object", "properties": {"n": {"type": "string"}}}},
        {"action": "accept", "content": {"n": "x"}},
    ),
    "notifications/elicitation/complete": ({"elicitationId": "e"}, None),
    "tasks/get": ({"taskId": "t1"}, TASK),
    "tasks/result": ({"taskId": "t1"}, {"content": [TEXT]}),
    "tasks/cancel": ({"taskId": "t1"}, {**TASK, "status": "cancelled"}),
    "tasks/list": ({}, {"tasks": [TASK]}),
    "notifications/tasks/status": (TASK, None),
}  # fmt: skip

SPECS = sorted(METHODS.values(), key=lambda spec: (spec.method, spec.revision))


def spec_id(spec: MethodSpec) -> str:
    return f"{spec.method}@{spec.revision}"


def test_every_method_has_a_sample() -> None:
    assert sorted({spec.method for spec in SPECS}) == sorted(SAMPLES)


@pytest.mark.parametrize("spec", SPECS, ids=spec_id)
def test_params_decoder(spec: MethodSpec) -> None:
    params, _ = SAMPLES[spec.method]
    decoded = params_decoder(spec).decode(json.dumps(params).encode())
    assert isinstance(decoded, spec.params_type)
    assert json.loads(msgspec.json.encode(decoded)) == params
    assert params_decoder(spec) is params_decoder(spec)
    if not spec.params_required:
        # Absent params reach the decoder as {} (see _jsonrpc.decode_params).
        assert isinstance(params_decoder(spec).decode(b"{}"), spec.params_type)


@pytest.mark.parametrize("spec", SPECS, ids=spec_id)
def test_result_decoder(spec: MethodSpec) -> None:
    _, result = SAMPLES[spec.method]
    if spec.kind == "notification":
        assert result is None
        assert spec.result_type is None
        with pytest.raises(ValueError):
            result_decoder(spec)
        return
    assert result is not None
    data = json.dumps(result).encode()
    decoded = result_decoder(spec).decode(data)
    assert json.loads(msgspec.json.encode(decoded)) == result
    assert type(decode_method_result(spec, data)) is type(decoded)
    assert result_decoder(spec) is result_decoder(spec)


def test_required_params_are_enforced() -> None:
    spec = METHODS["tools/call", LATEST_REVISION]
    with pytest.raises(msgspec.ValidationError, match="name"):
        params_decoder(spec).decode(b"{}")
    with pytest.raises(msgspec.ValidationError):
        params_decoder(METHODS["initialize", "2024-11-05"]).decode(b'{"protocolVersion": 1}')


def test_decode_method_result_input_required() -> None:
    data = b'{"resultType": "input_required", "requestState": "s1"}'
    latest = METHODS["tools/call", LATEST_REVISION]
    assert isinstance(decode_method_result(latest, data), InputRequiredResult)
    complete = b'{"resultType": "complete", "content": []}'
    assert isinstance(decode_method_result(latest, complete), CallToolResult)
    # An older server omits resultType: the result is complete.
    assert isinstance(decode_method_result(latest, b'{"content": []}'), CallToolResult)
    # Only methods that allow multi round-trips accept an InputRequiredResult.
    with pytest.raises(msgspec.ValidationError):
        decode_method_result(METHODS["tools/list", LATEST_REVISION], data)
    with pytest.raises(msgspec.ValidationError):
        decode_method_result(METHODS["tools/call", "2025-11-25"], data)


def test_decode_method_result_task() -> None:
    data = json.dumps({"task": TASK}).encode()
    spec = METHODS["tools/call", "2025-11-25"]
    assert spec.task_augmentable
    created = decode_method_result(spec, data)
    assert isinstance(created, CreateTaskResult)
    assert created.task.ttl is None
    with pytest.raises(msgspec.ValidationError):
        decode_method_result(METHODS["tools/call", "2025-06-18"], data)
