"""The YAML frontmatter of a ``SKILL.md``, read without a YAML library.

SEP-2640 "Skill Format": ``SKILL.md`` MUST begin with YAML frontmatter holding at
least ``name`` and ``description``; "Frontmatter": a listing carries it "rendered
verbatim as a JSON object". The Agent Skills format uses a small part of YAML:
a block mapping of scalars (``name``, ``description``, ``license``,
``compatibility``, ``allowed-tools``), one nested mapping (``metadata``), and
now and then a list. This module reads that part, by YAML 1.2's core schema
(plain scalars become null, booleans, integers and floats as a YAML 1.2 reader
such as the conformance harness's makes them), and refuses the rest with the
line it stopped at rather than guess: anchors and aliases, tags, directives,
complex keys, several documents, flow mappings with members, tabs as
indentation. Dates stay the strings they are written as (JSON has no date).

Why not PyYAML (or ``msgspec.yaml``, which needs it): mcp_core depends on msgspec
alone, and a reader of the whole of YAML is a large surface to parse text that
any server operator may drop in a directory; the frontmatter a skill needs fits
in this file. A server that wants full YAML gives its own parser to the skills
loader (``frontmatter=`` of `mcp_core.skills.Skills`, e.g. ``yaml.safe_load``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any, Final

__all__ = ["FrontmatterError", "FrontmatterParser", "parse_yaml", "split_frontmatter"]

FrontmatterParser = Callable[[str], Any]
"""A function from the frontmatter's YAML text to its value (a mapping)."""


class FrontmatterError(ValueError):
    """A SKILL.md whose frontmatter is missing or outside what this reader takes."""


_OPEN: Final = re.compile(r"---[ \t]*\r?\n")
_CLOSE: Final = re.compile(r"^---[ \t]*(?:\r?\n|$)", re.MULTILINE)
_INT: Final = re.compile(r"[-+]?[0-9]+")
_OCT: Final = re.compile(r"0o[0-7]+")
_HEX: Final = re.compile(r"0x[0-9a-fA-F]+")
_FLOAT: Final = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?")
_KEY: Final = re.compile(
    r"""("(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^\s#'"\-?:,\[\]{}&*!|>%@`][^:#]*?|-[^\s:][^:#]*?)\s*:(?:\s|$)"""
)
_SPECIAL: Final = frozenset("&*!%@`")
_HEX_DIGITS: Final = frozenset("0123456789abcdefABCDEF")
_ESCAPES: Final = {
    "0": "\0", "a": "\a", "b": "\b", "t": "\t", "\t": "\t", "n": "\n", "v": "\v", "f": "\f",
    "r": "\r", "e": "\x1b", " ": " ", '"': '"', "/": "/", "\\": "\\", "N": "\x85",
    "_": "\xa0", "L": "\u2028", "P": "\u2029",
}  # fmt: skip


def split_frontmatter(text: str) -> tuple[str, str]:
    """The YAML between the opening ``---`` line and the closing one, and the body.

    Raises:
        FrontmatterError: the text does not begin with a ``---`` delimited block.
    """
    if text.startswith("\ufeff"):
        text = text[1:]
    opened = _OPEN.match(text)
    if opened is None:
        raise FrontmatterError("SKILL.md does not begin with a --- line (YAML frontmatter)")
    closed = _CLOSE.search(text, opened.end())
    if closed is None:
        raise FrontmatterError("SKILL.md's frontmatter has no closing --- line")
    return text[opened.end() : closed.start()], text[closed.end() :]


def parse_yaml(source: str) -> Any:
    """The value of a block of YAML, within the subset described above.

    Raises:
        FrontmatterError: outside the subset, or not YAML; the message names the line.
    """
    lines = [
        (number, line.rstrip("\r"))
        for number, line in enumerate(source.split("\n"), 1)
        if line.strip() and not line.lstrip().startswith("#")
    ]
    for number, line in lines:
        body = line.lstrip(" ")
        if body.startswith("\t"):
            raise FrontmatterError(f"line {number}: a tab as indentation")
        if line.startswith(("%", "---", "...")):
            raise FrontmatterError(f"line {number}: directives and documents are not read")
    if not lines:
        return None
    reader = _Reader(source.split("\n"))
    return reader.document()


