from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mcp_core.wire.sse import (
    DEFAULT_MAX_EVENT_BYTES,
    ServerSentEvent,
    SSEError,
    SSEParser,
    encode_comment,
    encode_event,
)

E = ServerSentEvent


def splittings(data: bytes) -> Iterator[list[bytes]]:
    """Whole, byte by byte, and at every 2-way split point."""
    yield [data]
    yield [data[i : i + 1] for i in range(len(data))]
    for i in range(len(data) + 1):
        yield [data[:i], data[i:]]


Result = tuple[list[ServerSentEvent], str | None, int | None, bool]


def run(chunks: list[bytes], cap: int = DEFAULT_MAX_EVENT_BYTES) -> Result:
    """Events (including those carried by an SSEError), last id, retry, and whether it failed."""
    parser = SSEParser(cap)
    events: list[ServerSentEvent] = []
    for chunk in chunks:
        try:
            events += parser.feed(chunk)
        except SSEError as exc:
            events += exc.events
            with pytest.raises(SSEError):
                parser.feed(b"data: x\n\n")
            return events, parser.last_event_id, parser.retry, True
    return events, parser.last_event_id, parser.retry, False


def reference(stream: bytes) -> tuple[list[ServerSentEvent], str | None, int | None]:
    """A direct, non-incremental transcription of the WHATWG rules (no size cap)."""
    if stream.startswith(b"\xef\xbb\xbf"):
        stream = stream[3:]
    lines = re.split("\r\n|\r|\n", stream.decode("utf-8", "replace"))
    lines.pop()  # the unterminated remainder is discarded at end of stream
    events: list[ServerSentEvent] = []
    data: list[str] = []
    event_type = ""
    id_buffer = ""
    last_id = ""
    retry: int | None = None
    block_retry: int | None = None
    for line in lines:
        if line == "":
            last_id = id_buffer
            if data:
                events.append(
                    E("\n".join(data), event_type or "message", last_id or None, block_retry)
                )
            data, event_type, block_retry = [], "", None
            continue
        if line.startswith(":"):
            continue
        name, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if name == "data":
            data.append(value)
        elif name == "event":
            event_type = value
        elif name == "id" and "\0" not in value:
            id_buffer = value
        elif name == "retry" and re.fullmatch("[0-9]+", value) and len(value.lstrip("0")) <= 18:
            retry = block_retry = int(value)
    return events, last_id or None, retry


# (stream, events, last_event_id, retry)
CASES: list[tuple[bytes, list[ServerSentEvent], str | None, int | None]] = [
    (b"data: hello\n\n", [E("hello")], None, None),
    (b"data:hello\n\n", [E("hello")], None, None),
    (b"data:  two\n\n", [E(" two")], None, None),
    (b"data: a\ndata: b\n\n", [E("a\nb")], None, None),
    (b"data\n\n", [E("")], None, None),
    (b"data:\ndata:\n\n", [E("\n")], None, None),
    (b"data: a\r\ndata: b\r\n\r\n", [E("a\nb")], None, None),
    (b"data: a\rdata: b\r\r", [E("a\nb")], None, None),
    (b"data: a\r\n\rdata: b\n\r\n", [E("a"), E("b")], None, None),
    (b"\xef\xbb\xbfdata: a\n\n", [E("a")], None, None),
    (b"\xef\xbb\xbf\xef\xbb\xbfdata: a\n\n", [], None, None),  # only one BOM is stripped
    (b"\xef\xbbdata: a\n\n", [], None, None),  # a broken BOM is part of the field name
    (b": ping\n\ndata: x\n: c\n\n:\n\n", [E("x")], None, None),
    (b"event: update\ndata: x\n\n", [E("x", "update")], None, None),
    (b"event: a\ndata: 1\n\ndata: 2\n\n", [E("1", "a"), E("2")], None, None),
    (b"event:\ndata: 1\n\n", [E("1")], None, None),
    (b"event: a\n\ndata: 1\n\n", [E("1")], None, None),  # type resets even when not dispatched
    (b"id: 1\ndata: a\n\ndata: b\n\n", [E("a", id="1"), E("b", id="1")], "1", None),
    (b"id: 1\ndata: a\n\nid\ndata: b\n\n", [E("a", id="1"), E("b")], None, None),
    (b"id: 1\n\nid: a\x00b\ndata: x\n\n", [E("x", id="1")], "1", None),
    (b"id: 7\n\n", [], "7", None),
    (b"id: 7\n", [], None, None),  # committed only by a blank line
    (b"data: x\nid: 7\n\n", [E("x", id="7")], "7", None),
    (b"retry: 1000\ndata: x\n\n", [E("x", retry=1000)], None, 1000),
    (b"retry: 1000\n\ndata: x\n\n", [E("x")], None, 1000),
    (b"retry: 5\n\nretry: 10a\n\n", [], None, 5),
    (b"retry: -1\n\nretry\n\nretry: \n\nretry: 1.5\n\n", [], None, None),
    (b"retry: 000123\n\n", [], None, 123),
    (b"retry: 0\n\n", [], None, 0),
    (b"retry: " + b"9" * 30 + b"\n\n", [], None, None),
    (b"foo: bar\ndata: x\nfoo\n\n", [E("x")], None, None),
    (b"Data: x\n\n", [], None, None),  # field names are case-sensitive
    (b"data: x\n", [], None, None),  # unterminated event: discarded at EOF
    (b"data: x", [], None, None),
    (b"event: x\n\n", [], None, None),  # empty data buffer: nothing dispatched
    (b"data: \xff\xfe\n\n", [E("\ufffd\ufffd")], None, None),
    ("data: é€😀\nevent: ✓\nid: ï\n\n".encode(), [E("é€😀", "✓", "ï")], "ï", None),
    (b"data: a:b: c\n\n", [E("a:b: c")], None, None),
    (b"", [], None, None),
]


