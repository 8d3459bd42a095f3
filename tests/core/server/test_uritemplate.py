"""RFC 6570 URI templates: expansion tables, parse errors, and matching."""

from __future__ import annotations

import time
from collections import OrderedDict

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mcp_core.server.uri_template import UriTemplate, is_template

# The variables of RFC 6570 sections 1.2 and 3.2.
VARIABLES: dict[str, object] = {
    "count": ("one", "two", "three"),
    "dom": ("example", "com"),
    "dub": "me/too",
    "hello": "Hello World!",
    "half": "50%",
    "var": "value",
    "who": "fred",
    "base": "http://example.com/home/",
    "path": "/foo/bar",
    "list": ("red", "green", "blue"),
    "keys": OrderedDict([("semi", ";"), ("dot", "."), ("comma", ",")]),
    "v": "6",
    "x": "1024",
    "y": "768",
    "empty": "",
    "empty_keys": {},
    "undef": None,
}

# RFC 6570 section 1.2, levels 1 to 4.
LEVELS = [
    # Level 1
    ("{var}", "value"),
    ("{hello}", "Hello%20World%21"),
    # Level 2
    ("{+var}", "value"),
    ("{+hello}", "Hello%20World!"),
    ("{+path}/here", "/foo/bar/here"),
    ("here?ref={+path}", "here?ref=/foo/bar"),
    ("X{#var}", "X#value"),
    ("X{#hello}", "X#Hello%20World!"),
    # Level 3
    ("map?{x,y}", "map?1024,768"),
    ("{x,hello,y}", "1024,Hello%20World%21,768"),
    ("{+x,hello,y}", "1024,Hello%20World!,768"),
    ("{+path,x}/here", "/foo/bar,1024/here"),
    ("{#x,hello,y}", "#1024,Hello%20World!,768"),
    ("{#path,x}/here", "#/foo/bar,1024/here"),
    ("X{.var}", "X.value"),
    ("X{.x,y}", "X.1024.768"),
    ("{/var}", "/value"),
    ("{/var,x}/here", "/value/1024/here"),
    ("{;x,y}", ";x=1024;y=768"),
    ("{;x,y,empty}", ";x=1024;y=768;empty"),
    ("{?x,y}", "?x=1024&y=768"),
    ("{?x,y,empty}", "?x=1024&y=768&empty="),
    ("?fixed=yes{&x}", "?fixed=yes&x=1024"),
    ("{&x,y,empty}", "&x=1024&y=768&empty="),
    # Level 4
    ("{var:3}", "val"),
    ("{var:30}", "value"),
    ("{list}", "red,green,blue"),
    ("{list*}", "red,green,blue"),
    ("{keys}", "semi,%3B,dot,.,comma,%2C"),
    ("{keys*}", "semi=%3B,dot=.,comma=%2C"),
    ("{+path:6}/here", "/foo/b/here"),
    ("{+list}", "red,green,blue"),
    ("{+list*}", "red,green,blue"),
    ("{+keys}", "semi,;,dot,.,comma,,"),
    ("{+keys*}", "semi=;,dot=.,comma=,"),
    ("{#path:6}/here", "#/foo/b/here"),
    ("{#list}", "#red,green,blue"),
    ("{#list*}", "#red,green,blue"),
    ("{#keys}", "#semi,;,dot,.,comma,,"),
    ("{#keys*}", "#semi=;,dot=.,comma=,"),
    ("X{.var:3}", "X.val"),
    ("X{.list}", "X.red,green,blue"),
    ("X{.list*}", "X.red.green.blue"),
    ("X{.keys}", "X.semi,%3B,dot,.,comma,%2C"),
    ("X{.keys*}", "X.semi=%3B.dot=..comma=%2C"),
    ("{/var:1,var}", "/v/value"),
    ("{/list}", "/red,green,blue"),
    ("{/list*}", "/red/green/blue"),
    ("{/list*,path:4}", "/red/green/blue/%2Ffoo"),
    ("{/keys}", "/semi,%3B,dot,.,comma,%2C"),
    ("{/keys*}", "/semi=%3B/dot=./comma=%2C"),
    ("{;hello:5}", ";hello=Hello"),
    ("{;list}", ";list=red,green,blue"),
    ("{;list*}", ";list=red;list=green;list=blue"),
    ("{;keys}", ";keys=semi,%3B,dot,.,comma,%2C"),
    ("{;keys*}", ";semi=%3B;dot=.;comma=%2C"),
    ("{?var:3}", "?var=val"),
    ("{?list}", "?list=red,green,blue"),
    ("{?list*}", "?list=red&list=green&list=blue"),
    ("{?keys}", "?keys=semi,%3B,dot,.,comma,%2C"),
    ("{?keys*}", "?semi=%3B&dot=.&comma=%2C"),
    ("{&var:3}", "&var=val"),
    ("{&list}", "&list=red,green,blue"),
    ("{&list*}", "&list=red&list=green&list=blue"),
    ("{&keys}", "&keys=semi,%3B,dot,.,comma,%2C"),
    ("{&keys*}", "&semi=%3B&dot=.&comma=%2C"),
]

