# From a Python function to an MCP tool or prompt: JSON Schema and argument conversion.
#
# Theory of operation. A handler's signature is read once, at registration
# (`inspect_function`). Each parameter becomes a field of a msgspec Struct built
# with `msgspec.defstruct`, so that one `msgspec.convert(arguments, ArgsStruct)`
# validates and converts every argument, nested Structs and dataclasses included.
# The input schema is built from the same types with `msgspec.json.schema_components`,
# so what we advertise and what we accept cannot drift apart.
#
# Schemas are JSON Schema 2020-12 (the MCP default when "$schema" is absent,
# 2025-11-25 server/tools.mdx "Tool"), as plain dicts. Named types (Structs,
# dataclasses, TypedDicts, Enums) go in the schema's own "$defs", so each schema is
# self-contained.
#
# Descriptions, most specific first: `Annotated[T, "text"]`, then
# `Annotated[T, msgspec.Meta(description=...)]` (msgspec writes it itself), then the
# Google-style "Args:" section of the docstring. The docstring text before its first
# section is the description of the tool or prompt.
#
# A parameter annotated with Context (or `Context | None`) is injected by the server
# and is not part of the schema.
#
# Unknown arguments. A tool's inputSchema lists its parameters; an argument it does
# not list is refused with -32602 naming it, unless the function takes **kwargs
# (then the schema allows more properties and they reach **kwargs). 2025-06-18
# server/tools.mdx "Error Handling" counts invalid arguments among protocol errors;
# 2025-11-25 and 2026-07-28 keep protocol errors for requests that do not fit and
# make *values* that fail validation tool execution errors, which is what a wrong
# type or a missing argument still gets (with the signature, so the caller can fix
# the call). The official Python SDK (mcp 2.3) ignores unknown arguments; FastMCP 4
# refuses them (pydantic's unexpected_keyword_argument) and advertises
# "additionalProperties": false: the stricter reading, which a client that sends
# what the schema lists never notices.

from __future__ import annotations

import collections.abc
import contextlib
import copy
import inspect
import re
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any, Final, Union

import msgspec

from ..types.content import (
    AudioContent,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
)
from ..types.server import CallToolResult
from ..wire.errors import INVALID_PARAMS
from .context import Context, McpError
from .models import ModelParam, model_param, model_schema

__all__ = ["FunctionInfo", "inspect_function", "output_schema", "parse_docstring"]

_REF_TEMPLATE: Final = "#/$defs/{name}"

# Google-style section headers that end the description part of a docstring.
_SECTION = re.compile(
    r"^\s*(Args|Arguments|Parameters|Params|Keyword Args|Keyword Arguments|Returns|Return|"
    r"Yields|Raises|Examples?|Notes?|Warnings?|See Also|Attributes|Todo)\s*:\s*$"
)
_ARG_LINE = re.compile(r"^(\*{0,2}\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")
_ARGS_HEADERS: Final = frozenset({"Args", "Arguments", "Parameters", "Params"})
_MODULE_PREFIX = re.compile(r"\b(?:[A-Za-z_]\w*\.)+(?=[A-Za-z_])")