class _Reader:
    """A recursive reader over the lines of a block (1-based line numbers)."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = [line.rstrip("\r") for line in lines]
        self.at = 0

    def fail(self, message: str) -> FrontmatterError:
        return FrontmatterError(f"line {self.at + 1}: {message}")

    def skip_blank(self) -> None:
        while self.at < len(self.lines):
            stripped = self.lines[self.at].strip()
            if stripped and not stripped.startswith("#"):
                return
            self.at += 1

    def indent(self) -> int:
        line = self.lines[self.at]
        return len(line) - len(line.lstrip(" "))

    def document(self) -> Any:
        self.skip_blank()
        value = self.node(self.indent())
        self.skip_blank()
        if self.at < len(self.lines):
            raise self.fail("unexpected indentation")
        return value

    def node(self, indent: int) -> Any:
        body = self.lines[self.at][indent:]
        if body == "-" or body.startswith("- "):
            return self.sequence(indent)
        if _KEY.match(body):
            return self.mapping(indent)
        value = self.scalar_lines(body, indent - 1)
        return value

    def mapping(self, indent: int) -> dict[str, Any]:
        result: dict[str, Any] = {}
        while True:
            self.skip_blank()
            if self.at >= len(self.lines) or self.indent() < indent:
                return result
            if self.indent() > indent:
                raise self.fail("unexpected indentation")
            body = self.lines[self.at][indent:]
            match = _KEY.match(body)
            if match is None:
                raise self.fail("expected 'key: value'")
            key = _key(match.group(1), self.fail)
            if key in result:
                raise self.fail(f"duplicate key {key!r}")
            rest = body[match.end() :].strip()
            result[key] = self.value(rest, indent)

    def sequence(self, indent: int) -> list[Any]:
        result: list[Any] = []
        while True:
            self.skip_blank()
            if self.at >= len(self.lines) or self.indent() < indent:
                return result
            body = self.lines[self.at][indent:]
            if self.indent() > indent or not (body == "-" or body.startswith("- ")):
                if self.indent() == indent:
                    return result
                raise self.fail("unexpected indentation")
            rest = body[1:].strip()
            if rest and _KEY.match(rest):
                raise self.fail("mappings inside a list are not read")
            result.append(self.value(rest, indent, in_sequence=True))

    def value(self, rest: str, indent: int, in_sequence: bool = False) -> Any:
        # What follows "key:" or "-": on the same line, or a block below it.
        if rest and rest[0] in _SPECIAL:
            raise self.fail("anchors, aliases, tags and directives are not read")
        if rest.startswith(("|", ">")):
            return self.block_scalar(rest, indent)
        if rest and not rest.startswith("#"):
            return self.scalar_lines(rest, indent)
        self.at += 1
        self.skip_blank()
        if self.at >= len(self.lines):
            return None
        below = self.indent()
        body = self.lines[self.at][below:]
        if below > indent:
            return self.node(below)
        if below == indent and not in_sequence and (body == "-" or body.startswith("- ")):
            return self.sequence(indent)  # a list may sit at its key's indentation
        return None

    def scalar_lines(self, first: str, indent: int) -> Any:
        # A scalar starting on this line, continued by lines indented deeper (folded).
        parts = [first]
        self.at += 1
        blanks = 0
        while self.at < len(self.lines):
            line = self.lines[self.at]
            stripped = line.strip()
            if not stripped:
                blanks += 1
                self.at += 1
                continue
            if len(line) - len(line.lstrip(" ")) <= indent or stripped.startswith("#"):
                break
            if first[:1] not in "\"'" and _KEY.match(stripped):
                raise self.fail("a mapping cannot follow a scalar")
            parts.append("\n" * blanks if blanks else " ")
            parts.append(stripped)
            blanks = 0
            self.at += 1
        text = "".join(parts)
        return _scalar(text, self.fail)

    def block_scalar(self, header: str, indent: int) -> str:
        # Literal (|) and folded (>) block scalars, with a chomping indicator.
        style, chomp = header[0], header[1:].split("#", 1)[0].strip()
        if chomp not in ("", "-", "+"):
            raise self.fail("block scalar indentation indicators are not read")
        self.at += 1
        lines: list[str] = []
        block_indent: int | None = None
        while self.at < len(self.lines):
            line = self.lines[self.at]
            if not line.strip():
                lines.append("")
                self.at += 1
                continue
            current = len(line) - len(line.lstrip(" "))
            if block_indent is None:
                if current <= indent:
                    break
                block_indent = current
            if current < block_indent:
                break
            lines.append(line[block_indent:])
            self.at += 1
        trailing = 0
        while lines and lines[-1] == "":
            lines.pop()
            trailing += 1
        text = "\n".join(lines) if style == "|" else _fold(lines)
        if not lines:
            return "" if chomp != "+" else "\n" * trailing
        if chomp == "-":
            return text
        if chomp == "+":
            return text + "\n" * (trailing + 1)
        return text + "\n"


def _fold(lines: list[str]) -> str:
    # YAML 1.2 8.1.3 "Folded Style": a break between two text lines becomes a
    # space, or nothing beside the empty lines that follow it (each one a line
    # break); around a "more indented" line every break stays.
    out = ""
    previous: str | None = None
    blanks = 0
    for line in lines:
        if line == "":
            blanks += 1
            continue
        if previous is None:
            out = "\n" * blanks + line
        elif line.startswith(" ") or previous.startswith(" "):
            out += "\n" * (blanks + 1) + line
        else:
            out += ("\n" * blanks if blanks else " ") + line
        previous, blanks = line, 0
    return out


def _key(text: str, fail: Callable[[str], FrontmatterError]) -> str:
    value = _scalar(text, fail)
    if isinstance(value, (dict, list)):
        raise fail("complex keys are not read")
    if value is None:
        return "null" if text else ""
    if value is True or value is False:
        return "true" if value else "false"
    return value if isinstance(value, str) else text


def _scalar(text: str, fail: Callable[[str], FrontmatterError]) -> Any:
    text = text.strip()
    if text.startswith('"'):
        end = _closing_double(text)
        if end < 0:
            raise fail("an unterminated double-quoted string")
        _nothing_after(text[end + 1 :], fail)
        return _unescape(text[1:end], fail)
    if text.startswith("'"):
        end = _closing_single(text)
        if end < 0:
            raise fail("an unterminated single-quoted string")
        _nothing_after(text[end + 1 :], fail)
        return text[1:end].replace("''", "'")
    if text.startswith("["):
        return _flow_sequence(text, fail)
    if text.startswith("{"):
        if re.fullmatch(r"\{\s*\}(\s+#.*)?", text):
            return {}
        raise fail("flow mappings are not read")
    if text[:1] in _SPECIAL or text.startswith(("? ", "|", ">")):
        raise fail("anchors, aliases, tags, complex keys are not read")
    comment = re.search(r"\s#", text)
    if comment is not None:
        text = text[: comment.start()].rstrip()
    if re.search(r":(\s|$)", text):
        raise fail("': ' inside a plain scalar (quote the value)")
    return _plain(text)


def _nothing_after(rest: str, fail: Callable[[str], FrontmatterError]) -> None:
    rest = rest.strip()
    if rest and not rest.startswith("#"):
        raise fail("text after a quoted string")


def _closing_double(text: str) -> int:
    i = 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == '"':
            return i
        i += 1
    return -1


def _closing_single(text: str) -> int:
    i = 1
    while i < len(text):
        if text[i] == "'":
            if text[i + 1 : i + 2] == "'":
                i += 2
                continue
            return i
        i += 1
    return -1


def _unescape(body: str, fail: Callable[[str], FrontmatterError]) -> str:
    out: list[str] = []
    i = 0
    while i < len(body):
        char = body[i]
        if char != "\\":
            out.append(char)
            i += 1
            continue
        code = body[i + 1 : i + 2]
        widths = {"x": 2, "u": 4, "U": 8}
        if code in widths:
            digits = body[i + 2 : i + 2 + widths[code]]
            if len(digits) != widths[code] or not all(
                c in "0123456789abcdefABCDEF" for c in digits
            ):
                raise fail(f"a bad escape \\{code}{digits}")
            out.append(chr(int(digits, 16)))
            i += 2 + widths[code]
        elif code in _ESCAPES:
            out.append(_ESCAPES[code])
            i += 2
        else:
            raise fail(f"an unknown escape \\{code}")
    return "".join(out)


def _flow_sequence(text: str, fail: Callable[[str], FrontmatterError]) -> list[Any]:
    end = text.rfind("]")
    if end < 0:
        raise fail("an unterminated flow sequence")
    _nothing_after(text[end + 1 :], fail)
    inner = text[1:end].strip()
    if not inner:
        return []
    items: list[Any] = []
    i = 0
    while i <= len(inner):
        rest = inner[i:].lstrip()
        i = len(inner) - len(rest)
        if rest.startswith('"'):
            stop = _closing_double(rest)
        elif rest.startswith("'"):
            stop = _closing_single(rest)
        else:
            comma = rest.find(",")
            stop = (len(rest) if comma < 0 else comma) - 1
        if stop < 0:
            raise fail("an unterminated string in a flow sequence")
        piece = rest[: stop + 1]
        if any(c in piece for c in "[]{}") and piece[:1] not in "\"'":
            raise fail("nested flow collections are not read")
        if piece.strip():
            items.append(_scalar(piece, fail))
        tail = rest[stop + 1 :].lstrip()
        if not tail:
            break
        if not tail.startswith(","):
            raise fail("expected ',' in a flow sequence")
        i = len(inner) - len(tail) + 1
    return items


def _plain(text: str) -> Any:
    # YAML 1.2 core schema (10.3.2 "Tag Resolution").
    if text in ("", "~", "null", "Null", "NULL"):
        return None
    if text in ("true", "True", "TRUE"):
        return True
    if text in ("false", "False", "FALSE"):
        return False
    if _INT.fullmatch(text):
        return int(text)
    if _OCT.fullmatch(text):
        return int(text[2:], 8)
    if _HEX.fullmatch(text):
        return int(text[2:], 16)
    if _FLOAT.fullmatch(text):
        return float(text)
    lowered = text.lstrip("+-")
    if lowered in (".inf", ".Inf", ".INF"):
        return -math.inf if text.startswith("-") else math.inf
    if text in (".nan", ".NaN", ".NAN"):
        return math.nan
    return text
