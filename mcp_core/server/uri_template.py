# URI Templates (RFC 6570, levels 1 to 4) for MCP resource templates.
#
# 2025-11-25 server/resources.mdx "Resource Templates": a server advertises
# parameterized resources as RFC 6570 URI templates, and a client reads one by sending
# the expanded URI in `resources/read`. So a server needs both directions:
#
# * expand: the full RFC 6570 algorithm (section 3.2 and appendix A). A template is
#   parsed once into literal runs and expressions; each expression has an operator
#   from the table in appendix A (first, sep, named, ifemp, allow) and a list of
#   varspecs with an optional prefix (`:n`) or explode (`*`) modifier.
# * match: the reverse, which RFC 6570 section 1.4 says is not generally possible.
#   We compile the template once into one anchored regular expression with a group
#   per expression, then split and percent-decode each group in Python. Each
#   operator's values are matched loosely, as runs of any characters except the
#   delimiters that end them (see `_VALUE_EXCLUDE`), so hand-written URIs with
#   unencoded ':' or '@' still match. Values are matched lazily: where a URI could be
#   split more than one way, earlier expressions take the shortest value that lets
#   the rest of the URI match. What the matcher cannot recover is listed in
#   the docstring of `UriTemplate.match`.
#
# Value types for expansion: str as is; int and float via str(); bool as "true" or
# "false" (JSON spelling, because MCP arguments are JSON; Python's "True" would
# surprise); None means undefined; list/tuple is a list; any Mapping is an ordered
# associative array. Anything else raises TypeError.

from __future__ import annotations

import re
import string
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import unquote

__all__ = ["UriTemplate", "is_template"]

_UNRESERVED = frozenset(string.ascii_letters + string.digits + "-._~")
_RESERVED = frozenset(":/?#[]@!$&'()*+,;=")  # RFC 3986 gen-delims and sub-delims
_HEX = frozenset(string.hexdigits)

# RFC 6570 section 2.2: operators, and the characters reserved for future operators.
_OPERATORS = "+#./;?&"
_FUTURE_OPERATORS = "=,!@|"

_VARNAME = re.compile(r"(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})(?:\.?(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2}))*")
_MAX_PREFIX = 9999  # RFC 6570 section 2.4.1: max-length is at most 4 digits
_EXPRESSION = re.compile(r"\{[^{}]+\}")


@dataclass(frozen=True, slots=True)
class _Operator:
    """One row of the RFC 6570 appendix A table."""

    first: str
    sep: str
    named: bool
    ifemp: str
    allow_reserved: bool


_OPERATOR_TABLE: dict[str, _Operator] = {
    "": _Operator("", ",", False, "", False),
    "+": _Operator("", ",", False, "", True),
    ".": _Operator(".", ".", False, "", False),
    "/": _Operator("/", "/", False, "", False),
    ";": _Operator(";", ";", True, "", False),
    "?": _Operator("?", "&", True, "=", False),
    "&": _Operator("&", "&", True, "=", False),
    "#": _Operator("#", ",", False, "", True),
}

# What ends a value when matching, per operator. Values expanded by the template never
# contain these unencoded; reserved expansion keeps '/', '?' and ',' so it only stops
# at '#' (and at ',' when the expression holds several values, added at compile time).
_VALUE_EXCLUDE: dict[str, str] = {
    "": "/?#",
    "+": "#",
    "#": "",
    ".": "/?#",
    "/": "/?#",
    ";": "/?#;",
    "?": "#&",
    "&": "#&",
}

# Operator prefixes that also end the value of the expression just before them.
_STOPS = frozenset("?#;&")


@dataclass(frozen=True, slots=True)
class _VarSpec:
    name: str
    prefix: int | None
    explode: bool


@dataclass(frozen=True, slots=True)
class _Expression:
    operator: str
    varspecs: tuple[_VarSpec, ...]

    @property
    def spec(self) -> _Operator:
        return _OPERATOR_TABLE[self.operator]


_Part = str | _Expression


def is_template(uri: str) -> bool:
    """Whether ``uri`` contains at least one ``{...}`` expression.

    A cheap syntactic test to tell a resource template from a plain resource URI; it
    does not validate the template (construct a `UriTemplate` for that).
    """
    return _EXPRESSION.search(uri) is not None


