"""A ``SKILL.md``'s YAML frontmatter, read into JSON values.

SEP-2640 "Integrity and verification": after fetching a ``SKILL.md`` a host MUST
parse its YAML frontmatter and compare it field by field with the entry's
``frontmatter``. The Agent Skills frontmatter is small YAML: ``key: value`` lines,
nested mappings by indentation (``metadata``), lists (``- item`` or ``[a, b]``),
quoted strings and block scalars (``|``, ``>``). This reader takes exactly that
subset, with the scalars YAML 1.1 and 1.2 read alike (``true``, ``null``, ``~``,
integers, floats); anything else (anchors, tags, flow mappings, multi-line plain
scalars, ``yes``, ``1e3``, ``017``, dates: values a server's YAML library may
render one way or the other) is `FrontmatterError`, which a host treats as a
failed verification: it refuses what it cannot read rather than guess.
"""

from __future__ import annotations

import re
from typing import Any, Final

import msgspec

__all__ = ["FrontmatterError", "parse_frontmatter", "split_frontmatter"]

_FENCE: Final = "---"
_INT: Final = re.compile(r"[-+]?(0|[1-9][0-9]*)\Z")
_FLOAT: Final = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?\Z")
_KEY: Final = re.compile(r"""([^\s#'"\[\]{},:&*!|>%@`-][^:#]*?|"[^"]*"|'[^']*')\s*:(\s+|\Z)""")
_QUOTED: Final = re.compile(r"""("(?:[^"\\]|\\.)*"|'(?:[^']|'')*')""")
# Plain scalars that YAML 1.1 (PyYAML, so many Python servers) and YAML 1.2 read
# differently: yes/no/on/off, exponents without a dot or a sign, leading zeros,
# underscores, base prefixes, sexagesimals, timestamps, .inf/.nan. A server's JSON
# rendering of such a value depends on its YAML library, so it is refused.
_AMBIGUOUS: Final = re.compile(
    r"""(?x)
    (y|Y|yes|Yes|YES|n|N|no|No|NO|on|On|ON|off|Off|OFF)\Z
    | [-+]?[0-9][0-9_]*[eE][-+]?[0-9]+\Z
    | [-+]?[0-9]*\.[0-9]*[eE][0-9]+\Z
    | [-+]?0[0-9_]+(\.[0-9_]*)?\Z
    | [-+]?[0-9.]*_[0-9_.]*\Z
    | [-+]?0[xXoObB]
    | [-+]?[0-9][0-9_]*(:[0-5]?[0-9])+(\.[0-9_]*)?\Z
    | [0-9]{4}-[0-9]{1,2}-[0-9]{1,2}
    | [-+]?\.(inf|Inf|INF|nan|NaN|NAN)\Z
    """
)
_NULLS: Final = frozenset({"", "~", "null", "Null", "NULL"})
_BOOLS: Final = {
    "true": True,
    "True": True,
    "TRUE": True,
    "false": False,
    "False": False,
    "FALSE": False,
}


class FrontmatterError(ValueError):
    """The text has no frontmatter, or one this reader does not take."""


def split_frontmatter(text: str) -> tuple[str, str]:
    """The frontmatter's YAML and the body after it.

    Raises:
        FrontmatterError: ``text`` does not begin with a ``---`` line closed by
            another.
    """
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].rstrip("\r\n").rstrip() != _FENCE:
        raise FrontmatterError("SKILL.md does not begin with a --- line")
    for number, line in enumerate(lines[1:], 1):
        if line.rstrip("\r\n").rstrip() == _FENCE:
            return "".join(lines[1:number]), "".join(lines[number + 1 :])
    raise FrontmatterError("SKILL.md's frontmatter has no closing --- line")


