"""SCHEMA_TYPES covers every definition of every revision, and each Struct fits its schema.

Superset rule (see mcp_core/types/base.py): one Struct serves every (revision, definition) that
maps to it, so a property may be optional in the Struct when *any* of those definitions leaves it
optional or omits it (e.g. ``resultType``, required from 2026-07-28 but unknown before). Fields
inherited from a shared base class count the definitions of every class sharing that base. The
reverse must hold strictly: a field the Struct requires is required by every definition that maps
to it, except the ``jsonrpc``/``id`` envelope fields, which revisions up to 2025-06-18 declared on
the JSON-RPC envelope instead of on each request definition.
"""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Any, TypeGuard

import msgspec
import paths
import pytest

from mcp_core.types.definitions import SCHEMA_TYPES, UNTYPED
from mcp_core.types.methods import REVISIONS

SPEC = paths.SPEC
ENVELOPE_FIELDS = {"jsonrpc", "id"}


def load_definitions(revision: str) -> dict[str, Any]:
    schema = json.loads((SPEC / revision / "schema.json").read_text())
    defs: dict[str, Any] = schema.get("definitions") or schema["$defs"]
    return defs


DEFINITIONS = {revision: load_definitions(revision) for revision in REVISIONS}


def object_shape(defs: dict[str, Any], schema: dict[str, Any]) -> tuple[dict[str, Any], set[str]]:
    """Properties and required names of an object definition, following $ref and allOf."""
    if "$ref" in schema:
        return object_shape(defs, defs[schema["$ref"].rsplit("/", 1)[-1]])
    properties: dict[str, Any] = dict(schema.get("properties", {}))
    required = set(schema.get("required", ()))
    for part in schema.get("allOf", ()):
        more, more_required = object_shape(defs, part)
        properties.update(more)
        required |= more_required
    return properties, required


def wire_fields(struct: type[msgspec.Struct]) -> dict[str, bool]:
    """Wire name -> required, including a tag field."""
    fields = {
        f.encode_name: f.default is msgspec.NODEFAULT and f.default_factory is msgspec.NODEFAULT
        for f in msgspec.structs.fields(struct)
    }
    tag_field = struct.__struct_config__.tag_field
    if tag_field is not None:
        fields[tag_field] = True
    return fields


def is_struct(value: object) -> TypeGuard[type[msgspec.Struct]]:
    return isinstance(value, type) and issubclass(value, msgspec.Struct)


# (revision, definition name, properties, required) for every object definition, per Struct.
SHAPES: dict[type[msgspec.Struct], list[tuple[str, str, dict[str, Any], set[str]]]] = defaultdict(
    list
)
for _revision, _defs in DEFINITIONS.items():
    for _name, _schema in _defs.items():
        _type = SCHEMA_TYPES[_revision].get(_name)
        if is_struct(_type):
            _props, _required = object_shape(_defs, _schema)
            if _props:
                SHAPES[_type].append((_revision, _name, _props, _required))


def optional_somewhere(struct: type[msgspec.Struct], prop: str) -> bool:
    """Whether a definition served by the class declaring ``prop`` leaves it optional or out.

    A field inherited from a shared base (``Result.resultType``, ``RequestParams._meta``) is the
    base's superset: e.g. ``resultType`` is optional on every result because results before
    2026-07-28 lack it, even on 2026-only results such as DiscoverResult.
    """
    declaring = next(
        base
        for base in reversed(struct.__mro__)
        if is_struct(base) and base is not msgspec.Struct and prop in wire_fields(base)
    )
    return any(
        prop not in required
        for other, shapes in SHAPES.items()
        if issubclass(other, declaring)
        for _, _, _, required in shapes
    )


@pytest.mark.parametrize("revision", REVISIONS)
def test_every_definition_has_a_type(revision: str) -> None:
    missing = sorted(
        name
        for name in DEFINITIONS[revision]
        if name not in SCHEMA_TYPES[revision] and name not in UNTYPED
    )
    assert missing == []


