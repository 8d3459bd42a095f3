# pydantic models as tool arguments and results, without importing pydantic.
#
# Most Python users describe data with pydantic, which is not a dependency of
# mcp-core and is never imported here (the core imports only msgspec, see
# tests/core/test_imports.py). A pydantic v2 model is recognised by what it can
# do: `model_json_schema`, `model_validate` and `model_dump`. Such a model is
# described by its own schema, validated by itself, and written as its own JSON
# (`model_dump(mode="json")`); msgspec never sees it.
#
# Supported where a tool or prompt parameter, or a tool's return type, is a model,
# an optional model (`Model | None`), or a list of models. Anything else that
# holds a model (a dict of models, a model inside a Struct) is refused when the
# function is registered, with a message that says so.

from __future__ import annotations

import types
import typing
from typing import Any, Final, Union

import msgspec

__all__ = ["ModelParam", "dump", "is_model", "model_param", "model_schema", "model_value"]

_REF_TEMPLATE: Final = "#/$defs/{model}"


def is_model(annotation: Any) -> bool:
    """Whether ``annotation`` is a pydantic (v2) model class, by its methods."""
    return isinstance(annotation, type) and all(
        callable(getattr(annotation, name, None))
        for name in ("model_json_schema", "model_validate", "model_dump")
    )


_KNOWN: dict[type, bool] = {}
"""Whether each type seen by `is_model_instance` is a model (types are few)."""


def is_model_instance(value: Any) -> bool:
    kind = type(value)
    known = _KNOWN.get(kind)
    if known is None:
        known = _KNOWN[kind] = is_model(kind)
    return known


class ModelParam:
    """A parameter or result whose type is a model or a list of models, either of
    them optional (``Model``, ``list[Model]``, ``Model | None``, ``list[Model] | None``).

    Attributes:
        model: the model class.
        many: a list of models.
        optional: None is accepted too.
    """

    __slots__ = ("many", "model", "optional")

    def __init__(self, model: type, *, many: bool = False, optional: bool = False) -> None:
        self.model = model
        self.many = many
        self.optional = optional

    @property
    def wire_type(self) -> Any:
        """What msgspec lets through for the model to validate: anything, in a list
        for a list (msgspec still says when a required one is missing)."""
        return list[Any] if self.many else Any

    def validate(self, name: str, value: Any, *, strict: bool = True) -> Any:
        """The model instance(s) for a JSON value.

        Args:
            name: the parameter, for the message.
            value: what the client sent.
            strict: False for prompt arguments, which are strings: a string is
                then read as the model's JSON.

        Raises:
            msgspec.ValidationError: the model refuses the value; the message is
                the model's, with where.
        """
        model: Any = self.model
        if value is None and self.optional:
            return None

        def check(item: Any) -> Any:
            if isinstance(item, str) and not strict:
                return model.model_validate_json(item)
            return model.model_validate(item)

        try:
            if self.many and not isinstance(value, list):
                if isinstance(value, str) and not strict:
                    return model_list(model, value)
                raise ValueError(f"Expected `array`, got `{type(value).__name__}`")
            return [check(item) for item in value] if self.many else check(value)
        except ValueError as exc:  # pydantic's ValidationError is a ValueError
            raise msgspec.ValidationError(f"{exc} - at `$.{name}`") from None


def model_list(model: Any, text: str) -> list[Any]:
    """A JSON array of models given as a string (a prompt argument)."""
    try:
        items = msgspec.json.decode(text)
    except msgspec.DecodeError as exc:
        raise ValueError(str(exc)) from None
    if not isinstance(items, list):
        raise ValueError("Expected a JSON array")
    return [model.model_validate(item) for item in items]


def _unwrap(annotation: Any) -> Any:
    while typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    return annotation


def _plain(annotation: Any) -> ModelParam | None:
    # Model or list[Model].
    if is_model(annotation):
        return ModelParam(annotation)
    args = typing.get_args(annotation)
    if typing.get_origin(annotation) is list and len(args) == 1 and is_model(_unwrap(args[0])):
        return ModelParam(_unwrap(args[0]), many=True)
    return None


def model_param(annotation: Any) -> ModelParam | None:
    """The ModelParam of an annotation, or None when it holds no model.

    Raises:
        TypeError: a model is used in a way this module does not support.
    """
    annotation = _unwrap(annotation)
    found = _plain(annotation)
    if found is None and typing.get_origin(annotation) in (Union, types.UnionType):
        args = typing.get_args(annotation)
        members = [_unwrap(a) for a in args if a is not type(None)]
        if len(members) == 1 and len(args) == 2:
            found = _plain(members[0])
            if found is not None:
                found.optional = True
    if found is None and _holds_model(annotation):
        raise TypeError(
            f"{annotation!r}: a pydantic model is supported as the type itself or a "
            "list of it, optional or not (Model, list[Model], Model | None)"
        )
    return found


def _holds_model(annotation: Any) -> bool:
    annotation = _unwrap(annotation)
    return is_model(annotation) or any(_holds_model(a) for a in typing.get_args(annotation))


def model_schema(param: ModelParam, defs: dict[str, Any]) -> dict[str, Any]:
    """The JSON Schema of a model parameter or result; the model's definitions (its
    own included, under its name) are added to ``defs``.

    Raises:
        TypeError: the model cannot describe itself as JSON Schema.
    """
    try:
        schema = param.model.model_json_schema(ref_template=_REF_TEMPLATE)  # type: ignore[attr-defined]
    except Exception as exc:  # pydantic raises its own error types here
        raise TypeError(f"{param.model.__name__} has no JSON Schema: {exc}") from None
    schema = dict(schema)
    defs.update(schema.pop("$defs", {}))
    name = param.model.__name__
    defs[name] = schema
    described: dict[str, Any] = {"$ref": f"#/$defs/{name}"}
    if param.many:
        described = {"type": "array", "items": described}
    return {"anyOf": [described, {"type": "null"}]} if param.optional else described


def dump(value: Any) -> Any:
    """A model instance as JSON-ready builtins (msgspec's ``enc_hook`` for models).

    Raises:
        NotImplementedError: ``value`` is not a model instance (what msgspec expects
            of an enc_hook for a type it cannot encode).
    """
    if is_model_instance(value):
        return value.model_dump(mode="json")
    raise NotImplementedError(f"objects of type {type(value).__name__} are not supported")


def model_value(value: Any) -> Any:
    """``value`` with model instances (at the top or in a list) as builtins."""
    return msgspec.to_builtins(value, enc_hook=dump)