# RFC 6570 section 3.2, subsections 3.2.1 to 3.2.9.
SECTION_3_2 = [
    # 3.2.1 Variable Expansion
    ("{count}", "one,two,three"),
    ("{count*}", "one,two,three"),
    ("{/count}", "/one,two,three"),
    ("{/count*}", "/one/two/three"),
    ("{;count}", ";count=one,two,three"),
    ("{;count*}", ";count=one;count=two;count=three"),
    ("{?count}", "?count=one,two,three"),
    ("{?count*}", "?count=one&count=two&count=three"),
    ("{&count*}", "&count=one&count=two&count=three"),
    # 3.2.2 Simple String Expansion
    ("{var}", "value"),
    ("{hello}", "Hello%20World%21"),
    ("{half}", "50%25"),
    ("O{empty}X", "OX"),
    ("O{undef}X", "OX"),
    ("{x,y}", "1024,768"),
    ("{x,hello,y}", "1024,Hello%20World%21,768"),
    ("?{x,empty}", "?1024,"),
    ("?{x,undef}", "?1024"),
    ("?{undef,y}", "?768"),
    ("{var:3}", "val"),
    ("{var:30}", "value"),
    ("{list}", "red,green,blue"),
    ("{list*}", "red,green,blue"),
    ("{keys}", "semi,%3B,dot,.,comma,%2C"),
    ("{keys*}", "semi=%3B,dot=.,comma=%2C"),
    # 3.2.3 Reserved Expansion
    ("{+var}", "value"),
    ("{+hello}", "Hello%20World!"),
    ("{+half}", "50%25"),
    ("{base}index", "http%3A%2F%2Fexample.com%2Fhome%2Findex"),
    ("{+base}index", "http://example.com/home/index"),
    ("O{+empty}X", "OX"),
    ("O{+undef}X", "OX"),
    ("{+path}/here", "/foo/bar/here"),
    ("here?ref={+path}", "here?ref=/foo/bar"),
    ("up{+path}{var}/here", "up/foo/barvalue/here"),
    ("{+x,hello,y}", "1024,Hello%20World!,768"),
    ("{+path,x}/here", "/foo/bar,1024/here"),
    ("{+path:6}/here", "/foo/b/here"),
    ("{+list}", "red,green,blue"),
    ("{+list*}", "red,green,blue"),
    ("{+keys}", "semi,;,dot,.,comma,,"),
    ("{+keys*}", "semi=;,dot=.,comma=,"),
    # 3.2.4 Fragment Expansion
    ("{#var}", "#value"),
    ("{#hello}", "#Hello%20World!"),
    ("{#half}", "#50%25"),
    ("foo{#empty}", "foo#"),
    ("foo{#undef}", "foo"),
    ("{#x,hello,y}", "#1024,Hello%20World!,768"),
    ("{#path,x}/here", "#/foo/bar,1024/here"),
    ("{#path:6}/here", "#/foo/b/here"),
    ("{#list}", "#red,green,blue"),
    ("{#list*}", "#red,green,blue"),
    ("{#keys}", "#semi,;,dot,.,comma,,"),
    ("{#keys*}", "#semi=;,dot=.,comma=,"),
    # 3.2.5 Label Expansion with Dot-Prefix
    ("{.who}", ".fred"),
    ("{.who,who}", ".fred.fred"),
    ("{.half,who}", ".50%25.fred"),
    ("www{.dom*}", "www.example.com"),
    ("X{.var}", "X.value"),
    ("X{.empty}", "X."),
    ("X{.undef}", "X"),
    ("X{.var:3}", "X.val"),
    ("X{.list}", "X.red,green,blue"),
    ("X{.list*}", "X.red.green.blue"),
    ("X{.keys}", "X.semi,%3B,dot,.,comma,%2C"),
    ("X{.keys*}", "X.semi=%3B.dot=..comma=%2C"),
    ("X{.empty_keys}", "X"),
    ("X{.empty_keys*}", "X"),
    # 3.2.6 Path Segment Expansion
    ("{/who}", "/fred"),
    ("{/who,who}", "/fred/fred"),
    ("{/half,who}", "/50%25/fred"),
    ("{/who,dub}", "/fred/me%2Ftoo"),
    ("{/var}", "/value"),
    ("{/var,empty}", "/value/"),
    ("{/var,undef}", "/value"),
    ("{/var,x}/here", "/value/1024/here"),
    ("{/var:1,var}", "/v/value"),
    ("{/list}", "/red,green,blue"),
    ("{/list*}", "/red/green/blue"),
    ("{/list*,path:4}", "/red/green/blue/%2Ffoo"),
    ("{/keys}", "/semi,%3B,dot,.,comma,%2C"),
    ("{/keys*}", "/semi=%3B/dot=./comma=%2C"),
    # 3.2.7 Path-Style Parameter Expansion
    ("{;who}", ";who=fred"),
    ("{;half}", ";half=50%25"),
    ("{;empty}", ";empty"),
    ("{;v,empty,who}", ";v=6;empty;who=fred"),
    ("{;v,bar,who}", ";v=6;who=fred"),
    ("{;x,y}", ";x=1024;y=768"),
    ("{;x,y,empty}", ";x=1024;y=768;empty"),
    ("{;x,y,undef}", ";x=1024;y=768"),
    ("{;hello:5}", ";hello=Hello"),
    ("{;list}", ";list=red,green,blue"),
    ("{;list*}", ";list=red;list=green;list=blue"),
    ("{;keys}", ";keys=semi,%3B,dot,.,comma,%2C"),
    ("{;keys*}", ";semi=%3B;dot=.;comma=%2C"),
    # 3.2.8 Form-Style Query Expansion
    ("{?who}", "?who=fred"),
    ("{?half}", "?half=50%25"),
    ("{?x,y}", "?x=1024&y=768"),
    ("{?x,y,empty}", "?x=1024&y=768&empty="),
    ("{?x,y,undef}", "?x=1024&y=768"),
    ("{?var:3}", "?var=val"),
    ("{?list}", "?list=red,green,blue"),
    ("{?list*}", "?list=red&list=green&list=blue"),
    ("{?keys}", "?keys=semi,%3B,dot,.,comma,%2C"),
    ("{?keys*}", "?semi=%3B&dot=.&comma=%2C"),
    # 3.2.9 Form-Style Query Continuation
    ("{&who}", "&who=fred"),
    ("{&half}", "&half=50%25"),
    ("?fixed=yes{&x}", "?fixed=yes&x=1024"),
    ("{&x,y,empty}", "&x=1024&y=768&empty="),
    ("{&var:3}", "&var=val"),
    ("{&list}", "&list=red,green,blue"),
    ("{&list*}", "&list=red&list=green&list=blue"),
    ("{&keys}", "&keys=semi,%3B,dot,.,comma,%2C"),
    ("{&keys*}", "&semi=%3B&dot=.&comma=%2C"),
]