@pytest.mark.parametrize("revision", REVISIONS)
def test_table_names_only_real_definitions(revision: str) -> None:
    assert sorted(set(SCHEMA_TYPES[revision]) - set(DEFINITIONS[revision])) == []


def test_untyped_entries_have_reasons_and_exist() -> None:
    every_name = {name for defs in DEFINITIONS.values() for name in defs}
    for name, reason in UNTYPED.items():
        assert name in every_name
        assert reason.strip()


@pytest.mark.parametrize("revision", REVISIONS)
def test_every_type_builds_a_decoder(revision: str) -> None:
    for name, type_ in SCHEMA_TYPES[revision].items():
        try:
            msgspec.json.Decoder(type_)
        except TypeError as exc:  # pragma: no cover - only on failure
            pytest.fail(f"{revision} {name}: {exc}")


def struct_name(struct: type[msgspec.Struct]) -> str:
    return struct.__name__


STRUCTS = sorted(SHAPES, key=struct_name)


@pytest.mark.parametrize("struct", STRUCTS, ids=struct_name)
def test_struct_matches_schema(struct: type[msgspec.Struct]) -> None:
    fields = wire_fields(struct)
    shapes = SHAPES[struct]
    problems = []
    for revision, name, props, required in shapes:
        for prop in props:
            if prop not in fields:
                problems.append(f"{revision} {name}.{prop}: no such wire field")
            elif prop in required and not fields[prop] and not optional_somewhere(struct, prop):
                problems.append(f"{revision} {name}.{prop}: required everywhere, optional here")
    for field, field_required in fields.items():
        if not field_required:
            continue
        for revision, name, props, required in shapes:
            if field in required:
                continue
            if field not in props and field in ENVELOPE_FIELDS:
                continue
            problems.append(f"{revision} {name}.{field}: optional or absent, required here")
    assert problems == []


def test_tagged_unions_match_schema_members() -> None:
    """Per-revision request/notification unions list exactly the schema's members."""
    for revision, defs in DEFINITIONS.items():
        for union_name in ("ClientRequest", "ServerRequest", "ClientNotification",
                           "ServerNotification", "InputRequest", "ContentBlock",
                           "SamplingMessageContentBlock"):  # fmt: skip
            if union_name not in defs or "anyOf" not in defs[union_name]:
                continue
            expected = sorted(ref["$ref"].rsplit("/", 1)[-1] for ref in defs[union_name]["anyOf"])
            members = getattr(SCHEMA_TYPES[revision][union_name], "__args__", ())
            actual = sorted(member.__name__ for member in members)
            assert actual == expected, (revision, union_name)


def test_renamed_definitions_share_one_class() -> None:
    assert (
        SCHEMA_TYPES["2024-11-05"]["ResourceReference"]
        is SCHEMA_TYPES["2025-06-18"]["ResourceTemplateReference"]
    )
    assert (
        SCHEMA_TYPES["2025-06-18"]["JSONRPCError"]
        is SCHEMA_TYPES["2025-11-25"]["JSONRPCErrorResponse"]
    )
    assert (
        SCHEMA_TYPES["2025-06-18"]["EnumSchema"]
        is SCHEMA_TYPES["2025-11-25"]["LegacyTitledEnumSchema"]
    )
    assert (
        SCHEMA_TYPES["2025-06-18"]["JSONRPCResponse"]
        is SCHEMA_TYPES["2025-11-25"]["JSONRPCResultResponse"]
    )


def test_initialize_and_discover_results_stay_distinct() -> None:
    initialize = SCHEMA_TYPES["2025-11-25"]["InitializeResult"]
    discover = SCHEMA_TYPES["2026-07-28"]["DiscoverResult"]
    assert initialize is not discover
    assert "InitializeResult" not in SCHEMA_TYPES["2026-07-28"]
    assert "DiscoverResult" not in SCHEMA_TYPES["2025-11-25"]