@pytest.mark.parametrize(("stream", "events", "last_id", "retry"), CASES)
def test_cases_however_split(
    stream: bytes, events: list[ServerSentEvent], last_id: str | None, retry: int | None
) -> None:
    assert reference(stream) == (events, last_id, retry)
    for chunks in splittings(stream):
        assert run(chunks) == (events, last_id, retry, False), chunks


def test_event_defaults() -> None:
    event = ServerSentEvent("x")
    assert (event.data, event.event, event.id, event.retry) == ("x", "message", None, None)
    with pytest.raises(AttributeError):
        event.data = "y"  # type: ignore[misc]


def test_cr_at_chunk_end_then_lf() -> None:
    parser = SSEParser()
    assert parser.feed(b"data: a\r") == []
    assert parser.feed(b"\n") == []
    assert parser.feed(b"\r") == [E("a")]
    assert parser.feed(b"") == []
    assert parser.feed(b"\ndata: b\n\n") == [E("b")]  # the LF after a CR is swallowed


def test_accepts_bytearray() -> None:
    assert SSEParser().feed(bytearray(b"data: a\n\n")) == [E("a")]


CAP = 8
CAP_CASES: list[tuple[bytes, list[ServerSentEvent], bool]] = [
    (b"data: ab\n\n", [E("ab")], False),  # an 8-byte line is allowed
    (b"data: abc\n\n", [], True),
    (b"data: ab", [], False),  # partial line at the cap
    (b"data: abc", [], True),
    (b"data: x\n\ndata: abc\n\n", [E("x")], True),  # earlier events survive the error
    (b"data:abc\ndata:abc\n\n", [E("abc\nabc")], False),  # data buffer "abc\nabc\n" is 8
    (b"data:abc\ndata:abc\ndata:\n\n", [], True),
    (b"data:\ndata:\n\n", [E("\n")], False),
    (b"data\n" * 9 + b"\n", [], True),  # empty data lines still count
    (b"::::::::\n\n", [], False),
    (b":::::::::\n\n", [], True),  # comments are lines too
]


@pytest.mark.parametrize(("stream", "events", "failed"), CAP_CASES)
def test_cap_however_split(stream: bytes, events: list[ServerSentEvent], failed: bool) -> None:
    for chunks in splittings(stream):
        got, _, _, got_failed = run(chunks, CAP)
        assert (got, got_failed) == (events, failed), chunks


def test_cap_default_and_validation() -> None:
    assert DEFAULT_MAX_EVENT_BYTES == 4 * 1024 * 1024
    with pytest.raises(ValueError):
        SSEParser(0)