class UriTemplate:
    """An RFC 6570 URI template, parsed once.

    Args:
        template: the template text, e.g. ``"file:///{+path}{?rev}"``.

    Raises:
        ValueError: the template is malformed (unclosed or stray brace, empty
            expression, reserved operator, bad variable name, prefix length outside
            1..9999, or prefix and explode on one variable). The message names the
            offset of the offending expression.
    """

    __slots__ = ("_parts", "_pattern", "_template", "_variables")

    def __init__(self, template: str) -> None:
        self._template = template
        self._parts = _parse(template)
        names: dict[str, None] = {}
        for part in self._parts:
            if isinstance(part, _Expression):
                for varspec in part.varspecs:
                    names.setdefault(varspec.name)
        self._variables = tuple(names)
        self._pattern = _compile(self._parts)

    @property
    def template(self) -> str:
        """The template text as given."""
        return self._template

    @property
    def variables(self) -> tuple[str, ...]:
        """Variable names in order of first appearance, without repeats."""
        return self._variables

    def __repr__(self) -> str:
        return f"UriTemplate({self._template!r})"

    def __str__(self) -> str:
        return self._template

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, UriTemplate):
            return NotImplemented
        return self._template == other._template

    def __hash__(self) -> int:
        return hash(self._template)

    def expand(self, variables: Mapping[str, object]) -> str:
        """Expand the template (RFC 6570 section 3).

        Args:
            variables: values by variable name. Missing names and None are undefined;
                empty lists and mappings are undefined too (section 2.3), while an
                empty string is defined. See the module comment for value types.

        Returns:
            The URI reference. Literal characters that may not appear in a URI are
            percent-encoded (section 3.1).

        Raises:
            TypeError: a value (or a list item, key or mapping value) has an
                unsupported type.
            ValueError: a prefix modifier is applied to a list or mapping (section
                2.4.1 says prefixes do not apply to composite values), or a string
                holds a lone surrogate that cannot be encoded as UTF-8.
        """
        out: list[str] = []
        for part in self._parts:
            if isinstance(part, str):
                out.append(part)
            else:
                out.append(_expand_expression(part, variables))
        return "".join(out)

    def match(self, uri: str) -> dict[str, str | list[str]] | None:
        """Find the variable values that expand to ``uri``, if any.

        Used by a server to route ``resources/read`` to the template that produced
        the URI. The whole of ``uri`` must match. Matched values are
        percent-decoded as UTF-8; invalid UTF-8 means no match.

        Returns:
            A dict holding the variables that appear in ``uri``: a str for a plain
            variable, a list of str for an exploded one (``{/path*}``, ``{?tag*}``,
            ``{list*}``). Variables whose expansion left no trace are absent. None
            when ``uri`` does not match.

        What is matched loosely, or not recovered:

        * A simple ``{var}`` matches a run without '/', '?' or '#' (one path
          segment); ``{.var}`` and ``{/var}`` likewise. ``{+var}`` may contain
          anything but '#', ``{#var}`` anything. Unencoded reserved characters such
          as ':' or '@' are accepted although expansion would have encoded them.
        * Several variables in one unnamed expression (``{x,y}``, ``{/a,b}``) are
          split on the operator's separator and filled left to right, so a missing
          middle variable cannot be told from a missing last one. An exploded
          variable takes every piece not needed by the variables after it.
        * ``{;a,b}``, ``{?a,b}`` and ``{&c}`` accept their listed names in any
          order, each at most once unless exploded; a name not listed in the
          expression means no match. A parameter without '=' has the value "".
        * A non-exploded list or mapping comes back as the joined string (e.g.
          "red,green,blue"); exploded mappings (``{?keys*}``) only match when the
          keys happen to be variable names of that expression.
        * A prefixed variable (``{var:3}``) matches at most that many characters; a
          repeated variable must agree with itself (the prefixed copy must be a
          prefix of the full one).
        * Undefined and empty values of a simple ``{var}`` both expand to "", which
          matches as "".
        * Where several splits are possible, earlier expressions take the shortest
          value; a value also stops at '?', '#', ';' or '&' when the next expression
          starts with it. Adjacent expressions that can absorb each other's text
          (``{a}{b}``, ``{/p*}{/q*}``) are ambiguous and make the regular expression
          backtrack polynomially in the URI length: avoid them in templates that
          match untrusted URIs, or bound the URI length first.
        """
        found = self._pattern.fullmatch(uri)
        if found is None:
            return None
        result: dict[str, str | list[str]] = {}
        prefixed: list[tuple[str, str]] = []
        index = 0
        try:
            for part in self._parts:
                if isinstance(part, str):
                    continue
                text = found.group(f"e{index}")
                index += 1
                split = _split_named if part.spec.named else _split_unnamed
                values = split(part, text)
                if values is None:
                    return None
                for varspec, value in values:
                    if varspec.prefix is not None:
                        assert isinstance(value, str)
                        if len(value) > varspec.prefix:
                            return None
                        prefixed.append((varspec.name, value))
                    elif result.setdefault(varspec.name, value) != value:
                        return None
        except UnicodeDecodeError:
            return None
        # Longest first, so with only prefixed copies the longest is the value found.
        for name, value in sorted(prefixed, key=lambda item: -len(item[1])):
            full = result.setdefault(name, value)
            if not (isinstance(full, str) and full.startswith(value)):
                return None
        return result