class FunctionInfo:
    """What the server needs to know about a handler, read once from its signature.

    Attributes:
        fn: the handler.
        name: the function's ``__name__``.
        description: the docstring's description part, or None.
        parameters: the parameters the client supplies, in signature order.
        descriptions: per-parameter descriptions, by name.
        required: names of the parameters without a default.
        var_keyword: the name of the ``**kwargs`` parameter, or None: with one,
            arguments the signature does not name are passed on; without, refused.
        kind, label: what messages call the handler ("tool", its registered
            name); the registry sets them, the defaults are "function" and ``name``.
        context_param: the name of the Context parameter, or None.
        args_type: the Struct type that converts a JSON arguments object.
        input_schema: the JSON Schema of the arguments object.
        return_annotation: the return annotation, or ``inspect.Signature.empty``.
        threaded: whether the runtime runs the handler in a worker thread: a
            plain function may block (``time.sleep``, a database driver, a
            file), which would stall every session of the process.
    """

    __slots__ = (
        "args_type",
        "context_param",
        "description",
        "descriptions",
        "fn",
        "input_schema",
        "kind",
        "label",
        "models",
        "name",
        "names",
        "parameters",
        "positional",
        "required",
        "return_annotation",
        "threaded",
        "var_keyword",
    )

    def __init__(
        self,
        fn: Callable[..., Any],
        *,
        name: str,
        description: str | None,
        parameters: tuple[inspect.Parameter, ...],
        descriptions: dict[str, str],
        context_param: str | None,
        positional: tuple[str, ...],
        return_annotation: Any,
        threaded: bool | None = None,
        var_keyword: str | None = None,
    ) -> None:
        self.fn = fn
        self.var_keyword = var_keyword
        self.kind = "function"
        self.label = name
        self.names = frozenset(p.name for p in parameters)
        self.threaded = not _is_async(fn) if threaded is None else threaded
        self.name = name
        self.description = description
        self.parameters = parameters
        self.descriptions = descriptions
        self.context_param = context_param
        self.positional = positional
        self.return_annotation = return_annotation
        self.required = tuple(p.name for p in parameters if p.default is inspect.Parameter.empty)
        #: Parameters whose type is a pydantic model (see models.py), by name.
        self.models = {
            p.name: found for p in parameters if (found := model_param(p.annotation)) is not None
        }
        self.args_type = _args_struct(name, parameters, self.models)
        self.input_schema = _input_schema(parameters, descriptions, self.models)
        if var_keyword is None:
            self.input_schema["additionalProperties"] = False
        else:
            self.input_schema.pop("additionalProperties", None)

    def signature(self) -> str:
        """The call as a person reads it: ``add(a: int, b: int)``, under its label."""
        shown = [_describe_parameter(p) for p in self.parameters]
        if self.var_keyword is not None:
            shown.append(f"**{self.var_keyword}")
        return f"{self.label}({', '.join(shown)})"

    def convert(self, arguments: Mapping[str, Any], *, strict: bool = True) -> dict[str, Any]:
        """Validate and convert a JSON arguments object into keyword values.

        Args:
            arguments: the ``arguments`` of the request. Keys the signature does
                not name go to ``**kwargs`` if the function takes it.
            strict: JSON typing (True, for tools: an int is accepted for a float and
                nothing else is coerced) or string coercion (False, for prompt
                arguments and URI template variables, which are always strings).

        Raises:
            McpError: -32602, arguments the signature does not name (and no
                ``**kwargs``); ``data.unknown`` lists them.
            msgspec.ValidationError: the message says what is wrong and where,
                then shows the signature.
        """
        if not self.names.issuperset(arguments):
            extra = {k: v for k, v in arguments.items() if k not in self.names}
            if self.var_keyword is None:
                unknown = sorted(extra)
                raise McpError(
                    INVALID_PARAMS,
                    f"Unknown argument{'s' if len(unknown) > 1 else ''} for {self.kind} "
                    f"{self.label!r}: {', '.join(unknown)}; it takes {self.signature()}",
                    data={"unknown": unknown},
                )
            arguments = {k: v for k, v in arguments.items() if k in self.names}
        else:
            extra = None
        try:
            converted = msgspec.convert(arguments, self.args_type, strict=strict)
        except msgspec.ValidationError as exc:
            raise msgspec.ValidationError(f"{exc}; it takes {self.signature()}") from None
        # args_type has a field per parameter, same name, same order (_args_struct).
        values = msgspec.structs.asdict(converted)
        if extra:
            values.update(extra)
        if self.models:
            for name, model in self.models.items():
                if name in values:
                    values[name] = model.validate(name, values[name], strict=strict)
        return values

    def call(self, values: dict[str, Any], ctx: Context | None) -> Any:
        """Call the handler with converted values (and the Context, if it takes one).

        Returns what the handler returns: a value, or an awaitable for ``async def``.
        """
        if self.context_param is None and not self.positional:
            return self.fn(**values)  # the common case: keywords alone
        kwargs = dict(values)
        if self.context_param is not None:
            kwargs[self.context_param] = ctx
        args = [kwargs.pop(name) for name in self.positional if name in kwargs]
        return self.fn(*args, **kwargs)


