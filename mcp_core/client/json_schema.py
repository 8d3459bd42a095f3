"""A small JSON Schema validator: enough to check a tool's ``structuredContent``
against its ``outputSchema``.

2025-11-25 server/tools.mdx "Output Schema": "Clients SHOULD validate structured
results against this schema." Tool schemas are JSON Schema 2020-12 (the default
dialect, 2025-11-25 basic/index.mdx "JSON Schema Usage"); what tools publish in
practice is the object/array/scalar vocabulary that schema generators (msgspec,
pydantic, zod) write. That is the subset checked here:

- ``type`` (one or a list), ``enum``, ``const``;
- objects: ``properties``, ``required``, ``additionalProperties`` (bool or schema),
  ``minProperties``, ``maxProperties``;
- arrays: ``items``, ``prefixItems``, ``minItems``, ``maxItems``, ``uniqueItems``;
- strings: ``minLength``, ``maxLength``, ``pattern``;
- numbers: ``minimum``, ``maximum``, ``exclusiveMinimum``, ``exclusiveMaximum``,
  ``multipleOf``;
- ``allOf``, ``anyOf``, ``oneOf``, ``not``, boolean schemas;
- ``$ref`` to a JSON pointer inside the same schema (``#/$defs/...``). Any other
  reference is never fetched (a network ``$ref`` would let a server make the
  client reach out anywhere): it is left unchecked.

Other keywords (``format``, ``if``/``then``, ``dependentSchemas``...) are ignored,
so a value may pass that a full validator refuses, never the other way round.
"""

from __future__ import annotations

import re
from typing import Any, Final
from urllib.parse import unquote

__all__ = ["schema_errors"]

MAX_DEPTH: Final = 64
"""Nesting of schemas (and ``$ref`` hops) followed before giving up on a branch:
a self-referencing schema must not recurse forever."""

MAX_STEPS: Final = 100_000
"""(schema, value) pairs checked for one value at most. Combinators nest, so a
small hostile schema could otherwise ask for exponential work; past the budget
the rest is left unchecked (a server's schema must not stall its client)."""

_TYPES: Final[dict[str, Any]] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "integer": lambda v: (
        (isinstance(v, int) and not isinstance(v, bool))
        or (isinstance(v, float) and v.is_integer())
    ),
}


def schema_errors(schema: Any, value: Any, *, limit: int = 5) -> list[str]:
    """What is wrong with ``value`` under ``schema``, at most ``limit`` messages,
    each prefixed with where (``$.items[2].name``); empty when it is valid."""
    walk = _Walk(schema)
    _check(schema, value, "$", walk, walk.errors, 0)
    return walk.errors[:limit]


class _Walk:
    """One validation: the root document, the step budget, the $refs in progress."""

    __slots__ = ("active", "errors", "root", "steps")

    def __init__(self, root: Any) -> None:
        self.root = root
        self.errors: list[str] = []
        self.steps = 0
        # (schema, value) pairs a $ref is being followed for, by identity: the same
        # reference reached again for the same value is a loop, not more work.
        self.active: set[tuple[int, int]] = set()


def _resolve(root: Any, ref: str) -> Any:
    # Only a pointer into this very document (RFC 6901); None for anything else.
    if not ref.startswith("#"):
        return None
    node = root
    for part in ref[1:].split("/")[1:]:
        key = unquote(part).replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and key in node:
            node = node[key]
        elif isinstance(node, list) and key.isdigit() and int(key) < len(node):
            node = node[int(key)]
        else:
            return None
    return node


def _equal(a: Any, b: Any) -> bool:
    # JSON equality: 1 == 1.0, but True is not 1.
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    return bool(a == b)


def _check(schema: Any, value: Any, where: str, walk: _Walk, errors: list[str], depth: int) -> None:
    if schema is False:
        errors.append(f"{where}: no value is allowed here")
        return
    walk.steps += 1
    if not isinstance(schema, dict) or depth > MAX_DEPTH or walk.steps > MAX_STEPS:
        return
    ref = schema.get("$ref")
    if isinstance(ref, str):
        target = _resolve(walk.root, ref)
        key = (id(target), id(value))
        if target is not None and key not in walk.active:
            walk.active.add(key)
            try:
                _check(target, value, where, walk, errors, depth + 1)
            finally:
                walk.active.discard(key)
    _check_type(schema, value, where, errors)
    if "const" in schema and not _equal(value, schema["const"]):
        errors.append(f"{where}: must be {schema['const']!r}")
    enum = schema.get("enum")
    if isinstance(enum, list) and not any(_equal(value, option) for option in enum):
        errors.append(f"{where}: must be one of {enum!r}")
    if isinstance(value, dict):
        _check_object(schema, value, where, walk, errors, depth)
    elif isinstance(value, list):
        _check_array(schema, value, where, walk, errors, depth)
    elif isinstance(value, str):
        _check_string(schema, value, where, errors)
    elif isinstance(value, int | float) and not isinstance(value, bool):
        _check_number(schema, value, where, errors)
    _check_combinators(schema, value, where, walk, errors, depth)