def test_huge_line_fails_without_buffering_it() -> None:
    parser = SSEParser(1024 * 1024)
    chunk = b"x" * 65536
    with pytest.raises(SSEError, match="exceeds max_event_bytes"):
        for _ in range(1000):
            parser.feed(chunk)
    with pytest.raises(SSEError):
        parser.feed(b"\n\n")


def test_sse_error_is_value_error() -> None:
    assert issubclass(SSEError, ValueError)
    assert SSEError("x").events == ()


# -- encoder ---------------------------------------------------------------------------------


def test_encode_fast_path() -> None:
    assert encode_event(b'{"a":1}') == b'data: {"a":1}\n\n'
    assert encode_event('{"a":"é"}') == 'data: {"a":"é"}\n\n'.encode()
    assert encode_event(b"") == b"data: \n\n"


def test_encode_all_fields() -> None:
    assert (
        encode_event("a\nb\r\nc\rd", event="e", id="1", retry=5)
        == b"id: 1\nevent: e\nretry: 5\ndata: a\ndata: b\ndata: c\ndata: d\n\n"
    )
    assert encode_event(b"x", id="") == b"id: \ndata: x\n\n"


@pytest.mark.parametrize("bad", ["a\nb", "a\rb", "a\0b"])
def test_encode_rejects_bad_id_and_event(bad: str) -> None:
    with pytest.raises(ValueError):
        encode_event("x", id=bad)
    with pytest.raises(ValueError):
        encode_event("x", event=bad)


def test_encode_rejects_negative_retry_and_surrogates() -> None:
    with pytest.raises(ValueError):
        encode_event("x", retry=-1)
    with pytest.raises(ValueError):
        encode_event("\ud800")


def test_encode_comment() -> None:
    assert encode_comment() == b":\n\n"
    assert encode_comment("ping") == b": ping\n\n"
    assert encode_comment("a\nb") == b": a\n: b\n\n"
    stream = encode_comment("k") + encode_event("x") + encode_comment() + encode_event("y")
    assert run([stream])[0] == [E("x"), E("y")]


# -- properties ------------------------------------------------------------------------------

no_surrogates = st.characters(exclude_categories=["Cs"])
field_text = st.text(st.characters(exclude_categories=["Cs"], exclude_characters="\r\n\0"))


def normalize(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


@given(
    data=st.one_of(st.text(no_surrogates), st.binary().map(lambda b: b.decode("latin-1"))),
    as_bytes=st.booleans(),
    event=st.none() | field_text,
    id=st.none() | field_text,
    retry=st.none() | st.integers(0, 10**12),
)
def test_encode_parse_round_trip(
    data: str, as_bytes: bool, event: str | None, id: str | None, retry: int | None
) -> None:
    payload: str | bytes = data.encode() if as_bytes else data
    parser = SSEParser()
    events = parser.feed(encode_event(payload, event=event, id=id, retry=retry))
    assert events == [ServerSentEvent(normalize(data), event or "message", id or None, retry)]
    assert parser.last_event_id == (id or None)
    assert parser.retry == retry


def cut(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({min(c, len(data)) for c in cuts})
    return [data[a:b] for a, b in zip([0, *points], [*points, len(data)], strict=True)]


sse_bytes = st.one_of(
    st.binary(max_size=80),
    st.lists(
        st.sampled_from(
            [
                *(b"\n", b"\r", b"\r\n", b":", b" ", b"data", b"id", b"event", b"retry"),
                *(b"7", b"\0", b"\xef\xbb\xbf", b"\xef", b"\xff", b"x"),
            ]
        ),
        max_size=40,
    ).map(b"".join),
)


@given(stream=sse_bytes, cuts=st.lists(st.integers(0, 100)))
def test_any_split_matches_reference(stream: bytes, cuts: list[int]) -> None:
    events, last_id, retry, failed = run(cut(stream, cuts))
    assert not failed
    assert (events, last_id, retry) == reference(stream)


@given(stream=sse_bytes, cuts=st.lists(st.integers(0, 100)), cap=st.integers(1, 12))
def test_small_cap_only_events_or_sse_error_and_split_independent(
    stream: bytes, cuts: list[int], cap: int
) -> None:
    whole = run([stream], cap)
    split = run(cut(stream, cuts), cap)
    assert all(isinstance(e, ServerSentEvent) for e in split[0])
    assert whole[0] == split[0]
    assert whole[3] == split[3]
    if not whole[3]:
        assert whole == split