@pytest.mark.parametrize(("template", "expected"), LEVELS + SECTION_3_2)
def test_rfc_examples(template: str, expected: str) -> None:
    assert UriTemplate(template).expand(VARIABLES) == expected


def test_properties() -> None:
    template = UriTemplate("file:///{+path}{/var:1,var}{?q,list*}")
    assert template.template == "file:///{+path}{/var:1,var}{?q,list*}"
    assert template.variables == ("path", "var", "q", "list")
    assert str(template) == template.template
    assert repr(template) == "UriTemplate('file:///{+path}{/var:1,var}{?q,list*}')"
    assert template == UriTemplate(template.template)
    assert template != UriTemplate("x")
    assert template != "file:///{+path}{/var:1,var}{?q,list*}"
    assert hash(template) == hash(UriTemplate(template.template))
    assert UriTemplate("no expressions").variables == ()


@pytest.mark.parametrize(
    ("uri", "expected"),
    [
        ("file:///{path}", True),
        ("file:///{+path}{?q}", True),
        ("file:///etc/hosts", False),
        ("a{b", False),
        ("a}b{", False),
        ("a{}b", False),
    ],
)
def test_is_template(uri: str, expected: bool) -> None:
    assert is_template(uri) is expected


def test_value_types() -> None:
    template = UriTemplate("{a,b,c,d}{?e*}")
    assert template.expand({"a": 1, "b": 2.5, "c": True, "d": False}) == "1,2.5,true,false"
    assert template.expand({"e": [1, None, False]}) == "?e=1&e=false"
    assert UriTemplate("{k*}").expand({"k": {"a": 1, "b": None}}) == "a=1"
    assert UriTemplate("{k}").expand({"k": {"a": None}}) == ""
    assert UriTemplate("{k}").expand({"k": [None]}) == ""
    # Empty members of exploded named lists and mappings use ifemp.
    assert UriTemplate("{?l*}").expand({"l": ["", "a"]}) == "?l=&l=a"
    assert UriTemplate("{;k*}").expand({"k": {"a": "", "b": "c"}}) == ";a;b=c"