# --------------------------------------------------------------------------- parsing


def _parse(template: str) -> list[_Part]:
    parts: list[_Part] = []
    literal_start = 0
    pos = 0
    length = len(template)
    while pos < length:
        char = template[pos]
        if char == "}":
            raise ValueError(f"unmatched '}}' at offset {pos} in URI template {template!r}")
        if char != "{":
            pos += 1
            continue
        end = template.find("}", pos + 1)
        nested = template.find("{", pos + 1, length if end < 0 else end)
        if end < 0 or nested >= 0:
            raise ValueError(
                f"unclosed expression: '{{' at offset {pos} has no matching '}}' "
                f"in URI template {template!r}"
            )
        if literal_start < pos:
            parts.append(_encode(template[literal_start:pos], allow_reserved=True))
        parts.append(_parse_expression(template, pos, template[pos + 1 : end]))
        pos = literal_start = end + 1
    if literal_start < length:
        parts.append(_encode(template[literal_start:], allow_reserved=True))
    return parts


def _parse_expression(template: str, offset: int, body: str) -> _Expression:
    where = f"in the expression at offset {offset} of URI template {template!r}"
    if not body:
        raise ValueError(f"empty expression {where}")
    operator = ""
    if body[0] in _OPERATORS:
        operator, body = body[0], body[1:]
    elif body[0] in _FUTURE_OPERATORS:
        raise ValueError(
            f"operator {body[0]!r} is reserved for future extensions (RFC 6570 section 2.2) {where}"
        )
    varspecs = tuple(_parse_varspec(text, where) for text in body.split(","))
    return _Expression(operator, varspecs)


def _parse_varspec(text: str, where: str) -> _VarSpec:
    explode = text.endswith("*")
    if explode:
        text = text[:-1]
    name, colon, length = text.partition(":")
    if not _VARNAME.fullmatch(name):
        raise ValueError(f"invalid variable name {name!r} {where}")
    if not colon:
        return _VarSpec(name, None, explode)
    if explode:
        raise ValueError(f"variable {name!r} has both a prefix and '*' {where}")
    if not (length.isascii() and length.isdigit()) or length.startswith("0"):
        raise ValueError(f"invalid prefix length {length!r} for variable {name!r} {where}")
    prefix = int(length)
    if prefix > _MAX_PREFIX:
        raise ValueError(
            f"prefix length {prefix} for variable {name!r} exceeds {_MAX_PREFIX} "
            f"(RFC 6570 section 2.4.1) {where}"
        )
    return _VarSpec(name, prefix, False)


# ------------------------------------------------------------------------- expansion


def _encode(text: str, *, allow_reserved: bool) -> str:
    """Percent-encode ``text`` for the U (or, if ``allow_reserved``, U+R) set."""
    out: list[str] = []
    pos = 0
    length = len(text)
    while pos < length:
        char = text[pos]
        if char in _UNRESERVED or (allow_reserved and char in _RESERVED):
            out.append(char)
        elif (
            allow_reserved
            and char == "%"
            and pos + 2 < length
            and text[pos + 1] in _HEX
            and text[pos + 2] in _HEX
        ):
            # Reserved expansion passes pct-encoded triplets through (section 3.2.3).
            out.append(text[pos : pos + 3])
            pos += 3
            continue
        else:
            out.extend(f"%{byte:02X}" for byte in char.encode("utf-8"))
        pos += 1
    return "".join(out)


def _scalar(value: object) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    raise TypeError(f"URI template values must be str, int, float or bool, not {type(value)!r}")


def _expand_expression(expression: _Expression, variables: Mapping[str, object]) -> str:
    spec = expression.spec
    allow = spec.allow_reserved
    pieces: list[str] = []
    for varspec in expression.varspecs:
        value = variables.get(varspec.name)
        if value is None:
            continue
        name = varspec.name
        if isinstance(value, str | bool | int | float):
            text = _scalar(value)
            if varspec.prefix is not None:
                text = text[: varspec.prefix]
            if spec.named:
                pieces.append(
                    f"{name}={_encode(text, allow_reserved=allow)}" if text else name + spec.ifemp
                )
            else:
                pieces.append(_encode(text, allow_reserved=allow))
            continue
        pairs = _composite(value)
        if not pairs:
            continue  # empty list or mapping: undefined (section 2.3)
        if varspec.prefix is not None:
            raise ValueError(
                f"prefix modifier on variable {name!r}, whose value is a list or mapping "
                "(RFC 6570 section 2.4.1)"
            )
        encoded = [
            (
                None if key is None else _encode(key, allow_reserved=allow),
                _encode(item, allow_reserved=allow),
            )
            for key, item in pairs
        ]
        if not varspec.explode:
            joined = ",".join(item if key is None else f"{key},{item}" for key, item in encoded)
            pieces.append(f"{name}={joined}" if spec.named else joined)
        elif spec.named:
            pieces.append(
                spec.sep.join(
                    (name if key is None else key) + (f"={item}" if item else spec.ifemp)
                    for key, item in encoded
                )
            )
        else:
            pieces.append(
                spec.sep.join(item if key is None else f"{key}={item}" for key, item in encoded)
            )
    if not pieces:
        return ""
    return spec.first + spec.sep.join(pieces)