def parse_frontmatter(text: str) -> dict[str, Any]:
    """The frontmatter of a ``SKILL.md`` (the whole file) as a JSON object.

    Raises:
        FrontmatterError: no frontmatter, YAML outside the subset, or a
            frontmatter that is not a mapping.
    """
    yaml, _ = split_frontmatter(text)
    lines = [
        (len(line) - len(line.lstrip(" ")), line.rstrip())
        for line in yaml.replace("\r\n", "\n").split("\n")
    ]
    for _, line in lines:
        if "\t" in line[: len(line) - len(line.lstrip())]:
            raise FrontmatterError("tabs indent the frontmatter")
    reader = _Reader(lines)
    value = reader.block(0)
    if reader.at < len(reader.lines):
        raise FrontmatterError(f"unexpected indentation at line {reader.at + 2}")
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise FrontmatterError("the frontmatter is not a mapping")
    return value


class _Reader:
    """Block-structured YAML over (indent, line) pairs, from line ``at`` on."""

    def __init__(self, lines: list[tuple[int, str]]) -> None:
        self.lines = lines
        self.at = 0

    def _skip_blank(self) -> None:
        while self.at < len(self.lines):
            _, line = self.lines[self.at]
            stripped = line.strip()
            if stripped and not stripped.startswith("#"):
                return
            self.at += 1

    def block(self, indent: int) -> Any:
        """The mapping or sequence whose lines are indented exactly ``indent``."""
        self._skip_blank()
        if self.at >= len(self.lines):
            return None
        first, line = self.lines[self.at]
        if first < indent:
            return None
        if first > indent and indent == 0:
            raise FrontmatterError("the frontmatter's first line is indented")
        body = line.strip()
        if body == "-" or body.startswith("- "):
            return self._sequence(first)
        return self._mapping(first)

    def _mapping(self, indent: int) -> dict[str, Any]:
        out: dict[str, Any] = {}
        while True:
            self._skip_blank()
            if self.at >= len(self.lines):
                return out
            column, line = self.lines[self.at]
            if column < indent:
                return out
            if column > indent:
                raise FrontmatterError(f"unexpected indentation at line {self.at + 2}")
            body = line.strip()
            match = _KEY.match(body)
            if match is None:
                raise FrontmatterError(f"not a 'key: value' line: {body!r}")
            key = _key(match.group(1))
            if key in out:
                raise FrontmatterError(f"the key {key!r} appears twice")
            self.at += 1
            out[key] = self._value(body[match.end() :], indent, nested_sequence_ok=True)

    def _sequence(self, indent: int) -> list[Any]:
        out: list[Any] = []
        while True:
            self._skip_blank()
            if self.at >= len(self.lines):
                return out
            column, line = self.lines[self.at]
            body = line.strip()
            if column < indent or not (body == "-" or body.startswith("- ")):
                if column > indent:
                    raise FrontmatterError(f"unexpected indentation at line {self.at + 2}")
                return out
            if column > indent:
                raise FrontmatterError(f"unexpected indentation at line {self.at + 2}")
            rest = body[1:].strip()
            if _KEY.match(rest):
                # "- key: value" opens a mapping whose keys line up after "- ".
                inner = column + (len(body) - len(body[1:].lstrip()))
                self.lines[self.at] = (inner, " " * inner + rest)
                out.append(self._mapping(inner))
                continue
            self.at += 1
            out.append(self._value(rest, indent, nested_sequence_ok=False))

    def _value(self, text: str, indent: int, *, nested_sequence_ok: bool) -> Any:
        text = _uncomment(text)
        if text in ("|", "|-", "|+", ">", ">-", ">+"):
            return self._block_scalar(text, indent)
        if text:
            self._no_continuation(indent)
            return _scalar(text)
        # Nothing after the colon: a nested block, or null.
        self._skip_blank()
        if self.at < len(self.lines):
            column, line = self.lines[self.at]
            is_item = line.strip() == "-" or line.strip().startswith("- ")
            if column > indent or (nested_sequence_ok and column == indent and is_item):
                return self.block(column)
        return None

    def _no_continuation(self, indent: int) -> None:
        # A plain scalar continued on more indented lines is outside the subset.
        probe = self.at
        while probe < len(self.lines):
            column, line = self.lines[probe]
            stripped = line.strip()
            if stripped and not stripped.startswith("#"):
                if column > indent:
                    raise FrontmatterError(f"a value continues on line {probe + 2}")
                return
            probe += 1

    def _block_scalar(self, style: str, indent: int) -> str:
        texts: list[tuple[int, str]] = []
        block_indent: int | None = None
        while self.at < len(self.lines):
            column, line = self.lines[self.at]
            if line.strip():
                if column <= indent:
                    break
                if block_indent is None:
                    block_indent = column
                if column < block_indent:
                    raise FrontmatterError(f"a block scalar's line {self.at + 2} is indented less")
            texts.append((column, line))
            self.at += 1
        while texts and not texts[-1][1].strip():
            texts.pop()
        kept = [line[block_indent:] if line.strip() else "" for _, line in texts]
        value = "\n".join(kept) if style[0] == "|" else _fold(kept)
        if style.endswith("-"):
            return value
        return value + "\n" if value else ""