def test_literals_are_encoded() -> None:
    # RFC 6570 section 3.1: characters not allowed in a URI are pct-encoded; reserved
    # characters and pct-encoded triplets are copied.
    template = UriTemplate("a b/é?%41%zz{x}")
    assert template.expand({"x": "1"}) == "a%20b/%C3%A9?%41%25zz1"
    assert template.match("a%20b/%C3%A9?%41%25zz1") == {"x": "1"}


def test_reserved_expansion_keeps_pct_triplets() -> None:
    template = UriTemplate("{+x}/{x}")
    assert template.expand({"x": "%2F%zz%4"}) == "%2F%25zz%254/%252F%25zz%254"


@pytest.mark.parametrize(
    ("value", "error"),
    [
        (b"bytes", TypeError),
        (object(), TypeError),
        ([b"x"], TypeError),
        ({"k": object()}, TypeError),
        ({1.5: "v"}, None),
    ],
)
def test_bad_value_types(value: object, error: type[Exception] | None) -> None:
    template = UriTemplate("{x}")
    if error is None:
        assert template.expand({"x": value}) == "1.5,v"
    else:
        with pytest.raises(error):
            template.expand({"x": value})


def test_prefix_on_composite_value_is_an_error() -> None:
    with pytest.raises(ValueError, match="prefix"):
        UriTemplate("{list:3}").expand(VARIABLES)
    with pytest.raises(ValueError, match="prefix"):
        UriTemplate("{keys:1}").expand(VARIABLES)
    # ...but not when the composite value is undefined.
    assert UriTemplate("{empty_keys:1}").expand(VARIABLES) == ""


def test_prefix_counts_characters_not_bytes() -> None:
    assert UriTemplate("{x:2}").expand({"x": "éèx"}) == "%C3%A9%C3%A8"