def _composite(value: object) -> list[tuple[str | None, str]]:
    """A list as (None, item) pairs, a mapping as (key, value); undefined members dropped."""
    if isinstance(value, Mapping):
        return [(_scalar(key), _scalar(item)) for key, item in value.items() if item is not None]
    if isinstance(value, list | tuple):
        return [(None, _scalar(item)) for item in value if item is not None]
    raise TypeError(
        f"URI template values must be str, int, float, bool, list, tuple or Mapping, "
        f"not {type(value)!r}"
    )


# -------------------------------------------------------------------------- matching


def _splits(expression: _Expression) -> bool:
    return len(expression.varspecs) > 1 or expression.varspecs[0].explode


def _value_pattern(expression: _Expression, extra_exclude: str) -> str:
    exclude = _VALUE_EXCLUDE[expression.operator] + extra_exclude
    # Lazy: an expression takes the shortest value that lets the rest of the URI match,
    # so `{+path}{?rev}` leaves "?rev=1" to the query and `{id}{;v}` leaves ";v=2".
    return f"[^{re.escape(exclude)}]*?" if exclude else ".*?"


def _compile(parts: list[_Part]) -> re.Pattern[str]:
    out: list[str] = []
    index = 0
    for position, part in enumerate(parts):
        if isinstance(part, str):
            out.append(re.escape(part))
            continue
        spec = part.spec
        # A value stops where the next expression visibly begins ('?', '#', ';' or
        # '&'). Without this, `{+path}{?q}` would try the query at every '?' of the
        # path and backtrack quadratically in the URI length.
        after = parts[position + 1] if position + 1 < len(parts) else ""
        stop = after.spec.first if isinstance(after, _Expression) else ""
        stop = stop if stop in _STOPS else ""
        if spec.named:
            names = sorted({v.name for v in part.varspecs}, key=len, reverse=True)
            value = _value_pattern(part, stop)
            pair = f"(?:{'|'.join(map(re.escape, names))})(?:={value})?"
            sep = re.escape(spec.sep)
            if spec.first == spec.sep:
                body = f"(?:{sep}{pair})*"
            else:
                body = f"(?:{re.escape(spec.first)}{pair}(?:{sep}{pair})*)?"
        else:
            split = _splits(part)
            value = _value_pattern(part, stop + spec.sep if split else stop)
            if not split:
                body = value
            else:
                more = len(part.varspecs) - 1
                count = "*" if any(v.explode for v in part.varspecs) else f"{{0,{more}}}"
                body = f"{value}(?:{re.escape(spec.sep)}{value}){count}"
            if spec.first:
                body = f"(?:{re.escape(spec.first)}{body})?"
        out.append(f"(?P<e{index}>{body})")
        index += 1
    return re.compile("".join(out), re.DOTALL)


def _decode(text: str) -> str:
    return unquote(text, encoding="utf-8", errors="strict")


def _split_unnamed(
    expression: _Expression, text: str
) -> list[tuple[_VarSpec, str | list[str]]] | None:
    spec = expression.spec
    if spec.first:
        if not text:
            return []
        text = text[len(spec.first) :]
    pieces = text.split(spec.sep) if _splits(expression) else [text]
    varspecs = expression.varspecs
    values: list[tuple[_VarSpec, str | list[str]]] = []
    for position, varspec in enumerate(varspecs):
        if not pieces:
            break
        if varspec.explode:
            take = max(1, len(pieces) - (len(varspecs) - position - 1))
            values.append((varspec, [_decode(piece) for piece in pieces[:take]]))
            pieces = pieces[take:]
        else:
            values.append((varspec, _decode(pieces[0])))
            pieces = pieces[1:]
    return values


def _split_named(
    expression: _Expression, text: str
) -> list[tuple[_VarSpec, str | list[str]]] | None:
    if not text:
        return []
    by_name: dict[str, _VarSpec] = {}
    for varspec in expression.varspecs:
        by_name.setdefault(varspec.name, varspec)
    found: dict[str, str | list[str]] = {}
    for pair in text[1:].split(expression.spec.sep):
        name, _, raw = pair.partition("=")
        varspec = by_name[name]
        value = _decode(raw)
        if varspec.explode:
            items = found.setdefault(name, [])
            assert isinstance(items, list)
            items.append(value)
        elif name in found:
            return None
        else:
            found[name] = value
    return [(by_name[name], value) for name, value in found.items()]
