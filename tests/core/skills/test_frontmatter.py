"""mcp_core/skills/frontmatter.py: the YAML subset of SKILL.md frontmatter, read
by YAML 1.2's core schema, and everything else refused by line."""

from __future__ import annotations

import math
from typing import Any

import pytest

from mcp_core.skills import FrontmatterError, parse_yaml, split_frontmatter

READ: list[tuple[str, Any]] = [
    (
        "name: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\n",
        {"name": "pdf-processing", "description": "Extract, fill, and assemble PDF documents"},
    ),
    # Folded and literal block scalars, with chomping.
    (
        "d: >\n  folded text\n  continues\n\n  new paragraph\nnext: 1\n",
        {"d": "folded text continues\nnew paragraph\n", "next": 1},
    ),
    ("d: |\n  line one\n  line two\n", {"d": "line one\nline two\n"}),
    ("d: >-\n  strip\n  me\n\n\nz: 1\n", {"d": "strip me", "z": 1}),
    ("d: |+\n  kept\n\nz: 1\n", {"d": "kept\n\n", "z": 1}),
    ("d: >\n  a\n\n    more\n  b\n", {"d": "a\n\n  more\nb\n"}),
    # Quoted scalars and their escapes.
    ("d: 'it''s quoted'\n", {"d": "it's quoted"}),
    ('d: "esc \\"q\\" \\u00e9 \\n x"\n', {"d": 'esc "q" \u00e9 \n x'}),
    ("'quoted key': 1\n\"dq\": 2\n", {"quoted key": 1, "dq": 2}),
    # A plain scalar over several lines is folded.
    ("d: long plain\n  continued line\n  and more\n", {"d": "long plain continued line and more"}),
    # Nested mappings, lists (indented or not), flow lists, empty collections.
    (
        'metadata:\n  version: "2.1.0"\n  nested:\n    deep: x\n  other: y\n',
        {"metadata": {"version": "2.1.0", "nested": {"deep": "x"}, "other": "y"}},
    ),
    ("l:\n  - one\n  - 2\n  - true\n  - null\n", {"l": ["one", 2, True, None]}),
    ("l:\n- x\n- y\nnext: 1\n", {"l": ["x", "y"], "next": 1}),
    ("f: [a, 'b c', \"d\", 3.5]\ne: []\no: {}\n", {"f": ["a", "b c", "d", 3.5], "e": [], "o": {}}),
    # YAML 1.2 core schema plain scalars (not 1.1: "yes", "12:30", "0o17" differ).
    (
        "a: 0x1F\nb: 0o17\nc: 1e3\nd: -4\ne: ~\nf: yes\ng: 12:30\nh: 2024-01-02\ni: False\n",
        {
            "a": 31,
            "b": 15,
            "c": 1000.0,
            "d": -4,
            "e": None,
            "f": "yes",
            "g": "12:30",
            "h": "2024-01-02",
            "i": False,
        },
    ),
    (
        "name: a # a comment\n# a whole-line comment\nurl: http://x.example/a#b\n",
        {"name": "a", "url": "http://x.example/a#b"},
    ),
    ("allowed-tools: Bash(git:*) Read\n", {"allowed-tools": "Bash(git:*) Read"}),
    ("", None),
]


@pytest.mark.parametrize(("source", "expected"), READ)
def test_reads_the_subset(source: str, expected: Any) -> None:
    assert parse_yaml(source) == expected


def test_infinity_and_nan() -> None:
    value = parse_yaml("a: .inf\nb: -.Inf\nc: .nan\n")
    assert value["a"] == math.inf and value["b"] == -math.inf and math.isnan(value["c"])


@pytest.mark.parametrize(
    "source",
    [
        "a: &anchor 1\nb: *anchor\n",
        "a: !tag x\n",
        "a: 1\na: 2\n",
        "a:\n\t- x\n",
        "a: {b: 1}\n",
        "? complex\n: key\n",
        "a: x: y\n",
        "- a: 1\n",
        "a: 'unterminated\n",
        'a: "bad \\q escape"\n',
        "a: [1, [2]]\n",
        "a: |2\n  x\n",
        "%YAML 1.2\n---\na: 1\n",
        "a: 1\n  b: 2\n",
    ],
)
def test_refuses_the_rest(source: str) -> None:
    with pytest.raises(FrontmatterError, match="line"):
        parse_yaml(source)


def test_agrees_with_pyyaml_where_yaml_1_1_and_1_2_agree() -> None:
    yaml = pytest.importorskip("yaml")
    for source, _ in READ[:-4]:
        assert parse_yaml(source) == yaml.safe_load(source), source


def test_split() -> None:
    yaml, body = split_frontmatter("\ufeff---\r\nname: a\r\n---\r\nbody\n")
    assert parse_yaml(yaml) == {"name": "a"} and body == "body\n"
    assert split_frontmatter("---\nname: a\n---")[1] == ""
    for text in ("name: a\n", "---\nname: a\n", " ---\nname: a\n---\n"):
        with pytest.raises(FrontmatterError):
            split_frontmatter(text)