@pytest.mark.parametrize(
    ("template", "message"),
    [
        ("{var", "unclosed expression"),
        ("x{a{b}}", "unclosed expression"),
        ("x}", "unmatched"),
        ("{}", "empty expression"),
        ("{=var}", "reserved for future"),
        ("{,var}", "reserved for future"),
        ("{!var}", "reserved for future"),
        ("{@var}", "reserved for future"),
        ("{|var}", "reserved for future"),
        ("{$var}", "invalid variable name"),
        ("{a b}", "invalid variable name"),
        ("{a,}", "invalid variable name"),
        ("{a..b}", "invalid variable name"),
        ("{.a.}", "invalid variable name"),
        ("{a%2}", "invalid variable name"),
        ("{+}", "invalid variable name"),
        ("{var:0}", "invalid prefix length"),
        ("{var:03}", "invalid prefix length"),
        ("{var:}", "invalid prefix length"),
        ("{var:x}", "invalid prefix length"),
        ("{var:-1}", "invalid prefix length"),
        ("{var:\u0661}", "invalid prefix length"),
        ("{var:10000}", "exceeds 9999"),
        ("{var:3*}", "both a prefix and"),
        ("{var**}", "invalid variable name"),
    ],
)
def test_malformed_templates(template: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        UriTemplate(template)


@pytest.mark.parametrize("template", ["{var:9999}", "{a.b,c_d,%20e,X9}", "{var:1}", "{+var*}", ""])
def test_well_formed_edge_cases(template: str) -> None:
    UriTemplate(template)


# --------------------------------------------------------------------------- matching

MATCHES: list[tuple[str, str, dict[str, str | list[str]] | None]] = [
    ("file:///{name}", "file:///notes.txt", {"name": "notes.txt"}),
    ("file:///{name}", "file:///a/b", None),
    ("file:///{name}", "file:///a?b", None),
    ("file:///{name}", "file:///", {"name": ""}),
    ("file:///{name}", "http:///x", None),
    ("users://{id}/profile", "users://alice@example.com/profile", {"id": "alice@example.com"}),
    ("users://{id}/profile", "users://a%2Fb/profile", {"id": "a/b"}),
    ("users://{id}/profile", "users://caf%C3%A9/profile", {"id": "café"}),
    ("users://{id}/profile", "users://%FF/profile", None),
    ("users://{id}/profile", "users://x/profilex", None),
    ("file:///{+path}", "file:///etc/hosts", {"path": "etc/hosts"}),
    ("file:///{+path}", "file:///a%20b/c", {"path": "a b/c"}),
    ("file:///{+path}", "file:///a#frag", None),
    ("file:///{+path}{?rev}", "file:///a/b?rev=3", {"path": "a/b", "rev": "3"}),
    ("file:///{+path}{?rev}", "file:///a/b", {"path": "a/b"}),
    ("file:///{+path}{#frag}", "file:///a/b#x/y", {"path": "a/b", "frag": "x/y"}),
    ("doc{#frag}", "doc", {}),
    ("doc{#frag}", "doc#", {"frag": ""}),
    ("{x,y}", "1024,768", {"x": "1024", "y": "768"}),
    ("{x,y}", "1024", {"x": "1024"}),
    ("{x,y}", "1,2,3", None),
    ("{+x,y}", "/a,b/c", {"x": "/a", "y": "b/c"}),
    ("map?{x,y}", "map?1024,768", {"x": "1024", "y": "768"}),
    ("{list}", "red,green,blue", {"list": "red,green,blue"}),
    ("{list*}", "red,green,blue", {"list": ["red", "green", "blue"]}),
    ("{list*}", "red", {"list": ["red"]}),
    ("{#list*}", "#red,green", {"list": ["red", "green"]}),
    ("/files{/path*}", "/files/a/b%20c/d", {"path": ["a", "b c", "d"]}),
    ("/files{/path*}", "/files", {}),
    ("/files{/path*}", "/files/", {"path": [""]}),
    ("{/var,x}/here", "/value/1024/here", {"var": "value", "x": "1024"}),
    ("{/var,x}/here", "/value/here", {"var": "value"}),
    (
        "{/list*,path:4}",
        "/red/green/blue/%2Ffoo",
        {"list": ["red", "green", "blue"], "path": "/foo"},
    ),
    ("{/a,list*,b}", "/1/2/3/4", {"a": "1", "list": ["2", "3"], "b": "4"}),
    ("{/a,list*,b}", "/1/2", {"a": "1", "list": ["2"]}),
    ("{/var:1,var}", "/v/value", {"var": "value"}),
    ("{/var:1,var}", "/x/value", None),
    ("{/var:1,var}", "/vv/value", None),
    ("{/var:1}", "/v", {"var": "v"}),
    ("{x:3}/{x:5}", "abc/abcde", {"x": "abcde"}),
    ("{x:5}/{x:3}", "abcde/abc", {"x": "abcde"}),
    ("{x:5}/{x:3}", "abcde/abd", None),
    ("{.who,who}", ".fred.fred", {"who": "fred"}),
    ("{.who,who}", ".fred.barney", None),
    ("{x}/{x}", "a/a", {"x": "a"}),
    ("{x}/{x}", "a/b", None),
    ("{x}{/x*}", "a/a", None),
    ("{/x*}{x}", "/ab", None),
    ("{id}{;v}", "42;v=2", {"id": "42", "v": "2"}),
    ("{id}{;v}", "42;w=2", None),  # ';' ends {id} because {;v} follows
    ("{x}.json", "a.json.json", {"x": "a.json"}),
    ("www{.dom*}", "www.example.com", {"dom": ["example", "com"]}),
    ("X{.var}", "X.my.file", {"var": "my.file"}),
    ("X{.var}", "X", {}),
    ("X{.x,y}", "X.1024.768", {"x": "1024", "y": "768"}),
    ("{;x,y}", ";x=1024;y=768", {"x": "1024", "y": "768"}),
    ("{;x,y}", ";y=768;x=1024", {"x": "1024", "y": "768"}),
    ("{;x,y,empty}", ";x=1024;y=768;empty", {"x": "1024", "y": "768", "empty": ""}),
    ("{;x,y}", ";x=1;x=2", None),
    ("{;x,y}", ";z=1", None),
    ("{;list*}", ";list=red;list=green", {"list": ["red", "green"]}),
    ("{;hello:5}", ";hello=Hello", {"hello": "Hello"}),
    ("{;hello:5}", ";hello=Hello%20World", None),
    ("/search{?q,limit}", "/search?q=mcp%20core&limit=10", {"q": "mcp core", "limit": "10"}),
    ("/search{?q,limit}", "/search?limit=10&q=x", {"q": "x", "limit": "10"}),
    ("/search{?q,limit}", "/search?limit=10", {"limit": "10"}),
    ("/search{?q,limit}", "/search", {}),
    ("/search{?q,limit}", "/search?q=a/b?c", {"q": "a/b?c"}),
    ("/search{?q,limit}", "/search?q=1&q=2", None),
    ("/search{?q,limit}", "/search?other=1", None),
    ("/search{?q,limit}", "/search?q=1&other=1", None),
    ("/search{?q,limit}", "/search&q=1", None),
    ("/search{?q,limit}", "/search?q", {"q": ""}),
    ("/search{?q,limit}", "/search?q=a=b", {"q": "a=b"}),
    ("/search{?q}{&page}", "/search?q=x&page=2", {"q": "x", "page": "2"}),
    ("?fixed=yes{&x}", "?fixed=yes&x=1024", {"x": "1024"}),
    ("?fixed=yes{&x}", "?fixed=yes", {}),
    ("{?tag*}", "?tag=a&tag=b%26c", {"tag": ["a", "b&c"]}),
    ("{?list}", "?list=red,green,blue", {"list": "red,green,blue"}),
    ("{?x,xy}", "?xy=1&x=2", {"x": "2", "xy": "1"}),
    ("{?a.b,%20c}", "?a.b=1&%20c=2", {"a.b": "1", "%20c": "2"}),
    ("{?keys*}", "?semi=%3B", None),
    ("a\nb{x}", "a%0Ab1", {"x": "1"}),
    ("{#x}", "#a\nb", {"x": "a\nb"}),
    (
        "res://{server}/items/{id}{?fields*}#top",
        "res://main/items/42?fields=name&fields=size#top",
        {"server": "main", "id": "42", "fields": ["name", "size"]},
    ),
]


@pytest.mark.parametrize(("template", "uri", "expected"), MATCHES)
def test_match(template: str, uri: str, expected: dict[str, str | list[str]] | None) -> None:
    assert UriTemplate(template).match(uri) == expected


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        (t, e)
        for t, e in LEVELS + SECTION_3_2
        if not any(name in t for name in ("keys", "count}", "list}"))
    ],
)
def test_match_rfc_expansions(template: str, expected: str) -> None:
    # Every RFC example without mappings or non-exploded lists matches its own
    # expansion, and the values found expand back to the same URI (prefixes are lossy,
    # so compare expansions, not values). Joined lists come back as one string.
    parsed = UriTemplate(template)
    found = parsed.match(expected)
    assert found is not None
    assert parsed.expand(found) == expected