def _is_async(fn: Callable[..., Any]) -> bool:
    call = getattr(fn, "__call__", None)  # noqa: B004 - an object's async __call__
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(call)


def inspect_function(fn: Callable[..., Any], *, threaded: bool | None = None) -> FunctionInfo:
    """Read a handler's signature, type hints and docstring.

    ``threaded`` overrides whether the handler runs in a worker thread (by default,
    when it is a plain function).

    Raises:
        TypeError: ``fn`` takes ``*args`` or ``**kwargs``, an annotation cannot be
            resolved, or msgspec does not support a parameter's type.
    """
    name = getattr(fn, "__name__", None) or type(fn).__name__
    try:
        signature = inspect.signature(fn, eval_str=True)
    except NameError as exc:
        raise TypeError(f"cannot resolve the type hints of {name!r}: {exc}") from None
    description, arg_docs = parse_docstring(inspect.getdoc(fn))
    parameters: list[inspect.Parameter] = []
    positional: list[str] = []
    context_param = None
    descriptions: dict[str, str] = {}
    var_keyword = None
    for param in signature.parameters.values():
        if param.kind is inspect.Parameter.VAR_KEYWORD:
            var_keyword = param.name
            continue
        if param.kind is inspect.Parameter.VAR_POSITIONAL:
            raise TypeError(f"{name!r}: *args cannot be described as arguments")
        if param.kind is inspect.Parameter.POSITIONAL_ONLY:
            positional.append(param.name)
        if is_context_annotation(param.annotation):
            context_param = param.name
            continue
        parameters.append(param)
        text = _annotated_description(param.annotation) or arg_docs.get(param.name)
        if text:
            descriptions[param.name] = text
    try:
        return FunctionInfo(
            fn,
            name=name,
            description=description,
            parameters=tuple(parameters),
            descriptions=descriptions,
            context_param=context_param,
            positional=tuple(positional),
            return_annotation=signature.return_annotation,
            threaded=threaded,
            var_keyword=var_keyword,
        )
    except TypeError as exc:
        raise TypeError(f"{name!r}: unsupported parameter type: {exc}") from None


def is_context_annotation(annotation: Any) -> bool:
    """Whether a parameter annotation asks for the Context (``Context`` or ``Context | None``)."""
    if isinstance(annotation, type):
        return issubclass(annotation, Context)
    if typing.get_origin(annotation) in (Union, types.UnionType):
        members = [a for a in typing.get_args(annotation) if a is not type(None)]
        return len(members) == 1 and is_context_annotation(members[0])
    return False


def parse_docstring(doc: str | None) -> tuple[str | None, dict[str, str]]:
    """Split a Google-style docstring into its description and per-argument texts.

    Returns:
        The text before the first section (None when empty), and the "Args:"
        entries by parameter name, continuation lines joined with spaces.
    """
    if not doc:
        return None, {}
    lines = inspect.cleandoc(doc).splitlines()
    head: list[str] = []
    args: dict[str, str] = {}
    index = 0
    while index < len(lines) and not _SECTION.match(lines[index]):
        head.append(lines[index])
        index += 1
    while index < len(lines):
        header = _SECTION.match(lines[index])
        assert header is not None
        index += 1
        body: list[str] = []
        while index < len(lines) and not _SECTION.match(lines[index]):
            body.append(lines[index])
            index += 1
        if header.group(1) in _ARGS_HEADERS:
            args.update(_parse_args_section(body))
    description = "\n".join(head).strip()
    return (description or None), args


