"""The JSON Schema subset that checks ``structuredContent`` (mcp_core.client.json_schema):
each keyword, valid and invalid, from a table."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from mcp_core.client.json_schema import schema_errors
from mcp_core.types import CallToolResult, ListToolsResult

# (schema, value, the first error or None for valid)
CASES: list[tuple[Any, Any, str | None]] = [
    (True, {"any": 1}, None),
    (False, 1, "$: no value is allowed here"),
    ({}, [1, "x"], None),
    ({"type": "integer"}, 3, None),
    ({"type": "integer"}, 3.0, None),
    ({"type": "integer"}, 3.5, "$: expected integer, got number"),
    ({"type": "integer"}, True, "$: expected integer, got boolean"),
    ({"type": "number"}, False, "$: expected number, got boolean"),
    ({"type": ["string", "null"]}, None, None),
    ({"type": "string"}, 1, "$: expected string, got integer"),
    ({"type": "mystery"}, 1, None),  # unknown type names are not ours to judge
    ({"enum": ["a", 1]}, 1.0, None),
    ({"enum": [1]}, True, "$: must be one of [1]"),
    ({"const": {"a": [1]}}, {"a": [1.0]}, None),
    ({"const": "x"}, "y", "$: must be 'x'"),
    ({"required": ["a"]}, {}, "$: 'a' is required"),
    ({"properties": {"a": {"type": "string"}}}, {"a": 1}, "$.a: expected string, got integer"),
    (
        {"additionalProperties": False, "properties": {"a": {}}},
        {"b": 1},
        "$: unexpected property 'b'",
    ),
    (
        {"additionalProperties": {"type": "integer"}},
        {"b": "x"},
        "$.b: expected integer, got string",
    ),
    ({"minProperties": 1}, {}, "$: needs at least 1 properties"),
    ({"maxProperties": 0}, {"a": 1}, "$: allows at most 0 properties"),
    ({"items": {"type": "integer"}}, [1, "x"], "$[1]: expected integer, got string"),
    (
        {"prefixItems": [{"type": "string"}], "items": False},
        ["a", 1],
        "$[1]: no value is allowed here",
    ),
    ({"minItems": 2}, [1], "$: needs at least 2 items"),
    ({"maxItems": 1}, [1, 2], "$: allows at most 1 items"),
    ({"uniqueItems": True}, [1, 1.0], "$: items must be unique"),
    ({"uniqueItems": True}, [1, True], None),
    ({"minLength": 2}, "a", "$: needs at least 2 characters"),
    ({"maxLength": 1}, "ab", "$: allows at most 1 characters"),
    ({"pattern": "^a+$"}, "b", "$: does not match '^a+$'"),
    ({"pattern": "(unclosed"}, "b", None),
    ({"minimum": 1}, 0, "$: must be >= 1"),
    ({"maximum": 1}, 2, "$: must be <= 1"),
    ({"exclusiveMinimum": 1}, 1, "$: must be > 1"),
    ({"exclusiveMaximum": 1}, 1, "$: must be < 1"),
    ({"multipleOf": 0.5}, 1.5, None),
    ({"multipleOf": 2}, 3, "$: must be a multiple of 2"),
    ({"allOf": [{"type": "integer"}, {"minimum": 5}]}, 3, "$: must be >= 5"),
    ({"anyOf": [{"type": "string"}, {"type": "integer"}]}, 1, None),
    ({"anyOf": [{"type": "string"}, {"type": "null"}]}, 1, "$: matches none of anyOf"),
    (
        {"oneOf": [{"type": "integer"}, {"type": "number"}]},
        1,
        "$: matches 2 of oneOf, not exactly one",
    ),
    ({"oneOf": [{"type": "integer"}, {"type": "string"}]}, "x", None),
    ({"not": {"type": "string"}}, "x", "$: must not match the 'not' schema"),
    # Local references, as msgspec and pydantic write them.
    (
        {"$ref": "#/$defs/Point", "$defs": {"Point": {"required": ["x"]}}},
        {"y": 1},
        "$: 'x' is required",
    ),
    ({"$ref": "#/definitions/a~1b", "definitions": {"a/b": {"type": "null"}}}, None, None),
    ({"$ref": "#/$defs/missing"}, 1, None),
    ({"$ref": "#/items/0", "items": [{"type": "string"}]}, 1, "$: expected string, got integer"),
    # A reference outside the document is never fetched, and not checked.
    ({"$ref": "https://example.com/schema.json"}, 1, None),
]


@pytest.mark.parametrize(("schema", "value", "first"), CASES)
def test_keywords(schema: Any, value: Any, first: str | None) -> None:
    errors = schema_errors(schema, value)
    assert (errors[0] if errors else None) == first


def test_a_schema_that_refers_to_itself_ends() -> None:
    tree = {"$ref": "#", "properties": {"child": {"$ref": "#"}}, "type": "object"}
    deep: dict[str, Any] = {}
    node = deep
    for _ in range(200):
        node["child"] = {}
        node = node["child"]
    node["child"] = 1
    # Checked down to the depth bound, never a RecursionError.
    assert isinstance(schema_errors(tree, deep), list)
    assert schema_errors(tree, {"child": {"child": 1}}) != []


def test_errors_are_bounded() -> None:
    errors = schema_errors({"items": {"type": "string"}}, list(range(100)), limit=3)
    assert len(errors) == 3


def test_output_schemas_remember_and_forget() -> None:
    from mcp_core.client import OutputSchemas, ToolOutputError

    def page(tools: list[dict[str, Any]]) -> ListToolsResult:
        return msgspec.convert({"tools": tools}, ListToolsResult)

    schemas = OutputSchemas()
    schema = {"type": "object", "required": ["a"]}
    schemas.learn(page([{"name": "t", "inputSchema": {}, "outputSchema": schema}]))
    bad = CallToolResult(content=[], structured_content={})
    with pytest.raises(ToolOutputError):
        schemas.check("t", bad)
    schemas.learn(page([{"name": "t", "inputSchema": {}}]))
    assert schemas.check("t", bad) is bad


def test_a_schema_asking_for_exponential_work_is_cut_short() -> None:
    # Each level offers two ways to the next: 2**40 paths without the step budget.
    defs = {
        f"l{i}": {"anyOf": [{"$ref": f"#/$defs/l{i + 1}"}, {"$ref": f"#/$defs/l{i + 1}"}]}
        for i in range(40)
    }
    defs["l40"] = {"type": "string"}
    schema = {"$ref": "#/$defs/l0", "$defs": defs}
    assert schema_errors(schema, "fine") == []
    assert isinstance(schema_errors(schema, 1), list)