def _check_type(schema: dict[str, Any], value: Any, where: str, errors: list[str]) -> None:
    wanted = schema.get("type")
    if wanted is None:
        return
    names = wanted if isinstance(wanted, list) else [wanted]
    known = [name for name in names if name in _TYPES]
    if known and not any(_TYPES[name](value) for name in known):
        errors.append(f"{where}: expected {' or '.join(known)}, got {_json_type(value)}")


def _json_type(value: Any) -> str:
    for name in ("null", "boolean", "integer", "number", "string", "array", "object"):
        if _TYPES[name](value):
            return name
    return type(value).__name__


def _sub(schema: Any, value: Any, where: str, walk: _Walk, depth: int) -> list[str]:
    found: list[str] = []
    _check(schema, value, where, walk, found, depth + 1)
    return found


def _check_object(
    schema: dict[str, Any],
    value: dict[str, Any],
    where: str,
    walk: _Walk,
    errors: list[str],
    depth: int,
) -> None:
    required = schema.get("required")
    if isinstance(required, list):
        for name in required:
            if name not in value:
                errors.append(f"{where}: {name!r} is required")
    properties = schema.get("properties")
    properties = properties if isinstance(properties, dict) else {}
    extra = schema.get("additionalProperties", True)
    for name, item in value.items():
        if name in properties:
            errors.extend(_sub(properties[name], item, f"{where}.{name}", walk, depth))
        elif extra is False:
            errors.append(f"{where}: unexpected property {name!r}")
        elif isinstance(extra, dict):
            errors.extend(_sub(extra, item, f"{where}.{name}", walk, depth))
    _bounds(schema, len(value), "minProperties", "maxProperties", "properties", where, errors)


def _check_array(
    schema: dict[str, Any], value: list[Any], where: str, walk: _Walk, errors: list[str], depth: int
) -> None:
    prefix = schema.get("prefixItems")
    prefix = prefix if isinstance(prefix, list) else []
    for index, item in enumerate(value):
        sub = prefix[index] if index < len(prefix) else schema.get("items", True)
        errors.extend(_sub(sub, item, f"{where}[{index}]", walk, depth))
    _bounds(schema, len(value), "minItems", "maxItems", "items", where, errors)
    if schema.get("uniqueItems") is True:
        for index, item in enumerate(value):
            if any(_equal(item, other) for other in value[:index]):
                errors.append(f"{where}: items must be unique")
                break


def _check_string(schema: dict[str, Any], value: str, where: str, errors: list[str]) -> None:
    _bounds(schema, len(value), "minLength", "maxLength", "characters", where, errors)
    pattern = schema.get("pattern")
    if isinstance(pattern, str):
        try:
            matched = re.search(pattern, value) is not None
        except re.error:
            return  # a pattern Python cannot read is not the value's fault
        if not matched:
            errors.append(f"{where}: does not match {pattern!r}")


def _check_number(schema: dict[str, Any], value: float, where: str, errors: list[str]) -> None:
    least = _number(schema, "minimum")
    if least is not None and value < least:
        errors.append(f"{where}: must be >= {least}")
    most = _number(schema, "maximum")
    if most is not None and value > most:
        errors.append(f"{where}: must be <= {most}")
    above = _number(schema, "exclusiveMinimum")
    if above is not None and value <= above:
        errors.append(f"{where}: must be > {above}")
    below = _number(schema, "exclusiveMaximum")
    if below is not None and value >= below:
        errors.append(f"{where}: must be < {below}")
    step = _number(schema, "multipleOf")
    if step is not None and step > 0 and not (value / step).is_integer():
        errors.append(f"{where}: must be a multiple of {step}")


def _number(schema: dict[str, Any], keyword: str) -> float | None:
    value = schema.get(keyword)
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value
    return None


def _bounds(
    schema: dict[str, Any],
    size: int,
    low: str,
    high: str,
    what: str,
    where: str,
    errors: list[str],
) -> None:
    least = _number(schema, low)
    if least is not None and size < least:
        errors.append(f"{where}: needs at least {least} {what}")
    most = _number(schema, high)
    if most is not None and size > most:
        errors.append(f"{where}: allows at most {most} {what}")


def _check_combinators(
    schema: dict[str, Any], value: Any, where: str, walk: _Walk, errors: list[str], depth: int
) -> None:
    every = schema.get("allOf")
    if isinstance(every, list):
        for sub in every:
            errors.extend(_sub(sub, value, where, walk, depth))
    some = schema.get("anyOf")
    if isinstance(some, list) and some and all(_sub(s, value, where, walk, depth) for s in some):
        errors.append(f"{where}: matches none of anyOf")
    one = schema.get("oneOf")
    if isinstance(one, list) and one:
        matches = sum(1 for sub in one if not _sub(sub, value, where, walk, depth))
        if matches != 1:
            errors.append(f"{where}: matches {matches} of oneOf, not exactly one")
    negated = schema.get("not")
    if negated is not None and not _sub(negated, value, where, walk, depth):
        errors.append(f"{where}: must not match the 'not' schema")