# Templates whose every variable is recoverable: slots composed in this order with
# distinct names; "name" slots take a str, "list" slots a non-empty list of str.
SLOTS: list[tuple[str, dict[str, str]]] = [
    ("/{a}", {"a": "str"}),
    ("{/b,c}", {"b": "str", "c": "str"}),
    ("/x{.d}", {"d": "str"}),
    ("/y{.e*}", {"e": "list"}),
    ("{/p*}", {"p": "list"}),
    ("{;m,n}", {"m": "str", "n": "str"}),
    ("{;o*}", {"o": "list"}),
    ("{?q,r}", {"q": "str", "r": "str"}),
    ("{&s*}", {"s": "list"}),
    ("{#f}", {"f": "str"}),
]

# Any text for values that are pct-encoded on expansion. '.' is unreserved, so it
# separates exploded labels only if values avoid it.
TEXT = st.text(st.characters(codec="utf-8"), min_size=1, max_size=8)
LABEL_TEXT = TEXT.filter(lambda s: "." not in s)


@st.composite
def template_and_values(draw: st.DrawFn) -> tuple[str, dict[str, str | list[str]]]:
    chosen = draw(st.lists(st.sampled_from(range(len(SLOTS))), unique=True, min_size=1))
    template = "t://host"
    values: dict[str, str | list[str]] = {}
    for index in sorted(chosen):
        text, kinds = SLOTS[index]
        template += text
        for name, kind in kinds.items():
            if kind == "list":
                values[name] = draw(st.lists(LABEL_TEXT, min_size=1, max_size=4))
            else:
                values[name] = draw(TEXT)
    return template, values


