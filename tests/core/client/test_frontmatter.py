"""Reading a SKILL.md's YAML frontmatter (mcp_core.client.frontmatter): the subset
Agent Skills use, read as a YAML 1.2 reader would; anything else refused, never
misread."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcp_core.client.frontmatter import FrontmatterError, parse_frontmatter, split_frontmatter


def read(yaml: str) -> dict[str, Any]:
    return parse_frontmatter(f"---\n{yaml}---\nbody\n")


CASES: list[tuple[str, dict[str, Any]]] = [
    (
        "name: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\n",
        {"name": "pdf-processing", "description": "Extract, fill, and assemble PDF documents"},
    ),
    (
        "# a comment\nname: a\n\nlicense: 'it''s MIT' # trailing\n",
        {"name": "a", "license": "it's MIT"},
    ),
    (
        'd: "tab\\there \\u00e9 \\"q\\""\nurl: http://x.example/a#frag\n',
        {"d": 'tab\there é "q"', "url": "http://x.example/a#frag"},
    ),
    (
        'metadata:\n  version: "2.1.0"\n  n: 3\n  f: -1.5e+3\n  t: true\n  z: ~\n  e:\n',
        {"metadata": {"version": "2.1.0", "n": 3, "f": -1500.0, "t": True, "z": None, "e": None}},
    ),
    (
        "allowed-tools: [Bash, 'Read', \"Write\", 3]\nnone: []\n",
        {"allowed-tools": ["Bash", "Read", "Write", 3], "none": []},
    ),
    ("tools:\n  - Bash\n  - Read\n", {"tools": ["Bash", "Read"]}),
    ("tools:\n- Bash\n- Read\nnext: 1\n", {"tools": ["Bash", "Read"], "next": 1}),
    ("list:\n  - k: v\n    j: w\n  - k: 2\n", {"list": [{"k": "v", "j": "w"}, {"k": 2}]}),
    ("d: |\n  one\n  two\n\n  three\nx: 1\n", {"d": "one\ntwo\n\nthree\n", "x": 1}),
    ("d: |-\n  kept\n    indented\n", {"d": "kept\n  indented"}),
    ("d: >\n  folded\n  line\n\n  para\n", {"d": "folded line\npara\n"}),
    ("d: >-\n  a\n    b\n  c\n", {"d": "a\n  b\nc"}),
    ("", {}),
]


@pytest.mark.parametrize(("yaml", "expected"), CASES)
def test_the_subset_reads_as_yaml(yaml: str, expected: dict[str, Any]) -> None:
    assert read(yaml) == expected


@pytest.mark.parametrize(("yaml", "expected"), CASES)
def test_pyyaml_reads_the_cases_alike(yaml: str, expected: dict[str, Any]) -> None:
    pyyaml = pytest.importorskip("yaml")
    assert (pyyaml.safe_load(yaml) or {}) == expected


@pytest.mark.parametrize(
    "yaml",
    [
        "name: [a\n",  # unterminated
        "name: &anchor a\n",
        "name: !!str a\n",
        "m: {a: 1}\n",
        "  name: a\n",
        "name: a\n  continued plain scalar\n",
        "name: a\nname: b\n",
        "- a\n- b\n",  # not a mapping
        "name: 'unterminated\n",
        "name: a: b\n",
        "name: a\n\tx: 1\n",
        # YAML 1.1 and 1.2 disagree: refused rather than guessed.
        "l:\n  - - nested\n",
        "flag: yes\n",
        "f: 1e3\n",
        "f: 1.5e3\n",
        "n: 017\n",
        "n: 1_000\n",
        "n: 0x1F\n",
        "t: 1:30\n",
        "d: 2024-01-02\n",
        "f: .inf\n",
    ],
)
def test_yaml_outside_the_subset_is_refused(yaml: str) -> None:
    with pytest.raises(FrontmatterError):
        read(yaml)


def test_the_frontmatter_needs_both_fences() -> None:
    assert split_frontmatter("---\r\na: 1\r\n---\r\nbody") == ("a: 1\r\n", "body")
    for text in ("a: 1\n", "---\na: 1\n", ""):
        with pytest.raises(FrontmatterError):
            split_frontmatter(text)


_plain = st.from_regex(r"[A-Za-z][A-Za-z0-9 .,_/()-]{0,30}", fullmatch=True).map(str.strip)
_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**6), 10**6),
    st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False),
    _plain,
    st.text(max_size=20),
)
_values = st.recursive(
    _scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.from_regex(r"[a-z][a-z0-9-]{0,8}", fullmatch=True), inner, max_size=4),
    ),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None)
@given(
    st.dictionaries(st.from_regex(r"[a-z][a-z0-9_-]{0,10}", fullmatch=True), _values, min_size=1)
)
def test_what_pyyaml_writes_is_read_as_pyyaml_reads_it_or_refused(data: dict[str, Any]) -> None:
    # Differential: never a value PyYAML would not read; a refusal is allowed.
    pyyaml = pytest.importorskip("yaml")
    for style in (False, None):
        text = pyyaml.safe_dump(data, width=10**9, sort_keys=False, default_flow_style=style)
        try:
            ours = read(text)
        except FrontmatterError:
            continue
        assert ours == pyyaml.safe_load(text)