def _parse_args_section(body: list[str]) -> dict[str, str]:
    found: dict[str, list[str]] = {}
    current: list[str] | None = None
    indent: int | None = None
    for line in body:
        if not line.strip():
            continue
        depth = len(line) - len(line.lstrip())
        if indent is None:
            indent = depth
        entry = _ARG_LINE.match(line.strip()) if depth <= indent else None
        if entry is not None:
            current = found.setdefault(entry.group(1).lstrip("*"), [])
            if entry.group(2):
                current.append(entry.group(2).strip())
        elif current is not None:
            current.append(line.strip())
    return {name: " ".join(parts) for name, parts in found.items() if parts}


def _describe_parameter(param: inspect.Parameter) -> str:
    annotation = param.annotation
    if typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    text = param.name
    if annotation is not inspect.Parameter.empty:
        # Type names without their modules: Point, not shop.Point.
        text += ": " + _MODULE_PREFIX.sub("", inspect.formatannotation(annotation))
    if param.default is not inspect.Parameter.empty:
        text += f" = {param.default!r}"
    return text


def _annotated_description(annotation: Any) -> str | None:
    if typing.get_origin(annotation) is typing.Annotated:
        for extra in reversed(annotation.__metadata__):
            if isinstance(extra, str):
                return extra
    return None


def _annotation_type(param: inspect.Parameter) -> Any:
    annotation = param.annotation
    return Any if annotation is inspect.Parameter.empty else annotation


def _args_struct(
    name: str, parameters: tuple[inspect.Parameter, ...], models: dict[str, ModelParam]
) -> type[msgspec.Struct]:
    fields: list[tuple[str, Any] | tuple[str, Any, Any]] = []
    for param in parameters:
        model = models.get(param.name)
        kind = model.wire_type if model is not None else _annotation_type(param)
        if param.default is inspect.Parameter.empty:
            fields.append((param.name, kind))
        elif isinstance(param.default, list | dict | set | bytearray):
            # msgspec refuses mutable defaults; give each call its own copy.
            factory = _copier(param.default)
            fields.append((param.name, kind, msgspec.field(default_factory=factory)))
        else:
            fields.append((param.name, kind, param.default))
    struct = msgspec.defstruct(f"{name}_arguments", fields, kw_only=True)
    # Fail at registration, not on the first call, when a type is unsupported.
    msgspec.json.Decoder(struct)
    return struct


def _copier(value: Any) -> Callable[[], Any]:
    return lambda: copy.deepcopy(value)


def _input_schema(
    parameters: tuple[inspect.Parameter, ...],
    descriptions: dict[str, str],
    models: dict[str, ModelParam],
) -> dict[str, Any]:
    if not parameters:
        # 2026-07-28 server/tools.mdx: the recommended schema of a tool without parameters.
        return {"type": "object", "additionalProperties": False}
    plain = [p for p in parameters if p.name not in models]
    schemas, defs = msgspec.json.schema_components(
        [_annotation_type(p) for p in plain], ref_template=_REF_TEMPLATE
    )
    by_name = dict(zip((p.name for p in plain), schemas, strict=True))
    defs = dict(defs)
    for name, model in models.items():
        by_name[name] = model_schema(model, defs)
    properties: dict[str, Any] = {}
    for param in parameters:
        prop = dict(by_name[param.name])
        text = descriptions.get(param.name)
        if text and (_annotated_description(param.annotation) or "description" not in prop):
            prop["description"] = text
        if param.default is not inspect.Parameter.empty:
            # A default that is not JSON is left out: the parameter is just optional.
            with contextlib.suppress(TypeError):
                prop["default"] = msgspec.to_builtins(param.default)
        properties[param.name] = prop
    result: dict[str, Any] = {"type": "object", "properties": properties}
    required = [p.name for p in parameters if p.default is inspect.Parameter.empty]
    if required:
        result["required"] = required
    if defs:
        result["$defs"] = defs
    return result