@given(template_and_values())
def test_match_round_trip(case: tuple[str, dict[str, str | list[str]]]) -> None:
    template, values = case
    parsed = UriTemplate(template)
    assert parsed.match(parsed.expand(values)) == values


@given(
    st.sampled_from(["{x}", "{+x}", "{#x}", "{x,y}", "{+x,y}", "{list*}", "{+list*}"]),
    st.text(st.characters(codec="utf-8", exclude_characters="%#,"), min_size=1, max_size=8),
    st.text(st.characters(codec="utf-8", exclude_characters="%#,"), min_size=1, max_size=8),
)
def test_match_round_trip_simple_and_reserved(template: str, x: str, y: str) -> None:
    # Reserved expansion copies reserved characters, so values avoid the ones that
    # delimit ('#', ',') and '%' (pct triplets are copied, then decoded on match).
    parsed = UriTemplate(template)
    values: dict[str, str | list[str]] = {"x": x, "y": y, "list": [x, y]}
    wanted = {name: values[name] for name in parsed.variables}
    assert parsed.match(parsed.expand(values)) == wanted


@pytest.mark.parametrize(
    ("template", "uri"),
    [
        ("{+path}{?q,r}", "?q=&r=" * 20_000 + "#"),
        ("{a}{;m,n}", ";m=" * 20_000 + "/"),
        ("{+path}{&q}", "&q=" * 20_000 + "#"),
        ("{;m}{?q}", ";m=?q=" * 20_000 + "#"),
    ],
)
def test_match_does_not_backtrack_quadratically(template: str, uri: str) -> None:
    # A value stops where the next expression begins, so each of these is linear. The
    # bound is generous: quadratic backtracking took minutes here.
    started = time.perf_counter()
    assert UriTemplate(template).match(uri) is None
    assert time.perf_counter() - started < 1.0


@given(st.text(max_size=40))
def test_match_never_raises(uri: str) -> None:
    for template in ("{x}", "{/p*}{?q,r*}", "a{;m}{#f}", "{+x,y}{.z}"):
        result = UriTemplate(template).match(uri)
        assert result is None or isinstance(result, dict)