def _fold(lines: list[str]) -> str:
    # A line break between two text lines becomes a space; each empty line is a
    # line break; more-indented lines keep their breaks (YAML 1.2 8.1.3).
    out = ""
    previous: str | None = None
    for line in lines:
        if previous is None:
            out = line
        elif not line:
            out += "\n"
        elif not previous or line.startswith(" ") or previous.startswith(" "):
            out += ("\n" if previous else "") + line
        else:
            out += " " + line
        previous = line
    return out


def _uncomment(text: str) -> str:
    # " #" starts a comment outside quotes.
    quoted = _QUOTED.match(text)
    if quoted is not None:
        rest = text[quoted.end() :].strip()
        if rest and not rest.startswith("#"):
            raise FrontmatterError(f"text after a quoted string: {text!r}")
        return quoted.group(0)
    cut = text.find(" #")
    return (text if cut < 0 else text[:cut]).strip()


def _key(text: str) -> str:
    text = text.strip()
    if text.startswith('"'):
        return str(_quoted(text))
    if text.startswith("'"):
        return text[1:-1].replace("''", "'")
    return text


def _quoted(text: str) -> str:
    if text.startswith('"'):
        if len(text) < 2 or not text.endswith('"'):
            raise FrontmatterError(f"an unterminated string: {text!r}")
        try:
            # YAML's double-quoted escapes that JSON shares; the others are refused.
            return msgspec.json.decode(text.encode(), type=str)
        except msgspec.DecodeError:
            raise FrontmatterError(f"a string this reader does not take: {text!r}") from None
    if len(text) < 2 or not text.endswith("'"):
        raise FrontmatterError(f"an unterminated string: {text!r}")
    inner = text[1:-1]
    if re.search(r"(?<!')'(?!')", inner.replace("''", "")):
        raise FrontmatterError(f"a string this reader does not take: {text!r}")
    return inner.replace("''", "'")


def _scalar(text: str) -> Any:
    if text.startswith(("'", '"')):
        return _quoted(text)
    if text.startswith("["):
        return _flow_sequence(text)
    if text[0] in "{&*!%@`|>?" or text == "-" or text.startswith("- "):
        raise FrontmatterError(f"YAML this reader does not take: {text!r}")
    if _AMBIGUOUS.match(text):
        raise FrontmatterError(f"YAML 1.1 and 1.2 read {text!r} differently: quote it")
    if text in _NULLS:
        return None
    if text in _BOOLS:
        return _BOOLS[text]
    if _INT.match(text):
        return int(text)
    if _FLOAT.match(text) and any(ch.isdigit() for ch in text):
        return float(text)
    if ": " in text or text.endswith(":"):
        raise FrontmatterError(f"a value holds ': ': {text!r}")
    return text


def _flow_sequence(text: str) -> list[Any]:
    if not text.endswith("]"):
        raise FrontmatterError(f"an unterminated list: {text!r}")
    inner = text[1:-1].strip()
    if not inner:
        return []
    items: list[Any] = []
    for part in re.findall(r"""\s*("(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^,]+)\s*(?:,|\Z)""", inner):
        if part.startswith("["):
            raise FrontmatterError(f"a nested list: {text!r}")
        items.append(_scalar(part.strip()))
    return items
