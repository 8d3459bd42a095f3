"""Every 2026-07-28 example message decodes into its type and re-encodes to the same JSON."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TypeGuard

import msgspec
import paths
import pytest

from mcp_core.types.client import ElicitRequestParams, InputRequiredResult
from mcp_core.types.content import ResourceContents, TextResourceContents
from mcp_core.types.definitions import SCHEMA_TYPES

SPEC = paths.SPEC
EXAMPLES = sorted((SPEC / "2026-07-28" / "examples").glob("*/*.json"))
TYPES = SCHEMA_TYPES["2026-07-28"]


def is_struct(value: object) -> TypeGuard[type[msgspec.Struct]]:
    return isinstance(value, type) and issubclass(value, msgspec.Struct)


STRUCT_EXAMPLES = [p for p in EXAMPLES if is_struct(TYPES[p.parent.name])]


def example_id(path: Path) -> str:
    return f"{path.parent.name}/{path.stem}"


def test_examples_exist() -> None:
    assert len(EXAMPLES) >= 100


@pytest.mark.parametrize("path", EXAMPLES, ids=example_id)
def test_example_round_trips(path: Path) -> None:
    type_ = TYPES[path.parent.name]
    raw = path.read_bytes()
    value = msgspec.json.decode(raw, type=type_)
    if is_struct(type_):
        assert isinstance(value, type_)
    assert json.loads(msgspec.json.encode(value)) == json.loads(raw)


@pytest.mark.parametrize("path", STRUCT_EXAMPLES, ids=example_id)
def test_example_missing_a_required_field_is_rejected(path: Path) -> None:
    """Drop each top-level field the Struct requires: decoding must fail."""
    type_ = TYPES[path.parent.name]
    assert is_struct(type_)
    document = json.loads(path.read_bytes())
    required = [
        f.encode_name
        for f in msgspec.structs.fields(type_)
        if f.default is msgspec.NODEFAULT and f.default_factory is msgspec.NODEFAULT
    ]
    for name in required:
        broken = {key: value for key, value in document.items() if key != name}
        with pytest.raises(msgspec.ValidationError):
            msgspec.json.decode(json.dumps(broken).encode(), type=type_)


def test_untagged_union_checks() -> None:
    with pytest.raises(msgspec.ValidationError, match="text"):
        msgspec.json.decode(b'{"uri": "file:///a"}', type=ResourceContents)
    with pytest.raises(msgspec.ValidationError, match="url"):
        msgspec.json.decode(b'{"message": "m", "mode": "url"}', type=ElicitRequestParams)
    with pytest.raises(msgspec.ValidationError, match="requestedSchema"):
        msgspec.json.decode(b'{"message": "m"}', type=ElicitRequestParams)
    with pytest.raises(msgspec.ValidationError, match="inputRequests"):
        msgspec.json.decode(b'{"resultType": "input_required"}', type=InputRequiredResult)


def test_resource_contents_variants_encode_as_the_superset() -> None:
    text = TextResourceContents(uri="file:///a", text="hi")
    decoded = msgspec.json.decode(msgspec.json.encode(text), type=ResourceContents)
    assert decoded.text == "hi"
    assert isinstance(decoded.blob, msgspec.UnsetType)


def test_tags_are_written_and_checked() -> None:
    text_content = TYPES["TextContent"]
    assert json.loads(msgspec.json.encode(text_content(text="hi"))) == {  # type: ignore[operator]
        "type": "text",
        "text": "hi",
    }
    with pytest.raises(msgspec.ValidationError):
        msgspec.json.decode(b'{"type": "image", "text": "hi"}', type=text_content)