# Return annotations whose values are content, not data: a tool returning them is
# unstructured unless told otherwise.
_CONTENT_TYPES: Final[tuple[type, ...]] = (
    str,
    bytes,
    bytearray,
    TextContent,
    ImageContent,
    AudioContent,
    ResourceLink,
    EmbeddedResource,
    CallToolResult,
)


def _is_content_annotation(annotation: Any) -> bool:
    if annotation in (Any, object, None, type(None), inspect.Signature.empty):
        return True
    if isinstance(annotation, type):
        return issubclass(annotation, _CONTENT_TYPES)
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _is_content_annotation(typing.get_args(annotation)[0])
    if origin in (Union, types.UnionType):
        return any(_is_content_annotation(a) for a in typing.get_args(annotation))
    if origin in (list, tuple, collections.abc.Sequence, collections.abc.Iterable):
        args = [a for a in typing.get_args(annotation) if a is not Ellipsis]
        return any(_is_content_annotation(a) and a is not str for a in args)
    return False


def output_schema(annotation: Any, *, force: bool = False) -> tuple[dict[str, Any], bool] | None:
    """The output schema for a tool's return annotation, if its results are data.

    A tool is *structured* when its return annotation describes data: a Struct,
    dataclass, TypedDict, mapping, number, list... Content annotations (``str``,
    ``bytes``, content blocks, ``CallToolResult``, lists of those), ``Any`` and
    ``None`` give unstructured tools, unless ``force`` is set (``str`` then counts
    as data).

    ``structuredContent`` and ``outputSchema`` must be objects up to 2025-11-25
    (server/tools.mdx "Structured Content"), so a schema that is not an object is
    wrapped as ``{"result": ...}``; the server then wraps each value the same way.
    2026-07-28 allows any JSON value, but one tool list serves every revision, so
    the wrapping is the same everywhere.

    Returns:
        ``(schema, wrapped)``, or None for an unstructured tool.

    Raises:
        TypeError: ``force`` is set and msgspec cannot describe the type.
    """
    if not force and _is_content_annotation(annotation):
        return None
    if annotation is inspect.Signature.empty:
        annotation = Any
    model = model_param(annotation)
    if model is not None:
        model_defs: dict[str, Any] = {}
        described = model_schema(model, model_defs)
        if not model.many and not model.optional:
            # The model's own object schema, inlined at the root; its definition
            # stays only if something refers back to it (a recursive model).
            name = model.model.__name__
            root = dict(model_defs.pop(name))
            if f'"#/$defs/{name}"'.encode() in msgspec.json.encode([root, model_defs]):
                model_defs[name] = dict(root)
            if model_defs:
                root["$defs"] = model_defs
            return root, False
        return {
            "type": "object",
            "properties": {"result": described},
            "required": ["result"],
            "$defs": model_defs,
        }, True
    try:
        (schema,), defs = msgspec.json.schema_components([annotation], ref_template=_REF_TEMPLATE)
    except TypeError:
        if force:
            raise
        return None
    root = schema
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        root = defs[ref.removeprefix("#/$defs/")]
    if root.get("type") == "object":
        result = dict(root)
        if root is not schema:
            # Inline the referenced root; keep its definition only if something
            # refers back to it (a recursive type).
            name = ref.removeprefix("#/$defs/")  # type: ignore[union-attr]
            others = {k: v for k, v in defs.items() if k != name}
            if ref.encode() in msgspec.json.encode([root, others]):  # type: ignore[union-attr]
                others[name] = root
            defs = others
        if defs:
            result["$defs"] = defs
        return result, False
    wrapped: dict[str, Any] = {
        "type": "object",
        "properties": {"result": schema},
        "required": ["result"],
    }
    if defs:
        wrapped["$defs"] = defs
    return wrapped, True
